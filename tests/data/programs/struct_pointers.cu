// Kernel arguments gathered in a struct passed by value, pointers included, as real code passes
// its buffers: nested structs, a null pointer checked, the struct handed to device functions,
// member functions of the nested struct that return or index its pointer.
#include <cstdio>
#include <cuda_runtime.h>

struct Input {
    const float *x;
    int n;
    __host__ __device__ const float *data() const { return x; }
    __device__ float at(int i) const { return x[i]; }
};

struct Args {
    Input in;
    float *out;
    float *unused;  // null
    float scale;
};

__device__ void add_into(Input in, float *o, int i) { o[i] += in.x[i] + in.n; }

// Through the outer struct: `a.in.data()`, as `e.name.c_str()` is written.
__global__ void methods(Args a, float *o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.in.n) o[i] = a.in.data()[i] + a.in.at(i);
}

__device__ void finish(Args a, int i) {
    if (a.unused == nullptr) add_into(a.in, a.out, i);
}

__global__ void scaled(Args a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.in.n && a.out != nullptr) a.out[i] = a.in.x[i] * a.scale;
}

__global__ void finished(Args a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.in.n) finish(a, i);
}

int main() {
    const int n = 1000;
    float h[n], back[n];
    for (int i = 0; i < n; i++) h[i] = float(i);
    float *x = nullptr, *out = nullptr, *twice = nullptr;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&twice, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
    Args a = {{x, n}, out, nullptr, 0.5f};
    scaled<<<(n + 127) / 128, 128>>>(a);
    finished<<<(n + 127) / 128, 128>>>(a);
    methods<<<(n + 127) / 128, 128>>>(a, twice);
    cudaMemcpy(back, out, n * sizeof(float), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += back[i] != 0.5f * i + i + n;
    cudaMemcpy(back, twice, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) bad += back[i] != 2.0f * i;
    printf("%s (%d wrong)\n", bad == 0 ? "PASSED" : "FAILED", bad);
    return cudaGetLastError() == cudaSuccess && bad == 0 ? 0 : 1;
}
