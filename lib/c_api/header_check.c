/* Compiled as strict C99 with every build: include/jitk/jitk_c.h must stay a
 * C header (no C++ types, no C++-only syntax). */
#include "jitk/jitk_c.h"

typedef char jitk_arg_is_40_bytes[sizeof(jitk_arg) == 40 ? 1 : -1];
typedef char jitk_resources_is_32_bytes[sizeof(jitk_resources) == 32 ? 1 : -1];
