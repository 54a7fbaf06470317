// Arrays of pointers in a struct passed to a kernel by value (HeCBench axpby's
// `void *addresses[3][48]`, read as `tl.addresses[d][tensor]` with `tensor` from
// `block_to_tensor[blockIdx.x]`): each element a buffer of its own, the last index known only at
// run time picking among them; the pointer then moved and compared as any other. And
// `std::aligned_storage<16, 16>::type` copying 4 floats as one 16-byte access, into and out of
// a thread's own array. The host computes every expected value from the same data.
#include <cstdio>
#include <type_traits>

struct Lists {
    float *addresses[3][6];
    int lengths[6];
    unsigned char block_to_tensor[12];
};

__global__ void axpy(Lists l, float a) {
    int tensor = l.block_to_tensor[blockIdx.x];
    const float *x = (const float *)l.addresses[0][tensor];
    const float *y = l.addresses[1][tensor];
    float *out = l.addresses[2][tensor];
    int half = blockIdx.x % 2;
    x += half * 32;
    y += half * 32;
    out += half * 32;
    int i = threadIdx.x;
    if (half * 32 + i < l.lengths[tensor]) out[i] = a * x[i] + y[i];
}

typedef std::aligned_storage<16, 16>::type Quad;

__global__ void copy_quads(const float *in, float *out) {
    float r[4];
    ((Quad *)r)[0] = ((const Quad *)in)[threadIdx.x];
    for (int k = 0; k < 4; k++) r[k] *= 2;
    ((Quad *)out)[threadIdx.x] = ((Quad *)r)[0];
}

int main() {
    const int tensors = 6;
    static Lists l;
    static float h[3][tensors][64];
    for (int t = 0; t < tensors; t++) {
        l.lengths[t] = 40 + t * 4;
        for (int d = 0; d < 3; d++) {
            for (int i = 0; i < 64; i++) h[d][t][i] = d == 2 ? -1 : d * 100 + t * 10 + i * 0.5f;
            cudaMalloc(&l.addresses[d][t], 64 * sizeof(float));
            cudaMemcpy(l.addresses[d][t], h[d][t], 64 * sizeof(float), cudaMemcpyHostToDevice);
        }
    }
    // Two blocks per tensor, in an order of their own.
    for (int b = 0; b < 12; b++) l.block_to_tensor[b] = ((b / 2) * 5) % tensors;
    axpy<<<12, 32>>>(l, 3.0f);
    int same = 0;
    float last = 0;
    for (int t = 0; t < tensors; t++) {
        float got[64];
        cudaMemcpy(got, l.addresses[2][t], sizeof got, cudaMemcpyDeviceToHost);
        for (int i = 0; i < 64; i++) {
            float want = i < l.lengths[t] ? 3.0f * h[0][t][i] + h[1][t][i] : -1;
            same += got[i] == want;
        }
        last = got[l.lengths[t] - 1];
    }
    printf("pointer arrays %d of %d, last %.2f\n", same, tensors * 64, last);
    float hin[128], hout[128], *din, *dout;
    for (int i = 0; i < 128; i++) hin[i] = i * 0.25f;
    cudaMalloc(&din, sizeof hin);
    cudaMalloc(&dout, sizeof hout);
    cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice);
    copy_quads<<<1, 32>>>(din, dout);
    cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost);
    same = 0;
    for (int i = 0; i < 128; i++) same += hout[i] == hin[i] * 2;
    printf("aligned storage %d of 128, size %zu align %zu\n", same, sizeof(Quad), alignof(Quad));
    return 0;
}
