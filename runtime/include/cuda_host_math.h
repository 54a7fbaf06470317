/* The host side of math functions the CUDA toolkit declares __host__ __device__ (its
 * math_functions.h), which host code compiled by nvcc may call: rsqrtf, sincospif, min and max
 * for integers, and so on. The C library provides the rest (sqrtf, expf, ...). */
#ifndef WARPSIM_CUDA_HOST_MATH_H
#define WARPSIM_CUDA_HOST_MATH_H

#include <math.h>
#include <string.h>

/* Reinterpretations (math_constants.h spells CUDART_INF_F with one). */
static inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }
static inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
static inline float __uint_as_float(unsigned int x) { float f; memcpy(&f, &x, 4); return f; }
static inline unsigned int __float_as_uint(float x) { unsigned int i; memcpy(&i, &x, 4); return i; }
static inline double __longlong_as_double(long long int x) { double d; memcpy(&d, &x, 8); return d; }
static inline long long int __double_as_longlong(double x) { long long int i; memcpy(&i, &x, 8); return i; }

static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
static inline float sinpif(float x) { return sinf(3.14159265358979323846f * x); }
static inline double sinpi(double x) { return sin(3.14159265358979323846 * x); }
static inline float cospif(float x) { return cosf(3.14159265358979323846f * x); }
static inline double cospi(double x) { return cos(3.14159265358979323846 * x); }
static inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
static inline void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678118654752440f); }
static inline double normcdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float saturate(float x) { return __saturatef(x); }
static inline float fdividef(float x, float y) { return x / y; }
static inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline long long int llmin(long long int a, long long int b) { return a < b ? a : b; }
static inline long long int llmax(long long int a, long long int b) { return a > b ? a : b; }
static inline unsigned long long int ullmin(unsigned long long int a, unsigned long long int b) { return a < b ? a : b; }
static inline unsigned long long int ullmax(unsigned long long int a, unsigned long long int b) { return a > b ? a : b; }

#ifdef __cplusplus
/* nvcc's host pass has min and max overloads for the arithmetic types. */
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline unsigned int min(int a, unsigned int b) { return umin((unsigned int)a, b); }
static inline unsigned int max(int a, unsigned int b) { return umax((unsigned int)a, b); }
static inline unsigned int min(unsigned int a, int b) { return umin(a, (unsigned int)b); }
static inline unsigned int max(unsigned int a, int b) { return umax(a, (unsigned int)b); }
static inline long long int min(long long int a, long long int b) { return a < b ? a : b; }
static inline long long int max(long long int a, long long int b) { return a > b ? a : b; }
static inline unsigned long long int min(unsigned long long int a, unsigned long long int b) { return a < b ? a : b; }
static inline unsigned long long int max(unsigned long long int a, unsigned long long int b) { return a > b ? a : b; }
static inline long int min(long int a, long int b) { return a < b ? a : b; }
static inline long int max(long int a, long int b) { return a > b ? a : b; }
static inline unsigned long int min(unsigned long int a, unsigned long int b) { return a < b ? a : b; }
static inline unsigned long int max(unsigned long int a, unsigned long int b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
static inline double min(float a, double b) { return fmin(a, b); }
static inline double max(float a, double b) { return fmax(a, b); }
static inline double min(double a, float b) { return fmin(a, b); }
static inline double max(double a, float b) { return fmax(a, b); }
#endif

#endif
