/* warpsim's stand-in for the CUDA toolkit's cuda_profiler_api.h. */
#ifndef WARPSIM_CUDA_PROFILER_API_H
#define WARPSIM_CUDA_PROFILER_API_H
#include "cuda_runtime_api.h"
#endif
