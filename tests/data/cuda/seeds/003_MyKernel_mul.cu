// Seed document: shared/seeds/003_d89a6926aa32aaa4.txt, lines 110-114, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
__global__ void MyKernel(int *d, int *a, int *b)
{
    int idx = threadIdx.x + blockIdx.x * blockDim.x;
    d[idx] = a[idx] * b[idx];
}
