// Seed document: shared/seeds/001_b2e8ab6b842629ba.txt, lines 401-404, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
__global__ void copyKernel(int *out, int *in) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    out[idx] = __ldg(&in[idx]);
}
