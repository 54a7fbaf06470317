/* warpsim: cooperative_groups/reduce.h, host side (device code is read by warpsim). */
#include "../cooperative_groups.h"
