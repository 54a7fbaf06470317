// Rows of 8- and 16-bit elements and of `bool`: the compiled tier loads and stores a warp's
// unit-step row as vectors, widening and truncating its lanes, and a row at a fixed step
// element by element; partial masks, rows past a buffer's end and shared memory take the
// other paths. `tests/tiers.rs` runs each kernel on both tiers and compares the bytes.

__global__ void copy_bytes(unsigned char *out, const unsigned char *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// Values past the element's range: the store keeps the low bits; signed chars widen with
// their sign.
__global__ void bytes_arith(signed char *out, const signed char *in, short *wide) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[i] * 37 - 200;
    out[i] = x;
    wide[i] = x * 300 + in[i];
}

__global__ void shorts(unsigned short *out, const short *in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 5001 + 7;
}

// Lanes that skip the store leave their bytes alone (a partial mask).
__global__ void some_bytes(unsigned char *out, const unsigned char *in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i % 3 != 1) out[i] = in[i] + 1;
}

__global__ void flags(bool *out, const bool *in, const unsigned char *raw) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool r = raw[i] > 3;
    out[i] = in[i] != r;
}

// Reversed and strided rows.
__global__ void reversed(unsigned char *out, const unsigned char *in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = gridDim.x * blockDim.x;
    out[n - 1 - i] = in[i] ^ 0x5a;
}

struct rgba {
    unsigned char r, g, b, a;
};

__global__ void pixels(rgba *out, const rgba *in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    rgba p = in[i];
    rgba q;
    q.r = p.b;
    q.g = p.r + p.g;
    q.b = p.r;
    q.a = 255 - p.a;
    out[i] = q;
}

// A row that starts inside the buffer and runs past its end: the last warp's lanes past it
// fault on both tiers alike.
__global__ void past_the_end(unsigned char *out, const unsigned char *in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x + 4000;
    out[i - 4000] = in[i];
}

// Rows of shared bytes, whole and under partial masks.
__global__ void shared_bytes(unsigned char *out, const unsigned char *in) {
    __shared__ unsigned char tile[256];
    __shared__ short halves[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    halves[t] = -t;
    __syncthreads();
    if (t & 4) tile[t] = tile[t] + 9;
    if (t % 5 == 0) halves[t] = in[i] * 1000;
    __syncthreads();
    out[i] = tile[blockDim.x - 1 - t] + halves[t];
}
