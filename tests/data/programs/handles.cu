// Streams, events and graphs used after they were destroyed, destroyed twice, or never created
// (an address of the program's own): each call is cudaErrorInvalidResourceHandle, and the
// program goes on, its device still usable.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void inc(int *x) { x[threadIdx.x] += 1; }

#define SAY(call) printf("%s -> %s\n", #call, cudaGetErrorName(call))

int main() {
    int *d = nullptr, h[32] = {0};
    long long junk[8] = {0};  // what a forged handle points at
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0, sizeof h);

    cudaStream_t s;
    cudaStream_t forged_stream = (cudaStream_t)junk;
    SAY(cudaStreamCreate(&s));
    SAY(cudaStreamDestroy(s));
    SAY(cudaStreamSynchronize(s));
    SAY(cudaStreamQuery(s));
    SAY(cudaStreamDestroy(s));
    SAY(cudaStreamSynchronize(forged_stream));
    SAY(cudaStreamDestroy(forged_stream));
    inc<<<1, 32, 0, s>>>(d);
    SAY(cudaGetLastError());
    SAY(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s));
    SAY(cudaMemsetAsync(d, 0, sizeof h, forged_stream));
    SAY(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    int *never = nullptr;
    SAY(cudaMallocAsync(&never, 64, s));
    SAY(cudaFreeAsync(d, forged_stream));
    SAY(cudaStreamSynchronize(0));
    SAY(cudaStreamSynchronize(cudaStreamPerThread));

    cudaEvent_t e0, e1;
    cudaEvent_t forged_event = (cudaEvent_t)junk;
    float ms = 0;
    SAY(cudaEventCreate(&e0));
    SAY(cudaEventCreate(&e1));
    SAY(cudaEventRecord(e0, 0));
    SAY(cudaEventDestroy(e1));
    SAY(cudaEventRecord(e1, 0));
    SAY(cudaEventSynchronize(e1));
    SAY(cudaEventQuery(e1));
    SAY(cudaEventElapsedTime(&ms, e0, e1));
    SAY(cudaStreamWaitEvent(0, e1, 0));
    SAY(cudaEventDestroy(e1));
    SAY(cudaEventRecord(e0, s));
    SAY(cudaEventSynchronize(forged_event));
    SAY(cudaEventDestroy(forged_event));
    SAY(cudaEventDestroy(e0));

    cudaGraph_t g;
    cudaGraphExec_t x;
    cudaGraphNode_t n;
    void *args[] = {&d};
    cudaKernelNodeParams p = {};
    p.func = (void *)inc;
    p.gridDim = dim3(1);
    p.blockDim = dim3(32);
    p.kernelParams = args;
    SAY(cudaGraphCreate(&g, 0));
    SAY(cudaGraphAddKernelNode(&n, g, nullptr, 0, &p));
    SAY(cudaGraphInstantiate(&x, g, 0));
    SAY(cudaGraphLaunch(x, 0));
    SAY(cudaGraphLaunch(x, s));
    SAY(cudaGraphExecDestroy(x));
    SAY(cudaGraphLaunch(x, 0));
    SAY(cudaGraphExecDestroy(x));
    SAY(cudaGraphLaunch((cudaGraphExec_t)g, 0));
    SAY(cudaGraphLaunch((cudaGraphExec_t)junk, 0));
    SAY(cudaGraphDestroy(g));
    SAY(cudaGraphInstantiate(&x, g, 0));
    SAY(cudaGraphAddKernelNode(&n, g, nullptr, 0, &p));
    SAY(cudaGraphDestroy(g));
    SAY(cudaGraphDestroy((cudaGraph_t)junk));

    // The one graph launch that ran, and one more launch now: every element is 2.
    inc<<<1, 32>>>(d);
    SAY(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int twos = 0;
    for (int i = 0; i < 32; i++) twos += h[i] == 2;
    printf("elements at 2: %d, junk untouched: %s\n", twos, junk[0] == 0 && junk[7] == 0 ? "yes" : "no");
    cudaFree(d);
    return 0;
}
