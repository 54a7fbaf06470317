// Dynamic shared memory as CUDA limits it: up to 48 KiB (less a kernel's static shared memory)
// unless cudaFuncAttributeMaxDynamicSharedMemorySize raised the kernel's limit, which goes no
// higher than the device's sharedMemPerBlockOptin. A launch over the limit is
// cudaErrorInvalidValue and runs nothing.
#include <cstdio>
#include <cuda_runtime.h>

// Fills all `n` ints of its dynamic shared memory and sums them.
__global__ void fill_sum(unsigned long long *out, int n) {
    extern __shared__ int buf[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long s = 0;
        for (int i = 0; i < n; i++) s += buf[i];
        *out = s;
    }
}

// 1 KiB of static shared memory beside the dynamic.
__global__ void with_static(unsigned long long *out) {
    __shared__ int fixed[256];
    extern __shared__ int buf[];
    fixed[threadIdx.x] = threadIdx.x;
    buf[threadIdx.x] = 1;
    __syncthreads();
    if (threadIdx.x == 0) *out = fixed[255] + buf[0];
}

#define SAY(call) printf("%s -> %s\n", #call, cudaGetErrorName(call))

static unsigned long long *d;

// Launch fill_sum over `bytes` of dynamic shared memory: its status, and the sum it found.
static void run(const char *what, size_t bytes) {
    cudaMemset(d, 0, sizeof *d);
    cudaGetLastError();  // what failed before is not this launch's
    int n = (int)(bytes / sizeof(int));
    fill_sum<<<1, 256, bytes>>>(d, n);
    cudaError_t e = cudaGetLastError();
    unsigned long long h = 0;
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    unsigned long long want = (unsigned long long)n * (n - 1) / 2;
    printf("launch %s -> %s, %s\n", what, cudaGetErrorName(e), h == want ? "sum right" : "nothing ran");
}

int main() {
    cudaMalloc(&d, sizeof *d);
    int optin = 0;
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
    printf("optin %d\n", optin);
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, fill_sum);
    printf("fill_sum limit %d\n", fa.maxDynamicSharedSizeBytes);

    run("48 KiB", 48 * 1024);
    run("48 KiB + 4", 48 * 1024 + 4);
    run("64 KiB", 64 * 1024);
    SAY(cudaFuncSetAttribute(fill_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
    cudaFuncGetAttributes(&fa, fill_sum);
    printf("fill_sum limit %d\n", fa.maxDynamicSharedSizeBytes);
    run("64 KiB raised", 64 * 1024);
    run("64 KiB + 4 raised", 64 * 1024 + 4);
    SAY(cudaFuncSetAttribute(fill_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 4));
    SAY(cudaFuncSetAttribute(fill_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, -1));
    SAY(cudaFuncSetAttribute(fill_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    run("optin", optin);

    // Static shared memory counts against both limits.
    cudaFuncGetAttributes(&fa, with_static);
    printf("with_static limit %d\n", fa.maxDynamicSharedSizeBytes);
    void *args[] = {&d};
    SAY(cudaLaunchKernel((const void *)with_static, dim3(1), dim3(256), args, 48 * 1024, 0));
    SAY(cudaFuncSetAttribute(with_static, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    SAY(cudaFuncSetAttribute(with_static, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - 1024));
    SAY(cudaLaunchKernel((const void *)with_static, dim3(1), dim3(256), args, optin - 1024, 0));

    SAY(cudaFuncSetAttribute(fill_sum, cudaFuncAttributePreferredSharedMemoryCarveout, 101));
    SAY(cudaFuncSetAttribute(fill_sum, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
    SAY(cudaDeviceSynchronize());
    cudaFree(d);
    return 0;
}
