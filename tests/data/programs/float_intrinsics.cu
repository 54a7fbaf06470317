// warpsim's reciprocal, norm and nextafter functions against the host's: each is checked on
// 256 threads' operands to be within `ulps` of the host's result computed in double and
// rounded (the GPU's are within one or two ulps too), and nextafter and <math.h>'s constants
// exactly.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define N 256

// A program's fallback for <math.h>'s constant: nvcc's cuda_runtime.h brings in <math.h>, so
// the device code sees glibc's double constant, not this float.
#ifndef M_SQRT1_2
#define M_SQRT1_2 0.70710678f
#endif

__host__ __device__ float operand(int t, int k) {
    return (t - 100) * 0.375f + k * 1.25f + (t % 7) * 0.0078125f;  // exact: no rounding to contract
}

__global__ void reciprocals(float *o, double *od) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float a = operand(t, 0), b = operand(t, 1), c = operand(t, 2);
    float *r = o + t * 8;
    r[0] = __frsqrt_rn(fabsf(a) + 0.5f);
    r[1] = rcbrtf(a + 0.25f);
    r[2] = rhypotf(a, b);
    r[3] = norm3df(a, b, c);
    r[4] = rnorm3df(a, b, c);
    r[5] = nextafterf(a, b);
    r[6] = nextafterf(0.0f, -b);
    r[7] = nextafterf(a, a);
    double *rd = od + t * 5;
    rd[0] = rhypot((double)a, (double)b);
    rd[1] = norm3d(a, b, (double)c);
    rd[2] = nextafter((double)a, (double)c);
    rd[3] = M_SQRT1_2 * a;
    rd[4] = M_PIf * a;
}

static unsigned bits(float f) {
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
}

int main() {
    float *o;
    double *od;
    cudaMallocManaged(&o, N * 8 * sizeof(float));
    cudaMallocManaged(&od, N * 5 * sizeof(double));
    reciprocals<<<N / 64, 64>>>(o, od);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    int bad = 0;
    for (int t = 0; t < N; t++) {
        float a = operand(t, 0), b = operand(t, 1), c = operand(t, 2);
        double da = a, db = b, dc = c;
        float want[8] = {(float)(1 / sqrt(fabs(da) + 0.5)), (float)(1 / cbrt(da + 0.25)),
                         (float)(1 / hypot(da, db)), (float)sqrt(da * da + db * db + dc * dc),
                         (float)(1 / sqrt(da * da + db * db + dc * dc)), nextafterf(a, b),
                         nextafterf(0.0f, -b), nextafterf(a, a)};
        for (int k = 0; k < 8; k++) {
            long long d = (long long)bits(o[t * 8 + k]) - (long long)bits(want[k]);
            if (d < -1 || d > 1 || (k >= 5 && d != 0)) {
                if (bad++ < 5) printf("t=%d k=%d got %a want %a\n", t, k, o[t * 8 + k], want[k]);
            }
        }
        double dwant[5] = {1 / hypot(da, db), sqrt(da * da + db * db + dc * dc), nextafter(da, dc),
                           M_SQRT1_2 * a, M_PIf * a};
        for (int k = 0; k < 5; k++) {
            if (fabs(od[t * 5 + k] - dwant[k]) > (k >= 2 ? 0 : 1e-15 * fabs(dwant[k]))) {
                if (bad++ < 5) printf("t=%d double k=%d got %a want %a\n", t, k, od[t * 5 + k], dwant[k]);
            }
        }
    }
    printf("%d of %d threads' results as the host's\n", N - bad, N);
    return bad != 0;
}
