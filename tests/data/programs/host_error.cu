// Host code that does not compile: the compiler's message points here.
#include <cuda_runtime.h>

__global__ void k(int *p) { p[0] = 1; }

int main() {
    int x = undefined_variable;
    return x;
}
