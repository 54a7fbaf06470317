// Seed document: shared/seeds/001_b2e8ab6b842629ba.txt, struct from lines 502-505, kernel from lines 643-654, copied verbatim below this header.
// Defines needed: -D N=1048576 (the document's LEN, 1<<20) -D InnerArray=innerArray (the kernel spells the struct `InnerArray`, the document defines `struct innerArray`)
// Status: complete with the defines; lowers.
struct innerArray {
    float x[N];
    float y[N];
};

__global__ void testInnerArray(InnerArray *data,InnerArray *result, const int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i<n) {
        float tmpx = data->x[i];
        float tmpy = data->y[i];
        tmpx += 10.f;
        tmpy += 20.f;
        result->x[i] = tmpx;
        result->y[i] = tmpy;
    }
}

