// Kernels with nothing to do, as "hello world" programs launch them: compiled code that counts
// nothing still runs (it was given no memo to read and faulted).
__global__ void empty_kernel(void) {}
__global__ void empty_with_param(int *p) {}
