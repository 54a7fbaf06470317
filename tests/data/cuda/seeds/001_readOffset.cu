// Seed document: shared/seeds/001_b2e8ab6b842629ba.txt, lines 217-221, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
__global__ void readOffset(float *A, float *B, float *C, const int n, int offset) {  
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;  
    unsigned int k = i + offset;  
    if (k < n) C[i] = A[k] + B[k];  
}
