// bfloat16 and fp8 as a GPU computes them: every conversion and operation over edge and
// pseudo-random operands, on the device and on the host (the same header on both sides), a
// line per operation with the FNV-1a hash of all its results' bits; then known bit patterns
// (ties, NaN, overflow, saturation), device and host. Built with `nvcc --fmad=false` and run on
// a GPU, its device column is the GPU's truth (warpsim evaluates `a * b + c` as written).
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdio>
#include <cstring>

const int N = 1 << 16;  // threads: thread i's bfloat16 operand is i's 16 bits

enum { F2B, DIRECTED, D2B, B2F, ADD, SUB, MUL, DIV, FMA, NEG, ABS, MAXB, MINB, CMP, TOINT, INT2B, OPS2,
       NATIVE, E4M3, E5M2, FROM8, CLASSES, OPS };
const char *names[OPS] = {"float2bf16", "rz-rd-ru", "double2bf16", "bf162float", "hadd", "hsub",
                          "hmul", "hdiv", "hfma", "hneg", "habs", "hmax", "hmin", "compare", "bf162int",
                          "int2bf16", "bf162-ops", "operators", "float2e4m3", "float2e5m2",
                          "fp8tohalf", "fp8-classes"};

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

__host__ __device__ unsigned int bits_of(float f) {
    unsigned int u;
    memcpy(&u, &f, 4);
    return u;
}

// Any bits, bfloat16 ties (the low half exactly 0x8000), values near fp8's ranges, integers.
__host__ __device__ float operand(unsigned int i) {
    unsigned int r = mix(i * 2654435761u + 12345u);
    switch (i % 5) {
    case 0: return float_of(r);
    case 1: return float_of((r & 0xffff0000u) | 0x8000u);
    case 2: return float_of((r & 0x807fffffu) | ((110u + (r >> 8) % 40u) << 23));
    case 3: return float_of((r & 0x807fffffu) | ((r >> 9) % 3u << 23));  // subnormals and the smallest
    default: return (float)(int)(r % 200001u) - 100000.0f + (float)(r % 7u) * 0.25f;
    }
}

// Results of operation `op` for thread `i`, as up to two words.
__host__ __device__ void compute(int op, unsigned int i, unsigned int *w0, unsigned int *w1) {
    __nv_bfloat16 a = __ushort_as_bfloat16((unsigned short)i);
    __nv_bfloat16 b = __ushort_as_bfloat16((unsigned short)mix(i));
    __nv_bfloat16 c = __ushort_as_bfloat16((unsigned short)(mix(i + 7u) >> 3));
    float f = operand(i);
    *w1 = 0;
    switch (op) {
    case F2B: *w0 = __bfloat16_as_ushort(__float2bfloat16(f)); *w1 = __bfloat16_as_ushort(__float2bfloat16_rn(-operand(i + 1))); break;
    case DIRECTED:
        *w0 = __bfloat16_as_ushort(__float2bfloat16_rz(f));
        *w1 = __bfloat16_as_ushort(__float2bfloat16_rd(f)) | (unsigned int)__bfloat16_as_ushort(__float2bfloat16_ru(f)) << 16;
        break;
    case D2B: {
        double d = (double)f * (1.0 + (double)(mix(i) % 1000u) * 1e-12);
        *w0 = __bfloat16_as_ushort(__double2bfloat16(d));
        break;
    }
    case B2F: *w0 = bits_of(__bfloat162float(a)); break;
    case ADD: *w0 = __bfloat16_as_ushort(__hadd(a, b)); break;
    case SUB: *w0 = __bfloat16_as_ushort(__hsub(a, b)); break;
    case MUL: *w0 = __bfloat16_as_ushort(__hmul(a, b)); break;
    case DIV: *w0 = __bfloat16_as_ushort(__hdiv(a, b)); break;
    case FMA: *w0 = __bfloat16_as_ushort(__hfma(a, b, c)); break;
    case NEG: *w0 = __bfloat16_as_ushort(__hneg(a)); break;
    case ABS: *w0 = __bfloat16_as_ushort(__habs(a)); break;
    case MAXB: *w0 = __bfloat16_as_ushort(__hmax(a, b)); break;
    case MINB: *w0 = __bfloat16_as_ushort(__hmin(a, b)); break;
    case CMP:
        *w0 = __heq(a, b) | __hne(a, b) << 1 | __hlt(a, b) << 2 | __hle(a, b) << 3 | __hgt(a, b) << 4 |
              __hge(a, b) << 5 | __hisnan(a) << 6 | (__hisinf(a) & 3) << 7 | (a == b) << 9 | (a != b) << 10 |
              (a < b) << 11 | (a >= b) << 12;
        break;
    case TOINT: *w0 = (unsigned int)__bfloat162int_rz(a); *w1 = __bfloat162uint_rz(a); break;
    case INT2B:
        *w0 = __bfloat16_as_ushort(__int2bfloat16_rn((int)mix(i) >> (i % 24u)));
        *w1 = __bfloat16_as_ushort(__uint2bfloat16_rn(mix(i) >> (i % 20u)));
        break;
    case OPS2: {
        __nv_bfloat162 x = __halves2bfloat162(a, b), y = __floats2bfloat162_rn(f, 0.5f);
        __nv_bfloat162 r = __hfma2(x, y, __hmul2(x, x));
        r = __hadd2(r, __hsub2(y, __float2bfloat162_rn(1.5f)));
        r = __h2div(r, __hmax2(__habs2(y), __hneg2(__lowhigh2highlow(x))));
        float2 g = __bfloat1622float2(__hmin2(r, __bfloat162bfloat162(c)));
        *w0 = bits_of(g.x) ^ bits_of(__low2float(x) + __high2float(y));
        *w1 = bits_of(g.y) ^ __bfloat16_as_ushort(__low2bfloat16(__highs2bfloat162(x, y)));
        break;
    }
    case NATIVE: {
        __nv_bfloat16 x = a * b + c;
        x += a;
        x = x / b - c;
        x = -x;
        x *= c;
        x -= a;
        __nv_bfloat162 p(a, c), q(b, 2.0f);
        p = p * q + p;
        p -= q;
        *w0 = __bfloat16_as_ushort(x) | (unsigned int)__bfloat16_as_ushort(p.x) << 16;
        *w1 = __bfloat16_as_ushort(p.y) | (unsigned int)__bfloat16_as_ushort(__float2bfloat16((float)x * 3.0f)) << 16;
        break;
    }
    case E4M3:
        *w0 = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3) | __nv_cvt_float_to_fp8(f * 0.001f, __NV_NOSAT, __NV_E4M3) << 8 |
              (unsigned int)__nv_cvt_double_to_fp8((double)f * 1.0000001, __NV_NOSAT, __NV_E4M3) << 16;
        *w1 = __nv_cvt_float2_to_fp8x2(make_float2(f * 1e-3f, f * 1e-6f), __NV_SATFINITE, __NV_E4M3);
        break;
    case E5M2:
        *w0 = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2) | __nv_cvt_float_to_fp8(f * 0.001f, __NV_NOSAT, __NV_E5M2) << 8 |
              (unsigned int)__nv_cvt_double_to_fp8((double)f * 1.0000001, __NV_NOSAT, __NV_E5M2) << 16;
        *w1 = __nv_cvt_halfraw_to_fp8(__half_raw{(unsigned short)i}, __NV_NOSAT, __NV_E5M2) |
              __nv_cvt_halfraw_to_fp8(__half_raw{(unsigned short)i}, __NV_SATFINITE, __NV_E4M3) << 8;
        break;
    case FROM8:
        *w0 = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)i, __NV_E4M3).x;
        *w1 = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)(i >> 8), __NV_E5M2).x;
        break;
    default: {
        __nv_fp8_e4m3 x = f, y = a, z = (int)(i % 1000u) - 500;
        __nv_fp8_e5m2 u = (double)f, v = __ushort_as_half((unsigned short)i);
        *w0 = x.__x | y.__x << 8 | z.__x << 16 | u.__x << 24;
        *w1 = bits_of((float)x + (float)u) ^ v.__x;
    }
    }
}

__global__ void run(int op, unsigned int *out) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    compute(op, i, &out[2 * i], &out[2 * i + 1]);
}

// Known results: bfloat16 ties to even, NaN, overflow, directed rounding, a double rounding a
// float conversion would get wrong, a fused multiply-add a double sum would get wrong; fp8
// saturation, ties, NaN and subnormals.
const int P = 24;
__host__ __device__ unsigned int pattern(int k) {
    switch (k) {
    case 0: return __bfloat16_as_ushort(__float2bfloat16(1.0f));                       // 3f80
    case 1: return __bfloat16_as_ushort(__float2bfloat16(float_of(0x3f808000u)));      // tie: 3f80
    case 2: return __bfloat16_as_ushort(__float2bfloat16(float_of(0x3f818000u)));      // tie: 3f82
    case 3: return __bfloat16_as_ushort(__float2bfloat16(float_of(0x7f7f8000u)));      // tie: inf 7f80
    case 4: return __bfloat16_as_ushort(__float2bfloat16(float_of(0xffc00001u)));      // NaN: 7fff
    case 5: return __bfloat16_as_ushort(__float2bfloat16(-0.0f));                      // 8000
    case 6: return __bfloat16_as_ushort(__float2bfloat16_rz(float_of(0x7f7fffffu)));   // 7f7f
    case 7: return __bfloat16_as_ushort(__float2bfloat16_rd(float_of(0xbf800001u)));   // bf81
    case 8: return __bfloat16_as_ushort(__float2bfloat16_ru(float_of(0xbf800001u)));   // bf80
    case 9: return __bfloat16_as_ushort(__double2bfloat16(1.0 + 0.00390625 + 1e-12));  // 3f81
    case 10: return __bfloat16_as_ushort(__hfma(__float2bfloat16(17.0f), __float2bfloat16(27.0f),
                                                __float2bfloat16(-1e-30f)));            // 458: 4365
    case 11: return __bfloat16_as_ushort(__float2bfloat16(float_of(0x00018000u)));     // subnormal tie: 0002
    case 12: return __bfloat16_as_ushort(__int2bfloat16_rn(16777217));                 // 4b80
    case 13: return __bfloat16_as_ushort(__hdiv(__float2bfloat16(1.0f), __float2bfloat16(3.0f)));  // 3eab
    case 14: return __nv_cvt_float_to_fp8(448.0f, __NV_NOSAT, __NV_E4M3);               // 7e
    case 15: return __nv_cvt_float_to_fp8(464.0f, __NV_NOSAT, __NV_E4M3);               // tie: 7e
    case 16: return __nv_cvt_float_to_fp8(-465.0f, __NV_NOSAT, __NV_E4M3);              // NaN: ff
    case 17: return __nv_cvt_float_to_fp8(-1e30f, __NV_SATFINITE, __NV_E4M3);           // fe
    case 18: return __nv_cvt_float_to_fp8(float_of(0x7f800000u), __NV_SATFINITE, __NV_E5M2);  // 7b
    case 19: return __nv_cvt_float_to_fp8(61440.0f, __NV_NOSAT, __NV_E5M2);             // tie: inf 7c
    case 20: return __nv_cvt_float_to_fp8(0.0009765625f, __NV_SATFINITE, __NV_E4M3);    // 2^-10 tie: 00
    case 21: return __nv_cvt_float_to_fp8(float_of(0xffc00000u), __NV_SATFINITE, __NV_E5M2);  // NaN: fe
    case 22: return __nv_cvt_fp8_to_halfraw(0x01, __NV_E4M3).x;                         // 2^-9: 1800
    default: return bits_of((float)__nv_fp8_e4m3(1.0f));                              // 38 back: 3f800000
    }
}

__global__ void patterns(unsigned int *out) { out[threadIdx.x] = pattern(threadIdx.x); }

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
    patterns<<<1, P>>>(d);
    cudaMemcpy(h, d, P * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    printf("patterns     device");
    for (int k = 0; k < P; k++) printf(" %x", h[k]);
    printf("\npatterns     host  ");
    for (int k = 0; k < P; k++) printf(" %x", pattern(k));
    printf("\n%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
