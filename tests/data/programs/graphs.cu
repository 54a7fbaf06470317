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
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);

    // The same built node by node: a memset of 4-byte words, a kernel, a copy of a pitched
    // 2-D region, a host function; then a kernel node's parameters changed in the instance.
    cudaGraph_t manual;
    cudaGraphCreate(&manual, 0);
    cudaGraphNode_t set, kern, cp, host;
    cudaMemsetParams mp = {};
    mp.dst = d;
    mp.value = 5;
    mp.elementSize = 4;
    mp.width = 32;
    mp.height = 1;
    cudaGraphAddMemsetNode(&set, manual, nullptr, 0, &mp);
    int w = 1;
    void *args[] = {&d, &w};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)add;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    cudaGraphAddKernelNode(&kern, manual, &set, 1, &kp);
    int rows[2][8] = {};
    cudaMemcpy3DParms cpy = {};
    cpy.srcPtr = make_cudaPitchedPtr(d, 4 * sizeof(int), 4, 2);  // two rows of 4 ints
    cpy.dstPtr = make_cudaPitchedPtr(rows, 8 * sizeof(int), 8, 2);
    cpy.extent = make_cudaExtent(2 * sizeof(int), 2, 1);  // the first 2 of each row
    cpy.kind = cudaMemcpyDeviceToHost;
    cudaGraphAddMemcpyNode(&cp, manual, &kern, 1, &cpy);
    cudaHostNodeParams hp = {note, nullptr};
    cudaGraphAddHostNode(&host, manual, &cp, 1, &hp);
    cudaGraphExec_t inst;
    cudaGraphInstantiate(&inst, manual, 0);
    w = 50;  // the node keeps 1
    cudaGraphLaunch(inst, s1);
    cudaStreamSynchronize(s1);
    printf("manual: %d %d %d %d, host calls %d\n", rows[0][0], rows[0][1], rows[1][0], rows[0][2],
           host_calls);
    w = 10;
    cudaGraphExecKernelNodeSetParams(inst, kern, &kp);
    cudaGraphLaunch(inst, s1);
    cudaStreamSynchronize(s1);
    printf("new parameters: %d\n", rows[1][1]);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    cudaGraphExecDestroy(inst);
    cudaGraphDestroy(manual);

    // A stream destroyed while it captures leaves the capture: ending the capture must not
    // touch it (here its memory is likely the next stream's, which captures a graph of its own).
    cudaStream_t gone, next;
    cudaStreamCreate(&gone);
    cudaMemset(d, 0, sizeof h);
    cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
    cudaEventRecord(fork, s1);
    cudaStreamWaitEvent(gone, fork, 0);
    cudaStreamDestroy(gone);
    cudaStreamCreate(&next);
    cudaStreamBeginCapture(next, cudaStreamCaptureModeGlobal);
    cudaGraph_t first, second;
    cudaStreamEndCapture(s1, &first);
    add<<<1, 32, 0, next>>>(d, 7);  // captured, not run
    cudaStreamEndCapture(next, &second);
    int before[32];
    cudaMemcpy(before, d, sizeof before, cudaMemcpyDeviceToHost);
    cudaGraphExec_t run;
    cudaGraphInstantiate(&run, second, 0);
    cudaGraphLaunch(run, next);
    cudaStreamSynchronize(next);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("destroyed while capturing: %d before the graph, %d after\n", before[0], h[0]);
    return 0;
}
