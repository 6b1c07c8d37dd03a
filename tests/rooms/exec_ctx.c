/* A probe: the executor may not include the api room's context. */
#include "ctx.h"
