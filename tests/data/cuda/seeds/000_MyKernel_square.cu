// Seed document: shared/seeds/000_a0c6b6cae806a995.txt, lines 113-119, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
__global__ void MyKernel(int *array, int arrayCount)
{
    int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx < arrayCount) {
        array[idx] *= array[idx];
    }
}
