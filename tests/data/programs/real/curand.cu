// cuRAND's device API: XORWOW (curandState) and Philox4x32-10 states through curand_init with
// several seeds, subsequences and offsets, raw draws and every distribution, printed for
// comparison with a GPU's output (curand.h200.txt: this program built with nvcc, sm_90).
#include <cstdio>
#include <curand.h>
#include <curand_kernel.h>
__global__ void setup(curandState *s, unsigned long long seed, unsigned long long off) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, off, &s[id]);
}
__global__ void draw(curandState *s, unsigned int *raw, float *u, float *nrm, double *ud, double *nd) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState l = s[id];
    raw[id] = curand(&l);
    u[id] = curand_uniform(&l);
    nrm[id] = curand_normal(&l);
    ud[id] = curand_uniform_double(&l);
    nd[id] = curand_normal_double(&l);
    s[id] = l;
}
__global__ void philox(unsigned long long seed, unsigned long long off, unsigned int *raw, float4 *u4, double *ud, float *nrm, double *nd) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t st;
    curand_init(seed, id, off, &st);
    raw[id] = curand(&st);
    u4[id] = curand_uniform4(&st);
    ud[id] = curand_uniform_double(&st);
    raw[id + 256] = curand(&st);
    nrm[id] = curand_normal(&st);
    nd[id] = curand_normal_double(&st);
    raw[id + 512] = curand(&st);
}
int main() {
    static_assert(CURAND_STATUS_SUCCESS == 0, "curand.h's status codes");
    const int n = 256;
    curandState *s; unsigned int *raw; float *u, *nrm; double *ud, *nd; float4 *u4;
    printf("sizeof(curandState) %zu, philox %zu\n", sizeof(curandState), sizeof(curandStatePhilox4_32_10_t));
    cudaMalloc(&s, n * sizeof(curandState)); cudaMalloc(&raw, n * 12); cudaMalloc(&u, n * 4); cudaMalloc(&nrm, n * 4);
    cudaMalloc(&ud, n * 8); cudaMalloc(&nd, n * 8); cudaMalloc(&u4, n * 16);
    unsigned long long seeds[3] = {1234ull, 0ull, 0x123456789abcdefull};
    unsigned long long offs[3] = {0ull, 7ull, 1000003ull};
    unsigned int hr[3 * n]; float hu[n], hn[n]; double hud[n], hnd[n]; float4 h4[n];
    for (int c = 0; c < 3; c++) {
        setup<<<n / 64, 64>>>(s, seeds[c], offs[c]);
        for (int rep = 0; rep < 2; rep++) {
            draw<<<n / 64, 64>>>(s, raw, u, nrm, ud, nd);
            cudaMemcpy(hr, raw, sizeof hr, cudaMemcpyDeviceToHost); cudaMemcpy(hu, u, sizeof hu, cudaMemcpyDeviceToHost);
            cudaMemcpy(hn, nrm, sizeof hn, cudaMemcpyDeviceToHost); cudaMemcpy(hud, ud, sizeof hud, cudaMemcpyDeviceToHost);
            cudaMemcpy(hnd, nd, sizeof hnd, cudaMemcpyDeviceToHost);
            for (int i : {0, 1, 2, 63, 100, 255})
                printf("x c%d r%d i%d %u %.9g %.9g %.17g %.17g\n", c, rep, i, hr[i], hu[i], hn[i], hud[i], hnd[i]);
        }
        philox<<<n / 64, 64>>>(seeds[c], offs[c], raw, u4, ud, nrm, nd);
        cudaMemcpy(hr, raw, sizeof hr, cudaMemcpyDeviceToHost); cudaMemcpy(h4, u4, sizeof h4, cudaMemcpyDeviceToHost);
        cudaMemcpy(hud, ud, sizeof hud, cudaMemcpyDeviceToHost);
        cudaMemcpy(hn, nrm, sizeof hn, cudaMemcpyDeviceToHost); cudaMemcpy(hnd, nd, sizeof hnd, cudaMemcpyDeviceToHost);
        for (int i : {0, 1, 2, 63, 100, 255})
            printf("p c%d i%d %u %.9g %.9g %.9g %.9g %.17g %u %u %.9g %.17g\n", c, i, hr[i], h4[i].x, h4[i].y, h4[i].z, h4[i].w, hud[i], hr[i + 256], hr[i + 512], hn[i], hnd[i]);
    }
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
