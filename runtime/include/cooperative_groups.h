/* warpsim's stand-in for the CUDA toolkit's cooperative_groups.h, host side: cooperative
 * groups exist in device code, which warpsim reads itself; host code only needs the namespace
 * (for `namespace cg = cooperative_groups;`). */
#ifndef WARPSIM_COOPERATIVE_GROUPS_H
#define WARPSIM_COOPERATIVE_GROUPS_H
#include "cuda_runtime.h"
#ifdef __cplusplus
namespace cooperative_groups {
namespace details {}
namespace experimental {}
}  // namespace cooperative_groups
#endif
#endif
