// Seed document: shared/seeds/003_d89a6926aa32aaa4.txt, lines 426-431, copied verbatim below this header.
// Defines needed: none
// Status: INCOMPLETE as printed: the parameter list and the body are `...` placeholders; lowering fails with a syntax error.
__global__ void
__launch_bounds__(maxThreadsPerBlock, minBlocksPerMultiprocessor)
MyKernel(...)
{
    ...
}
