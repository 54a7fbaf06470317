// Copies whose host side is no memory of the program: a page it gave back (nothing to read)
// and a read-only page (nothing to write). With CUDA the program's memcpy would crash; warpsim,
// which copies itself where it can, returns cudaErrorInvalidValue instead.
#include <cstdio>
#include <sys/mman.h>
#include <unistd.h>
#include <cuda_runtime.h>

#define SAY(call) printf("%s -> %s\n", #call, cudaGetErrorName(call))

int main() {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *gone = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *fixed = mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (gone == MAP_FAILED || fixed == MAP_FAILED || munmap(gone, page) != 0) return 2;
    float *d = nullptr;
    if (cudaMalloc(&d, page) != cudaSuccess) return 3;
    SAY(cudaMemcpy(d, gone, page, cudaMemcpyHostToDevice));
    SAY(cudaMemcpy(fixed, d, page, cudaMemcpyDeviceToHost));
    SAY(cudaFree(d));
    return 0;
}
