// What a warp shuffle returns when its source lane did not take part: outside the member
// mask, inactive (another side of a branch), or past the segment. Each case prints what every
// lane of one warp got (-1: the lane did not shuffle). shfl.h200.txt is this program built with
// nvcc -arch=sm_90 and run on an H200: such a source lane gives 0.
#include <cstdio>

const int CASES = 10;

__global__ void cases(int *out) {
    int lane = threadIdx.x;
    int *o = out + lane;
    for (int k = 0; k < CASES; k++) o[32 * k] = -1;
    int v = lane + 100;
    // 0: 8 lanes, their mask, down by 16: the source lanes are inactive and outside the mask.
    if (lane < 8) o[0] = __shfl_down_sync(0xffu, v, 16);
    // 1: as 0, the value computed inside the branch.
    if (lane < 8) { int w = lane * 3 + 7; o[32] = __shfl_down_sync(0xffu, w, 16); }
    // 2: the value reassigned inside the branch (reduce7's second warpReduceSum).
    int s = lane + 1000;
    if (lane < 8) { s = lane + 1; s += __shfl_down_sync(0xffu, s, 16); o[64] = s; }
    // 3: xor across the half-warps, 16 lanes active.
    if (lane < 16) o[96] = __shfl_xor_sync(0xffffu, v, 16);
    // 4: from a fixed inactive lane.
    if (lane < 16) o[128] = __shfl_sync(0xffffu, v, 20);
    // 5: up by 8 from the top 8 lanes: the sources are inactive.
    if (lane >= 24) o[160] = __shfl_up_sync(0xff000000u, v, 8);
    // 6: both sides of a branch shuffle, each with its own mask: the source lane is active,
    // in the other side's shuffle.
    if (lane < 8) o[192] = __shfl_down_sync(0xffu, v, 16);
    else o[192] = __shfl_down_sync(0xffffff00u, v + 1000, 4);
    // 7: in the mask and active, but past the warp: own value.
    o[224] = __shfl_down_sync(0xffffffffu, v, 16);
    // 8: float, 8 lanes, a full-warp mask's sum first (reduce7 in one warp).
    float f = (float)(lane + 1);
    for (int d = 16; d > 0; d /= 2) f += __shfl_down_sync(0xffffffffu, f, d);
    unsigned int m = __ballot_sync(0xffffffffu, lane < 8);
    if (lane < 8) {
        f = (float)(lane + 1);
        for (int d = 16; d > 0; d /= 2) f += __shfl_down_sync(m, f, d);
        o[256] = (int)f;
    }
    // 9: 16 lanes, each reading lane 31 (inactive, outside the mask).
    if (lane < 16) o[288] = __shfl_sync(0xffffu, v + 7, 31);
}

int main() {
    int *d, h[32 * CASES];
    cudaMalloc(&d, sizeof h);
    cases<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int k = 0; k < CASES; k++) {
        printf("case %d:", k);
        for (int l = 0; l < 32; l++) printf(" %d", h[32 * k + l]);
        printf("\n");
    }
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
