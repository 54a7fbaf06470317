// Strided global stores that the compiled tier may queue and write thread by thread
// (src/cuda/jit/translate/queue.rs). The tier suite runs each kernel on both tiers and
// compares every buffer byte; each kernel tests one rule of when stores may wait.

// Six stores a thread, 32 bytes apart per lane: more than the queue holds.
__global__ void queue_more_than_fits(float *out, const float *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 6; j++) out[t * 8 + j] = in[t] + (float)j;
}

// Lanes 2 words apart storing 4 words each: lane l's third store hits lane l+1's first word,
// so those stores must not wait together (the last store in program order wins).
__global__ void queue_lanes_overlap(int *out, const int *in, int n) {
    int t = threadIdx.x;
    int base = (blockIdx.x * ((blockDim.x + 31) / 32) + t / 32) * 128;
    for (int j = 0; j < 4; j++) out[base + (t % 32) * 2 + j] = t * 10 + j + in[0];
}

// A whole row store after queued strided ones to the same words: the queue goes first.
__global__ void queue_then_row(int *out, int n) {
    int t = threadIdx.x;
    int base = (blockIdx.x * ((blockDim.x + 31) / 32) + t / 32) * 128;
    for (int j = 0; j < 3; j++) out[base + (t % 32) * 4 + j] = 100 + j;
    out[base + t % 32] = -t;
}

// A store under a partial mask, to a word a queued store wrote, between queued ones: the
// queue goes first.
__global__ void queue_around_a_partial_store(float *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t * 8] = 1.0f;
    out[t * 8 + 1] = 2.0f;
    if (t % 3 != 0) out[t * 8 + 1] = 3.0f;
    out[t * 8 + 3] = 4.0f;
}

// Two steps from the same start: lane 3's first store and lane 2's second hit one word, so
// stores of another step do not wait together.
__global__ void queue_two_steps(int *out, int n) {
    int t = threadIdx.x;
    int base = (blockIdx.x * ((blockDim.x + 31) / 32) + t / 32) * 128;
    out[base + (t % 32) * 2] = t;
    out[base + (t % 32) * 3] = 1000 + t;
}

// The output is read back in the kernel: its stores never wait.
__global__ void queue_not_when_read(float *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 4; j++) out[t * 8 + j] = (float)(t + j);
    out[t * 8 + 4] = out[t * 8 + 2] + out[t * 8 + 3];
}

// Stores across a barrier and in a loop whose trip count varies by lane.
__global__ void queue_varying_loop(float *out, int n) {
    __shared__ float s[128];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 2; j++) out[t * 8 + j] = (float)j;
    s[threadIdx.x] = (float)t;
    __syncthreads();
    for (int j = 2; j < 2 + t % 5; j++) out[t * 8 + j] = s[(threadIdx.x + 1) % blockDim.x];
}

// 8-byte lanes and a negative step.
__global__ void queue_doubles_and_down(double *d, float *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 3; j++) d[t * 4 + j] = (double)t * 0.5 + j;
    for (int j = 0; j < 3; j++) out[4000 - t * 7 - j] = (float)(t - j);
}
