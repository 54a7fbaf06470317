/* warpsim's stand-in for the CUDA toolkit's cuda_fp16.h: `__half` (`half`) and `__half2`
 * (`half2`), IEEE binary16 values stored as their 16 bits, with the conversions, arithmetic,
 * comparisons and operators programs use most. Arithmetic is done in float and rounded to half
 * once: float's 24 bits are enough for that double rounding to give the correctly rounded
 * half result of +, -, * and / (24 >= 2 x 11 + 2), as the GPU's half instructions do; a fused
 * multiply-add goes through double, exact for every finite half result. Conversions round to
 * nearest even unless their name says otherwise. Both passes read this file: host code may
 * convert and compute with halves too.
 *
 * The math functions (hexp, hsqrt, hsin, h2log, ...) are computed in double and rounded to half
 * once: the GPU's are correctly rounded (an H100's hexp, hexp2, hexp10, hlog, hlog2, hlog10,
 * hsin and hcos agree on every finite half with the double result rounded once; computed in
 * float, 1 to 5 operands of each rounded twice the other way).
 *
 * Not here: atomics on halves. bfloat16 is in cuda_bf16.h. */
#ifndef WARPSIM_CUDA_FP16_H
#define WARPSIM_CUDA_FP16_H
#define __CUDA_FP16_H__

#include <vector_types.h>
#include <warpsim_fp.h>

__host__ __device__ inline unsigned short __warpsim_float2half_bits(float f) {
    unsigned int x = __warpsim_float_bits(f);
    unsigned int sign = (x >> 16) & 0x8000u;
    unsigned int ax = x & 0x7fffffffu;
    int exp = (int)(ax >> 23);
    /* float's subnormals are far below half's: they round to zero with the rest. */
    unsigned int h = __warpsim_round_bits(exp == 0 ? -100 : exp - 112, ((ax & 0x7fffffu) | 0x800000u) << 1, false, 10);
    h = h >= 0x7c00u ? 0x7c00u : h;
    return (unsigned short)(ax > 0x7f800000u ? 0x7fffu : (sign | h));
}

__host__ __device__ inline unsigned short __warpsim_double2half_bits(double d) {
    unsigned long long x = __warpsim_double_bits(d);
    unsigned int sign = (unsigned int)(x >> 48) & 0x8000u;
    unsigned long long ax = x & 0x7fffffffffffffffull;
    unsigned int h = __warpsim_round_double(ax, 15, 10);
    h = h >= 0x7c00u ? 0x7c00u : h;
    /* A NaN keeps its sign and the top of its payload, made quiet (float's become 0x7fff). */
    unsigned int nan = 0x7e00u | (unsigned int)((ax >> 42) & 0x3ffu);
    return (unsigned short)(sign | (ax > 0x7ff0000000000000ull ? nan : h));
}

__host__ __device__ inline float __warpsim_half2float_bits(unsigned short h) {
    unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
    unsigned int exp = ((unsigned int)h >> 10) & 0x1fu;
    unsigned int man = (unsigned int)h & 0x3ffu;
    /* man x 2^-24, exact; computed outside the selects (a call in one makes it a branch). */
    unsigned int sub = sign | __warpsim_float_bits((float)man * 5.9604644775390625e-8f);
    /* Every NaN becomes float's canonical one. */
    unsigned int bits = exp == 31u ? (man ? 0x7fffffffu : (sign | 0x7f800000u))
                      : exp == 0u ? sub
                                  : (sign | ((exp + 112u) << 23) | (man << 13));
    return __warpsim_bits_float(bits);
}

/* A half's bits as a plain struct (what cuda_fp8.h's conversions return). */
typedef struct __half_raw {
    unsigned short x;
} __half_raw;

struct __half {
    unsigned short __x;
    __host__ __device__ __half() : __x(0) {}
    __host__ __device__ __half(float f) : __x(__warpsim_float2half_bits(f)) {}
    __host__ __device__ __half(double d) : __x(__warpsim_double2half_bits(d)) {}
    /* From each integer type, as NVIDIA's header: through float, exact below 2^24, and every
     * integer from 65,520 up is infinity in half anyway. */
    __host__ __device__ __half(short i) : __x(__warpsim_float2half_bits((float)i)) {}
    __host__ __device__ __half(unsigned short i) : __x(__warpsim_float2half_bits((float)i)) {}
    __host__ __device__ __half(int i) : __x(__warpsim_float2half_bits((float)i)) {}
    __host__ __device__ __half(unsigned int i) : __x(__warpsim_float2half_bits((float)i)) {}
    __host__ __device__ __half(long i) : __x(__warpsim_float2half_bits((float)i)) {}
    __host__ __device__ __half(unsigned long i) : __x(__warpsim_float2half_bits((float)i)) {}
    __host__ __device__ __half(long long i) : __x(__warpsim_float2half_bits((float)i)) {}
    __host__ __device__ __half(unsigned long long i) : __x(__warpsim_float2half_bits((float)i)) {}
    __host__ __device__ __half(__half_raw r) : __x(r.x) {}
    __host__ __device__ operator float() const { return __warpsim_half2float_bits(__x); }
};
typedef struct __half half;

struct __half2 {
    __half x;
    __half y;
    __host__ __device__ __half2() {}
    __host__ __device__ __half2(__half a, __half b) : x(a), y(b) {}
};
typedef struct __half2 half2;

/* Raw bits. */
__host__ __device__ inline __half __ushort_as_half(unsigned short u) {
    __half h;
    h.__x = u;
    return h;
}
__host__ __device__ inline unsigned short __half_as_ushort(__half h) { return h.__x; }
__host__ __device__ inline __half __short_as_half(short s) { return __ushort_as_half((unsigned short)s); }
__host__ __device__ inline short __half_as_short(__half h) { return (short)h.__x; }

/* Conversions. */
__host__ __device__ inline float __half2float(__half h) { return __warpsim_half2float_bits(h.__x); }
__host__ __device__ inline __half __float2half(float f) { return __ushort_as_half(__warpsim_float2half_bits(f)); }
__host__ __device__ inline __half __float2half_rn(float f) { return __float2half(f); }
__host__ __device__ inline __half __double2half(double d) { return __ushort_as_half(__warpsim_double2half_bits(d)); }
__host__ __device__ inline __half __int2half_rn(int i) { return __double2half((double)i); }
__host__ __device__ inline __half __uint2half_rn(unsigned int i) { return __double2half((double)i); }
__host__ __device__ inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__host__ __device__ inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }
__host__ __device__ inline __half2 __half2half2(__half a) { return __half2(a, a); }
__host__ __device__ inline __half2 __float2half2_rn(float f) { return __half2(__float2half(f), __float2half(f)); }
__host__ __device__ inline __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half(a), __float2half(b)); }
__host__ __device__ inline __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
__host__ __device__ inline float2 __half22float2(__half2 h) {
    float2 r;
    r.x = __half2float(h.x);
    r.y = __half2float(h.y);
    return r;
}
__host__ __device__ inline __half __low2half(__half2 h) { return h.x; }
__host__ __device__ inline __half __high2half(__half2 h) { return h.y; }
__host__ __device__ inline float __low2float(__half2 h) { return __half2float(h.x); }
__host__ __device__ inline float __high2float(__half2 h) { return __half2float(h.y); }
__host__ __device__ inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__host__ __device__ inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__host__ __device__ inline __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }

/* Arithmetic: in float, rounded once to half (see the top of the file). */
__host__ __device__ inline __half __hadd(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
__host__ __device__ inline __half __hsub(__half a, __half b) { return __float2half(__half2float(a) - __half2float(b)); }
__host__ __device__ inline __half __hmul(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
__host__ __device__ inline __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
/* Device functions only, as in the toolkit. */
__device__ inline __half __hfma(__half a, __half b, __half c) {
    return __double2half((double)__half2float(a) * (double)__half2float(b) + (double)__half2float(c));
}
/* A NaN operand gives the canonical NaN (0x7fff); __hmax/__hmin return the other operand. */
__host__ __device__ inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
__host__ __device__ inline __half __hneg(__half a) {
    return __ushort_as_half((unsigned short)(__hisnan(a) ? 0x7fffu : a.__x ^ 0x8000u));
}
__host__ __device__ inline __half __habs(__half a) {
    return __ushort_as_half((unsigned short)(__hisnan(a) ? 0x7fffu : a.__x & 0x7fffu));
}
__host__ __device__ inline __half __hmax(__half a, __half b) {
    return __hisnan(a) ? (__hisnan(b) ? __ushort_as_half(0x7fffu) : b)
         : __hisnan(b) || __half2float(a) >= __half2float(b) ? a : b;
}
__host__ __device__ inline __half __hmin(__half a, __half b) {
    return __hisnan(a) ? (__hisnan(b) ? __ushort_as_half(0x7fffu) : b)
         : __hisnan(b) || __half2float(a) <= __half2float(b) ? a : b;
}
__host__ __device__ inline __half2 __hadd2(__half2 a, __half2 b) { return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
__host__ __device__ inline __half2 __hsub2(__half2 a, __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
__host__ __device__ inline __half2 __hmul2(__half2 a, __half2 b) { return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
__host__ __device__ inline __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
__device__ inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
    return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}

#ifndef __CUDA_ARCH__
#include <math.h>
#endif
__host__ __device__ inline __half __short2half_rn(short i) { return __double2half((double)i); }
__host__ __device__ inline __half __ushort2half_rn(unsigned short i) { return __double2half((double)i); }
__host__ __device__ inline __half __ll2half_rn(long long i) { return __double2half((double)i); }
__host__ __device__ inline __half __ull2half_rn(unsigned long long i) { return __double2half((double)i); }

/* Half to integer, rounded toward zero (rz), to nearest even (rn), down (rd) or up (ru), saturated
 * to the type's range as the GPU's conversions are; NaN is 0. */
__host__ __device__ inline double __warpsim_half_rounded(__half h, int mode) {
    double f = (double)__half2float(h);
    return mode == 0 ? trunc(f) : mode == 1 ? rint(f) : mode == 2 ? floor(f) : ceil(f);
}
#define __WARPSIM_HALF2INT(name, T, mode, lo, hi) \
    __host__ __device__ inline T name(__half h) { \
        double f = __warpsim_half_rounded(h, mode); \
        return f != f ? (T)0 : f <= (double)(lo) ? (T)(lo) : f >= (double)(hi) ? (T)(hi) : (T)f; \
    }
#define __WARPSIM_HALF2INTS(stem, T, lo, hi) \
    __WARPSIM_HALF2INT(stem##_rz, T, 0, lo, hi) \
    __WARPSIM_HALF2INT(stem##_rn, T, 1, lo, hi) \
    __WARPSIM_HALF2INT(stem##_rd, T, 2, lo, hi) \
    __WARPSIM_HALF2INT(stem##_ru, T, 3, lo, hi)
__WARPSIM_HALF2INTS(__half2short, short, -32768, 32767)
__WARPSIM_HALF2INTS(__half2ushort, unsigned short, 0, 65535)
__WARPSIM_HALF2INTS(__half2int, int, (-2147483647 - 1), 2147483647)
__WARPSIM_HALF2INTS(__half2uint, unsigned int, 0, 4294967295u)
__WARPSIM_HALF2INTS(__half2ll, long long, (-9223372036854775807ll - 1), 9223372036854775807ll)
__WARPSIM_HALF2INTS(__half2ull, unsigned long long, 0, 18446744073709551615ull)
#undef __WARPSIM_HALF2INTS
#undef __WARPSIM_HALF2INT

__device__ inline double __warpsim_rcp(double x) { return 1.0 / x; }
/* `h(a)` on a half and `h2(a)` on each half of a half2: `f` in double, rounded once. */
#define __WARPSIM_HALF_MATH(h, h2, f) \
    __device__ inline __half h(__half a) { return __double2half(f((double)__half2float(a))); } \
    __device__ inline __half2 h2(__half2 a) { return __half2(h(a.x), h(a.y)); }
__WARPSIM_HALF_MATH(hexp, h2exp, exp)
__WARPSIM_HALF_MATH(hexp2, h2exp2, exp2)
__WARPSIM_HALF_MATH(hexp10, h2exp10, exp10)
__WARPSIM_HALF_MATH(hlog, h2log, log)
__WARPSIM_HALF_MATH(hlog2, h2log2, log2)
__WARPSIM_HALF_MATH(hlog10, h2log10, log10)
__WARPSIM_HALF_MATH(hsqrt, h2sqrt, sqrt)
__WARPSIM_HALF_MATH(hrsqrt, h2rsqrt, rsqrt)
__WARPSIM_HALF_MATH(hrcp, h2rcp, __warpsim_rcp)
__WARPSIM_HALF_MATH(hsin, h2sin, sin)
__WARPSIM_HALF_MATH(hcos, h2cos, cos)
__WARPSIM_HALF_MATH(htanh, h2tanh, tanh)
__WARPSIM_HALF_MATH(hceil, h2ceil, ceil)
__WARPSIM_HALF_MATH(hfloor, h2floor, floor)
__WARPSIM_HALF_MATH(htrunc, h2trunc, trunc)
__WARPSIM_HALF_MATH(hrint, h2rint, rint)
#undef __WARPSIM_HALF_MATH
__host__ __device__ inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
__host__ __device__ inline __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }

/* Comparisons (ordered: false when either is NaN, but __hne's unordered twin). */
__host__ __device__ inline bool __heq(__half a, __half b) { return __half2float(a) == __half2float(b); }
__host__ __device__ inline bool __hne(__half a, __half b) { return __half2float(a) < __half2float(b) || __half2float(a) > __half2float(b); }
__host__ __device__ inline bool __hlt(__half a, __half b) { return __half2float(a) < __half2float(b); }
__host__ __device__ inline bool __hle(__half a, __half b) { return __half2float(a) <= __half2float(b); }
__host__ __device__ inline bool __hgt(__half a, __half b) { return __half2float(a) > __half2float(b); }
__host__ __device__ inline bool __hge(__half a, __half b) { return __half2float(a) >= __half2float(b); }
__host__ __device__ inline int __hisinf(__half a) { return a.__x == 0x7c00u ? 1 : a.__x == 0xfc00u ? -1 : 0; }

/* Operators, as cuda_fp16.hpp defines them. */
__host__ __device__ inline __half operator+(__half a, __half b) { return __hadd(a, b); }
__host__ __device__ inline __half operator-(__half a, __half b) { return __hsub(a, b); }
__host__ __device__ inline __half operator*(__half a, __half b) { return __hmul(a, b); }
__host__ __device__ inline __half operator/(__half a, __half b) { return __hdiv(a, b); }
__host__ __device__ inline __half operator-(__half a) { return __hneg(a); }
__host__ __device__ inline __half &operator+=(__half &a, __half b) { a = __hadd(a, b); return a; }
__host__ __device__ inline __half &operator-=(__half &a, __half b) { a = __hsub(a, b); return a; }
__host__ __device__ inline __half &operator*=(__half &a, __half b) { a = __hmul(a, b); return a; }
__host__ __device__ inline __half &operator/=(__half &a, __half b) { a = __hdiv(a, b); return a; }
__host__ __device__ inline bool operator==(__half a, __half b) { return __heq(a, b); }
__host__ __device__ inline bool operator!=(__half a, __half b) { return !__heq(a, b); }
__host__ __device__ inline bool operator<(__half a, __half b) { return __hlt(a, b); }
__host__ __device__ inline bool operator<=(__half a, __half b) { return __hle(a, b); }
__host__ __device__ inline bool operator>(__half a, __half b) { return __hgt(a, b); }
__host__ __device__ inline bool operator>=(__half a, __half b) { return __hge(a, b); }
__host__ __device__ inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
__host__ __device__ inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
__host__ __device__ inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
__host__ __device__ inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
__host__ __device__ inline __half2 &operator+=(__half2 &a, __half2 b) { a = __hadd2(a, b); return a; }
__host__ __device__ inline __half2 &operator*=(__half2 &a, __half2 b) { a = __hmul2(a, b); return a; }

#endif
