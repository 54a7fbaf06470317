// printf on both tiers: the same lines in the same order (by block, warp, the warp's printfs
// before it, lane), whatever runs where. The tier suite runs each kernel on both tiers and
// compares every line; n is 64 there.

// Divergent: odd and even lanes print different lines, then a line after they rejoin.
__global__ void printf_divergent(const int *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t % 2) printf("odd %d reads %d\n", t, in[t]);
    else printf("even %d\n", t);
    printf("after %u\n", (unsigned)threadIdx.x);
}

// A loop of a different trip count in every lane: each lane prints its own number of lines,
// and a warp whose lanes have all left prints no more.
__global__ void printf_in_a_loop(const float *in, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < t % 5; i++) {
        if (i == 3 && t % 7 == 0) break;
        printf("%d:%d %.3f %5.1e\n", t, i, in[t] * i, (double)in[t] + 0.5);
    }
}

// Every kind of argument C promotes to: int, unsigned, long long, unsigned long long, double
// (from a float), a character, a string folded into the format, widths from arguments.
__global__ void printf_arguments(const long long *big, int n) {
    int t = threadIdx.x + blockDim.x * blockIdx.x;
    if (t % 9 == 1) {
        float f = (float)t / 3.0f;
        unsigned long long u = (unsigned long long)big[t] << 40;
        printf("%d %u %lld %llu %f %c %s|%*d|%-6x|\n", -t, (unsigned)t * 3u, big[t] - 5,
               u, f, 'a' + t % 26, "str", t % 6, t, t);
    }
}

// Only some warps print, and uniformly: a whole warp or none.
__global__ void printf_some_warps(int n) {
    if ((threadIdx.x / 32) % 2 == 0 && blockIdx.x < 2) printf("warp %d of block %d\n",
                                                           threadIdx.x / 32, blockIdx.x);
}
