// Bugs check mode must fail the program on, as compute-sanitizer does: an access past the end
// of an allocation or before its start (the launch fails: the program sees the error) and a
// barrier that half the block skips (the launch fails; the exit status says a hazard was found).
#include <cstdio>
#include <cstring>
__global__ void past_the_end(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) a[i] = 2.0f * a[i];  // `<=`: one element too many
}
__global__ void before_the_start(float *a) {
    int i = (int)threadIdx.x - 64;  // the first 64 threads write before the allocation
    a[i] = 1.0f;
}
__global__ void half_barrier(int *out) {
    __shared__ int s[128];
    s[threadIdx.x] = threadIdx.x;
    if (threadIdx.x < 64) {
        __syncthreads();
        s[threadIdx.x] += s[threadIdx.x + 64];
    }
    __syncthreads();
    if (threadIdx.x == 0) *out = s[0];
}
int main(int argc, char **argv) {
    const char *how = argc > 1 ? argv[1] : "oob";
    if (!strcmp(how, "oob")) {
        float *a;
        cudaMalloc(&a, 1000 * sizeof(float));
        past_the_end<<<4, 256>>>(a, 1000);
    } else if (!strcmp(how, "negative")) {
        float *a;
        cudaMalloc(&a, 1000 * sizeof(float));
        before_the_start<<<1, 128>>>(a);
    } else {
        int *d;
        cudaMalloc(&d, sizeof(int));
        half_barrier<<<1, 128>>>(d);
    }
    printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
