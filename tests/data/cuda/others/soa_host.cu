// Particles as a struct of arrays and as an array of float4 structs, with a C++ host program
// (classes, namespaces, templates, lambdas, std::vector, iostream) that the front-end skips.
#include <cuda_runtime.h>
#include <iostream>
#include <vector>
#include <algorithm>
#include <cmath>

namespace sim {

struct Params {
    float dt;
    float damping;
    int n;
};

struct Particle {
    float4 pos;  // 16-byte aligned: one vector load
    float4 vel;
};

__device__ inline float clampf(float v, float lo, float hi) { return fminf(fmaxf(v, lo), hi); }

__global__ void step_soa(float *x, float *y, float *vx, float *vy, Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    float nvx = vx[i] * p.damping;
    float nvy = vy[i] * p.damping - 9.81f * p.dt;
    x[i] += nvx * p.dt;
    y[i] = clampf(y[i] + nvy * p.dt, 0.0f, 100.0f);
    vx[i] = nvx;
    vy[i] = nvy;
}

__global__ void step_aos(Particle *ps, Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) {
        Particle q = ps[i];
        q.vel.y -= 9.81f * p.dt;
        q.pos = make_float4(q.pos.x + q.vel.x * p.dt, q.pos.y + q.vel.y * p.dt, q.pos.z, 1.0f);
        ps[i] = q;
    }
}

}  // namespace sim

class Timer {
public:
    Timer() { cudaEventCreate(&a); cudaEventCreate(&b); cudaEventRecord(a); }
    float stop() { float ms; cudaEventRecord(b); cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); return ms; }
private:
    cudaEvent_t a, b;
};

template <typename T>
T *to_device(const std::vector<T> &v) {
    T *d = nullptr;
    cudaMalloc(&d, v.size() * sizeof(T));
    cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}

int main() {
    const int n = 1 << 20;
    std::vector<float> x(n), y(n, 50.0f), vx(n, 1.0f), vy(n, 0.0f);
    std::generate(x.begin(), x.end(), [i = 0]() mutable { return float(i++) * 0.001f; });
    sim::Params p{0.01f, 0.99f, n};
    float *dx = to_device(x), *dy = to_device(y), *dvx = to_device(vx), *dvy = to_device(vy);
    Timer t;
    sim::step_soa<<<(n + 255) / 256, 256>>>(dx, dy, dvx, dvy, p);
    std::cout << "soa: " << t.stop() << " ms" << std::endl;
    std::vector<sim::Particle> ps(n);
    auto *dps = to_device(ps);
    sim::step_aos<<<(n + 255) / 256, 256>>>(dps, p);
    return 0;
}
