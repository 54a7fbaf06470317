// The program's own stdin, stdout, arguments and exit status; kernel printf output appears at the
// synchronisation, in order with the host's own output; a crash is reported with its signal; a
// forked child may leave, but not use its parent's CUDA runtime.
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

// GCC attribute names spelled as libstdc++ 13 spells them survive the CUDA headers' macros.
__attribute__((__noinline__, __cold__)) static void rarely() { fputs("", stderr); }

__global__ void hello(int tag) {
    if (threadIdx.x < 2) printf("kernel %d says hello from thread %d\n", tag, threadIdx.x);
}

int main(int argc, char **argv) {
    const char *how = argc > 1 ? argv[1] : "order";
    if (argc > 99) rarely();
    if (!strcmp(how, "order")) {
        printf("host before\n");
        hello<<<1, 32>>>(7);
        printf("host after the launch\n");
        cudaDeviceSynchronize();
        printf("host after the sync\n");
        return 0;
    }
    if (!strcmp(how, "stdin")) {
        char line[100] = {0};
        if (!fgets(line, sizeof line, stdin)) return 9;
        printf("read: %s", line);
        for (int i = 2; i < argc; i++) printf("arg %d: %s\n", i, argv[i]);
        printf("name: %s\n", argv[0]);
        return 0;
    }
    if (!strcmp(how, "exit")) return atoi(argv[2]);
    if (!strcmp(how, "crash")) {
        fflush(stdout);
        raise(SIGSEGV);
    }
    if (!strcmp(how, "fork")) {
        int *d = nullptr;
        cudaMalloc(&d, 4);
        for (int use = 0; use < 2; use++) {
            fflush(stdout);
            pid_t child = fork();
            if (child == 0) {
                if (use) cudaMemset(d, 0, 4);
                exit(0);
            }
            int status = 0;
            waitpid(child, &status, 0);
            printf("child %s: exit %d\n", use ? "using CUDA" : "leaving", WEXITSTATUS(status));
        }
        printf("parent: %s\n", cudaGetErrorName(cudaMemset(d, 1, 4)));
        return 0;
    }
    if (!strcmp(how, "no-sync")) {
        hello<<<1, 32>>>(3);
        return 0;  // the output still appears, as the runtime flushes at exit
    }
    return 1;
}
