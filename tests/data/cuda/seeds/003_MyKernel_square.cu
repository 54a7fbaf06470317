// Seed document: shared/seeds/003_d89a6926aa32aaa4.txt, lines 150-156, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
__global__ void MyKernel(int *array, int arrayCount)
{
    int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx < arrayCount) {
        array[idx] *= array[idx];
    }
}
