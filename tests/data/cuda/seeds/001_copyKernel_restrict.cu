// Seed document: shared/seeds/001_b2e8ab6b842629ba.txt, lines 410-413, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
__global__ void copyKernel(int * __restrict__ out, const int * __restrict__ in) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    out[idx] = in[idx];
}
