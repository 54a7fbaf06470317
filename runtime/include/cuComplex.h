/* warpsim's stand-in for the CUDA toolkit's cuComplex.h: single and double complex numbers as
 * float2 and double2 (x the real part, y the imaginary), with CUDA's functions. Division scales
 * both operands by the divisor's |re| + |im| first, and the absolute value divides the smaller
 * part by the larger before squaring, so neither overflows where the result does not (the
 * toolkit's algorithms, hence its results). Both passes read this file. */
#ifndef WARPSIM_CU_COMPLEX_H
#define WARPSIM_CU_COMPLEX_H
#define CU_COMPLEX_H_

#include <vector_types.h>
#ifndef __CUDA_ARCH__
#include <host_defines.h>
#include <math.h>
#endif

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

__host__ __device__ inline float cuCrealf(cuFloatComplex z) { return z.x; }
__host__ __device__ inline float cuCimagf(cuFloatComplex z) { return z.y; }
__host__ __device__ inline cuFloatComplex make_cuFloatComplex(float re, float im) {
    cuFloatComplex z;
    z.x = re;
    z.y = im;
    return z;
}
__host__ __device__ inline cuFloatComplex cuConjf(cuFloatComplex z) {
    return make_cuFloatComplex(z.x, -z.y);
}
__host__ __device__ inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) {
    return make_cuFloatComplex(a.x + b.x, a.y + b.y);
}
__host__ __device__ inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) {
    return make_cuFloatComplex(a.x - b.x, a.y - b.y);
}
__host__ __device__ inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) {
    return make_cuFloatComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__host__ __device__ inline cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) {
    float s = fabsf(b.x) + fabsf(b.y);
    float inv = 1.0f / s;
    float ar = a.x * inv, ai = a.y * inv, br = b.x * inv, bi = b.y * inv;
    s = br * br + bi * bi;
    inv = 1.0f / s;
    return make_cuFloatComplex((ar * br + ai * bi) * inv, (ai * br - ar * bi) * inv);
}
__host__ __device__ inline float cuCabsf(cuFloatComplex z) {
    float a = fabsf(z.x), b = fabsf(z.y);
    float v = a > b ? a : b, w = a > b ? b : a;
    float t = w / v;
    t = 1.0f + t * t;
    t = v * sqrtf(t);
    if (v == 0.0f || v > 3.402823466e38f || w > 3.402823466e38f) t = v + w;
    return t;
}
/* a * b + c, each part as two fused steps. */
__host__ __device__ inline cuFloatComplex cuCfmaf(cuFloatComplex a, cuFloatComplex b,
                                                  cuFloatComplex c) {
    float re = a.x * b.x + c.x;
    float im = a.x * b.y + c.y;
    re = -(a.y * b.y) + re;
    im = a.y * b.x + im;
    return make_cuFloatComplex(re, im);
}

__host__ __device__ inline double cuCreal(cuDoubleComplex z) { return z.x; }
__host__ __device__ inline double cuCimag(cuDoubleComplex z) { return z.y; }
__host__ __device__ inline cuDoubleComplex make_cuDoubleComplex(double re, double im) {
    cuDoubleComplex z;
    z.x = re;
    z.y = im;
    return z;
}
__host__ __device__ inline cuDoubleComplex cuConj(cuDoubleComplex z) {
    return make_cuDoubleComplex(z.x, -z.y);
}
__host__ __device__ inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x + b.x, a.y + b.y);
}
__host__ __device__ inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x - b.x, a.y - b.y);
}
__host__ __device__ inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__host__ __device__ inline cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b) {
    double s = fabs(b.x) + fabs(b.y);
    double inv = 1.0 / s;
    double ar = a.x * inv, ai = a.y * inv, br = b.x * inv, bi = b.y * inv;
    s = br * br + bi * bi;
    inv = 1.0 / s;
    return make_cuDoubleComplex((ar * br + ai * bi) * inv, (ai * br - ar * bi) * inv);
}
__host__ __device__ inline double cuCabs(cuDoubleComplex z) {
    double a = fabs(z.x), b = fabs(z.y);
    double v = a > b ? a : b, w = a > b ? b : a;
    double t = w / v;
    t = 1.0 + t * t;
    t = v * sqrt(t);
    if (v == 0.0 || v > 1.79769313486231570e+308 || w > 1.79769313486231570e+308) t = v + w;
    return t;
}
__host__ __device__ inline cuDoubleComplex cuCfma(cuDoubleComplex a, cuDoubleComplex b,
                                                  cuDoubleComplex c) {
    double re = a.x * b.x + c.x;
    double im = a.x * b.y + c.y;
    re = -(a.y * b.y) + re;
    im = a.y * b.x + im;
    return make_cuDoubleComplex(re, im);
}

__host__ __device__ inline cuComplex make_cuComplex(float re, float im) {
    return make_cuFloatComplex(re, im);
}
__host__ __device__ inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) {
    return make_cuDoubleComplex((double)z.x, (double)z.y);
}
__host__ __device__ inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) {
    return make_cuFloatComplex((float)z.x, (float)z.y);
}

#endif
