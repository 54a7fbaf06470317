// A kernel with a parameter of its own name (HeCBench keogh's `lb_keogh(..., float *lb_keogh)`),
// in a namespace and as a template too: the host stub must launch the kernel, not the parameter.
#include <cstdio>

__global__ void scale(float *scale, float by) { scale[threadIdx.x] *= by; }

namespace ops {
template <typename T> __global__ void add(T *add, T x) { add[threadIdx.x] += x; }
}

int main() {
    float *d;
    cudaMalloc(&d, 32 * sizeof(float));
    float h[32];
    for (int i = 0; i < 32; i++) h[i] = (float)i;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    scale<<<1, 32>>>(d, 3.0f);
    ops::add<float><<<1, 32>>>(d, 0.5f);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s %.1f %.1f\n", cudaGetErrorString(e), h[1], h[31]);
    return 0;
}
