// Seed document: shared/seeds/001_b2e8ab6b842629ba.txt, lines 701-711, copied verbatim below this header.
// Defines needed: none
// Status: INCOMPLETE as printed: line 5 of the kernel, `C[i] = A[k]`, lacks `+ B[k];` (a typo in the document), so it is a syntax error; lowering fails with a diagnostic there.
__global__ void readOffsetUnroll4(float *A, float *B, float *C, const int n, int offset) {
    unsigned int i = blockIdx.x * blockDim.x * 4 + threadIdx.x;
    unsigned int k = i + offset;
    if (k + 3 * blockDim.x < n) {
        C[i] = A[k]
        C[i + blockDim.x] = A[k + blockDim.x] + B[k + blockDim.x];
        C[i + 2 * blockDim.x] = A[k + 2 * blockDim.x] + B[k + 2 * blockDim.x];
        C[i + 3 * blockDim.x] = A[k + 3 * blockDim.x] + B[k + 3 * blockDim.x];
    }
}
```
