#include "carom/types.h"

const char *cr_status_string(cr_status s)
{
    switch (s) {
    case CR_OK: return "ok";
    case CR_ERR_INVALID_ARGUMENT: return "invalid argument";
    case CR_ERR_UNINITIALIZED_DEF: return "def not initialised by its cr_default_*_def()";
    case CR_ERR_STALE_ID: return "stale or invalid id";
    case CR_ERR_OUT_OF_MEMORY: return "out of memory";
    case CR_ERR_NON_FINITE: return "non-finite value in the simulation";
    case CR_ERR_REENTRANT: return "world function called from the world's own callback";
    }
    return "unknown status";
}
