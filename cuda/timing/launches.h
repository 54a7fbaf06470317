// Timing one configuration as the microbenchmarks here do: 3 warm-up launches, then 30
// launches each between two CUDA events; the median and the fastest, in µs.
#pragma once
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

struct Timed {
    float median_us, min_us;
};

template <class Launch> Timed time_launches(Launch launch) {
    for (int r = 0; r < 3; ++r) launch();
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> ms;
    for (int r = 0; r < 30; ++r) {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t = 0;
        cudaEventElapsedTime(&t, a, b);
        ms.push_back(t);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2] * 1e3f, ms[0] * 1e3f};
}
