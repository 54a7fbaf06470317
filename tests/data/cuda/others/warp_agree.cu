// Branches that whole warps may take alike: comparisons of values that step evenly from lane
// to lane, at the edges where a warp's lanes disagree, where the values wrap around, with a
// step known only at run time, combined with &&, || and !, kept across a barrier and
// reassigned under a mask.

__global__ void agree_unsigned_wrap(int *out, unsigned int n) {
    unsigned int t = threadIdx.x;
    unsigned int u = t + 0xFFFFFFF0u;  // wraps to 0 at lane 16 of warp 0
    int r = 0;
    if (u > n) r += 1;                 // the lanes before the wrap
    if (u >= 0xFFFFFFF8u) r += 2;
    if (u == 0xFFFFFFFFu) r += 4;      // one lane
    if (u != 3u) r += 8;               // all lanes but one
    if (t - 40u < 8u) r += 16;         // wraps below zero in the low lanes
    out[blockIdx.x * blockDim.x + t] = r;
}

__global__ void agree_signed_wrap(int *out, int n) {
    int t = threadIdx.x;
    int v = t + 2147483632;            // negative from lane 16 of warp 0 on
    int w = 40 - t * 3;                // a negative step
    int r = 0;
    if (v > n) r |= 1;
    if (v < 0) r |= 2;
    if (w > n) r |= 4;                 // no lane
    if (w <= 0 && t < 50) r |= 8;
    if (w == 1) r |= 16;               // t = 13
    if (!(t >= 32) || w == -2) r |= 32;
    out[blockIdx.x * blockDim.x + t] = r;
}

__global__ void agree_runtime_step(float *out, const float *in, int n) {
    int t = threadIdx.x;
    int x = t * n;                     // a step of n
    int y = (int)blockIdx.x * 40 - t;
    float acc = 0.0f;
    if (x < 4 * n && y > 30) acc = in[t];
    else if (x >= 100 * n || y == 80) acc = -in[t];
    out[blockIdx.x * blockDim.x + t] = acc;
}

__global__ void agree_tree(float *out, const float *in, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    bool low = t < 64;
    s[t] = in[blockIdx.x * blockDim.x + t];
    if (t % 3 == 0) low = t < 20;      // under a mask: lanes that no formula describes
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        bool on = t < k;
        if (on && low) s[t] += s[t + k];
        else if (on) s[t] -= 1.0f;
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
    if (low) out[gridDim.x + blockIdx.x * blockDim.x + t] = s[t];
}

__global__ void agree_printf(int n) {
    int t = threadIdx.x;
    if (t < 40 && blockIdx.x == 1) printf("lane %d of a warp that may agree\n", t);
    if (t >= n + 30) printf("late %d\n", t);
}

__global__ void agree_masked(int *out, int n) {
    int t = threadIdx.x;
    bool low = t < 64;
    if (t % 3 == 0) low = t < 20;      // under a mask: lanes that no formula describes
    int r = 0;
    if (low) r = 1;
    out[blockIdx.x * blockDim.x + t] = r;
}

__global__ void agree_across_barrier(int *out, int n) {
    __shared__ int s[256];
    int t = threadIdx.x;
    bool low = t < 32;                 // the last warp's lanes agree on false
    s[t] = t;
    __syncthreads();
    int r = s[(t + 1) % blockDim.x];
    if (low) r += 100;
    out[blockIdx.x * blockDim.x + t] = r;
}

// Remainders and quotients by a value the same in every lane: conditions on them that whole
// warps agree on at some steps only.
__global__ void agree_remainders(int *out, int n) {
    int t = threadIdx.x;
    unsigned int u = threadIdx.x;
    int r = 0;
    for (unsigned int s = 1; s < blockDim.x; s *= 2)
        if (u % (2 * s) == 0) r += s;  // whole warps agree from 2s = 64 on
    if (t / 32 == 1) r += 1000;        // warp 1 alone
    if ((t + n) % 48 < 16) r += 2000;  // not a power of two; runs that break inside warps
    if (t / 48 == 1) r += 4000;
    if ((n - 100 - t) % 7 == 3) r -= 1; // negative lanes: C truncates toward zero
    if (u % 0x40000000u > 40u) r += 8;
    if (t % (n - 64) == 0) r += 16;    // a division by zero
    if ((t * 3) % 128 >= 64) r += 32;  // a step of 3
    out[blockIdx.x * blockDim.x + t] = r;
}
