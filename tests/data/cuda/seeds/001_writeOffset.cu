// Seed document: shared/seeds/001_b2e8ab6b842629ba.txt, lines 437-441, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
__global__ void writeOffset(float *A, float *B, float *C, const int n, int offset) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;
    if (k < n) C[k] = A[i] + B[i];
}
