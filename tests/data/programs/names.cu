// A program whose own globals have the short names warpsim's runtime once used for its helpers
// (`rows`, `row_bytes`, ...): they are the program's, so it links and runs with them.
#include <cstdio>
#include <cuda_runtime.h>

int rows = 4;
int row_bytes = 3;
int default_pool[2] = {5, 6};
int texel_bytes(int x) { return 2 * x; }
int add_node(int a, int b) { return a + b; }
int *in_array(int *p, int i) { return p + i; }
int copy3d = 7;
int pitched(int x) { return x + 1; }

__global__ void fill(int *out, int a, int b) { out[threadIdx.x] = a * threadIdx.x + b; }

int main() {
    int n = rows * row_bytes;
    int *d = nullptr;
    if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return 1;
    fill<<<1, n>>>(d, texel_bytes(default_pool[0]), add_node(copy3d, pitched(default_pool[1])));
    int h[12] = {0};
    cudaError_t e = cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
    printf("%s:", cudaGetErrorName(e));
    for (int i = 0; i < n; i++) printf(" %d", *in_array(h, i));
    printf("\n");
    cudaFree(d);
    return 0;
}
