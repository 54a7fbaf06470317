// Seed document: shared/seeds/002_09364f9a7b6b9541.txt, lines 101-121, copied verbatim below this header.
// Defines needed: none
// Status: complete; lowers.
__global__ void reduceSum(float *input, float *output, int n) {
    extern __shared__ float sdata[];

    // 每个线程加载一个元素到共享内存
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? input[i] : 0;
    __syncthreads();

    // 归约求和,每次迭代步长翻倍
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    // 将结果写回全局内存
    if (tid == 0) output[blockIdx.x] = sdata[0];
}

