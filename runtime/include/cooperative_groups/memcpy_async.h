/* warpsim: cooperative_groups/memcpy_async.h, host side (device code is read by warpsim). */
#include "../cooperative_groups.h"
