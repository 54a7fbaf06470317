// Loops with barriers whose exit test reads memory, so the compiler cannot tell that every
// thread of the block leaves together (Rodinia's lavaMD: `k < 1 + box[bx].nn`; HeCBench's asta:
// `while (lmem[1] < m)`). Each kernel's result is checked against the host's; the last kernel
// misuses its barrier (threads leave a loop whose barrier the others still reach, with a
// barrier after the loop) and must fail as on the GPU's checker.
#include <cstdio>
#include <cuda_runtime.h>

#define T 128

// The bound comes from global memory at the block's own index: the block's threads agree.
// Nothing follows the loop.
__global__ void bound_from_memory(const int *n, int *out) {
    __shared__ int s[T];
    int t = threadIdx.x;
    out[blockIdx.x * T + t] = 0;
    if (blockIdx.x < 3) {
        for (int i = 0; i < n[blockIdx.x]; i++) {
            s[t] = t * (i + 1);
            __syncthreads();
            out[blockIdx.x * T + t] += s[(t + 1) % T];
            __syncthreads();
        }
    }
}

// Odd threads loop once more than even ones; nothing follows the loop, so the barrier of the
// last iteration waits for the odd threads alone (each reads its own slot then).
__global__ void uneven_then_nothing(const int *n, int *out) {
    __shared__ int s[T];
    int t = threadIdx.x;
    out[blockIdx.x * T + t] = 0;
    for (int i = 0; i < n[blockIdx.x] + (t & 1); i++) {
        s[t] = t + i;
        __syncthreads();
        out[blockIdx.x * T + t] += s[t];
        __syncthreads();
    }
}

// A work queue in shared memory: a `while` on a shared value, a `continue` under a branch with
// barriers of its own.
__global__ void queue(int *head, int *out) {
    __shared__ int l[2];
    int t = threadIdx.x;
    if (t == 0) l[1] = atomicAdd(head, 1);
    __syncthreads();
    while (l[1] < 4) {
        int v = l[1];
        if (v % 3 == 0) {
            __syncthreads();
            if (t == 0) l[1] = atomicAdd(head, 1);
            __syncthreads();
            continue;
        }
        out[v * T + t] = v + t;
        __syncthreads();
        if (t == 0) l[1] = atomicAdd(head, 1);
        __syncthreads();
    }
}

// The same bound with work and a barrier after the loop.
__global__ void bound_then_work(const int *n, int *out, int uneven) {
    __shared__ int s[T];
    int t = threadIdx.x;
    int acc = 0;
    for (int i = 0; i < n[blockIdx.x] + (uneven ? t & 1 : 0); i++) {
        s[t] = t * i;
        __syncthreads();
        acc += s[(t + 3) % T];
        __syncthreads();
    }
    s[t] = acc;
    __syncthreads();
    out[blockIdx.x * T + t] = s[T - 1 - t];
}

int main() {
    const int blocks = 4, hn[blocks] = {3, 0, 5, 1};
    int *n, *out, *head, h[blocks * T];
    cudaMalloc(&n, sizeof hn);
    cudaMalloc(&out, sizeof h);
    cudaMalloc(&head, sizeof(int));
    cudaMemcpy(n, hn, sizeof hn, cudaMemcpyHostToDevice);

    bound_from_memory<<<blocks, T>>>(n, out);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < T; t++) {
            int want = 0;
            for (int i = 0; b < 3 && i < hn[b]; i++) want += (t + 1) % T * (i + 1);
            bad += h[b * T + t] != want;
        }
    printf("bound_from_memory: %s, %d wrong\n", cudaGetErrorString(e), bad);

    uneven_then_nothing<<<blocks, T>>>(n, out);
    e = cudaDeviceSynchronize();
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    bad = 0;
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < T; t++) {
            int want = 0;
            for (int i = 0; i < hn[b] + (t & 1); i++) want += t + i;
            bad += h[b * T + t] != want;
        }
    printf("uneven_then_nothing: %s, %d wrong\n", cudaGetErrorString(e), bad);

    cudaMemset(out, 0, sizeof h);
    cudaMemset(head, 0, sizeof(int));
    queue<<<1, T>>>(head, out);
    e = cudaDeviceSynchronize();
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    bad = 0;
    for (int v = 0; v < blocks; v++)
        for (int t = 0; t < T; t++) bad += h[v * T + t] != (v % 3 == 0 ? 0 : v + t);
    printf("queue: %s, %d wrong\n", cudaGetErrorString(e), bad);

    bound_then_work<<<blocks, T>>>(n, out, 0);
    e = cudaDeviceSynchronize();
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    bad = 0;
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < T; t++) {
            int u = T - 1 - t, want = 0;
            for (int i = 0; i < hn[b]; i++) want += (u + 3) % T * i;
            bad += h[b * T + t] != want;
        }
    printf("bound_then_work: %s, %d wrong\n", cudaGetErrorString(e), bad);

    // Odd threads reach the loop's barrier while even ones wait after the loop: misuse.
    bound_then_work<<<blocks, T>>>(n, out, 1);
    printf("uneven_then_work: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
