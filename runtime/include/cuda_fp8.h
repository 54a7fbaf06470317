/* warpsim's stand-in for the CUDA toolkit's cuda_fp8.h: the 8-bit formats E4M3 (4 exponent
 * bits, 3 mantissa bits, no infinities, one NaN per sign: 0x7f and 0xff, largest 448) and E5M2
 * (IEEE-like: 5 and 2, infinities 0x7c, largest 57344), as raw bytes (`__nv_fp8_storage_t`)
 * and as the classes `__nv_fp8_e4m3` and `__nv_fp8_e5m2`. Conversions to fp8 round to nearest
 * even; a finite value past the largest, or an infinity, becomes the largest of its sign under
 * __NV_SATFINITE, and under __NV_NOSAT E4M3's NaN or E5M2's infinity; a NaN becomes E4M3's NaN,
 * or E5M2's quiet NaN with the top of the payload, keeping its sign: NVIDIA's host emulation,
 * written without branches. Conversions from fp8 are exact (a NaN becomes half's 0x7fff). The
 * classes convert with __NV_SATFINITE, as the toolkit's do. Both passes read this file.
 *
 * Not here: the vector classes (__nv_fp8x2_e4m3, __nv_fp8x4_e4m3, ...), conversions from
 * `__nv_bfloat16_raw` and to pairs of halves, the classes' conversions to types other than
 * float, and arithmetic on fp8 (the toolkit has none either). */
#ifndef WARPSIM_CUDA_FP8_H
#define WARPSIM_CUDA_FP8_H
#define __CUDA_FP8_H__

#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;

typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t saturate,
                                                                     __nv_fp8_interpretation_t fp8_interpretation) {
    bool e4m3 = fp8_interpretation == __NV_E4M3;
    unsigned long long bits = __warpsim_double_bits(x);
    unsigned int sign = (unsigned int)(bits >> 56) & 0x80u;
    unsigned long long ax = bits & 0x7fffffffffffffffull;
    unsigned int r = __warpsim_round_double(ax, e4m3 ? 7 : 15, e4m3 ? 3 : 2);
    unsigned int largest = e4m3 ? 0x7eu : 0x7bu;
    unsigned int past = saturate == __NV_SATFINITE ? largest : e4m3 ? 0x7fu : 0x7cu;
    r = r > largest ? past : r;
    unsigned int nan = e4m3 ? 0x7fu : 0x7eu | (unsigned int)((ax >> 50) & 3u);
    return (__nv_fp8_storage_t)(sign | (ax > 0x7ff0000000000000ull ? nan : r));
}
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t saturate,
                                                                    __nv_fp8_interpretation_t fp8_interpretation) {
    return __nv_cvt_double_to_fp8((double)x, saturate, fp8_interpretation);
}
/* x.x in the low byte, x.y in the high one. */
__host__ __device__ inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t saturate,
                                                                        __nv_fp8_interpretation_t fp8_interpretation) {
    return (__nv_fp8x2_storage_t)(__nv_cvt_float_to_fp8(x.x, saturate, fp8_interpretation) |
                                  (unsigned int)__nv_cvt_float_to_fp8(x.y, saturate, fp8_interpretation) << 8);
}
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t saturate,
                                                                      __nv_fp8_interpretation_t fp8_interpretation) {
    return __nv_cvt_double_to_fp8((double)__half2float(__half(x)), saturate, fp8_interpretation);
}

__host__ __device__ inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x,
                                                             __nv_fp8_interpretation_t fp8_interpretation) {
    unsigned int u = x;
    unsigned int sign = (u & 0x80u) << 8;
    unsigned int exp = (u >> 3) & 0xfu;
    unsigned int man = u & 7u;
    /* E4M3: a subnormal is man x 2^-9, exact in half; a normal moves its exponent to half's bias. */
    unsigned int sub = __warpsim_float2half_bits((float)man * 0.001953125f);
    unsigned int e4m3 = (u & 0x7fu) == 0x7fu ? 0x7fffu : (sign | (exp == 0u ? sub : ((exp + 8u) << 10 | man << 7)));
    /* E5M2 is half's top byte. */
    unsigned int e5m2 = (u & 0x7fu) > 0x7cu ? 0x7fffu : u << 8;
    __half_raw r;
    r.x = (unsigned short)(fp8_interpretation == __NV_E4M3 ? e4m3 : e5m2);
    return r;
}

struct __nv_fp8_e4m3 {
    __nv_fp8_storage_t __x;
    __host__ __device__ __nv_fp8_e4m3() : __x(0) {}
    __host__ __device__ __nv_fp8_e4m3(float f) : __x(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3)) {}
    __host__ __device__ __nv_fp8_e4m3(double d) : __x(__nv_cvt_double_to_fp8(d, __NV_SATFINITE, __NV_E4M3)) {}
    __host__ __device__ __nv_fp8_e4m3(int i) : __x(__nv_cvt_double_to_fp8((double)i, __NV_SATFINITE, __NV_E4M3)) {}
    __host__ __device__ __nv_fp8_e4m3(__half h)
        : __x(__nv_cvt_double_to_fp8((double)__half2float(h), __NV_SATFINITE, __NV_E4M3)) {}
    __host__ __device__ __nv_fp8_e4m3(__nv_bfloat16 h)
        : __x(__nv_cvt_double_to_fp8((double)__bfloat162float(h), __NV_SATFINITE, __NV_E4M3)) {}
    __host__ __device__ operator float() const { return __half2float(__half(__nv_cvt_fp8_to_halfraw(__x, __NV_E4M3))); }
};

struct __nv_fp8_e5m2 {
    __nv_fp8_storage_t __x;
    __host__ __device__ __nv_fp8_e5m2() : __x(0) {}
    __host__ __device__ __nv_fp8_e5m2(float f) : __x(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2)) {}
    __host__ __device__ __nv_fp8_e5m2(double d) : __x(__nv_cvt_double_to_fp8(d, __NV_SATFINITE, __NV_E5M2)) {}
    __host__ __device__ __nv_fp8_e5m2(int i) : __x(__nv_cvt_double_to_fp8((double)i, __NV_SATFINITE, __NV_E5M2)) {}
    __host__ __device__ __nv_fp8_e5m2(__half h)
        : __x(__nv_cvt_double_to_fp8((double)__half2float(h), __NV_SATFINITE, __NV_E5M2)) {}
    __host__ __device__ __nv_fp8_e5m2(__nv_bfloat16 h)
        : __x(__nv_cvt_double_to_fp8((double)__bfloat162float(h), __NV_SATFINITE, __NV_E5M2)) {}
    __host__ __device__ operator float() const { return __half2float(__half(__nv_cvt_fp8_to_halfraw(__x, __NV_E5M2))); }
};

#endif
