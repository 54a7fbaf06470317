// A program that breaks the protocol on purpose (argv[1] says how), after one valid request: a
// test of warpsim's side, which must report the broken protocol and stop the program, never
// panic or hang.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime.h>

static void raw(const void *p, size_t n) {
    int fd = atoi(getenv("WARPSIM_FD"));
    if (write(fd, p, n) != (ssize_t)n) _exit(3);
}

static void frame(uint32_t op, const void *body, uint32_t n) {
    uint32_t len = 4 + n;
    raw(&len, 4);
    raw(&op, 4);
    if (n) raw(body, n);
}

int main(int argc, char **argv) {
    int *d;
    cudaMalloc(&d, 64);  // the handshake and one valid request
    const char *how = argc > 1 ? argv[1] : "unknown-op";
    if (!strcmp(how, "unknown-op")) {
        frame(999, nullptr, 0);
    } else if (!strcmp(how, "short-frame")) {
        frame(3 /* MALLOC */, "\x01\x02", 2);
    } else if (!strcmp(how, "huge-frame")) {
        uint32_t len = 0xfffffff0u;
        raw(&len, 4);
    } else if (!strcmp(how, "chunk-too-big")) {  // (run with WARPSIM_COPIES=staged)
        static char host[64];
        uint64_t body[3] = {(uint64_t)(uintptr_t)d, 64, (uint64_t)(uintptr_t)host};
        frame(8 /* WRITE */, body, 24);
        uint32_t reply[2];
        int fd = atoi(getenv("WARPSIM_FD"));
        if (read(fd, reply, 8) != 8) _exit(4);
        uint64_t big = 1ull << 40;
        frame(10 /* CHUNK */, &big, 8);
    } else if (!strcmp(how, "close-mid-copy")) {
        static char host[64];
        uint64_t body[3] = {(uint64_t)(uintptr_t)d, 64, (uint64_t)(uintptr_t)host};
        frame(8 /* WRITE */, body, 24);
        _exit(0);  // gone before the chunk
    } else if (!strcmp(how, "bad-string")) {
        uint32_t body[3] = {2, 0xfefefefe, 0};
        frame(12 /* KERNEL */, body, 12);
    }
    // Wait for warpsim to act on it.
    uint32_t reply;
    int fd = atoi(getenv("WARPSIM_FD"));
    while (read(fd, &reply, 4) > 0) {
    }
    return 0;
}
