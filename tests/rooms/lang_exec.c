/* A probe: the front end may not include the executor's header. */
#include "plan_int.h"
