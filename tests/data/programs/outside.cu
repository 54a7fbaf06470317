// Accesses a little outside an allocation, which a GPU does not fault on (srad reads index
// -512 of its image; stencils read one past the end): warpsim goes on, the loads reading 0
// where nothing was written and the stores landing in the allocation's padding, and warns
// once per source line. An access far outside still faults.
#include <cstdio>

__global__ void neighbours(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float up = in[i - 512];  // before the allocation for the first 512 threads
    float right = in[i + 3];  // past its end for the last 3
    out[i] = in[i] + up + right;
}

__global__ void spill(int *p, int n) {
    int i = threadIdx.x;
    p[n + i] = i + 1;         // past the end: into the padding
    __syncthreads();
    p[i] = p[n + i] * 10;     // read back what was written there
}

__global__ void far(const float *in, float *out) { out[threadIdx.x] = in[threadIdx.x + (1 << 22)]; }

int main(int argc, char **argv) {
    const int n = 1024;
    float h[n], r[n];
    for (int i = 0; i < n; i++) h[i] = (float)i;
    float *in, *out;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof r);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    for (int rep = 0; rep < 3; rep++) neighbours<<<n / 256, 256>>>(in, out, n);
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    printf("neighbours -> %s %g %g %g %g\n", cudaGetErrorName(cudaGetLastError()), r[0], r[511],
           r[512], r[1023]);
    int *p, hp[32];
    cudaMalloc(&p, 32 * sizeof(int));
    spill<<<1, 32>>>(p, 32);
    cudaMemcpy(hp, p, sizeof hp, cudaMemcpyDeviceToHost);
    printf("spill -> %s %d %d\n", cudaGetErrorName(cudaGetLastError()), hp[0], hp[31]);
    if (argc > 1) {
        far<<<1, 32>>>(in, out);
        printf("far -> %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    }
    return 0;
}
