// The C math library on the compiled tier (a helper computes each lane as the interpreter
// does: src/cuda/ir/library.rs). The tier suite compares every buffer byte and every count.

// Varying arguments, under a divergent branch, float and double.
__global__ void softmax_like(float *out, const float *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[t] - 3.0f;
    float y = expf(x) + logf(fabsf(x) + 1.0f) + sinf(x) * cosf(x) + tanhf(x);
    if (t % 3 == 1) y += tanf(x * 0.1f) + roundf(x * 2.5f) + exp2f(x) + log2f(x + 10.0f);
    if (t % 5 == 2) y += erff(x) + cbrtf(x) + sinpif(x) + log1pf(fabsf(x)) + expm1f(x * 0.5f);
    out[t] = y + log10f(fabsf(y) + 1.0f);
}

// Uniform arguments (a parameter) and 64-bit lanes.
__global__ void gelu_double(double *out, const double *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    double s = exp(-(double)n / 100.0) + sqrt(2.0 / 3.14159);
    double x = in[t] - 2.0;
    double g = 0.5 * x * (1.0 + tanh(s * (x + 0.044715 * x * x * x)));
    out[t] = g + erfc(x) + lgamma(fabs(x) + 1.5) + asinh(x) + atan(x) + cosh(x * 0.1);
}

// Functions of two values: float and double, uniform and varying, under a branch.
__global__ void two_values(float *out, const double *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = (float)in[t] - 2.0f, y = 0.75f + (float)(t % 7);
    float r = powf(fabsf(x), y) + atan2f(x, y) + fmodf(x * 10.0f, y);
    if (t % 4 == 1) r += hypotf(x, y) + copysignf(y, x) + fdimf(x, y) + remainderf(x * 5.0f, y);
    r += ldexpf(x, t % 9) + powf(2.0f, (float)n / 32.0f);
    double d = pow(in[t], 1.5) + atan2(in[t], (double)n) + fmod(in[t] * 3.0, 1.25);
    out[t] = r + (float)d;
}
