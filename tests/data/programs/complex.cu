// cuComplex.h on both sides, with values every rounding gives alike (small integers, a divisor
// whose scaling is exact, 3-4-5 magnitudes), and cuda_gl_interop.h included for its sake only.
#include <cstdio>
#include <cuComplex.h>
#include <cuda_gl_interop.h>

__global__ void ops(cuFloatComplex *f, cuDoubleComplex *d) {
    cuFloatComplex a = make_cuFloatComplex(3.0f, 4.0f), b = make_cuFloatComplex(1.0f, -2.0f);
    f[0] = cuCmulf(a, b);
    f[1] = cuCdivf(cuCmulf(a, b), b);
    f[2] = make_cuFloatComplex(cuCabsf(a), cuCrealf(cuConjf(b)) + cuCimagf(cuConjf(b)));
    f[3] = cuCfmaf(a, b, cuCsubf(a, cuCaddf(b, b)));
    cuDoubleComplex p = cuComplexFloatToDouble(a), q = make_cuDoubleComplex(-6.0, 8.0);
    d[0] = cuCmul(p, q);
    d[1] = cuCdiv(q, make_cuDoubleComplex(0.0, 2.0));
    d[2] = make_cuDoubleComplex(cuCabs(q), cuCreal(cuConj(q)) - cuCimag(cuConj(q)));
}

int main() {
    cuFloatComplex *f, hf[4];
    cuDoubleComplex *d, hd[3];
    cudaMalloc(&f, sizeof hf);
    cudaMalloc(&d, sizeof hd);
    ops<<<1, 1>>>(f, d);
    cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    for (int k = 0; k < 4; k++) printf("f%d %g %g\n", k, cuCrealf(hf[k]), cuCimagf(hf[k]));
    for (int k = 0; k < 3; k++) printf("d%d %g %g\n", k, cuCreal(hd[k]), cuCimag(hd[k]));
    cuFloatComplex h = cuCdivf(make_cuFloatComplex(10.0f, 5.0f), make_cuFloatComplex(1.0f, 2.0f));
    printf("host %g %g\n", cuCrealf(h), cuCimagf(h));
    return 0;
}
