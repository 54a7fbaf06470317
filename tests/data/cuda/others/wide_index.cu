// Indices of 64 bits (`size_t`, `long long`), as real code writes them to index past 2^31:
// the compiled tier tells at run time whether a warp's lanes are a row (lanes a fixed step
// apart, near enough to zero that no byte offset wraps) and takes the row's path, else goes
// lane by lane. The tier suite runs each kernel on both tiers and compares every byte and
// count; n is 64 there and every buffer holds 4096 elements.

__global__ void wide_copy(float *o, const float *in, int n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 4096) o[i] = in[i] * 2.0f;
}

__global__ void wide_every_other(float *o, const float *in, int n) {
    long long i = 2LL * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i < 4096) o[i] = in[i + 1] - in[i];
}

__global__ void wide_backwards(int *o, const int *in, int n) {
    long long i = 4095 - (long long)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= 0) o[i] = in[i] + 1;
}

__global__ void wide_scrambled(float *o, const float *in, int n) {
    size_t i = ((size_t)threadIdx.x * 7) % blockDim.x + (size_t)blockIdx.x * blockDim.x;
    if (i < 4096) o[i] = in[4095 - i];
}

__global__ void wide_rows_of_a_matrix(double *o, const double *in, int n) {
    size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t i = row * (size_t)n + col;
    if (col < (size_t)n && i < 4096) o[i] = in[i] + (double)row;
}

__global__ void wide_partial_mask(unsigned *o, const unsigned *in, int n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 3 != 1 && i < 4096) o[i] = in[i] ^ 0x55u;
}

__global__ void wide_same_element(float *o, const float *in, int n) {
    long long i = (long long)blockIdx.x * 0 + (long long)(n / 2);
    o[blockIdx.x * blockDim.x + threadIdx.x] = in[i];
}

// Fields of structs at a 64-bit index (`img[i].x`: a row whose lanes are two or three
// elements of the field's size apart), forwards, backwards and past the end.
struct pair_d {
    double x, y;
};
struct triple_f {
    float a, b, c;
};

__global__ void wide_struct_fields(pair_d *o, const pair_d *in, const triple_f *t, int n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t back = 2047 - i;
    if (i < 1024) {
        double x = in[i].x, y = in[back].y;
        o[i].x = x * y + (double)t[i].b;
        o[back].y = x - (double)t[i + 1].c;
    }
}

// The last warp's row runs past the buffer's end: those lanes fault alike on both tiers.
__global__ void wide_struct_past_end(pair_d *o, const pair_d *in, int n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x + 2000;
    o[i - 2000].y = in[i].x;
}
