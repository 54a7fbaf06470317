/* warpsim's stand-in for the CUDA toolkit's curand_kernel.h: cuRAND's device API for the
 * XORWOW generator (`curandState`, the default) and Philox4x32-10, written from cuRAND's
 * documented algorithms: `curand_init` with any seed, subsequence and offset, `curand`,
 * `curand4` (Philox), `skipahead`, `skipahead_sequence`, and the uniform, normal and
 * log-normal distributions in float and double. Raw draws and uniforms are the GPU's bit for
 * bit (checked on an H100); the normals' logarithm, sine and cosine are warpsim's, so a normal
 * may differ from the GPU's in its last bits (the GPU takes its fast `__sincosf`).
 *
 * Both passes read this file: the host pass needs the state types (`sizeof(curandState)` is the
 * GPU's 48 bytes), the device pass the functions. XORWOW jumps ahead with the powers
 * M^(2^k) of its 160-bit transition matrix M (k < 64 for offsets, 67 <= k < 131 for
 * subsequences of 2^67 draws each); warpsim's lowering fills `__warpsim_xorwow_jump` with
 * them (src/cuda/front/curand.rs). */
#ifndef WARPSIM_CURAND_KERNEL_H
#define WARPSIM_CURAND_KERNEL_H
#define CURAND_KERNEL_H_

#include <vector_types.h>

struct curandStateXORWOW {
    unsigned int d, v[5];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
    uint4 ctr;
    uint4 output;
    uint2 key;
    unsigned int STATE;
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

#ifdef __CUDA_ARCH__

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW32_INV_DOUBLE (2.3283064365386963e-10)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)
#define CURAND_PI_DOUBLE (3.1415926535897932)

/* M^(2^k), k < 131: matrix k's row r (bit r % 32 of word r / 32) is at 800 k + 5 r. */
__device__ unsigned int __warpsim_xorwow_jump[131 * 800];

/* The state's five words times matrix k. */
__device__ void __warpsim_xorwow_apply(curandStateXORWOW_t *state, int k) {
    unsigned int r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0;
    for (int i = 0; i < 5; i++) {
        unsigned int x = i == 0 ? state->v[0]
                       : i == 1 ? state->v[1]
                       : i == 2 ? state->v[2]
                       : i == 3 ? state->v[3]
                                : state->v[4];
        while (x != 0) {
            int j = __ffs(x) - 1;
            x &= x - 1;
            int row = k * 800 + (i * 32 + j) * 5;
            r0 ^= __warpsim_xorwow_jump[row];
            r1 ^= __warpsim_xorwow_jump[row + 1];
            r2 ^= __warpsim_xorwow_jump[row + 2];
            r3 ^= __warpsim_xorwow_jump[row + 3];
            r4 ^= __warpsim_xorwow_jump[row + 4];
        }
    }
    state->v[0] = r0;
    state->v[1] = r1;
    state->v[2] = r2;
    state->v[3] = r3;
    state->v[4] = r4;
}

__device__ void skipahead(unsigned long long n, curandStateXORWOW_t *state) {
    state->d += 362437u * (unsigned int)n;
    for (int k = 0; n != 0; k++, n >>= 1) {
        if (n & 1ull) __warpsim_xorwow_apply(state, k);
    }
}

/* 2^67 draws a subsequence: d moves by a multiple of 2^32 (not at all). */
__device__ void skipahead_sequence(unsigned long long n, curandStateXORWOW_t *state) {
    for (int k = 67; n != 0; k++, n >>= 1) {
        if (n & 1ull) __warpsim_xorwow_apply(state, k);
    }
}

__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStateXORWOW_t *state) {
    unsigned int s0 = ((unsigned int)seed) ^ 0xaad26b49u;
    unsigned int s1 = (unsigned int)(seed >> 32) ^ 0xf7dcefddu;
    unsigned int t0 = 1099087573u * s0;
    unsigned int t1 = 2591861531u * s1;
    state->d = 6615241u + t1 + t0;
    state->v[0] = 123456789u + t0;
    state->v[1] = 362436069u ^ t0;
    state->v[2] = 521288629u + t1;
    state->v[3] = 88675123u ^ t1;
    state->v[4] = 5783321u + t0;
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
}

__device__ unsigned int curand(curandStateXORWOW_t *state) {
    unsigned int t = state->v[0] ^ (state->v[0] >> 2);
    state->v[0] = state->v[1];
    state->v[1] = state->v[2];
    state->v[2] = state->v[3];
    state->v[3] = state->v[4];
    state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
    state->d += 362437u;
    return state->v[4] + state->d;
}

/* Philox4x32-10. */
__device__ uint4 __warpsim_philox_round(uint4 ctr, uint2 key) {
    unsigned int lo0 = 0xD2511F53u * ctr.x, hi0 = __umulhi(0xD2511F53u, ctr.x);
    unsigned int lo1 = 0xCD9E8D57u * ctr.z, hi1 = __umulhi(0xCD9E8D57u, ctr.z);
    return make_uint4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
}

__device__ uint4 __warpsim_philox(uint4 c, uint2 k) {
    for (int round = 0; round < 9; round++) {
        c = __warpsim_philox_round(c, k);
        k.x += 0x9E3779B9u;
        k.y += 0xBB67AE85u;
    }
    return __warpsim_philox_round(c, k);
}

__device__ void __warpsim_philox_incr(curandStatePhilox4_32_10_t *s, unsigned long long n) {
    unsigned int nlo = (unsigned int)n;
    unsigned int nhi = (unsigned int)(n >> 32);
    s->ctr.x += nlo;
    if (s->ctr.x < nlo) nhi++;
    s->ctr.y += nhi;
    if (nhi <= s->ctr.y) return;
    if (++s->ctr.z) return;
    ++s->ctr.w;
}

__device__ void skipahead(unsigned long long n, curandStatePhilox4_32_10_t *state) {
    state->STATE += (unsigned int)(n & 3);
    n /= 4;
    if (state->STATE > 3) {
        n += 1;
        state->STATE -= 4;
    }
    __warpsim_philox_incr(state, n);
    state->output = __warpsim_philox(state->ctr, state->key);
}

__device__ void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t *state) {
    unsigned int nlo = (unsigned int)n;
    unsigned int nhi = (unsigned int)(n >> 32);
    state->ctr.z += nlo;
    if (state->ctr.z < nlo) nhi++;
    state->ctr.w += nhi;
    state->output = __warpsim_philox(state->ctr, state->key);
}

__device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStatePhilox4_32_10_t *state) {
    state->ctr = make_uint4(0, 0, 0, 0);
    state->key.x = (unsigned int)seed;
    state->key.y = (unsigned int)(seed >> 32);
    state->STATE = 0;
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
}

__device__ unsigned int curand(curandStatePhilox4_32_10_t *state) {
    unsigned int ret = state->STATE == 0   ? state->output.x
                       : state->STATE == 1 ? state->output.y
                       : state->STATE == 2 ? state->output.z
                                           : state->output.w;
    state->STATE++;
    if (state->STATE == 4) {
        __warpsim_philox_incr(state, 1);
        state->output = __warpsim_philox(state->ctr, state->key);
        state->STATE = 0;
    }
    return ret;
}

__device__ uint4 curand4(curandStatePhilox4_32_10_t *state) {
    uint4 tmp = state->output;
    __warpsim_philox_incr(state, 1);
    state->output = __warpsim_philox(state->ctr, state->key);
    uint4 r = tmp;
    if (state->STATE == 1) {
        r = make_uint4(tmp.y, tmp.z, tmp.w, state->output.x);
    } else if (state->STATE == 2) {
        r = make_uint4(tmp.z, tmp.w, state->output.x, state->output.y);
    } else if (state->STATE == 3) {
        r = make_uint4(tmp.w, state->output.x, state->output.y, state->output.z);
    }
    return r;
}

/* Distributions, for either generator. */
__device__ float __warpsim_uniform(unsigned int x) {
    return x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
}

__device__ double __warpsim_uniform_double(unsigned int x, unsigned int y) {
    unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << (53 - 32));
    return z * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}

__device__ float2 __warpsim_box_muller(unsigned int x, unsigned int y) {
    float u = x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2);
    float v = y * CURAND_2POW32_INV_2PI + (CURAND_2POW32_INV_2PI / 2);
    float s = sqrtf(-2.0f * logf(u));
    float2 result;
    __sincosf(v, &result.x, &result.y);
    result.x *= s;
    result.y *= s;
    return result;
}

__device__ double2 __warpsim_box_muller_double(unsigned int x0, unsigned int x1, unsigned int y0,
                                               unsigned int y1) {
    unsigned long long zx = (unsigned long long)x0 ^ ((unsigned long long)x1 << (53 - 32));
    double u = zx * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
    unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << (53 - 32));
    double v = zy * (CURAND_2POW53_INV_DOUBLE * 2.0) + CURAND_2POW53_INV_DOUBLE;
    double s = sqrt(-2.0 * log(u));
    double2 result;
    sincospi(v, &result.x, &result.y);
    result.x *= s;
    result.y *= s;
    return result;
}

template <typename S> __device__ float curand_uniform(S *state) {
    return __warpsim_uniform(curand(state));
}

__device__ double curand_uniform_double(curandStateXORWOW_t *state) {
    unsigned int x = curand(state);
    unsigned int y = curand(state);
    return __warpsim_uniform_double(x, y);
}

/* Philox's takes one draw, in (0, 1] by whole steps of 2^-32. */
__device__ double curand_uniform_double(curandStatePhilox4_32_10_t *state) {
    return curand(state) * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;
}

template <typename S> __device__ float2 curand_normal2(S *state) {
    unsigned int x = curand(state);
    unsigned int y = curand(state);
    return __warpsim_box_muller(x, y);
}

template <typename S> __device__ double2 curand_normal2_double(S *state) {
    unsigned int x0 = curand(state);
    unsigned int x1 = curand(state);
    unsigned int y0 = curand(state);
    unsigned int y1 = curand(state);
    return __warpsim_box_muller_double(x0, x1, y0, y1);
}

/* One normal of a Box-Muller pair; the other waits in the state (flag 1: normal, 2: log-normal). */
template <typename S> __device__ float curand_normal(S *state) {
    if (state->boxmuller_flag != 1) {
        float2 v = curand_normal2(state);
        state->boxmuller_extra = v.y;
        state->boxmuller_flag = 1;
        return v.x;
    }
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
}

template <typename S> __device__ double curand_normal_double(S *state) {
    if (state->boxmuller_flag_double != 1) {
        double2 v = curand_normal2_double(state);
        state->boxmuller_extra_double = v.y;
        state->boxmuller_flag_double = 1;
        return v.x;
    }
    state->boxmuller_flag_double = 0;
    return state->boxmuller_extra_double;
}

template <typename S> __device__ float curand_log_normal(S *state, float mean, float stddev) {
    if (state->boxmuller_flag != 2) {
        float2 v = curand_normal2(state);
        state->boxmuller_extra = expf(mean + stddev * v.y);
        state->boxmuller_flag = 2;
        return expf(mean + stddev * v.x);
    }
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
}

template <typename S>
__device__ double curand_log_normal_double(S *state, double mean, double stddev) {
    if (state->boxmuller_flag_double != 2) {
        double2 v = curand_normal2_double(state);
        state->boxmuller_extra_double = exp(mean + stddev * v.y);
        state->boxmuller_flag_double = 2;
        return exp(mean + stddev * v.x);
    }
    state->boxmuller_flag_double = 0;
    return state->boxmuller_extra_double;
}

__device__ float4 curand_uniform4(curandStatePhilox4_32_10_t *state) {
    uint4 x = curand4(state);
    return make_float4(__warpsim_uniform(x.x), __warpsim_uniform(x.y), __warpsim_uniform(x.z),
                       __warpsim_uniform(x.w));
}

#endif /* __CUDA_ARCH__ */
#endif
