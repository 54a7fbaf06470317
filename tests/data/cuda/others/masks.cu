// Control flow where every lane of a warp goes the same way (uniform `break`, `continue` and
// `return` of a device function) beside flow that splits the warp, for the tier suite: the
// compiled tier knows when all lanes execute and must still leave, rejoin and count exactly as
// the interpreter does.

__device__ int clip(int v, int lim) {
    if (lim < 0) return 0;          // uniform: the whole warp returns
    if (v > lim) return lim;        // varying
    for (int k = 0; k < 3; k++) {
        if (k == lim) return v + k; // uniform inside a uniform loop
        v += k;
    }
    return v;
}

__global__ void uniform_exits(int *out, const int *in, int n) {
    __shared__ int s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int a = in[i % n];
    int b = 0;
    for (int j = 0; j < 8; j++) {
        if (j == 2) continue;       // uniform continue
        if (j * n > 400) break;     // uniform break
        if (a & 1) a = a * 3 + j;   // varying, rejoins
        else a = a / 2;
        b += a;
    }
    int w = 0;
    while (true) {                  // leaves by a uniform break only
        w++;
        if (w > n / 16) break;
        b ^= w;
    }
    for (int j = 0; j < 4; j++) {   // a varying break: lanes leave one by one
        if ((a + j) % 5 == 0) break;
        b += clip(a, j * 4 - 1);
    }
    s[t] = b + w;
    __syncthreads();
    out[i] = s[(t + 1) % blockDim.x] + clip(b, n / 2) + clip(a, n - 70);
}

// A loop index stepped in the loop's increment, carried across barriers of a uniform loop
// (its lanes live in the frame between regions), beside one read after its loop.
__global__ void strided_regions(int *out, const int *in, int n) {
    __shared__ int s[256];
    int t = threadIdx.x;
    int acc = 0;
    int j = t * 3;
    for (int k = 0; k < 4; k++, j += 7) {
        s[t] = in[j];
        __syncthreads();
        acc += s[(t + k + 1) % blockDim.x] * (j & 15);
        __syncthreads();
    }
    int m = t;
    for (; m < n; m += 5) acc ^= in[m];
    out[blockIdx.x * blockDim.x + t] = acc + m;
}

// More divergent steps per warp than the counters' step record keeps (256): the steps past it
// still count as the warp's divergent branches.
__global__ void many_steps(int *out, int n) {
    int t = threadIdx.x;
    int acc = 0;
    for (int j = 0; j < 300; j++) {
        if ((t + j) % 3 == 0) acc += j;
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}
