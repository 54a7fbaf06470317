/* warpsim's stand-in for the CUDA toolkit's builtin_types.h. */
#ifndef WARPSIM_BUILTIN_TYPES_H
#define WARPSIM_BUILTIN_TYPES_H
#include "driver_types.h"
#include "vector_types.h"
#endif
