/* A probe: the CLI room may not include the planner's header. */
#include "plan.h"
