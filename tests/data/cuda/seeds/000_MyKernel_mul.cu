// Seed document: shared/seeds/000_a0c6b6cae806a995.txt, lines 75-79, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
__global__ void MyKernel(int *d, int *a, int *b)
{
    int idx = threadIdx.x + blockIdx.x * blockDim.x;
    d[idx] = a[idx] * b[idx];
}
