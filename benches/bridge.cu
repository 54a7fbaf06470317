// The whole-program bridge's costs, as a program sees them (`warpsim bench --programs` builds
// and runs it): cudaMemcpy of BYTES each way against a plain memcpy of the same size in the same
// process, and the time per launch of an empty kernel.
//
//   bridge OUT [BYTES] [LAUNCHES] [RUNS]   writes "name value" lines to OUT
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void empty() {}

static double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));    \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bridge OUT [BYTES] [LAUNCHES] [RUNS]\n");
        return 2;
    }
    size_t bytes = argc > 2 ? strtoull(argv[2], nullptr, 10) : size_t(256) << 20;
    int launches = argc > 3 ? atoi(argv[3]) : 10000;
    int runs = argc > 4 ? atoi(argv[4]) : 5;
    char *a = (char *)malloc(bytes), *b = (char *)malloc(bytes);
    if (!a || !b) {
        fprintf(stderr, "cannot allocate 2 x %zu bytes\n", bytes);
        return 1;
    }
    memset(a, 1, bytes);  // every page touched before timing
    memset(b, 2, bytes);
    void *d;
    CHECK(cudaMalloc(&d, bytes));
    std::vector<double> plain, h2d, d2h;
    for (int r = 0; r <= runs; r++) {  // round 0 warms up
        double t0 = now_ms();
        memcpy(b, a, bytes);
        double t1 = now_ms();
        CHECK(cudaMemcpy(d, a, bytes, cudaMemcpyHostToDevice));
        double t2 = now_ms();
        CHECK(cudaMemcpy(b, d, bytes, cudaMemcpyDeviceToHost));
        double t3 = now_ms();
        if (r > 0) {
            plain.push_back(t1 - t0);
            h2d.push_back(t2 - t1);
            d2h.push_back(t3 - t2);
        }
    }
    if (memcmp(a, b, bytes) != 0) {
        fprintf(stderr, "the round trip changed the data\n");
        return 1;
    }
    empty<<<1, 1>>>();
    CHECK(cudaDeviceSynchronize());
    double t0 = now_ms();
    for (int i = 0; i < launches; i++) {
        empty<<<1, 1>>>();
    }
    CHECK(cudaDeviceSynchronize());
    double launch_ms = now_ms() - t0;
    CHECK(cudaFree(d));
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "bytes %zu\nmemcpy_ms %.3f\nh2d_ms %.3f\nd2h_ms %.3f\nlaunches %d\nlaunch_us %.3f\n",
            bytes, median(plain), median(h2d), median(d2h), launches,
            launch_ms * 1000.0 / launches);
    fclose(out);
    free(a);
    free(b);
    return 0;
}
