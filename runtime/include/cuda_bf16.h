/* warpsim's stand-in for the CUDA toolkit's cuda_bf16.h: `__nv_bfloat16` (`nv_bfloat16`) and
 * `__nv_bfloat162` (`nv_bfloat162`), bfloat16 values (float's top 16 bits: 8 exponent bits, 7
 * mantissa bits) stored as their 16 bits, with the conversions, arithmetic, comparisons and
 * operators programs use most. +, - and * are done in float and rounded to bfloat16 once:
 * float's 24 bits are enough for that double rounding to give the correctly rounded result
 * (24 >= 2 x 8 + 2; float's subnormals reach 16 bits below bfloat16's), as the GPU's bf16
 * instructions do; / and fused multiply-add go through double, rounded to odd and then to
 * bfloat16, which is correctly rounded too.
 * Conversions round to nearest even unless their name says otherwise (_rz, _rd, _ru); a NaN
 * becomes the canonical 0x7fff, as NVIDIA's host emulation makes it. Both passes read this
 * file: host code may convert and compute with bfloat16 too.
 *
 * Not here: bfloat16 math functions (hsqrt, hexp, ...), atomics on bfloat16, the `_raw`
 * structs, vector comparisons (__heq2, ...), conversions to and from short and long long, and
 * conversions to integer types other than __bfloat162int_rz and __bfloat162uint_rz. */
#ifndef WARPSIM_CUDA_BF16_H
#define WARPSIM_CUDA_BF16_H
#define __CUDA_BF16_H__

#include <vector_types.h>
#include <warpsim_fp.h>

__host__ __device__ inline unsigned short __warpsim_float2bfloat16_bits(float f) {
    unsigned int x = __warpsim_float_bits(f);
    /* Ties to even: the carry out of the dropped half runs into the exponent, up to infinity. */
    unsigned int r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    return (unsigned short)((x & 0x7fffffffu) > 0x7f800000u ? 0x7fffu : r);
}

__host__ __device__ inline float __warpsim_bfloat162float_bits(unsigned short b) {
    return __warpsim_bits_float((unsigned int)b << 16);
}

struct __nv_bfloat16 {
    unsigned short __x;
    __host__ __device__ __nv_bfloat16() : __x(0) {}
    __host__ __device__ __nv_bfloat16(float f) : __x(__warpsim_float2bfloat16_bits(f)) {}
    __host__ __device__ __nv_bfloat16(double d)
        : __x(__warpsim_float2bfloat16_bits(__warpsim_double2float_odd(d))) {}
    __host__ __device__ __nv_bfloat16(int i)
        : __x(__warpsim_float2bfloat16_bits(__warpsim_double2float_odd((double)i))) {}
    __host__ __device__ operator float() const { return __warpsim_bfloat162float_bits(__x); }
};
typedef struct __nv_bfloat16 nv_bfloat16;

struct __nv_bfloat162 {
    __nv_bfloat16 x;
    __nv_bfloat16 y;
    __host__ __device__ __nv_bfloat162() {}
    __host__ __device__ __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};
typedef struct __nv_bfloat162 nv_bfloat162;

/* Raw bits. */
__host__ __device__ inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) {
    __nv_bfloat16 h;
    h.__x = u;
    return h;
}
__host__ __device__ inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
__host__ __device__ inline __nv_bfloat16 __short_as_bfloat16(short s) { return __ushort_as_bfloat16((unsigned short)s); }
__host__ __device__ inline short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }

/* Conversions. */
__host__ __device__ inline float __bfloat162float(__nv_bfloat16 h) { return __warpsim_bfloat162float_bits(h.__x); }
__host__ __device__ inline __nv_bfloat16 __float2bfloat16(float f) {
    return __ushort_as_bfloat16(__warpsim_float2bfloat16_bits(f));
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
/* Directed roundings: the float's top half, one further from zero where the dropped half is
 * not zero and the direction asks for it. */
__host__ __device__ inline __nv_bfloat16 __warpsim_float2bfloat16_dir(float f, bool up, bool down) {
    unsigned int x = __warpsim_float_bits(f);
    bool negative = (x >> 31) != 0;
    bool inexact = (x & 0xffffu) != 0;
    unsigned int r = (x >> 16) + ((inexact && (negative ? down : up)) ? 1u : 0u);
    return __ushort_as_bfloat16((unsigned short)((x & 0x7fffffffu) > 0x7f800000u ? 0x7fffu : r));
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rz(float f) { return __warpsim_float2bfloat16_dir(f, false, false); }
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rd(float f) { return __warpsim_float2bfloat16_dir(f, false, true); }
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_ru(float f) { return __warpsim_float2bfloat16_dir(f, true, false); }
__host__ __device__ inline __nv_bfloat16 __double2bfloat16(double d) {
    return __float2bfloat16(__warpsim_double2float_odd(d));
}
__host__ __device__ inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __double2bfloat16((double)i); }
__host__ __device__ inline __nv_bfloat16 __uint2bfloat16_rn(unsigned int i) { return __double2bfloat16((double)i); }
/* Toward zero; infinities and values past the type saturate, NaN is 0. */
__host__ __device__ inline int __bfloat162int_rz(__nv_bfloat16 h) {
    float f = __bfloat162float(h);
    return f != f ? 0 : f >= 2147483647.0f ? 2147483647 : f <= -2147483648.0f ? (-2147483647 - 1) : (int)f;
}
__host__ __device__ inline unsigned int __bfloat162uint_rz(__nv_bfloat16 h) {
    float f = __bfloat162float(h);
    return f != f || f <= 0.0f ? 0u : f >= 4294967295.0f ? 4294967295u : (unsigned int)f;
}
__host__ __device__ inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
__host__ __device__ inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
__host__ __device__ inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162(a, a); }
__host__ __device__ inline __nv_bfloat162 __float2bfloat162_rn(float f) {
    return __nv_bfloat162(__float2bfloat16(f), __float2bfloat16(f));
}
__host__ __device__ inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
    return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
__host__ __device__ inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __floats2bfloat162_rn(f.x, f.y); }
__host__ __device__ inline float2 __bfloat1622float2(__nv_bfloat162 h) {
    float2 r;
    r.x = __bfloat162float(h.x);
    r.y = __bfloat162float(h.y);
    return r;
}
__host__ __device__ inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
__host__ __device__ inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
__host__ __device__ inline float __low2float(__nv_bfloat162 h) { return __bfloat162float(h.x); }
__host__ __device__ inline float __high2float(__nv_bfloat162 h) { return __bfloat162float(h.y); }
__host__ __device__ inline __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
__host__ __device__ inline __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }
__host__ __device__ inline __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.x); }

/* Arithmetic (see the top of the file). */
__host__ __device__ inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b));
}
__host__ __device__ inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __float2bfloat16(__bfloat162float(a) - __bfloat162float(b));
}
__host__ __device__ inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __float2bfloat16(__bfloat162float(a) * __bfloat162float(b));
}
__host__ __device__ inline __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __double2bfloat16((double)__bfloat162float(a) / (double)__bfloat162float(b));
}
__host__ __device__ inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
    /* The product is exact in double; only the sum rounds (to odd, then to bfloat16). Infinite
     * and NaN operands take the plain double sum, which is then exact or NaN. */
    double p = (double)__bfloat162float(a) * (double)__bfloat162float(b);
    double s = (double)__bfloat162float(c);
    bool finite = p - p == 0.0 && s - s == 0.0;
    return __double2bfloat16(finite ? __warpsim_add_odd(p, s) : p + s);
}
/* A NaN operand gives the canonical NaN (0x7fff); __hmax/__hmin return the other operand. */
__host__ __device__ inline bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
__host__ __device__ inline __nv_bfloat16 __hneg(__nv_bfloat16 a) {
    return __ushort_as_bfloat16((unsigned short)(__hisnan(a) ? 0x7fffu : a.__x ^ 0x8000u));
}
__host__ __device__ inline __nv_bfloat16 __habs(__nv_bfloat16 a) {
    return __ushort_as_bfloat16((unsigned short)(__hisnan(a) ? 0x7fffu : a.__x & 0x7fffu));
}
__host__ __device__ inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __hisnan(a) ? (__hisnan(b) ? __ushort_as_bfloat16(0x7fffu) : b)
         : __hisnan(b) || __bfloat162float(a) >= __bfloat162float(b) ? a : b;
}
__host__ __device__ inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __hisnan(a) ? (__hisnan(b) ? __ushort_as_bfloat16(0x7fffu) : b)
         : __hisnan(b) || __bfloat162float(a) <= __bfloat162float(b) ? a : b;
}
__host__ __device__ inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y));
}
__host__ __device__ inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hsub(a.x, b.x), __hsub(a.y, b.y));
}
__host__ __device__ inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y));
}
__host__ __device__ inline __nv_bfloat162 __h2div(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hdiv(a.x, b.x), __hdiv(a.y, b.y));
}
__host__ __device__ inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
    return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__host__ __device__ inline __nv_bfloat162 __hneg2(__nv_bfloat162 a) { return __nv_bfloat162(__hneg(a.x), __hneg(a.y)); }
__host__ __device__ inline __nv_bfloat162 __habs2(__nv_bfloat162 a) { return __nv_bfloat162(__habs(a.x), __habs(a.y)); }
__host__ __device__ inline __nv_bfloat162 __hmax2(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hmax(a.x, b.x), __hmax(a.y, b.y));
}
__host__ __device__ inline __nv_bfloat162 __hmin2(__nv_bfloat162 a, __nv_bfloat162 b) {
    return __nv_bfloat162(__hmin(a.x, b.x), __hmin(a.y, b.y));
}

/* Comparisons (ordered: false when either is NaN, but __hne's unordered twin). */
__host__ __device__ inline bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) == __bfloat162float(b); }
__host__ __device__ inline bool __hne(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __bfloat162float(a) < __bfloat162float(b) || __bfloat162float(a) > __bfloat162float(b);
}
__host__ __device__ inline bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) < __bfloat162float(b); }
__host__ __device__ inline bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) <= __bfloat162float(b); }
__host__ __device__ inline bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) > __bfloat162float(b); }
__host__ __device__ inline bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) >= __bfloat162float(b); }
__host__ __device__ inline int __hisinf(__nv_bfloat16 a) { return a.__x == 0x7f80u ? 1 : a.__x == 0xff80u ? -1 : 0; }

/* Operators, as cuda_bf16.hpp defines them. */
__host__ __device__ inline __nv_bfloat16 operator+(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
__host__ __device__ inline __nv_bfloat16 operator-(__nv_bfloat16 a, __nv_bfloat16 b) { return __hsub(a, b); }
__host__ __device__ inline __nv_bfloat16 operator*(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul(a, b); }
__host__ __device__ inline __nv_bfloat16 operator/(__nv_bfloat16 a, __nv_bfloat16 b) { return __hdiv(a, b); }
__host__ __device__ inline __nv_bfloat16 operator-(__nv_bfloat16 a) { return __hneg(a); }
__host__ __device__ inline __nv_bfloat16 &operator+=(__nv_bfloat16 &a, __nv_bfloat16 b) { a = __hadd(a, b); return a; }
__host__ __device__ inline __nv_bfloat16 &operator-=(__nv_bfloat16 &a, __nv_bfloat16 b) { a = __hsub(a, b); return a; }
__host__ __device__ inline __nv_bfloat16 &operator*=(__nv_bfloat16 &a, __nv_bfloat16 b) { a = __hmul(a, b); return a; }
__host__ __device__ inline __nv_bfloat16 &operator/=(__nv_bfloat16 &a, __nv_bfloat16 b) { a = __hdiv(a, b); return a; }
__host__ __device__ inline bool operator==(__nv_bfloat16 a, __nv_bfloat16 b) { return __heq(a, b); }
__host__ __device__ inline bool operator!=(__nv_bfloat16 a, __nv_bfloat16 b) { return !__heq(a, b); }
__host__ __device__ inline bool operator<(__nv_bfloat16 a, __nv_bfloat16 b) { return __hlt(a, b); }
__host__ __device__ inline bool operator<=(__nv_bfloat16 a, __nv_bfloat16 b) { return __hle(a, b); }
__host__ __device__ inline bool operator>(__nv_bfloat16 a, __nv_bfloat16 b) { return __hgt(a, b); }
__host__ __device__ inline bool operator>=(__nv_bfloat16 a, __nv_bfloat16 b) { return __hge(a, b); }
__host__ __device__ inline __nv_bfloat162 operator+(__nv_bfloat162 a, __nv_bfloat162 b) { return __hadd2(a, b); }
__host__ __device__ inline __nv_bfloat162 operator-(__nv_bfloat162 a, __nv_bfloat162 b) { return __hsub2(a, b); }
__host__ __device__ inline __nv_bfloat162 operator*(__nv_bfloat162 a, __nv_bfloat162 b) { return __hmul2(a, b); }
__host__ __device__ inline __nv_bfloat162 operator/(__nv_bfloat162 a, __nv_bfloat162 b) { return __h2div(a, b); }
__host__ __device__ inline __nv_bfloat162 &operator+=(__nv_bfloat162 &a, __nv_bfloat162 b) { a = __hadd2(a, b); return a; }
__host__ __device__ inline __nv_bfloat162 &operator-=(__nv_bfloat162 &a, __nv_bfloat162 b) { a = __hsub2(a, b); return a; }
__host__ __device__ inline __nv_bfloat162 &operator*=(__nv_bfloat162 &a, __nv_bfloat162 b) { a = __hmul2(a, b); return a; }
__host__ __device__ inline __nv_bfloat162 &operator/=(__nv_bfloat162 &a, __nv_bfloat162 b) { a = __h2div(a, b); return a; }

#endif
