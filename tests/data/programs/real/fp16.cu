// Half precision as a GPU computes it: every conversion and operation over edge and
// pseudo-random operands, on the device and on the host, a line per operation with the FNV-1a
// hash of all its results' bits. fp16.h200.txt is this program built with `nvcc --fmad=false`
// (warpsim evaluates `a * b + c` as written: README) and run on an H200; its host column is
// NVIDIA's host emulation, which the test leaves aside.
#include <cuda_fp16.h>
#include <cstdio>
#include <cstring>

const int N = 1 << 16;  // threads: thread i's half operand is i's 16 bits

enum { F2H, D2H, H2F, ADD, SUB, MUL, DIV, FMA, NEG, ABS, MAXH, MINH, CMP, TOINT, INT2H, OPS2, NATIVE,
       OPS };
const char *names[OPS] = {"float2half", "double2half", "half2float", "hadd", "hsub", "hmul",
                          "hdiv", "hfma", "hneg", "habs", "hmax", "hmin", "compare", "half2int_rz",
                          "int2half_rn", "half2-ops", "operators"};

__host__ __device__ unsigned int mix(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

__host__ __device__ float float_of(unsigned int u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

// Floats near half's range, its subnormals, its ties, and any bits.
__host__ __device__ float operand(unsigned int i) {
    unsigned int r = mix(i * 2654435761u + 12345u);
    switch (i % 4) {
    case 0: return float_of(r);
    case 1: return float_of((r & 0x807fffffu) | ((103u + (r >> 8) % 44u) << 23));
    case 2: return float_of((r & 0x80ffe000u) | 0x00001000u | ((103u + (r >> 9) % 44u) << 23));
    default: return (float)(int)(r % 200001u) - 100000.0f + (float)(r % 7u) * 0.25f;
    }
}

__host__ __device__ unsigned int bits_of(float f) {
    unsigned int u;
    memcpy(&u, &f, 4);
    return u;
}

// Results of operation `op` for thread `i`, as up to two words.
__host__ __device__ void compute(int op, unsigned int i, unsigned int *w0, unsigned int *w1) {
    __half a = __ushort_as_half((unsigned short)i);
    __half b = __ushort_as_half((unsigned short)mix(i));
    __half c = __ushort_as_half((unsigned short)(mix(i + 7u) >> 3));
    *w1 = 0;
    switch (op) {
    case F2H: *w0 = __half_as_ushort(__float2half(operand(i))); *w1 = __half_as_ushort(__float2half_rn(-operand(i + 1))); break;
    case D2H: {
        double d = (double)operand(i) * (1.0 + (double)(mix(i) % 1000u) * 1e-9);
        *w0 = __half_as_ushort(__double2half(d));
        break;
    }
    case H2F: *w0 = bits_of(__half2float(a)); break;
    case ADD: *w0 = __half_as_ushort(__hadd(a, b)); break;
    case SUB: *w0 = __half_as_ushort(__hsub(a, b)); break;
    case MUL: *w0 = __half_as_ushort(__hmul(a, b)); break;
    case DIV: *w0 = __half_as_ushort(__hdiv(a, b)); break;
    case FMA:
#ifdef __CUDA_ARCH__  // (the fused forms are device functions)
        *w0 = __half_as_ushort(__hfma(a, b, c));
#else
        *w0 = 0;
#endif
        break;
    case NEG: *w0 = __half_as_ushort(__hneg(a)); break;
    case ABS: *w0 = __half_as_ushort(__habs(a)); break;
    case MAXH: *w0 = __half_as_ushort(__hmax(a, b)); break;
    case MINH: *w0 = __half_as_ushort(__hmin(a, b)); break;
    case CMP:
        *w0 = __heq(a, b) | __hne(a, b) << 1 | __hlt(a, b) << 2 | __hle(a, b) << 3 | __hgt(a, b) << 4 |
              __hge(a, b) << 5 | __hisnan(a) << 6 | (__hisinf(a) & 3) << 7 | (a == b) << 9 | (a != b) << 10 |
              (a < b) << 11;
        break;
    case TOINT: *w0 = (unsigned int)__half2int_rz(a); break;
    case INT2H: *w0 = __half_as_ushort(__int2half_rn((int)mix(i) >> (i % 24u))); break;
    case OPS2: {
        __half2 x = __halves2half2(a, b), y = __floats2half2_rn(operand(i), 0.5f);
#ifdef __CUDA_ARCH__
        __half2 r = __hfma2(x, y, __hmul2(x, x));
#else
        __half2 r = __hmul2(x, x);
#endif
        r = __hadd2(r, __hsub2(y, __float2half2_rn(1.5f)));
        float2 f = __half22float2(r);
        *w0 = bits_of(f.x) ^ bits_of(__low2float(x) + __high2float(y));
        *w1 = bits_of(f.y);
        break;
    }
    default: {
        __half x = a * b + c;
        x += a;
        x = x / b - c;
        x = -x;
        __half2 p(a, c), q(b, 2.0f);
        p = p * q + p;
        *w0 = __half_as_ushort(x) | (unsigned int)__half_as_ushort(p.x) << 16;
        *w1 = __half_as_ushort(p.y) | (unsigned int)__half_as_ushort(__float2half((float)x * 3.0f)) << 16;
    }
    }
}

__global__ void run(int op, unsigned int *out) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    compute(op, i, &out[2 * i], &out[2 * i + 1]);
}

unsigned int fnv(const unsigned int *w, int n) {
    unsigned int h = 2166136261u;
    for (int k = 0; k < n; k++)
        for (int b = 0; b < 4; b++) {
            h ^= (w[k] >> (8 * b)) & 0xffu;
            h *= 16777619u;
        }
    return h;
}

int main() {
    unsigned int *d;
    static unsigned int h[2 * N], host[2 * N];
    cudaMalloc(&d, sizeof h);
    for (int op = 0; op < OPS; op++) {
        run<<<N / 256, 256>>>(op, d);
        cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
        for (unsigned int i = 0; i < N; i++) compute(op, i, &host[2 * i], &host[2 * i + 1]);
        printf("%-12s device %08x host %08x\n", names[op], fnv(h, 2 * N), fnv(host, 2 * N));
    }
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
