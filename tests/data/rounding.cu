// CUDA's intrinsics of IEEE arithmetic and conversion in a rounding mode (`_rn`, `_rz`, `_rd`,
// `_ru`), on edge and pseudo-random operands: thread i writes out[k * n + i], one u64 per
// intrinsic k (the result's bits, a NaN as the canonical one). tests/rounding.rs compares
// each intrinsic's results with an H100's (rounding_reference.cu made them).

__device__ unsigned long long mix(unsigned long long x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A float of kind 0: any bits; 1: near 1; 2: near either end of the range; 3: a small integer.
__device__ float fop(unsigned long long h, unsigned int kind) {
    unsigned int b = (unsigned int)h;
    unsigned int e = (b >> 23) & 15u;
    switch (kind) {
    case 0: return __uint_as_float(b);
    case 1: return __uint_as_float((b & 0x807fffffu) | ((120u + e) << 23));
    case 2: return __uint_as_float((b & 0x807fffffu) | (((b >> 27) & 1u ? 239u + e : e >> 1) << 23));
    default: return (float)((int)(b % 17u) - 8);
    }
}

// The same for doubles.
__device__ double dop(unsigned long long h, unsigned int kind) {
    unsigned long long e = (h >> 52) & 15ULL;
    unsigned long long m = h & 0x800fffffffffffffULL;
    switch (kind) {
    case 0: return __longlong_as_double((long long)h);
    case 1: return __longlong_as_double((long long)(m | ((1016ULL + e) << 52)));
    case 2: return __longlong_as_double((long long)(m | (((h >> 60) & 1ULL ? 2031ULL + e : e >> 1) << 52)));
    default: return (double)((int)(h % 17ULL) - 8);
    }
}

__device__ unsigned long long fb(float r) {
    return isnan(r) ? 0x7fffffffULL : (unsigned long long)__float_as_uint(r);
}

__device__ unsigned long long db(double r) {
    return isnan(r) ? 0x7fffffffffffffffULL : (unsigned long long)__double_as_longlong(r);
}

__global__ void rounding(unsigned long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long h1 = mix(i), h2 = mix(h1), h3 = mix(h2), h4 = mix(h3);
    unsigned int ka = i & 3, kb = (i >> 2) & 3;
    float a = fop(h1, ka), b = fop(h2, kb), c = fop(h3, (i >> 4) & 3);
    double x = dop(h1, ka), y = dop(h2, kb);
    // Conversion operands: floats of any magnitude up to past 2^64, integers of any width.
    float fi = ldexpf(fop(h4, 1), (int)((h4 >> 40) & 127u) - 40);
    double di = ldexp(dop(h4, 1), (int)((h4 >> 40) & 127u) - 40);
    long long ll = (long long)(h3 >> ((h4 >> 32) & 63u));
    if (h4 & 1ULL) ll = -ll;
    int ii = (int)ll;
    int k = 0;

    out[k++ * n + i] = fb(__fadd_rn(a, b)); out[k++ * n + i] = fb(__fadd_rz(a, b));
    out[k++ * n + i] = fb(__fadd_rd(a, b)); out[k++ * n + i] = fb(__fadd_ru(a, b));
    out[k++ * n + i] = fb(__fsub_rn(a, b)); out[k++ * n + i] = fb(__fsub_rz(a, b));
    out[k++ * n + i] = fb(__fsub_rd(a, b)); out[k++ * n + i] = fb(__fsub_ru(a, b));
    out[k++ * n + i] = fb(__fmul_rn(a, b)); out[k++ * n + i] = fb(__fmul_rz(a, b));
    out[k++ * n + i] = fb(__fmul_rd(a, b)); out[k++ * n + i] = fb(__fmul_ru(a, b));
    out[k++ * n + i] = fb(__fdiv_rn(a, b)); out[k++ * n + i] = fb(__fdiv_rz(a, b));
    out[k++ * n + i] = fb(__fdiv_rd(a, b)); out[k++ * n + i] = fb(__fdiv_ru(a, b));
    out[k++ * n + i] = fb(__fsqrt_rn(a)); out[k++ * n + i] = fb(__fsqrt_rz(a));
    out[k++ * n + i] = fb(__fsqrt_rd(a)); out[k++ * n + i] = fb(__fsqrt_ru(a));
    out[k++ * n + i] = fb(__frcp_rn(b)); out[k++ * n + i] = fb(__frcp_rz(b));
    out[k++ * n + i] = fb(__frcp_rd(b)); out[k++ * n + i] = fb(__frcp_ru(b));
    out[k++ * n + i] = fb(__fmaf_rn(a, b, c)); out[k++ * n + i] = fb(__fmaf_rz(a, b, c));
    out[k++ * n + i] = fb(__fmaf_rd(a, b, c)); out[k++ * n + i] = fb(__fmaf_ru(a, b, c));
    out[k++ * n + i] = db(__dadd_rn(x, y)); out[k++ * n + i] = db(__dadd_rz(x, y));
    out[k++ * n + i] = db(__dadd_rd(x, y)); out[k++ * n + i] = db(__dadd_ru(x, y));
    out[k++ * n + i] = db(__dsub_rn(x, y)); out[k++ * n + i] = db(__dsub_rz(x, y));
    out[k++ * n + i] = db(__dsub_rd(x, y)); out[k++ * n + i] = db(__dsub_ru(x, y));
    out[k++ * n + i] = db(__dmul_rn(x, y)); out[k++ * n + i] = db(__dmul_rz(x, y));
    out[k++ * n + i] = db(__dmul_rd(x, y)); out[k++ * n + i] = db(__dmul_ru(x, y));
    out[k++ * n + i] = db(__ddiv_rn(x, y)); out[k++ * n + i] = db(__ddiv_rz(x, y));
    out[k++ * n + i] = db(__ddiv_rd(x, y)); out[k++ * n + i] = db(__ddiv_ru(x, y));
    out[k++ * n + i] = db(__dsqrt_rn(x)); out[k++ * n + i] = db(__dsqrt_rz(x));
    out[k++ * n + i] = db(__dsqrt_rd(x)); out[k++ * n + i] = db(__dsqrt_ru(x));
    out[k++ * n + i] = db(__drcp_rn(y)); out[k++ * n + i] = db(__drcp_rz(y));
    out[k++ * n + i] = db(__drcp_rd(y)); out[k++ * n + i] = db(__drcp_ru(y));
    out[k++ * n + i] = db(__fma_rn(x, y, x));
    out[k++ * n + i] = (unsigned int)__float2int_rn(fi); out[k++ * n + i] = (unsigned int)__float2int_rz(fi);
    out[k++ * n + i] = (unsigned int)__float2int_rd(fi); out[k++ * n + i] = (unsigned int)__float2int_ru(fi);
    out[k++ * n + i] = __float2uint_rn(fi); out[k++ * n + i] = __float2uint_rz(fi);
    out[k++ * n + i] = __float2uint_rd(fi); out[k++ * n + i] = __float2uint_ru(fi);
    out[k++ * n + i] = __float2ll_rn(fi); out[k++ * n + i] = __float2ll_rz(fi);
    out[k++ * n + i] = __float2ll_rd(fi); out[k++ * n + i] = __float2ll_ru(fi);
    out[k++ * n + i] = __float2ull_rn(fi); out[k++ * n + i] = __float2ull_rz(fi);
    out[k++ * n + i] = __float2ull_rd(fi); out[k++ * n + i] = __float2ull_ru(fi);
    out[k++ * n + i] = (unsigned int)__double2int_rn(di); out[k++ * n + i] = (unsigned int)__double2int_rz(di);
    out[k++ * n + i] = (unsigned int)__double2int_rd(di); out[k++ * n + i] = (unsigned int)__double2int_ru(di);
    out[k++ * n + i] = __double2uint_rn(di); out[k++ * n + i] = __double2uint_rz(di);
    out[k++ * n + i] = __double2uint_rd(di); out[k++ * n + i] = __double2uint_ru(di);
    out[k++ * n + i] = __double2ll_rn(di); out[k++ * n + i] = __double2ll_rz(di);
    out[k++ * n + i] = __double2ll_rd(di); out[k++ * n + i] = __double2ll_ru(di);
    out[k++ * n + i] = __double2ull_rn(di); out[k++ * n + i] = __double2ull_rz(di);
    out[k++ * n + i] = __double2ull_rd(di); out[k++ * n + i] = __double2ull_ru(di);
    out[k++ * n + i] = fb(__int2float_rn(ii)); out[k++ * n + i] = fb(__int2float_rz(ii));
    out[k++ * n + i] = fb(__int2float_rd(ii)); out[k++ * n + i] = fb(__int2float_ru(ii));
    out[k++ * n + i] = fb(__uint2float_rn(ii)); out[k++ * n + i] = fb(__uint2float_rz(ii));
    out[k++ * n + i] = fb(__uint2float_rd(ii)); out[k++ * n + i] = fb(__uint2float_ru(ii));
    out[k++ * n + i] = fb(__ll2float_rn(ll)); out[k++ * n + i] = fb(__ll2float_rz(ll));
    out[k++ * n + i] = fb(__ll2float_rd(ll)); out[k++ * n + i] = fb(__ll2float_ru(ll));
    out[k++ * n + i] = fb(__ull2float_rn(ll)); out[k++ * n + i] = fb(__ull2float_rz(ll));
    out[k++ * n + i] = fb(__ull2float_rd(ll)); out[k++ * n + i] = fb(__ull2float_ru(ll));
    out[k++ * n + i] = db(__ll2double_rn(ll)); out[k++ * n + i] = db(__ll2double_rz(ll));
    out[k++ * n + i] = db(__ll2double_rd(ll)); out[k++ * n + i] = db(__ll2double_ru(ll));
    out[k++ * n + i] = db(__ull2double_rn(ll)); out[k++ * n + i] = db(__ull2double_rz(ll));
    out[k++ * n + i] = db(__ull2double_rd(ll)); out[k++ * n + i] = db(__ull2double_ru(ll));
    out[k++ * n + i] = db(__int2double_rn(ii)); out[k++ * n + i] = db(__uint2double_rn(ii));
    out[k++ * n + i] = fb(__double2float_rn(x)); out[k++ * n + i] = fb(__double2float_rz(x));
    out[k++ * n + i] = fb(__double2float_rd(x)); out[k++ * n + i] = fb(__double2float_ru(x));
}
