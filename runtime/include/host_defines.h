/* warpsim's stand-in for the CUDA toolkit's host_defines.h.
 *
 * The host pass of `warpsim cu` compiles a program's host code with the system C++ compiler, as
 * nvcc's host pass does: the CUDA qualifiers mean nothing there (device code has been taken out
 * of the file), so they expand to nothing or to the compiler's own attributes. */
#ifndef WARPSIM_HOST_DEFINES_H
#define WARPSIM_HOST_DEFINES_H
#define __HOST_DEFINES_H__

#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __grid_constant__
#define __device_builtin__
#define __cudart_builtin__
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define __forceinline__ inline __attribute__((always_inline))
// Empty, not __attribute__((noinline)): libstdc++ 13 spells `__attribute__((__noinline__))`,
// which the longer form would break; the hint means nothing to host code.
#define __noinline__
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __thread__ __thread
#define __import__
#define __export__
#define __location__(a) __##a
#define CUDARTAPI
#define CUDART_CB
#define CUDAAPI


/* Default arguments of the C API, in C++ only (as the toolkit's headers spell them). */
#ifdef __cplusplus
#define __dv(v) = v
#else
#define __dv(v)
#endif

#endif
