// CUDA graphs by stream capture: work issued to a capturing stream (and to a stream that joins
// it by waiting for one of its events) runs only when the instantiated graph is launched, once
// per launch, in order, with the kernel arguments as they were at capture.
#include <cstdio>
__global__ void add(int *x, int v) { x[threadIdx.x] += v; }
__global__ void twice(int *x) { x[threadIdx.x] *= 2; }
static int host_calls = 0;
void CUDART_CB note(void *) { ++host_calls; }
int main() {
    int *d, h[32];
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0, sizeof h);
    cudaStream_t s1, s2;
    cudaStreamCreate(&s1);
    cudaStreamCreate(&s2);
    cudaEvent_t fork, join;
    cudaEventCreate(&fork);
    cudaEventCreate(&join);
    int v = 3;
    cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
    cudaStreamCaptureStatus status;
    cudaStreamIsCapturing(s1, &status);
    add<<<1, 32, 0, s1>>>(d, v);
    v = 100;  // the node keeps the value it was captured with
    cudaEventRecord(fork, s1);
    cudaStreamWaitEvent(s2, fork, 0);
    twice<<<1, 32, 0, s2>>>(d);
    cudaEventRecord(join, s2);
    cudaStreamWaitEvent(s1, join, 0);
    cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s1);
    cudaLaunchHostFunc(s1, note, nullptr);
    cudaGraph_t graph;
    cudaStreamEndCapture(s1, &graph);
    cudaStreamCaptureStatus after;
    cudaStreamIsCapturing(s2, &after);
    size_t nodes = 0;
    cudaGraphGetNodes(graph, nullptr, &nodes);
    cudaDeviceSynchronize();
    int untouched[32];
    cudaMemcpy(untouched, d, sizeof untouched, cudaMemcpyDeviceToHost);
    printf("captured: active %d, after %d, %zu nodes, ran %d (h[0] %d)\n",
           status == cudaStreamCaptureStatusActive, after == cudaStreamCaptureStatusActive, nodes,
           untouched[0], host_calls);
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, graph, 0);
    for (int i = 0; i < 3; i++) {
        cudaGraphLaunch(exec, s1);
        cudaStreamSynchronize(s1);
        printf("launch %d: %d %d, host calls %d\n", i, h[0], h[31], host_calls);
    }
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    return 0;
}
