// Per-thread arrays on the compiled tier (src/cuda/jit/translate/local.rs). The tier suite
// runs each kernel on both tiers and compares every buffer byte and every count; n is 64.

// Register tiling: a loop counter indexes (the same in every lane), some threads sit out a
// branch that writes the array.
__global__ void tile_accumulate(float *out, const float *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[8];
    for (int k = 0; k < 8; k++) acc[k] = in[(t + k) % 4096];
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 8; k++)
            if ((t + r) % 3 != 0) acc[k] += in[(t * 2 + k * r) % 4096] * 0.5f;
    float s = 0.0f;
    for (int k = 0; k < 8; k++) s += acc[k] * (float)(k + 1);
    out[t] = s;
}

// An index that differs between lanes, reads and writes; an element never written reads 0.
__global__ void per_lane_index(int *out, const int *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int hist[16];
    for (int k = 0; k < 12; k++) hist[k] = k;
    for (int k = 0; k < 5; k++) hist[(in[t] + k + t) % 16] += 1 + k;
    int j = (t * 7) % 16;
    out[t] = hist[j] * 100 + hist[(j + 3) % 16];
}

// 64-bit and bool elements, a 64-bit index, a local array declared inside a loop.
__global__ void wide_and_bool(double *out, const long long *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    double d[4];
    bool seen[4];
    for (long long k = 0; k < 4; k++) {
        d[k] = (double)in[t % 4096] * (double)(k + 1);
        seen[k] = ((t >> k) & 1) != 0;
    }
    double s = 0.0;
    for (int r = 0; r < 3; r++) {
        int tmp[2];
        tmp[r % 2] = t + r;
        if (seen[r]) s += d[r] + (double)tmp[r % 2];
    }
    out[t] = s + (seen[t % 4] ? 1.0 : 0.0);
}

// After early returns, inside a divergent loop.
__global__ void after_returns(unsigned int *out, const unsigned int *in, int n) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t % 7 == 2) return;
    unsigned int v[6] = {1, 2, 3, 4, 5, 6};
    for (unsigned int i = t % 5; i < 6; i++) v[i] = v[i] * 3u + in[t];
    out[t] = v[0] + v[1] * 10u + v[5] * 100u;
}

// Indexed by a `bool`, the same in every lane and not.
__global__ void bool_index(int *out, const int *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int two[2] = {in[t], -in[t]};
    bool odd = (t & 1) != 0, big = n > 32;
    two[big] += 5;
    out[t] = two[odd] * 3 + two[big];
}
