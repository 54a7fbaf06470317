// A program's processes and descriptors, and warpsim's (argv[1] says what to do):
//   sleep       prints its pid and sleeps (a test stops warpsim and looks for it)
//   linger      forks before its first CUDA call a child that sleeps 20 s, and after it a child
//               that executes `sleep 30`: both keep running after the program exits
//   child-cuda  forks before any CUDA call; the child uses CUDA, the parent waits for it
//   both        forks before any CUDA call; while the child uses CUDA the parent tries too
//   after       a child forked after the parent's first CUDA call tries CUDA
//   fd3         writes to descriptor 3, which the test opened, and opens and closes files
//   close-all   closes every descriptor above 2 after its first CUDA call (close-first:
//               before it), then calls CUDA
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void iota(int *a) { a[threadIdx.x] = threadIdx.x; }

#define SAY(call) printf("%s -> %s\n", #call, cudaGetErrorName(call))

// A kernel's result copied back: 496 (the sum of 0..31) when CUDA works.
static int sum() {
    int *d = nullptr, h[32] = {0}, total = 0;
    cudaMalloc(&d, sizeof h);
    iota<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(d);
    for (int x : h) total += x;
    return total;
}

// A child that leaves the test's pipes alone.
static void quiet() {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 1);
    dup2(null, 2);
}

static void close_all() {
    struct rlimit l;
    getrlimit(RLIMIT_NOFILE, &l);
    int top = l.rlim_cur < 65536 ? (int)l.rlim_cur : 65536;
    for (int fd = 3; fd < top; fd++) close(fd);
}

int main(int argc, char **argv) {
    const char *how = argc > 1 ? argv[1] : "none";
    if (!strcmp(how, "sleep")) {
        int *d;
        cudaMalloc(&d, 4);
        printf("pid %d\n", (int)getpid());
        fflush(stdout);
        sleep(100);
        return 0;
    }
    if (!strcmp(how, "linger")) {
        fflush(stdout);
        pid_t early = fork();
        if (early == 0) {
            quiet();
            sleep(20);
            _exit(0);
        }
        printf("sum %d\n", sum());
        fflush(stdout);
        pid_t late = fork();
        if (late == 0) {
            quiet();
            execlp("sleep", "sleep", "30", (char *)nullptr);
            _exit(127);
        }
        printf("children %d %d\n", (int)early, (int)late);
        return 0;
    }
    if (!strcmp(how, "child-cuda")) {
        fflush(stdout);
        pid_t child = fork();
        if (child == 0) {
            printf("child: sum %d\n", sum());
            exit(0);
        }
        int status = 0;
        waitpid(child, &status, 0);
        printf("parent: child exit %d\n", WEXITSTATUS(status));
        return 0;
    }
    if (!strcmp(how, "both")) {
        int up[2], down[2];
        if (pipe(up) || pipe(down)) return 9;
        fflush(stdout);
        pid_t child = fork();
        if (child == 0) {
            int s = sum();
            char c = 0;
            if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1) _exit(9);
            printf("child: sum %d\n", s);
            exit(0);
        }
        char c = 0;
        if (read(up[0], &c, 1) != 1) return 9;
        int *d = nullptr;
        SAY(cudaMalloc(&d, 4));
        SAY(cudaDeviceSynchronize());
        fflush(stdout);
        if (write(down[1], &c, 1) != 1) return 9;
        int status = 0;
        waitpid(child, &status, 0);
        printf("parent: child exit %d\n", WEXITSTATUS(status));
        return 0;
    }
    if (!strcmp(how, "after")) {
        int *d = nullptr;
        SAY(cudaMalloc(&d, 4));
        fflush(stdout);
        pid_t child = fork();
        if (child == 0) {
            SAY(cudaMemset(d, 0, 4));
            SAY(cudaMalloc(&d, 4));
            exit(0);
        }
        int status = 0;
        waitpid(child, &status, 0);
        printf("parent: child exit %d\n", WEXITSTATUS(status));
        SAY(cudaMemset(d, 1, 4));
        printf("parent: sum %d\n", sum());
        return 0;
    }
    if (!strcmp(how, "fd3")) {
        printf("sum %d\n", sum());
        int opened[8];
        for (int &fd : opened) fd = open("/dev/null", O_RDONLY);
        for (int fd : opened) close(fd);
        const char text[] = "the program's own descriptor 3\n";
        printf("write to 3: %s\n", write(3, text, strlen(text)) == (ssize_t)strlen(text) ? "yes" : "no");
        printf("sum %d\n", sum());
        return 0;
    }
    if (!strcmp(how, "close-all") || !strcmp(how, "close-first")) {
        int *d = nullptr;
        if (!strcmp(how, "close-all")) SAY(cudaMalloc(&d, 4));
        close_all();
        SAY(cudaMalloc(&d, 4));
        SAY(cudaMemset(d, 0, 4));
        cudaDeviceProp p;
        SAY(cudaGetDeviceProperties(&p, 0));
        SAY(cudaDeviceSynchronize());
        return 0;
    }
    return 0;
}
