// A runtime call warpsim does not provide: the build names it.
#include <cuda_runtime.h>

int main() {
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaGraphNode_t node;
    cudaGraphAddMemAllocNode(&node, g, nullptr, 0, nullptr);
    return 0;
}
