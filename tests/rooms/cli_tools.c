/* A probe: the CLI room may include lay.h and lay_tools.h. */
#include "lay.h"
#include "lay_tools.h"
int probe_cli_ok(void);
int probe_cli_ok(void) { return LAY_OK; }
