// Seed document: shared/seeds/001_b2e8ab6b842629ba.txt, struct from lines 492-495, kernel from lines 518-527, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
struct innerStruct {
    float x;
    float y;
};

__global__ void testInnerStruct(innerStruct *data, innerStruct *result, const int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        innerStruct tmp = data[i];
        tmp.x += 10.f;
        tmp.y += 20.f;
        result[i] = tmp;
    }
}
```
