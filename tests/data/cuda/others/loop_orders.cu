// Loops the compiled tier runs in an order of its own (src/cuda/jit/translate.rs): a uniform
// loop iteration by iteration across the block, and a varying loop while every lane of the
// warp stays, handing over to the general code when one leaves. The tier suite runs each kernel
// on both tiers and compares every buffer byte and every count. n is 64 there.

// Iteration by iteration: each iteration's store a row; a uniform break after four.
__global__ void iterations_in_order(float *out, const float *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 6; j++) {
        if (j == n / 16) break;
        float v = in[t] + (float)j;
        out[j * 512 + t] = v;
    }
}

// The same after some threads have left, and with a value carried from one iteration to the
// next (which keeps the loop warp by warp).
__global__ void iterations_after_returns(float *out, const float *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t % 5 == 3) return;
    float carried = 0.0f;
    for (int j = 0; j < 4; j++) out[j * 512 + t] = in[t] * (float)j;
    for (int j = 0; j < 4; j++) {
        carried += in[j * 512 + t];
        out[2048 + j * 512 + t] = carried;
    }
}

// Grid-stride: lanes leave in different iterations (the bound is no multiple of the stride).
__global__ void stride_leaves_partway(float *out, const float *in, unsigned int n) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (unsigned int i = t; i < n * 50; i += blockDim.x * gridDim.x) sum += in[i];
    out[t] = sum;
}

// Counting down, signed; the bound on the left (odd blocks start past it).
__global__ void stride_down(int *out, const int *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int i = 3000 - t; i >= n; i -= 97) acc += in[i];
    for (int i = t + (int)(blockIdx.x % 2) * 3000; n * 40 > i; i += 300) acc ^= in[i] << 1;
    out[t] = acc;
}

// A test that breaks on true (`for` without a condition), a step the same for every lane;
// odd blocks start past the bound.
__global__ void break_when_done(int *out, const int *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int k = 0;
    for (int i = t * 3 + (int)(blockIdx.x % 2) * n * 60;; i += 5 * n) {
        if (i >= n * 60) break;
        k += in[i] & 7;
    }
    out[t] = k;
}

// Lanes whose index wraps around: the upper half starts past zero and leaves at once, the
// lower half after it wraps.
__global__ void stride_wraps(unsigned int *out, int n) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int steps = 0;
    for (unsigned int i = 0xFFFFFFF0u + threadIdx.x; i > 200u; i++) steps++;
    out[t] = steps + (unsigned int)n;
}

// Lanes a step apart that is not a constant (n): the lanes' own test decides.
__global__ void stride_by_a_parameter(float *out, const float *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int i = t * n; i < 4000; i += 1000) s += in[i];
    out[t] = s;
}

// Iteration by iteration, left only by a `return` of the whole block.
__global__ void iterations_until_return(float *out, const float *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int j = 0;
    while (true) {
        if (j == n / 16) return;
        out[j * 512 + t] = in[t] + (float)j;
        j++;
    }
}
