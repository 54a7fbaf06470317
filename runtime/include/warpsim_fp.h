/* warpsim's helpers for its narrow floating-point headers (cuda_fp16.h, cuda_bf16.h,
 * cuda_fp8.h), not a toolkit header: a value's bits on either side, and rounding to a format
 * of fewer bits, ties to even. Both passes read this file.
 *
 * The helpers are written without branches (selects only): a GPU converts with one
 * instruction, and a branch here would show in the kernel's branch counters. */
#ifndef WARPSIM_FP_H
#define WARPSIM_FP_H

#ifndef __CUDA_ARCH__
#include <host_defines.h>
#include <string.h>
#endif

/* float and double bits, on either side. */
__host__ __device__ inline unsigned int __warpsim_float_bits(float f) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    unsigned int u;
    memcpy(&u, &f, 4);
    return u;
#endif
}
__host__ __device__ inline float __warpsim_bits_float(unsigned int u) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, 4);
    return f;
#endif
}
__host__ __device__ inline unsigned long long __warpsim_double_bits(double d) {
#ifdef __CUDA_ARCH__
    return (unsigned long long)__double_as_longlong(d);
#else
    unsigned long long u;
    memcpy(&u, &d, 8);
    return u;
#endif
}

/* The magnitude bits, in a format of `man` mantissa bits, nearest `m * 2^(e - 25)` with
 * `sticky` set when bits below m's are, ties to even: m has its leading one at bit 24, `e` is
 * the format's biased exponent for that one (0 or less: a subnormal). A value past the
 * format's largest comes out as larger bits: the caller saturates or overflows as it must. */
__host__ __device__ inline unsigned int __warpsim_round_bits(int e, unsigned int m, bool sticky, int man) {
    int shift = e > 0 ? 24 - man : 25 - man - e;
    shift = shift > 25 ? 25 : shift;
    unsigned int kept = m >> shift;
    unsigned int rest = m & ((1u << shift) - 1u);
    unsigned int half_way = 1u << (shift - 1);
    unsigned int h = e > 0 ? ((unsigned int)e << man) + kept - (1u << man) : kept;
    h += ((rest > half_way) | ((rest == half_way) & (sticky | ((h & 1u) != 0)))) ? 1u : 0u;
    return e < -man ? 0u : h; /* below half the smallest subnormal */
}

/* The magnitude bits nearest the double of bits `ax` (sign cleared, not a NaN) in a format of
 * exponent bias `bias` and `man` mantissa bits, as __warpsim_round_bits gives them. */
__host__ __device__ inline unsigned int __warpsim_round_double(unsigned long long ax, int bias, int man) {
    int exp = (int)(ax >> 52);
    unsigned long long full = (ax & 0xfffffffffffffull) | 0x10000000000000ull;
    /* Double's subnormals (and zero) are far below every narrow format's. */
    int e = exp == 0 ? -100 : exp - 1023 + bias;
    e = e < -100 ? -100 : e;
    return __warpsim_round_bits(e, (unsigned int)(full >> 28), (full & 0xfffffffull) != 0, man);
}

/* The float of d rounded to odd: the float toward zero from d, its last bit set where d lies
 * between two floats. Rounding that float again to a format of at most 22 bits of precision
 * gives d's correctly rounded value (as NVIDIA's host emulation of __double2bfloat16 does). */
__host__ __device__ inline float __warpsim_double2float_odd(double d) {
    float f = (float)d;
    unsigned int u = __warpsim_float_bits(f);
    double back = (double)f;
    bool nan = d != d;
    bool inexact = back != d && !nan;
    /* Rounded away from zero (to infinity too): the float below in magnitude. */
    u -= (inexact && (d > 0.0 ? back > d : back < d)) ? 1u : 0u;
    return __warpsim_bits_float(inexact ? (u | 1u) : u);
}

/* d + e exactly as a double rounded to odd, for finite d and e whose sum does not overflow
 * (Knuth's two-sum finds what rounding dropped): one more rounding to a format of at most 51
 * bits of precision is the correctly rounded sum. */
__host__ __device__ inline double __warpsim_add_odd(double d, double e) {
    double s = d + e;
    double bd = s - e;
    double be = s - bd;
    double err = (d - bd) + (e - be);
    unsigned long long u = __warpsim_double_bits(s);
    /* Even and inexact: the neighbour on err's side is the odd one. */
    bool step = err != 0.0 && (u & 1ull) == 0;
    u += step ? ((err > 0.0) == (s > 0.0) ? 1ull : ~0ull) : 0ull;
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double r;
    memcpy(&r, &u, 8);
    return r;
#endif
}

#endif
