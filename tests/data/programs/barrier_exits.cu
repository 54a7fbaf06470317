// Barriers inside loops that threads leave after different numbers of iterations: since Volta
// a barrier waits for the threads that have not exited, so where nothing after the loop
// reaches a barrier, the threads that left run on to their exit and each barrier inside waits
// for the threads still looping (Barnes-Hut's tree building). Each kernel's result is checked
// against the host's.
#include <cstdio>
#include <cuda_runtime.h>

// Threads leave after t % 5 + 1 iterations (every warp diverges), then exit.
__global__ void leave_then_exit(int *out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = 0;
    __syncthreads();
    for (int k = 0; k < t % 5 + 1; k++) {
        s[t] += k + 1;
        __syncthreads();
    }
    out[t] = s[t];
}

// A while loop with its barrier last, work after it, and a loop inside a device function.
__device__ int walk(int *s, int t) {
    int i = t;
    while (i < 300) {
        s[t] += 1;
        i += 64 + t;
        __syncthreads();
    }
    return s[t];
}

__global__ void leave_then_work(int *out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    out[t] = walk(s, t) * 2;
}

int main() {
    int *o;
    cudaMallocManaged(&o, 128 * sizeof(int));
    leave_then_exit<<<1, 128>>>(o);
    cudaError_t e = cudaDeviceSynchronize();
    int bad = 0;
    for (int t = 0; t < 128; t++) {
        int n = t % 5 + 1;
        bad += o[t] != n * (n + 1) / 2;
    }
    printf("leave_then_exit: %s, %d wrong\n", cudaGetErrorString(e), bad);
    leave_then_work<<<1, 128>>>(o);
    e = cudaDeviceSynchronize();
    bad = 0;
    for (int t = 0; t < 128; t++) {
        int n = 0;
        for (int i = t; i < 300; i += 64 + t) n++;
        bad += o[t] != (t + n) * 2;
    }
    printf("leave_then_work: %s, %d wrong\n", cudaGetErrorString(e), bad);
    return 0;
}
