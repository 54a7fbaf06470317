// CUDA's integer and rounding intrinsics whose results the host cannot compute: each kernel
// writes one intrinsic's results for 256 threads of varied operands, and the program prints a
// hash of them and a few values. The expected output (tests/programs.rs) was printed by this
// program built with nvcc 13 and run on an H200.
#include <cstdio>
#include <cuda_runtime.h>

#define N 256

__device__ unsigned word(int t, unsigned salt) {
    unsigned x = ((t + 1) * 2654435761u ^ salt) * 0x85ebca6bu;
    return x ^ (x >> 16);
}

__global__ void intrinsics(unsigned *o) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = word(t, 0x9e3779b9u), y = word(t, 0x7f4a7c15u), s = word(t, 0x2545f491u);
    int sx = (int)x, sy = (int)y;
    unsigned *r = o + t * 16;
    r[0] = __byte_perm(x, y, s);
    r[1] = __byte_perm(x, y, t);
    r[2] = __funnelshift_l(x, y, s);
    r[3] = __funnelshift_lc(x, y, t % 40);
    r[4] = __funnelshift_r(x, y, s);
    r[5] = __funnelshift_rc(x, y, t % 40);
    r[6] = __sad(sx >> (t % 8), sy >> 3, s);
    r[7] = __usad(x, y, s);
    r[8] = (unsigned)__hadd(sx, sy);
    r[9] = (unsigned)__rhadd(sx, sy);
    r[10] = __uhadd(x, y);
    r[11] = __urhadd(x, y);
    r[12] = (unsigned)__mul24(sx, sy);
    r[13] = __umul24(x, y);
    float f = (sx >> 8) / 64.0f;
    double d = (sy >> 12) / 16.0;
    r[14] = (unsigned)(lrintf(f) * 3 + llrintf(-f) + lroundf(f) * 5 + llroundf(f / 2));
    r[15] = (unsigned)(lrint(d) * 7 + llrint(-d) * 3 + lround(d) + llround(d / 4) * 11);
}

int main() {
    unsigned *o;
    cudaMallocManaged(&o, N * 16 * sizeof(unsigned));
    intrinsics<<<N / 64, 64>>>(o);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("%s\n", cudaGetErrorString(e));
        return 1;
    }
    const char *names[16] = {"byte_perm", "byte_perm_t", "funnelshift_l", "funnelshift_lc",
                             "funnelshift_r", "funnelshift_rc", "sad", "usad", "hadd", "rhadd",
                             "uhadd", "urhadd", "mul24", "umul24", "rint_round_f", "rint_round_d"};
    for (int k = 0; k < 16; k++) {
        unsigned long long h = 14695981039346656037ull;
        for (int t = 0; t < N; t++) h = (h ^ o[t * 16 + k]) * 1099511628211ull;
        printf("%s %016llx %08x %08x\n", names[k], h, o[7 * 16 + k], o[200 * 16 + k]);
    }
    return 0;
}
