/* warpsim's stand-in for the CUDA toolkit's device_launch_parameters.h: threadIdx and the other
 * built-in variables exist in device code only, which warpsim reads itself. */
#ifndef WARPSIM_DEVICE_LAUNCH_PARAMETERS_H
#define WARPSIM_DEVICE_LAUNCH_PARAMETERS_H
#include "vector_types.h"
#endif
