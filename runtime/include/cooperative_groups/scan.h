/* warpsim: cooperative_groups/scan.h, host side (device code is read by warpsim). */
#include "../cooperative_groups.h"
