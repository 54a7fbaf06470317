// The interface between the host code (main.cpp, compiled as C++ only) and the CUDA code
// (kernels.cu): plain C functions, as multi-file CUDA programs usually have it.
#ifndef KERNELS_H
#define KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

// Histogram of `n` bytes into 256 bins, on the GPU; returns 0 on success.
int gpu_histogram(const unsigned char *data, int n, unsigned int *bins);

// Scale `n` floats by `k` in place, on the GPU; returns 0 on success.
int gpu_scale(float *data, int n, float k);

#ifdef __cplusplus
}
#endif

#endif
