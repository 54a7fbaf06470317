// A header whose macros define kernels (included by macro_kernels.cu).
#pragma once
#define UNARY_KERNEL(name, op)                                              \
    __global__ void name(const int *in, long long *out, int n) {          \
        int t = blockIdx.x * blockDim.x + threadIdx.x;                      \
        if (t < n) out[t] = op(in[t]);                                      \
    }
