// warpsim's CUDA runtime: the host side of a program run by `warpsim cu`.
//
// Every function of cuda_runtime_api.h is here. Device work (allocations, copies, launches) is
// forwarded to warpsim, the parent process, over the channel of protocol.h; what lives on the
// host (pinned and managed memory, events, streams, the last error, device properties once
// fetched) is kept here. Work runs in the order it is issued: a launch returns when the kernel
// has run, so streams and events need no queues.
//
// Managed memory (cudaMallocManaged, cudaHostAlloc with cudaHostAllocMapped) is host memory
// that warpsim mirrors on the device at the same address: it is copied to the device before each
// launch and back when the launch returns (a launch runs to completion before it answers), so the
// host's writes between a launch and the next synchronisation are kept. Other pinned memory
// becomes managed once a kernel is handed a pointer into it (a GPU maps it under unified
// addressing), so that staging buffers no kernel reads are not copied at every launch.

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cuda_runtime.h"
#include "protocol.h"

namespace {

// ----- the channel ------------------------------------------------------------------------------

// How long a call polls for warpsim's reply before it sleeps in read().
const long POLL_NS = 50000;

[[noreturn]] void die(const char *what) {
    fprintf(stderr, "==warpsim== runtime: %s\n", what);
    fflush(stderr);
    _exit(125);
}

struct Writer {
    std::vector<uint8_t> b;
    explicit Writer(uint32_t op) { u32(0), u32(op); }
    Writer &u32(uint32_t v) { return raw(&v, 4); }
    Writer &u64(uint64_t v) { return raw(&v, 8); }
    Writer &str(const std::string &s) {
        u32((uint32_t)s.size());
        return raw(s.data(), s.size());
    }
    Writer &blob(const void *p, size_t n) {
        u32((uint32_t)n);
        return raw(p, n);
    }
    Writer &raw(const void *p, size_t n) {
        const uint8_t *c = (const uint8_t *)p;
        b.insert(b.end(), c, c + n);
        return *this;
    }
};

struct Reader {
    std::vector<uint8_t> b;
    size_t at = 4;  // after the status
    bool lenient = false;  // a reply that never came: its fields read as zero
    // The reply to a request the channel could not carry: `status`, fields zero.
    static Reader failed(int32_t status) {
        Reader r;
        r.b.resize(4);
        memcpy(r.b.data(), &status, 4);
        r.lenient = true;
        return r;
    }
    int32_t status() const {
        int32_t s;
        memcpy(&s, b.data(), 4);
        return s;
    }
    template <class T>
    T get() {
        T v{};
        if (at + sizeof(T) > b.size()) {
            if (lenient) return v;
            die("a reply from warpsim is shorter than expected");
        }
        memcpy(&v, b.data() + at, sizeof(T));
        at += sizeof(T);
        return v;
    }
    uint32_t u32() { return get<uint32_t>(); }
    uint64_t u64() { return get<uint64_t>(); }
    int64_t i64() { return get<int64_t>(); }
    std::string str() {
        uint32_t n = u32();
        if (lenient) return std::string();
        if (at + n > b.size()) die("a reply from warpsim is shorter than expected");
        std::string s((const char *)b.data() + at, n);
        at += n;
        return s;
    }
};

struct Channel {
    int fd = -1;
    int staging_fd = -1;
    uint8_t *staging = nullptr;
    size_t half = 0;
    bool direct = false;  // warpsim reads and writes this process's memory itself
    // Why this process cannot talk to warpsim (cudaSuccess: it can). Every request then fails
    // with it, said once on stderr; nothing is sent, so the channel is never garbled.
    cudaError_t broken = cudaSuccess;

    void refuse(cudaError_t e, const char *why) {
        if (broken != cudaSuccess) return;
        broken = e;
        fprintf(stderr, "==warpsim== runtime: %s; CUDA calls return %s from now on\n", why,
                e == cudaErrorInitializationError ? "cudaErrorInitializationError"
                                                  : "cudaErrorDevicesUnavailable");
        fflush(stderr);
    }
    // The channel failed with `err` (0: it was closed at the other end).
    void lost(int err) {
        char why[400];
        if (err == EBADF || err == ENOTSOCK) {
            snprintf(why, sizeof why,
                     "the program closed warpsim's channel (descriptors %d and %d, named by "
                     "WARPSIM_FD and WARPSIM_STAGING_FD); leave them open (a loop that closes "
                     "every descriptor above 2 closes them too)",
                     fd, staging_fd);
        } else {
            snprintf(why, sizeof why, "warpsim closed the channel (it has stopped: %s)",
                     err ? strerror(err) : "end of file");
        }
        refuse(cudaErrorDevicesUnavailable, why);
    }

    bool write_all(const void *p, size_t n) {
        const uint8_t *c = (const uint8_t *)p;
        while (n > 0) {
            ssize_t w = ::send(fd, c, n, MSG_NOSIGNAL);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                lost(w < 0 ? errno : 0);
                return false;
            }
            c += w;
            n -= (size_t)w;
        }
        return true;
    }
    // `patient`: most replies come within microseconds, so poll for a short while before
    // sleeping in read(), as waking a sleeping process costs more than a small launch. The
    // poll is bounded in time, not in tries: while a kernel runs, a polling program takes a
    // core from warpsim's threads (4,000 tries were milliseconds, the whole of a small launch
    // on two cores). (Not while a copy streams: warpsim's threads need the cores then.)
    bool read_all(void *p, size_t n, bool patient) {
        uint8_t *c = (uint8_t *)p;
        struct timespec t0, t;
        if (patient) clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int spin = 0; patient && n > 0; spin++) {
            if (spin % 16 == 15) {
                clock_gettime(CLOCK_MONOTONIC, &t);
                if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > POLL_NS) break;
            }
            ssize_t r = ::recv(fd, c, n, MSG_DONTWAIT);
            if (r > 0) {
                c += r;
                n -= (size_t)r;
            } else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                lost(r < 0 ? errno : 0);
                return false;
            }
        }
        while (n > 0) {
            ssize_t r = ::read(fd, c, n);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                lost(r < 0 ? errno : 0);
                return false;
            }
            c += r;
            n -= (size_t)r;
        }
        return true;
    }
    void send(Writer &w) {
        if (broken != cudaSuccess) return;
        uint32_t len = (uint32_t)(w.b.size() - 4);
        memcpy(w.b.data(), &len, 4);
        write_all(w.b.data(), w.b.size());
    }
    Reader recv(bool patient = false) {
        uint32_t len;
        if (broken != cudaSuccess || !read_all(&len, 4, patient)) return Reader::failed(broken);
        if (len < 4 || len > (1u << 30)) die("a malformed reply from warpsim");
        Reader r;
        r.b.resize(len);
        if (!read_all(r.b.data(), len, false)) return Reader::failed(broken);
        return r;
    }
    Reader call(Writer &w) {
        send(w);
        return recv(true);
    }
};

std::recursive_mutex &lock() {
    static std::recursive_mutex m;
    return m;
}

// ----- runtime state ---------------------------------------------------------------------------

struct Kernel {
    std::string name;
    int unit;
};

struct KernelInfo {
    std::vector<uint32_t> sizes;
    cudaFuncAttributes attr;  // maxDynamicSharedSizeBytes as cudaFuncSetAttribute left it
    bool told_smem = false;   // a launch over it was explained on stderr
};

struct Symbol {
    std::string name;
    int unit;
};

struct Graph;

struct Event {
    uint64_t ns = 0;
    bool recorded = false;
    // The graph whose capture recorded it last: a stream that waits for it joins that capture.
    Graph *capture = nullptr;
};

struct Stream {
    unsigned int flags = 0;
    // The graph this stream's work goes into instead of running (stream capture).
    Graph *capture = nullptr;
};

// A CUDA graph: the work captured from streams, in the order it was issued (work runs in that
// order anyway, so it is a valid order of the graph's nodes); an instantiated graph is a copy.
struct Graph {
    std::vector<std::function<cudaError_t()>> ops;
    std::vector<Stream *> streams;  // capturing into it
};

// The streams, events, graphs and instantiated graphs alive: a handle the program destroyed, or
// never had, is cudaErrorInvalidResourceHandle, not a use of freed memory. (Never destroyed, as a
// program's static destructors may still destroy their streams.)
struct Handles {
    std::mutex m;
    std::set<const void *> streams, events, graphs, execs;
};
Handles &handles() {
    static Handles *h = new Handles();
    return *h;
}
using Kind = std::set<const void *> Handles::*;
bool live(Kind kind, const void *p) {
    Handles &h = handles();
    std::lock_guard<std::mutex> g(h.m);
    return p && (h.*kind).count(p) != 0;
}
void adopt(Kind kind, const void *p) {
    Handles &h = handles();
    std::lock_guard<std::mutex> g(h.m);
    (h.*kind).insert(p);
}
// Whether `p` was alive (and is no longer).
bool release(Kind kind, const void *p) {
    Handles &h = handles();
    std::lock_guard<std::mutex> g(h.m);
    return p && (h.*kind).erase(p) != 0;
}
// 0, cudaStreamLegacy and cudaStreamPerThread always exist.
bool stream_ok(cudaStream_t stream) { return (uintptr_t)stream <= 2 || live(&Handles::streams, stream); }

// The graph a stream captures into, if any (the legacy and per-thread streams never capture).
Graph *capture_of(cudaStream_t stream) {
    return (uintptr_t)stream > 2 && live(&Handles::streams, stream) ? ((Stream *)stream)->capture : nullptr;
}

#define CHECK_STREAM(s) \
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle)
#define CHECK_EVENT(e) \
    if (!live(&Handles::events, e)) return fail(cudaErrorInvalidResourceHandle)
#define CHECK_GRAPH(g) \
    if (!live(&Handles::graphs, g)) return fail(cudaErrorInvalidResourceHandle)
#define CHECK_EXEC(e) \
    if (!live(&Handles::execs, e)) return fail(cudaErrorInvalidResourceHandle)

struct State {
    Channel ch;
    bool started = false;
    std::string device_name;
    std::map<std::string, int64_t> props;
    std::map<std::string, KernelInfo> kernels;         // by unit + name
    std::map<std::string, std::pair<uint64_t, uint64_t>> symbols;  // address, bytes
    std::map<uintptr_t, size_t> device;                // cudaMalloc'd ranges
    std::map<uintptr_t, size_t> managed;               // managed ranges (host memory)
    std::map<uintptr_t, size_t> pinned;                // cudaMallocHost'd ranges
    int device_flags = 0;
};

// Registries are filled before main (static initialisers of every translation unit): function
// statics, so that they exist whichever unit registers first.
std::map<const void *, Kernel> &kernel_registry() {
    static std::map<const void *, Kernel> m;
    return m;
}
std::map<const void *, Symbol> &symbol_registry() {
    static std::map<const void *, Symbol> m;
    return m;
}

State &state();

thread_local cudaError_t last_error = cudaSuccess;

struct Config {
    dim3 grid, block;
    size_t smem = 0;
    cudaStream_t stream = 0;
};
thread_local std::vector<Config> configs;

cudaError_t fail(cudaError_t e) {
    if (e != cudaSuccess) last_error = e;
    return e;
}

void at_exit();

// The process that started the runtime (a forked child inherits the state, not the right to use
// it).
pid_t owner = 0;

// Before main: warpsim's descriptors are not passed on to programs this one executes (a `sleep`
// it starts must not hold the channel open), and the program ends if warpsim does (killed, it
// cannot forward a signal).
__attribute__((constructor(101))) void adopt_channel() {
    const char *fd = getenv("WARPSIM_FD"), *sfd = getenv("WARPSIM_STAGING_FD");
    const char *parent = getenv("WARPSIM_PID");
    // Not a program warpsim started (one it executed inherits the names, not the descriptors).
    if (!fd || !sfd || !parent || fcntl(atoi(fd), F_GETFD) < 0) return;
    fcntl(atoi(fd), F_SETFD, FD_CLOEXEC);
    fcntl(atoi(sfd), F_SETFD, FD_CLOEXEC);
    // warpsim keeps these for itself, to pass them on; the program starts with them unblocked.
    sigset_t ending;
    sigemptyset(&ending);
    sigaddset(&ending, SIGTERM);
    sigaddset(&ending, SIGINT);
    sigaddset(&ending, SIGHUP);
    sigprocmask(SIG_UNBLOCK, &ending, nullptr);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != (pid_t)atoi(parent)) {
        die("warpsim ended before the program started");
    }
}

void start(State &s) {
    owner = getpid();  // before `started`: another thread may look at both
    s.started = true;
    const char *fd = getenv("WARPSIM_FD");
    const char *sfd = getenv("WARPSIM_STAGING_FD");
    const char *sbytes = getenv("WARPSIM_STAGING_BYTES");
    if (!fd || !sfd || !sbytes) {
        fprintf(stderr,
                "this program was built by warpsim and runs its CUDA work on warpsim: start it "
                "with `warpsim cu FILE.cu -- ARGS`\n");
        exit(1);
    }
    s.ch.fd = atoi(fd);
    s.ch.staging_fd = atoi(sfd);
    if (fcntl(s.ch.fd, F_GETFD) < 0 || fcntl(s.ch.staging_fd, F_GETFD) < 0) {
        s.ch.lost(EBADF);
        return;
    }
    // One process talks to warpsim: the first to lock the staging file. The lock is the
    // process's own (a child forked before its parent's first CUDA call does not share it), so
    // two processes never interleave their requests on the channel they both inherited.
    struct flock l = {};
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;
    l.l_len = 1;
    if (fcntl(s.ch.staging_fd, F_SETLK, &l) < 0) {
        int err = errno;
        if (err == EBADF) {
            s.ch.lost(EBADF);
            return;
        }
        l.l_pid = 0;
        fcntl(s.ch.staging_fd, F_GETLK, &l);
        char why[300];
        snprintf(why, sizeof why,
                 "process %d of this program already uses CUDA on warpsim, which serves one "
                 "process of a program: this one (%d, forked before that process's first CUDA "
                 "call) cannot; make every CUDA call in one process",
                 (int)l.l_pid, (int)getpid());
        s.ch.refuse(cudaErrorDevicesUnavailable, why);
        return;
    }
    size_t bytes = (size_t)strtoull(sbytes, nullptr, 10);
    // The staging file stays open: closing it would drop the lock.
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s.ch.staging_fd, 0);
    if (p == MAP_FAILED) die("cannot map the staging memory warpsim shares");
    s.ch.staging = (uint8_t *)p;
    s.ch.half = bytes / 2;
    // warpsim copies straight to and from this process's memory if it can read this back.
    static volatile uint64_t probe;
    probe = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&probe ^ (uint64_t)getpid();
    Writer w(WS_HELLO);
    w.u32(WARPSIM_PROTOCOL_MAGIC).u32(WARPSIM_PROTOCOL_VERSION);
    w.u64((uint64_t)(uintptr_t)&probe).u64(probe).u32((uint32_t)getpid());
    Reader r = s.ch.call(w);
    if (r.status() == cudaErrorDevicesUnavailable && !r.lenient) {
        s.ch.refuse(cudaErrorDevicesUnavailable,
                    "another process of this program used CUDA on warpsim before this one "
                    "(warpsim serves one process of a program); make every CUDA call in one "
                    "process");
        return;
    }
    if (r.status() != 0 && !r.lenient) {
        die("warpsim refused this program's runtime (a different version?)");
    }
    r.u32();  // version
    r.u64();  // staging bytes
    s.ch.direct = r.u32() != 0;
    atexit(at_exit);
}

State &state() {
    static State *s = new State();  // never destroyed: at_exit still uses it
    if (!s->started) {
        start(*s);
    } else if (getpid() != owner) {
        // A child forked after its parent's first CUDA call: CUDA refuses it the parent's
        // context with cudaErrorInitializationError, and so does warpsim (the channel is the
        // parent's: a request from here would garble it).
        pid_t parent = owner;
        owner = getpid();
        char why[300];
        snprintf(why, sizeof why,
                 "this process (%d) was forked from process %d after that one's first CUDA "
                 "call, and a forked child cannot use its parent's CUDA context (nor can it "
                 "with CUDA); make CUDA calls in the parent, or in a child forked before them",
                 (int)owner, (int)parent);
        s->ch.refuse(cudaErrorInitializationError, why);
    }
    return *s;
}

// A request whose reply is only a status; a sticky error comes back as that status.
cudaError_t simple(Writer &w) {
    State &s = state();
    Reader r = s.ch.call(w);
    return fail((cudaError_t)r.status());
}

bool in(const std::map<uintptr_t, size_t> &m, const void *p, uintptr_t *base = nullptr) {
    uintptr_t a = (uintptr_t)p;
    auto it = m.upper_bound(a);
    if (it == m.begin()) return false;
    --it;
    if (a >= it->first && a < it->first + (it->second ? it->second : 1)) {
        if (base) *base = it->first;
        return true;
    }
    return false;
}

// Host bytes to device memory: warpsim takes them itself, or they go through the staging halves.
cudaError_t write_device(uint64_t dst, const void *src, size_t n) {
    State &s = state();
    Writer w(WS_WRITE);
    w.u64(dst).u64(n).u64((uint64_t)(uintptr_t)src);
    Reader r = s.ch.call(w);
    if (r.status() != 0 || s.ch.direct) return fail((cudaError_t)r.status());
    const uint8_t *from = (const uint8_t *)src;
    size_t chunks = 0, acked = 0;
    cudaError_t status = cudaSuccess;
    for (size_t off = 0; off < n; off += s.ch.half, chunks++) {
        if (chunks >= 2) {
            Reader a = s.ch.recv();
            acked++;
            if (a.status() != 0) status = (cudaError_t)a.status();
        }
        size_t len = n - off < s.ch.half ? n - off : s.ch.half;
        memcpy(s.ch.staging + (chunks % 2) * s.ch.half, from + off, len);
        Writer c(WS_CHUNK);
        c.u64(len);
        s.ch.send(c);
    }
    while (acked < chunks) {
        Reader a = s.ch.recv();
        acked++;
        if (a.status() != 0) status = (cudaError_t)a.status();
    }
    return fail(status);
}

// Device bytes to host memory: warpsim puts them there itself, or they come through the staging
// halves.
cudaError_t read_device(void *dst, uint64_t src, size_t n) {
    State &s = state();
    Writer w(WS_READ);
    w.u64(src).u64(n).u64((uint64_t)(uintptr_t)dst);
    Reader r = s.ch.call(w);
    if (r.status() != 0 || s.ch.direct) return fail((cudaError_t)r.status());
    uint8_t *to = (uint8_t *)dst;
    size_t k = 0;
    for (size_t off = 0; off < n; k++) {
        Reader ready = s.ch.recv();
        if (ready.status() != 0) return fail((cudaError_t)ready.status());
        size_t len = (size_t)ready.u64();
        memcpy(to + off, s.ch.staging + (k % 2) * s.ch.half, len);
        off += len;
        Writer a(WS_ACK);
        s.ch.send(a);
    }
    return cudaSuccess;
}

// Managed memory goes to the device before a launch and comes back after it.
cudaError_t managed_to_device() {
    State &s = state();
    for (auto &m : s.managed) {
        cudaError_t e = write_device(m.first, (const void *)m.first, m.second);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

cudaError_t managed_to_host() {
    State &s = state();
    for (auto &m : s.managed) {
        cudaError_t e = read_device((void *)m.first, m.first, m.second);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

// The kernels' printf output comes at a synchronisation.
cudaError_t sync_point() {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    Writer w(WS_SYNC);
    Reader r = s.ch.call(w);
    cudaError_t status = (cudaError_t)r.status();
    std::string text = r.str();
    if (!text.empty()) {
        fwrite(text.data(), 1, text.size(), stdout);
    }
    return fail(status);
}

void at_exit() {
    if (getpid() != owner) return;  // a forked child leaving: the parent's channel is not its
    if (state().ch.broken != cudaSuccess) return;
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    sync_point();
    fflush(stdout);
    Writer w(WS_BYE);
    w.u32(0);
    s.ch.call(w);
}

const std::map<std::string, int64_t> &props() {
    State &s = state();
    if (s.props.empty()) {
        Writer w(WS_PROPS);
        Reader r = s.ch.call(w);
        s.device_name = r.str();
        uint32_t n = r.u32();
        for (uint32_t i = 0; i < n; i++) {
            std::string k = r.str();
            s.props[k] = r.i64();
        }
    }
    return s.props;
}

int64_t prop(const char *name) {
    auto &p = props();
    auto it = p.find(name);
    return it == p.end() ? 0 : it->second;
}

// The most shared memory a block may have after opting in (cudaFuncSetAttribute).
int64_t optin_shared() { return std::max(prop("sharedMemPerBlockOptin"), prop("sharedMemPerBlock")); }

std::string unit_key(const Kernel &k) { return std::to_string(k.unit) + ":" + k.name; }

const Kernel *kernel_of(const void *func) {
    auto &reg = kernel_registry();
    auto it = reg.find(func);
    return it == reg.end() ? nullptr : &it->second;
}

// A kernel's parameter sizes and attributes, asked once.
cudaError_t kernel_info(const void *func, KernelInfo **out) {
    State &s = state();
    const Kernel *k = kernel_of(func);
    if (!k) {
        fprintf(stderr,
                "==warpsim== a launch names a function that is not a __global__ kernel of this "
                "program\n");
        return fail(cudaErrorInvalidDeviceFunction);
    }
    std::string key = unit_key(*k);
    auto it = s.kernels.find(key);
    if (it == s.kernels.end()) {
        Writer w(WS_KERNEL);
        w.str(k->name).u32((uint32_t)k->unit);
        Reader r = s.ch.call(w);
        if (r.status() != 0) return fail((cudaError_t)r.status());
        KernelInfo info;
        uint32_t n = r.u32();
        for (uint32_t i = 0; i < n; i++) info.sizes.push_back(r.u32());
        memset(&info.attr, 0, sizeof info.attr);
        info.attr.sharedSizeBytes = (size_t)r.i64();
        info.attr.constSizeBytes = (size_t)r.i64();
        info.attr.localSizeBytes = (size_t)r.i64();
        info.attr.maxThreadsPerBlock = (int)r.i64();
        info.attr.numRegs = (int)r.i64();
        info.attr.ptxVersion = (int)r.i64();
        info.attr.binaryVersion = (int)r.i64();
        info.attr.maxDynamicSharedSizeBytes = (int)(prop("sharedMemPerBlock") - (int64_t)info.attr.sharedSizeBytes);
        info.attr.preferredShmemCarveout = -1;
        it = s.kernels.emplace(key, info).first;
    }
    *out = &it->second;
    return cudaSuccess;
}

cudaError_t symbol_of(const void *symbol, uint64_t *address, uint64_t *bytes) {
    State &s = state();
    auto &reg = symbol_registry();
    auto it = reg.find(symbol);
    if (it == reg.end()) return fail(cudaErrorInvalidSymbol);
    std::string key = std::to_string(it->second.unit) + ":" + it->second.name;
    auto c = s.symbols.find(key);
    if (c == s.symbols.end()) {
        Writer w(WS_SYMBOL);
        w.str(it->second.name).u32((uint32_t)it->second.unit);
        Reader r = s.ch.call(w);
        if (r.status() != 0) return fail((cudaError_t)r.status());
        uint64_t a = r.u64();
        uint64_t b = r.u64();
        c = s.symbols.emplace(key, std::make_pair(a, b)).first;
    }
    *address = c->second.first;
    *bytes = c->second.second;
    return cudaSuccess;
}

// Pinned memory at `p` mirrored from now on at launches, as managed memory is: a GPU maps all
// pinned memory under unified addressing, so a kernel may be handed a pointer into it.
void map_pinned(const void *p) {
    State &s = state();
    uintptr_t base;
    if (!in(s.pinned, p, &base)) return;
    size_t size = s.pinned[base];
    Writer w(WS_MANAGED);
    w.u64(base).u64(size);
    if (simple(w) != cudaSuccess) return;
    s.managed[base] = size;
    s.pinned.erase(base);
}

// Every word of a launch's arguments that points into pinned memory maps it.
void map_pinned_arguments(const KernelInfo *info, void **args) {
    if (state().pinned.empty() || !args) return;
    for (size_t i = 0; i < info->sizes.size(); i++) {
        for (size_t off = 0; args[i] && off + 8 <= info->sizes[i]; off += 8) {
            uint64_t v;
            memcpy(&v, (const char *)args[i] + off, 8);
            map_pinned((const void *)(uintptr_t)v);
        }
    }
}

cudaError_t launch(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                   cudaStream_t stream, bool cooperative = false);

// As CUDA: a launch may ask for dynamic shared memory up to the kernel's
// cudaFuncAttributeMaxDynamicSharedMemorySize, by default what sharedMemPerBlock (48 KiB)
// leaves beside its static shared memory; more is cudaErrorInvalidValue, not a launch.
cudaError_t check_dynamic_shared(const void *func, KernelInfo *info, size_t smem) {
    size_t max = (size_t)info->attr.maxDynamicSharedSizeBytes;
    if (smem <= max) return cudaSuccess;
    if (!info->told_smem) {
        info->told_smem = true;
        const Kernel *k = kernel_of(func);
        fprintf(stderr,
                "==warpsim== a launch of `%s` asks for %zu bytes of dynamic shared memory, above "
                "its limit of %zu: cudaFuncSetAttribute(%s, "
                "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) raises the limit, up to %lld "
                "on this device\n",
                k ? k->name.c_str() : "?", smem, max, k ? k->name.c_str() : "kernel",
                (long long)(optin_shared() - (int64_t)info->attr.sharedSizeBytes));
    }
    return fail(cudaErrorInvalidValue);
}

// A launch kept for later, as a graph's kernel node keeps it: the arguments' bytes as they are
// now.
cudaError_t kernel_op(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                      std::function<cudaError_t()> *op, bool cooperative = false) {
    KernelInfo *info;
    cudaError_t e = kernel_info(func, &info);
    if (e != cudaSuccess) return e;
    if ((e = check_dynamic_shared(func, info, smem)) != cudaSuccess) return e;
    std::vector<std::vector<char>> blobs;
    for (size_t i = 0; i < info->sizes.size(); i++) {
        if (!args || !args[i]) return fail(cudaErrorInvalidValue);
        blobs.emplace_back((const char *)args[i], (const char *)args[i] + info->sizes[i]);
    }
    *op = [=]() mutable {
        std::vector<void *> ptrs;
        for (auto &b : blobs) ptrs.push_back(b.data());
        return launch(func, grid, block, ptrs.data(), smem, 0, cooperative);
    };
    return cudaSuccess;
}

cudaError_t launch(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                   cudaStream_t stream, bool cooperative) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    KernelInfo *info;
    CHECK_STREAM(stream);
    cudaError_t e = kernel_info(func, &info);
    if (e != cudaSuccess) return e;
    if ((e = check_dynamic_shared(func, info, smem)) != cudaSuccess) return e;
    if (Graph *graph = capture_of(stream)) {
        std::function<cudaError_t()> op;
        if ((e = kernel_op(func, grid, block, args, smem, &op, cooperative)) != cudaSuccess) return e;
        graph->ops.push_back(op);
        return cudaSuccess;
    }
    map_pinned_arguments(info, args);
    if (!s.managed.empty() && (e = managed_to_device()) != cudaSuccess) return e;
    const Kernel *k = kernel_of(func);
    Writer w(WS_LAUNCH);
    w.str(k->name).u32((uint32_t)k->unit);
    w.u32(grid.x).u32(grid.y).u32(grid.z).u32(block.x).u32(block.y).u32(block.z);
    w.u64(smem).u64((uint64_t)(uintptr_t)stream).u32(cooperative ? 1 : 0);
    w.u32((uint32_t)info->sizes.size());
    for (size_t i = 0; i < info->sizes.size(); i++) {
        if (!args || !args[i]) return fail(cudaErrorInvalidValue);
        w.blob(args[i], info->sizes[i]);
    }
    e = simple(w);
    if (e == cudaSuccess && !s.managed.empty()) e = managed_to_host();
    return e;
}

// What the direction of a copy is, with cudaMemcpyDefault resolved by the pointers.
enum class Side { Host, Device };
Side side(const void *p) {
    State &s = state();
    if (in(s.managed, p)) return Side::Host;  // host memory, mirrored at launches
    if (in(s.device, p)) return Side::Device;
    return Side::Host;
}

cudaError_t copy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    if (count == 0) return cudaSuccess;
    Side d, f;
    switch (kind) {
        case cudaMemcpyHostToHost: d = f = Side::Host; break;
        case cudaMemcpyHostToDevice: f = Side::Host; d = side(dst) == Side::Device || !in(s.managed, dst) ? Side::Device : Side::Host; break;
        case cudaMemcpyDeviceToHost: d = Side::Host; f = side(src) == Side::Device || !in(s.managed, src) ? Side::Device : Side::Host; break;
        case cudaMemcpyDeviceToDevice:
            d = in(s.managed, dst) ? Side::Host : Side::Device;
            f = in(s.managed, src) ? Side::Host : Side::Device;
            break;
        case cudaMemcpyDefault: d = side(dst); f = side(src); break;
        default: return fail(cudaErrorInvalidMemcpyDirection);
    }
    // A blocking copy waits for the kernels before it (their output is printed first).
    cudaError_t e = sync_point();
    if (e != cudaSuccess) return e;
    if (d == Side::Host && f == Side::Host) {
        memmove(dst, src, count);
        return cudaSuccess;
    }
    if (d == Side::Device && f == Side::Host) return write_device((uint64_t)(uintptr_t)dst, src, count);
    if (d == Side::Host && f == Side::Device) return read_device(dst, (uint64_t)(uintptr_t)src, count);
    Writer w(WS_COPY);
    w.u64((uint64_t)(uintptr_t)dst).u64((uint64_t)(uintptr_t)src).u64(count);
    return simple(w);
}

void *host_alloc(size_t size) {
    void *p = nullptr;
    if (posix_memalign(&p, 4096, size ? size : 1) != 0) return nullptr;
    memset(p, 0, size);
    return p;
}

cudaError_t managed_alloc(void **ptr, size_t size) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    if (!ptr) return fail(cudaErrorInvalidValue);
    void *p = host_alloc(size);
    if (!p) return fail(cudaErrorMemoryAllocation);
    Writer w(WS_MANAGED);
    w.u64((uint64_t)(uintptr_t)p).u64(size);
    cudaError_t e = simple(w);
    if (e != cudaSuccess) {
        free(p);
        return e;
    }
    s.managed[(uintptr_t)p] = size;
    *ptr = p;
    return cudaSuccess;
}

}  // namespace

// ----- the API ----------------------------------------------------------------------------------

// Only CUDA's names and the generated code's `__warpsim_*`/`__cuda*` entry points leave this
// file: the helpers below are `static`, as an unnamed namespace inside `extern "C"` still gives
// GCC's names external linkage, and a program's own `rows` would not link.
extern "C" {

int __warpsim_register_kernel(const void *func, const char *name, int unit) {
    kernel_registry()[func] = Kernel{name, unit};
    return 1;
}

int __warpsim_register_symbol(const void *symbol, const char *name, int unit) {
    symbol_registry()[symbol] = Symbol{name, unit};
    return 1;
}

unsigned int __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                         cudaStream_t stream) {
    configs.push_back(Config{gridDim, blockDim, sharedMem, stream});
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       cudaStream_t *stream) {
    if (configs.empty()) return fail(cudaErrorMissingConfiguration);
    Config c = configs.back();
    configs.pop_back();
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.smem;
    *stream = c.stream;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

const char *cudaGetErrorName(cudaError_t error) {
    switch (error) {
#define NAME(e) \
    case e: return #e;
        NAME(cudaSuccess) NAME(cudaErrorInvalidValue) NAME(cudaErrorMemoryAllocation)
        NAME(cudaErrorInitializationError) NAME(cudaErrorCudartUnloading)
        NAME(cudaErrorProfilerDisabled) NAME(cudaErrorProfilerNotInitialized)
        NAME(cudaErrorProfilerAlreadyStarted) NAME(cudaErrorProfilerAlreadyStopped)
        NAME(cudaErrorInvalidConfiguration) NAME(cudaErrorInvalidPitchValue)
        NAME(cudaErrorInvalidSymbol) NAME(cudaErrorInvalidHostPointer)
        NAME(cudaErrorInvalidDevicePointer) NAME(cudaErrorInvalidTexture)
        NAME(cudaErrorInvalidTextureBinding) NAME(cudaErrorInvalidChannelDescriptor)
        NAME(cudaErrorInvalidMemcpyDirection) NAME(cudaErrorAddressOfConstant)
        NAME(cudaErrorTextureFetchFailed) NAME(cudaErrorTextureNotBound)
        NAME(cudaErrorSynchronizationError) NAME(cudaErrorInvalidFilterSetting)
        NAME(cudaErrorInvalidNormSetting) NAME(cudaErrorMixedDeviceExecution)
        NAME(cudaErrorNotYetImplemented) NAME(cudaErrorMemoryValueTooLarge)
        NAME(cudaErrorStubLibrary) NAME(cudaErrorInsufficientDriver)
        NAME(cudaErrorCallRequiresNewerDriver) NAME(cudaErrorInvalidSurface)
        NAME(cudaErrorDuplicateVariableName) NAME(cudaErrorDuplicateTextureName)
        NAME(cudaErrorDuplicateSurfaceName) NAME(cudaErrorDevicesUnavailable)
        NAME(cudaErrorIncompatibleDriverContext) NAME(cudaErrorMissingConfiguration)
        NAME(cudaErrorPriorLaunchFailure) NAME(cudaErrorLaunchMaxDepthExceeded)
        NAME(cudaErrorLaunchFileScopedTex) NAME(cudaErrorLaunchFileScopedSurf)
        NAME(cudaErrorSyncDepthExceeded) NAME(cudaErrorLaunchPendingCountExceeded)
        NAME(cudaErrorInvalidDeviceFunction) NAME(cudaErrorNoDevice) NAME(cudaErrorInvalidDevice)
        NAME(cudaErrorDeviceNotLicensed) NAME(cudaErrorSoftwareValidityNotEstablished)
        NAME(cudaErrorStartupFailure) NAME(cudaErrorInvalidKernelImage)
        NAME(cudaErrorDeviceUninitialized) NAME(cudaErrorMapBufferObjectFailed)
        NAME(cudaErrorUnmapBufferObjectFailed) NAME(cudaErrorArrayIsMapped)
        NAME(cudaErrorAlreadyMapped) NAME(cudaErrorNoKernelImageForDevice)
        NAME(cudaErrorAlreadyAcquired) NAME(cudaErrorNotMapped) NAME(cudaErrorNotMappedAsArray)
        NAME(cudaErrorNotMappedAsPointer) NAME(cudaErrorECCUncorrectable)
        NAME(cudaErrorUnsupportedLimit) NAME(cudaErrorDeviceAlreadyInUse)
        NAME(cudaErrorPeerAccessUnsupported) NAME(cudaErrorInvalidPtx)
        NAME(cudaErrorInvalidGraphicsContext) NAME(cudaErrorNvlinkUncorrectable)
        NAME(cudaErrorJitCompilerNotFound) NAME(cudaErrorUnsupportedPtxVersion)
        NAME(cudaErrorJitCompilationDisabled) NAME(cudaErrorUnsupportedExecAffinity)
        NAME(cudaErrorInvalidSource) NAME(cudaErrorFileNotFound)
        NAME(cudaErrorSharedObjectSymbolNotFound) NAME(cudaErrorSharedObjectInitFailed)
        NAME(cudaErrorOperatingSystem) NAME(cudaErrorInvalidResourceHandle)
        NAME(cudaErrorIllegalState) NAME(cudaErrorSymbolNotFound) NAME(cudaErrorNotReady)
        NAME(cudaErrorIllegalAddress) NAME(cudaErrorLaunchOutOfResources)
        NAME(cudaErrorLaunchTimeout) NAME(cudaErrorLaunchIncompatibleTexturing)
        NAME(cudaErrorPeerAccessAlreadyEnabled) NAME(cudaErrorPeerAccessNotEnabled)
        NAME(cudaErrorSetOnActiveProcess) NAME(cudaErrorContextIsDestroyed) NAME(cudaErrorAssert)
        NAME(cudaErrorTooManyPeers) NAME(cudaErrorHostMemoryAlreadyRegistered)
        NAME(cudaErrorHostMemoryNotRegistered) NAME(cudaErrorHardwareStackError)
        NAME(cudaErrorIllegalInstruction) NAME(cudaErrorMisalignedAddress)
        NAME(cudaErrorInvalidAddressSpace) NAME(cudaErrorInvalidPc) NAME(cudaErrorLaunchFailure)
        NAME(cudaErrorCooperativeLaunchTooLarge) NAME(cudaErrorNotPermitted)
        NAME(cudaErrorNotSupported) NAME(cudaErrorSystemNotReady)
        NAME(cudaErrorSystemDriverMismatch) NAME(cudaErrorCompatNotSupportedOnDevice)
        NAME(cudaErrorStreamCaptureUnsupported) NAME(cudaErrorStreamCaptureInvalidated)
        NAME(cudaErrorStreamCaptureMerge) NAME(cudaErrorStreamCaptureUnmatched)
        NAME(cudaErrorStreamCaptureUnjoined) NAME(cudaErrorStreamCaptureIsolation)
        NAME(cudaErrorStreamCaptureImplicit) NAME(cudaErrorCapturedEvent)
        NAME(cudaErrorStreamCaptureWrongThread) NAME(cudaErrorTimeout)
        NAME(cudaErrorGraphExecUpdateFailure) NAME(cudaErrorExternalDevice)
        NAME(cudaErrorInvalidClusterSize) NAME(cudaErrorUnknown) NAME(cudaErrorApiFailureBase)
#undef NAME
        default: return "cudaErrorUnknown";
    }
}

const char *cudaGetErrorString(cudaError_t error) {
    switch (error) {
        case cudaSuccess: return "no error";
        case cudaErrorInvalidValue: return "invalid argument";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorInitializationError: return "initialization error";
        case cudaErrorInvalidConfiguration: return "invalid configuration argument";
        case cudaErrorInvalidSymbol: return "invalid device symbol";
        case cudaErrorInvalidDevicePointer: return "invalid device pointer";
        case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
        case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
        case cudaErrorMissingConfiguration: return "__global__ function call is not configured";
        case cudaErrorInvalidDeviceFunction: return "invalid device function";
        case cudaErrorNoDevice: return "no CUDA-capable device is detected";
        case cudaErrorInvalidDevice: return "invalid device ordinal";
        case cudaErrorNoKernelImageForDevice: return "no kernel image is available for execution on the device";
        case cudaErrorInvalidResourceHandle: return "invalid resource handle";
        case cudaErrorSymbolNotFound: return "named symbol not found";
        case cudaErrorNotReady: return "device not ready";
        case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
        case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
        case cudaErrorAssert: return "device-side assert triggered";
        case cudaErrorIllegalInstruction: return "an illegal instruction was encountered";
        case cudaErrorMisalignedAddress: return "misaligned address";
        case cudaErrorLaunchFailure: return "unspecified launch failure";
        case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
        case cudaErrorNotSupported: return "operation not supported";
        case cudaErrorNotPermitted: return "operation not permitted";
        case cudaErrorDevicesUnavailable: return "CUDA-capable device(s) is/are busy or unavailable";
        case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
        case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
        case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
        case cudaErrorInvalidPitchValue: return "invalid pitch argument";
        case cudaErrorInvalidChannelDescriptor: return "invalid channel descriptor";
        case cudaErrorInvalidTexture: return "invalid texture reference";
        default: return "unknown error";
    }
}

cudaError_t cudaDriverGetVersion(int *v) {
    if (!v) return fail(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) {
    if (!v) return fail(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *count) {
    if (!count) return fail(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }

cudaError_t cudaGetDevice(int *device) {
    if (!device) return fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *) { return cudaGetDevice(device); }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!p) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    const auto &v = props();
    if (state().ch.broken != cudaSuccess) return fail(state().ch.broken);
    auto get = [&](const char *k) -> int64_t {
        auto it = v.find(k);
        return it == v.end() ? 0 : it->second;
    };
    snprintf(p->name, sizeof p->name, "%s", state().device_name.c_str());
    p->totalGlobalMem = (size_t)get("totalGlobalMem");
    p->sharedMemPerBlock = (size_t)get("sharedMemPerBlock");
    p->regsPerBlock = (int)get("regsPerBlock");
    p->warpSize = (int)get("warpSize");
    p->memPitch = (size_t)get("memPitch");
    p->maxThreadsPerBlock = (int)get("maxThreadsPerBlock");
    p->maxThreadsDim[0] = (int)get("maxThreadsDim0");
    p->maxThreadsDim[1] = (int)get("maxThreadsDim1");
    p->maxThreadsDim[2] = (int)get("maxThreadsDim2");
    p->maxGridSize[0] = (int)get("maxGridSize0");
    p->maxGridSize[1] = (int)get("maxGridSize1");
    p->maxGridSize[2] = (int)get("maxGridSize2");
    p->clockRate = (int)get("clockRate");
    p->totalConstMem = (size_t)get("totalConstMem");
    p->major = (int)get("major");
    p->minor = (int)get("minor");
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->deviceOverlap = 1;
    p->multiProcessorCount = (int)get("multiProcessorCount");
    p->integrated = 0;
    p->canMapHostMemory = 1;
    p->computeMode = cudaComputeModeDefault;
    p->concurrentKernels = 1;
    p->asyncEngineCount = 2;
    p->unifiedAddressing = 1;
    p->memoryClockRate = (int)get("memoryClockRate");
    p->memoryBusWidth = (int)get("memoryBusWidth");
    p->l2CacheSize = (int)get("l2CacheSize");
    p->persistingL2CacheMaxSize = (int)get("persistingL2CacheMaxSize");
    p->maxThreadsPerMultiProcessor = (int)get("maxThreadsPerMultiProcessor");
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = (size_t)get("sharedMemPerMultiprocessor");
    p->regsPerMultiprocessor = (int)get("regsPerMultiprocessor");
    p->managedMemory = 1;
    p->hostNativeAtomicSupported = 0;
    p->singleToDoublePrecisionPerfRatio = 2;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = (size_t)get("sharedMemPerBlockOptin");
    p->maxBlocksPerMultiProcessor = (int)get("maxBlocksPerMultiProcessor");
    p->reservedSharedMemPerBlock = (size_t)get("reservedSharedMemPerBlock");
    p->memoryPoolsSupported = 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!value) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, 0);
    if (e != cudaSuccess) return e;
    int v;
    switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock: v = p.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: v = p.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: v = p.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: v = p.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: v = p.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: v = p.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: v = p.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: v = (int)p.sharedMemPerBlock; break;
        case cudaDevAttrTotalConstantMemory: v = (int)p.totalConstMem; break;
        case cudaDevAttrWarpSize: v = p.warpSize; break;
        case cudaDevAttrMaxPitch: v = (int)(p.memPitch > 0x7fffffff ? 0x7fffffff : p.memPitch); break;
        case cudaDevAttrMaxRegistersPerBlock: v = p.regsPerBlock; break;
        case cudaDevAttrClockRate: v = p.clockRate; break;
        case cudaDevAttrTextureAlignment: v = (int)p.textureAlignment; break;
        case cudaDevAttrGpuOverlap: v = p.deviceOverlap; break;
        case cudaDevAttrMultiProcessorCount: v = p.multiProcessorCount; break;
        case cudaDevAttrKernelExecTimeout: v = 0; break;
        case cudaDevAttrIntegrated: v = p.integrated; break;
        case cudaDevAttrCanMapHostMemory: v = p.canMapHostMemory; break;
        case cudaDevAttrComputeMode: v = p.computeMode; break;
        case cudaDevAttrConcurrentKernels: v = p.concurrentKernels; break;
        case cudaDevAttrEccEnabled: v = 0; break;
        case cudaDevAttrPciBusId: case cudaDevAttrPciDeviceId: case cudaDevAttrPciDomainId: v = 0; break;
        case cudaDevAttrTccDriver: v = 0; break;
        case cudaDevAttrMemoryClockRate: v = p.memoryClockRate; break;
        case cudaDevAttrGlobalMemoryBusWidth: v = p.memoryBusWidth; break;
        case cudaDevAttrL2CacheSize: v = p.l2CacheSize; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: v = p.maxThreadsPerMultiProcessor; break;
        case cudaDevAttrAsyncEngineCount: v = p.asyncEngineCount; break;
        case cudaDevAttrUnifiedAddressing: v = p.unifiedAddressing; break;
        case cudaDevAttrTexturePitchAlignment: v = (int)p.texturePitchAlignment; break;
        case cudaDevAttrComputeCapabilityMajor: v = p.major; break;
        case cudaDevAttrComputeCapabilityMinor: v = p.minor; break;
        case cudaDevAttrStreamPrioritiesSupported: v = 1; break;
        case cudaDevAttrGlobalL1CacheSupported: case cudaDevAttrLocalL1CacheSupported: v = 1; break;
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = (int)p.sharedMemPerMultiprocessor; break;
        case cudaDevAttrMaxRegistersPerMultiprocessor: v = p.regsPerMultiprocessor; break;
        case cudaDevAttrManagedMemory: v = 1; break;
        case cudaDevAttrIsMultiGpuBoard: case cudaDevAttrMultiGpuBoardGroupID: v = 0; break;
        case cudaDevAttrHostNativeAtomicSupported: v = 0; break;
        case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = p.singleToDoublePrecisionPerfRatio; break;
        case cudaDevAttrPageableMemoryAccess: v = 0; break;
        case cudaDevAttrConcurrentManagedAccess: v = 1; break;
        case cudaDevAttrComputePreemptionSupported: v = 1; break;
        case cudaDevAttrCanUseHostPointerForRegisteredMem: v = 0; break;
        case cudaDevAttrCooperativeLaunch: v = p.cooperativeLaunch; break;
        case cudaDevAttrCooperativeMultiDeviceLaunch: v = 0; break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = (int)p.sharedMemPerBlockOptin; break;
        case cudaDevAttrMaxBlocksPerMultiprocessor: v = p.maxBlocksPerMultiProcessor; break;
        case cudaDevAttrMaxPersistingL2CacheSize: v = p.persistingL2CacheMaxSize; break;
        case cudaDevAttrReservedSharedMemoryPerBlock: v = (int)p.reservedSharedMemPerBlock; break;
        case cudaDevAttrMemoryPoolsSupported: v = 1; break;
        default:
            // A number that is no attribute is CUDA's cudaErrorInvalidValue; the attributes of
            // driver_types.h that a GPU of the profile lacks are 0.
            if ((int)attr <= 0 || (int)attr >= (int)cudaDevAttrMax) return fail(cudaErrorInvalidValue);
            v = 0;
            break;
    }
    *value = v;
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    state().device_flags = (int)flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
    if (!flags) return fail(cudaErrorInvalidValue);
    *flags = (unsigned int)state().device_flags;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) { return sync_point(); }
cudaError_t cudaThreadSynchronize(void) { return sync_point(); }

static void forget_bindings();

cudaError_t cudaDeviceReset(void) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    sync_point();
    Writer w(WS_RESET);
    cudaError_t e = simple(w);
    for (auto &m : s.managed) free((void *)m.first);
    s.managed.clear();
    s.device.clear();
    s.symbols.clear();
    forget_bindings();
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }

cudaError_t cudaDeviceSetLimit(enum cudaLimit, size_t) { return cudaSuccess; }

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit) {
    if (!value) return fail(cudaErrorInvalidValue);
    switch (limit) {
        case cudaLimitStackSize: *value = 1024; break;
        case cudaLimitPrintfFifoSize: *value = 1 << 20; break;
        case cudaLimitMallocHeapSize: *value = 8 << 20; break;
        default: *value = 0; break;
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *c) {
    if (!c) return fail(cudaErrorInvalidValue);
    *c = cudaFuncCachePreferNone;
    return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig) { return cudaSuccess; }
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *c) {
    if (!c) return fail(cudaErrorInvalidValue);
    *c = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *can, int, int) {
    if (!can) return fail(cudaErrorInvalidValue);
    *can = 0;
    return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int, unsigned int) { return fail(cudaErrorInvalidDevice); }
cudaError_t cudaDeviceDisablePeerAccess(int) { return fail(cudaErrorInvalidDevice); }

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
    std::lock_guard<std::recursive_mutex> g(lock());
    Writer w(WS_MEM_INFO);
    Reader r = state().ch.call(w);
    if (r.status() != 0) return fail((cudaError_t)r.status());
    uint64_t f = r.u64(), t = r.u64();
    if (free_bytes) *free_bytes = (size_t)f;
    if (total) *total = (size_t)t;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    if (!devPtr) return fail(cudaErrorInvalidValue);
    Writer w(WS_MALLOC);
    w.u64(size);
    Reader r = s.ch.call(w);
    if (r.status() != 0) return fail((cudaError_t)r.status());
    uint64_t a = r.u64();
    s.device[(uintptr_t)a] = size;
    *devPtr = (void *)(uintptr_t)a;
    return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaMalloc(devPtr, size);
}

// One memory pool per device (warpsim has one): allocations from it are cudaMalloc's, its
// attributes are kept for the program to read back.
struct CUmemPoolHandle_st {
    std::map<int, uint64_t> attrs;
};

static CUmemPoolHandle_st default_pool;

static bool is_pool(cudaMemPool_t p) { return p == &default_pool; }

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream) {
    CHECK_STREAM(stream);
    if (!is_pool(pool)) return fail(cudaErrorInvalidValue);
    return cudaMalloc(ptr, size);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device) {
    if (!pool) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    *pool = &default_pool;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device) { return cudaDeviceGetDefaultMemPool(pool, device); }

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
    if (device != 0) return fail(cudaErrorInvalidDevice);
    return is_pool(pool) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!is_pool(pool) || !value) return fail(cudaErrorInvalidValue);
    // The reuse flags are ints, the sizes 64-bit.
    pool->attrs[attr] = attr <= cudaMemPoolReuseAllowInternalDependencies ? (uint64_t) * (int *)value
                                                                          : *(uint64_t *)value;
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!is_pool(pool) || !value) return fail(cudaErrorInvalidValue);
    uint64_t v = pool->attrs.count(attr) ? pool->attrs[attr] : 0;
    if (attr <= cudaMemPoolReuseAllowInternalDependencies) {
        *(int *)value = (int)v;
    } else {
        *(uint64_t *)value = v;
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) {
    return is_pool(pool) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

// Stream attributes steer the GPU's L2 and scheduling: accepted, with nothing to steer.
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID, const cudaStreamAttrValue *value) {
    CHECK_STREAM(stream);
    return value ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID, cudaStreamAttrValue *value) {
    CHECK_STREAM(stream);
    if (!value) return fail(cudaErrorInvalidValue);
    memset(value, 0, sizeof *value);
    return cudaSuccess;
}

cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

// One device: no pair of distinct devices exists, so every pair asked about is invalid.
cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr, int, int) {
    if (!value) return fail(cudaErrorInvalidValue);
    return fail(cudaErrorInvalidDevice);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
    if (!pitch) return fail(cudaErrorInvalidValue);
    // Rows start at multiples of 512 bytes, as on current GPUs.
    *pitch = (width + 511) / 512 * 512;
    return cudaMalloc(devPtr, *pitch * height);
}

cudaError_t cudaFree(void *devPtr) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    if (!devPtr) return cudaSuccess;
    uintptr_t a = (uintptr_t)devPtr;
    bool managed = s.managed.count(a) != 0;
    Writer w(WS_FREE);
    w.u64(a);
    cudaError_t e = simple(w);
    if (e != cudaSuccess) return e;
    if (managed) {
        s.managed.erase(a);
        free(devPtr);
    }
    s.device.erase(a);
    return cudaSuccess;
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaFree(devPtr);
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!pHost) return fail(cudaErrorInvalidValue);
    // Mapped memory is read by kernels through its host address: managed memory.
    if (flags & cudaHostAllocMapped) return managed_alloc(pHost, size);
    void *p = host_alloc(size);
    if (!p) return fail(cudaErrorMemoryAllocation);
    state().pinned[(uintptr_t)p] = size;
    *pHost = p;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) { return cudaHostAlloc(ptr, size, 0); }

cudaError_t cudaFreeHost(void *ptr) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    if (!ptr) return cudaSuccess;
    if (s.managed.count((uintptr_t)ptr)) return cudaFree(ptr);
    if (!s.pinned.erase((uintptr_t)ptr)) return fail(cudaErrorInvalidValue);
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *, size_t, unsigned int) { return cudaSuccess; }
cudaError_t cudaHostUnregister(void *) { return cudaSuccess; }

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!pDevice) return fail(cudaErrorInvalidValue);
    map_pinned(pHost);
    if (!in(state().managed, pHost)) return fail(cudaErrorInvalidValue);
    *pDevice = pHost;
    return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!pFlags) return fail(cudaErrorInvalidValue);
    if (in(state().managed, pHost)) *pFlags = cudaHostAllocMapped;
    else if (in(state().pinned, pHost)) *pFlags = cudaHostAllocDefault;
    else return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int) { return managed_alloc(devPtr, size); }

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *ptr) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    if (!a) return fail(cudaErrorInvalidValue);
    memset(a, 0, sizeof *a);
    a->device = 0;
    if (in(s.managed, ptr)) {
        a->type = cudaMemoryTypeManaged;
        a->devicePointer = a->hostPointer = (void *)ptr;
    } else if (in(s.device, ptr)) {
        a->type = cudaMemoryTypeDevice;
        a->devicePointer = (void *)ptr;
    } else if (in(s.pinned, ptr)) {
        a->type = cudaMemoryTypeHost;
        a->hostPointer = (void *)ptr;
    } else {
        a->type = cudaMemoryTypeUnregistered;
        a->device = -2;
        a->hostPointer = (void *)ptr;
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return copy(dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
    CHECK_STREAM(stream);
    if (Graph *g = capture_of(stream)) {
        g->ops.push_back([=] { return copy(dst, src, count, kind); });
        return cudaSuccess;
    }
    return copy(dst, src, count, kind);
}
// One device: a copy between peers is a copy from device 0 to device 0.
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count) {
    if (dstDevice != 0 || srcDevice != 0) return fail(cudaErrorInvalidDevice);
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind) {
    if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
    for (size_t r = 0; r < height; r++) {
        cudaError_t e = copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

// A CUDA array: device memory of its own, rows of `width` texels packed.
struct cudaArray {
    void *data;
    cudaChannelFormatDesc desc;
    cudaExtent extent;  // height and depth 0 where the array has no such dimension
    unsigned int flags;
};

static size_t texel_bytes(const cudaChannelFormatDesc &d) { return (size_t)(d.x + d.y + d.z + d.w) / 8; }
static size_t row_bytes(const cudaArray *a) { return a->extent.width * texel_bytes(a->desc); }
static size_t rows(const cudaArray *a) { return (a->extent.height ? a->extent.height : 1) * (a->extent.depth ? a->extent.depth : 1); }

// Where byte `x` of row `y` of `a` is, if `bytes` from there stay in the array.
static char *in_array(const cudaArray *a, size_t x, size_t y, size_t bytes) {
    if (!a || y >= rows(a) || x > row_bytes(a) || bytes > (rows(a) - y) * row_bytes(a) - x) return nullptr;
    return (char *)a->data + y * row_bytes(a) + x;
}

// A pitched view of an array (the form cudaMemcpy3D copies between).
static cudaPitchedPtr pitched(const cudaArray *a) {
    return make_cudaPitchedPtr(a->data, row_bytes(a), a->extent.width, a->extent.height ? a->extent.height : 1);
}

// cudaMemcpy3D: row by row, `extent.width` bytes (texels where an array takes part), rows
// `pitch` apart, slices `pitch × ysize` apart.
static cudaError_t copy3d(cudaMemcpy3DParms m) {
    const cudaArray *array = m.srcArray ? m.srcArray : m.dstArray;
    if (array) {
        size_t t = texel_bytes(array->desc);
        m.extent.width *= t;
        if (m.srcArray) m.srcPos.x *= t, m.srcPtr = pitched(m.srcArray);
        if (m.dstArray) m.dstPos.x *= t, m.dstPtr = pitched(m.dstArray);
    }
    const cudaPitchedPtr &s = m.srcPtr, &d = m.dstPtr;
    if (m.extent.width > s.pitch || m.extent.width > d.pitch) return fail(cudaErrorInvalidPitchValue);
    for (size_t z = 0; z < (m.extent.depth ? m.extent.depth : 1); z++) {
        for (size_t y = 0; y < (m.extent.height ? m.extent.height : 1); y++) {
            const char *from = (const char *)s.ptr + ((m.srcPos.z + z) * s.ysize + m.srcPos.y + y) * s.pitch + m.srcPos.x;
            char *to = (char *)d.ptr + ((m.dstPos.z + z) * d.ysize + m.dstPos.y + y) * d.pitch + m.dstPos.x;
            cudaError_t e = copy(to, from, m.extent.width, m.kind);
            if (e != cudaSuccess) return e;
        }
    }
    return cudaSuccess;
}

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
    cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, cudaExtent extent,
                              unsigned int flags) {
    if (!array || !desc || extent.width == 0 || texel_bytes(*desc) == 0) return fail(cudaErrorInvalidValue);
    cudaArray a = {nullptr, *desc, extent, flags};
    void *data;
    cudaError_t e = cudaMalloc(&data, rows(&a) * row_bytes(&a));
    if (e != cudaSuccess) return e;
    a.data = data;
    *array = new cudaArray(a);
    return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width, size_t height,
                            unsigned int flags) {
    return cudaMalloc3DArray(array, desc, make_cudaExtent(width, height, 0), flags);
}

cudaError_t cudaFreeArray(cudaArray_t array) {
    if (!array) return cudaSuccess;
    cudaError_t e = cudaFree(array->data);
    delete array;
    return e;
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent, unsigned int *flags, cudaArray_t array) {
    if (!array) return fail(cudaErrorInvalidValue);
    if (desc) *desc = array->desc;
    if (extent) *extent = array->extent;
    if (flags) *flags = array->flags;
    return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t array) {
    if (!array || !desc) return fail(cudaErrorInvalidValue);
    *desc = array->desc;
    return cudaSuccess;
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              cudaMemcpyKind kind) {
    char *to = in_array(dst, wOffset, hOffset, count);
    return to ? copy(to, src, count, kind) : fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                cudaMemcpyKind kind) {
    const char *from = in_array(src, wOffset, hOffset, count);
    return from ? copy(dst, from, count, kind) : fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind) {
    if (!dst || wOffset + width > row_bytes(dst) || hOffset + height > rows(dst)) return fail(cudaErrorInvalidValue);
    return cudaMemcpy2D(in_array(dst, wOffset, hOffset, 0), row_bytes(dst), src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                     size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, cudaMemcpyKind kind) {
    if (!src || wOffset + width > row_bytes(src) || hOffset + height > rows(src)) return fail(cudaErrorInvalidValue);
    return cudaMemcpy2D(dst, dpitch, in_array(src, wOffset, hOffset, 0), row_bytes(src), width, height, kind);
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) { return p ? copy3d(*p) : fail(cudaErrorInvalidValue); }

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaMemcpy3D(p);
}

// What each texture object was made from, for cudaGetTextureObject*Desc.
static std::map<cudaTextureObject_t, std::pair<cudaResourceDesc, cudaTextureDesc>> &texture_descs() {
    static std::map<cudaTextureObject_t, std::pair<cudaResourceDesc, cudaTextureDesc>> m;
    return m;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const cudaResourceDesc *res,
                                    const cudaTextureDesc *tex, const cudaResourceViewDesc *) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    if (!pTexObject || !res || !tex) return fail(cudaErrorInvalidValue);
    void *data;
    cudaChannelFormatDesc desc;
    size_t extent[3] = {1, 1, 1}, pitch, slice;
    bool linear = false;
    switch (res->resType) {
    case cudaResourceTypeArray: {
        const cudaArray *a = res->res.array.array;
        if (!a) return fail(cudaErrorInvalidValue);
        data = a->data, desc = a->desc;
        extent[0] = a->extent.width;
        extent[1] = a->extent.height ? a->extent.height : 1;
        extent[2] = a->extent.depth ? a->extent.depth : 1;
        pitch = row_bytes(a), slice = pitch * extent[1];
        break;
    }
    case cudaResourceTypeLinear:
        data = res->res.linear.devPtr, desc = res->res.linear.desc, linear = true;
        if (texel_bytes(desc) == 0) return fail(cudaErrorInvalidChannelDescriptor);
        extent[0] = res->res.linear.sizeInBytes / texel_bytes(desc);
        pitch = slice = res->res.linear.sizeInBytes;
        break;
    case cudaResourceTypePitch2D:
        data = res->res.pitch2D.devPtr, desc = res->res.pitch2D.desc;
        extent[0] = res->res.pitch2D.width, extent[1] = res->res.pitch2D.height;
        pitch = res->res.pitch2D.pitchInBytes, slice = pitch * extent[1];
        break;
    default:
        fprintf(stderr, "==warpsim== cudaCreateTextureObject: mipmapped arrays are not supported\n");
        return fail(cudaErrorNotSupported);
    }
    Writer w(WS_TEXTURE);
    w.u64((uint64_t)(uintptr_t)data).u32((uint32_t)desc.f);
    w.u32((uint32_t)desc.x).u32((uint32_t)desc.y).u32((uint32_t)desc.z).u32((uint32_t)desc.w);
    w.u64(extent[0]).u64(extent[1]).u64(extent[2]).u64(pitch).u64(slice);
    for (int d = 0; d < 3; d++) w.u32((uint32_t)tex->addressMode[d]);
    w.u32((uint32_t)tex->filterMode).u32((uint32_t)tex->readMode);
    w.u32(tex->normalizedCoords ? 1 : 0).u32(linear ? 1 : 0);
    Reader r = s.ch.call(w);
    if (r.status() != 0) return fail((cudaError_t)r.status());
    *pTexObject = r.u64();
    texture_descs()[*pTexObject] = std::make_pair(*res, *tex);
    return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
    std::lock_guard<std::recursive_mutex> g(lock());
    texture_descs().erase(texObject);
    Writer w(WS_TEXTURE_FREE);
    w.u64(texObject);
    return simple(w);
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *pResDesc, cudaTextureObject_t texObject) {
    std::lock_guard<std::recursive_mutex> g(lock());
    auto it = texture_descs().find(texObject);
    if (!pResDesc || it == texture_descs().end()) return fail(cudaErrorInvalidValue);
    *pResDesc = it->second.first;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject) {
    std::lock_guard<std::recursive_mutex> g(lock());
    auto it = texture_descs().find(texObject);
    if (!pTexDesc || it == texture_descs().end()) return fail(cudaErrorInvalidValue);
    *pTexDesc = it->second.second;
    return cudaSuccess;
}

// Texture references: each bound one stands for a texture object of warpsim's, whose handle
// its device-side variable (8 bytes, registered as a symbol at the reference's address) holds
// for the launches to bind; 0 there is unbound.
struct Binding {
    cudaTextureObject_t object;
    size_t offset;  // what cudaBindTexture* reported
};
static std::map<const textureReference *, Binding> &bindings() {
    static std::map<const textureReference *, Binding> m;
    return m;
}

// cudaDeviceReset: the texture objects are gone, and the references' variables with them.
static void forget_bindings() { bindings().clear(); }

// Points the reference's device variable at `object` (0: none), destroying the object it held.
static cudaError_t rebind(const textureReference *texref, cudaTextureObject_t object, size_t offset) {
    cudaError_t e = cudaMemcpyToSymbol((const void *)texref, &object, sizeof object, 0, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        if (object) cudaDestroyTextureObject(object);
        return e;
    }
    auto it = bindings().find(texref);
    if (it != bindings().end()) {
        cudaDestroyTextureObject(it->second.object);
        bindings().erase(it);
    }
    if (object) bindings()[texref] = Binding{object, offset};
    return cudaSuccess;
}

// Binds `texref` to the texture object of `res`, sampled as the reference's fields say.
static cudaError_t bind_reference(const textureReference *texref, const cudaResourceDesc &res, size_t offset) {
    if (!texref) return fail(cudaErrorInvalidTexture);
    cudaTextureDesc tex = {};
    for (int d = 0; d < 3; d++) tex.addressMode[d] = texref->addressMode[d];
    tex.filterMode = texref->filterMode;
    tex.readMode = texref->__warpsim_readMode;
    tex.normalizedCoords = texref->normalized;
    tex.sRGB = texref->sRGB;
    cudaTextureObject_t object;
    cudaError_t e = cudaCreateTextureObject(&object, &res, &tex, nullptr);
    return e == cudaSuccess ? rebind(texref, object, offset) : e;
}

// Linear memory binds at the alignment below `devPtr`: the bytes between are `*offset`
// (fetches add them in texels), which the caller must take when there are any. The alignment
// is that of warpsim's allocations (256 bytes), so that memory from cudaMalloc binds at offset
// 0 as CUDA promises.
static cudaError_t aligned(const void **devPtr, size_t *offset, size_t *bytes) {
    uintptr_t p = (uintptr_t)*devPtr, base = p & ~(uintptr_t)255;
    if (offset) *offset = p - base;
    else if (p != base) {
        fprintf(stderr, "==warpsim== cudaBindTexture: %p is not 256-byte aligned; pass an offset to receive the "
                        "bytes to add to each fetch (in texels)\n", *devPtr);
        return fail(cudaErrorInvalidValue);
    }
    *bytes += p - base;
    *devPtr = (const void *)base;
    return cudaSuccess;
}

cudaError_t cudaBindTexture(size_t *offset, const textureReference *texref, const void *devPtr,
                            const cudaChannelFormatDesc *desc, size_t size) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!desc) return fail(cudaErrorInvalidChannelDescriptor);
    if (size == ~(size_t)0) {
        // No size (the C++ overload's default): the rest of devPtr's allocation.
        const std::map<uintptr_t, size_t> &device = state().device;
        auto it = device.upper_bound((uintptr_t)devPtr);
        if (it != device.begin()) --it;
        if (it == device.end() || (uintptr_t)devPtr < it->first || (uintptr_t)devPtr - it->first >= it->second) {
            fprintf(stderr, "==warpsim== cudaBindTexture: %p is in no cudaMalloc'd memory; pass the size to bind\n", devPtr);
            return fail(cudaErrorInvalidValue);
        }
        size = it->second - ((uintptr_t)devPtr - it->first);
    }
    size_t skip = 0;
    cudaError_t e = aligned(&devPtr, offset, &skip);
    if (e != cudaSuccess) return e;
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = (void *)devPtr;
    res.res.linear.desc = *desc;
    res.res.linear.sizeInBytes = size + skip;
    return bind_reference(texref, res, offset ? *offset : 0);
}

cudaError_t cudaBindTexture2D(size_t *offset, const textureReference *texref, const void *devPtr,
                              const cudaChannelFormatDesc *desc, size_t width, size_t height, size_t pitch) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!desc) return fail(cudaErrorInvalidChannelDescriptor);
    size_t skip = 0;
    cudaError_t e = aligned(&devPtr, offset, &skip);
    if (e != cudaSuccess) return e;
    if (skip % (texel_bytes(*desc) ? texel_bytes(*desc) : 1)) return fail(cudaErrorInvalidValue);
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = (void *)devPtr;
    res.res.pitch2D.desc = *desc;
    res.res.pitch2D.width = width + (texel_bytes(*desc) ? skip / texel_bytes(*desc) : 0);
    res.res.pitch2D.height = height;
    res.res.pitch2D.pitchInBytes = pitch;
    return bind_reference(texref, res, offset ? *offset : 0);
}

cudaError_t cudaBindTextureToArray(const textureReference *texref, cudaArray_const_t array,
                                   const cudaChannelFormatDesc *) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!array) return fail(cudaErrorInvalidResourceHandle);
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = (cudaArray_t)array;
    return bind_reference(texref, res, 0);
}

cudaError_t cudaUnbindTexture(const textureReference *texref) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!texref) return fail(cudaErrorInvalidTexture);
    return rebind(texref, 0, 0);
}

cudaError_t cudaGetTextureAlignmentOffset(size_t *offset, const textureReference *texref) {
    std::lock_guard<std::recursive_mutex> g(lock());
    auto it = bindings().find(texref);
    if (!offset || it == bindings().end()) return fail(cudaErrorInvalidTextureBinding);
    *offset = it->second.offset;
    return cudaSuccess;
}

cudaError_t cudaGetTextureReference(const textureReference **texref, const void *symbol) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!texref || !symbol_registry().count(symbol)) return fail(cudaErrorInvalidTexture);
    *texref = (const textureReference *)symbol;
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
    CHECK_STREAM(stream);
    if (Graph *g = capture_of(stream)) {
        g->ops.push_back([=] { return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind); });
        return cudaSuccess;
    }
    return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
    std::lock_guard<std::recursive_mutex> g(lock());
    State &s = state();
    if (count == 0) return cudaSuccess;
    if (in(s.managed, devPtr)) {
        memset(devPtr, value, count);
        return cudaSuccess;
    }
    Writer w(WS_MEMSET);
    w.u64((uint64_t)(uintptr_t)devPtr).u32((uint32_t)(value & 0xff)).u64(count);
    return simple(w);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
    CHECK_STREAM(stream);
    if (Graph *g = capture_of(stream)) {
        g->ops.push_back([=] { return cudaMemset(devPtr, value, count); });
        return cudaSuccess;
    }
    return cudaMemset(devPtr, value, count);
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
    if (width > pitch) return fail(cudaErrorInvalidPitchValue);
    for (size_t r = 0; r < height; r++) {
        cudaError_t e = cudaMemset((char *)devPtr + r * pitch, value, width);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
    std::lock_guard<std::recursive_mutex> g(lock());
    uint64_t a, bytes;
    cudaError_t e = symbol_of(symbol, &a, &bytes);
    if (e != cudaSuccess) return e;
    if (offset > bytes || count > bytes - offset) {
        fprintf(stderr, "==warpsim== cudaMemcpyToSymbol: %zu bytes at offset %zu do not fit the %llu-byte symbol\n",
                count, offset, (unsigned long long)bytes);
        return fail(cudaErrorInvalidValue);
    }
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return fail(cudaErrorInvalidMemcpyDirection);
    return copy((void *)(uintptr_t)(a + offset), src, count, kind == cudaMemcpyHostToDevice ? kind : cudaMemcpyDefault);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
    std::lock_guard<std::recursive_mutex> g(lock());
    uint64_t a, bytes;
    cudaError_t e = symbol_of(symbol, &a, &bytes);
    if (e != cudaSuccess) return e;
    if (offset > bytes || count > bytes - offset) {
        fprintf(stderr, "==warpsim== cudaMemcpyFromSymbol: %zu bytes at offset %zu do not fit the %llu-byte symbol\n",
                count, offset, (unsigned long long)bytes);
        return fail(cudaErrorInvalidValue);
    }
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return fail(cudaErrorInvalidMemcpyDirection);
    return copy(dst, (const void *)(uintptr_t)(a + offset), count, kind == cudaMemcpyDeviceToHost ? kind : cudaMemcpyDefault);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!devPtr) return fail(cudaErrorInvalidValue);
    uint64_t a, bytes;
    cudaError_t e = symbol_of(symbol, &a, &bytes);
    if (e != cudaSuccess) return e;
    *devPtr = (void *)(uintptr_t)a;
    state().device[(uintptr_t)a] = (size_t)bytes;
    return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!size) return fail(cudaErrorInvalidValue);
    uint64_t a, bytes;
    cudaError_t e = symbol_of(symbol, &a, &bytes);
    if (e != cudaSuccess) return e;
    *size = (size_t)bytes;
    return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaSuccess;
}
cudaError_t cudaMemAdvise(const void *, size_t, enum cudaMemoryAdvise, int) { return cudaSuccess; }
cudaError_t cudaMemPrefetchAsync_v2(const void *, size_t, struct cudaMemLocation, unsigned int, cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaSuccess;
}
cudaError_t cudaMemAdvise_v2(const void *, size_t, enum cudaMemoryAdvise, struct cudaMemLocation) {
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) { return cudaStreamCreateWithFlags(pStream, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
    if (!pStream) return fail(cudaErrorInvalidValue);
    Stream *s = new Stream();
    s->flags = flags;
    adopt(&Handles::streams, s);
    *pStream = (cudaStream_t)s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int) {
    return cudaStreamCreateWithFlags(pStream, flags);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if ((uintptr_t)stream <= 2) return cudaSuccess;
    if (!release(&Handles::streams, stream)) return fail(cudaErrorInvalidResourceHandle);
    Stream *s = (Stream *)stream;
    // A stream destroyed while capturing leaves its capture (which must not point at it).
    if (Graph *g = s->capture) g->streams.erase(std::remove(g->streams.begin(), g->streams.end(), s), g->streams.end());
    delete s;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    CHECK_STREAM(stream);
    return sync_point();
}
cudaError_t cudaStreamQuery(cudaStream_t stream) {
    CHECK_STREAM(stream);
    return cudaSuccess;
}
// Waiting for an event a capture recorded joins the capture (fork and join across streams).
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
    CHECK_STREAM(stream);
    CHECK_EVENT(event);
    Graph *g = ((Event *)event)->capture;
    if (g && live(&Handles::graphs, g) && (uintptr_t)stream > 2 && !capture_of(stream)) {
        ((Stream *)stream)->capture = g;
        g->streams.push_back((Stream *)stream);
    }
    return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int) {
    CHECK_STREAM(stream);
    if (Graph *g = capture_of(stream)) {
        g->ops.push_back([=] {
            callback(stream, sync_point(), userData);
            return cudaSuccess;
        });
        return cudaSuccess;
    }
    cudaError_t e = sync_point();
    callback(stream, e, userData);
    return cudaSuccess;
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *, size_t, unsigned int) {
    CHECK_STREAM(stream);
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    CHECK_STREAM(stream);
    if (Graph *g = capture_of(stream)) {
        g->ops.push_back([=] { return cudaLaunchHostFunc(0, fn, userData); });
        return cudaSuccess;
    }
    sync_point();
    fn(userData);
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode) {
    CHECK_STREAM(stream);
    if ((uintptr_t)stream <= 2) return fail(cudaErrorStreamCaptureUnsupported);
    if (capture_of(stream)) return fail(cudaErrorIllegalState);
    Graph *g = new Graph();
    adopt(&Handles::graphs, g);
    ((Stream *)stream)->capture = g;
    g->streams.push_back((Stream *)stream);
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
    CHECK_STREAM(stream);
    if (!pGraph) return fail(cudaErrorInvalidValue);
    Graph *g = capture_of(stream);
    if (!g) return fail(cudaErrorIllegalState);
    for (Stream *s : g->streams) s->capture = nullptr;
    g->streams.clear();
    *pGraph = (cudaGraph_t)g;
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status) {
    CHECK_STREAM(stream);
    if (!status) return fail(cudaErrorInvalidValue);
    *status = capture_of(stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                     unsigned long long *id, cudaGraph_t *graph,
                                     const cudaGraphNode_t **dependencies, size_t *count) {
    CHECK_STREAM(stream);
    Graph *g = capture_of(stream);
    if (status) *status = g ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (id) *id = (unsigned long long)(uintptr_t)g;
    if (graph) *graph = (cudaGraph_t)g;
    if (dependencies) *dependencies = nullptr;
    if (count) *count = 0;
    return cudaSuccess;
}

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int) {
    if (!pGraph) return fail(cudaErrorInvalidValue);
    Graph *g = new Graph();
    adopt(&Handles::graphs, g);
    *pGraph = (cudaGraph_t)g;
    return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t *pClone, cudaGraph_t graph) {
    if (!pClone || !graph) return fail(cudaErrorInvalidValue);
    CHECK_GRAPH(graph);
    Graph *c = new Graph();
    c->ops = ((Graph *)graph)->ops;
    adopt(&Handles::graphs, c);
    *pClone = (cudaGraph_t)c;
    return cudaSuccess;
}

// Nodes are named by their place in the graph (1, 2, ...): nothing else takes them.
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes) {
    if (!graph || !numNodes) return fail(cudaErrorInvalidValue);
    CHECK_GRAPH(graph);
    size_t n = ((Graph *)graph)->ops.size();
    if (nodes) {
        for (size_t i = 0; i < n && i < *numNodes; i++) nodes[i] = (cudaGraphNode_t)(i + 1);
    }
    *numNodes = n;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pExec, cudaGraph_t graph, unsigned long long) {
    if (!pExec || !graph) return fail(cudaErrorInvalidValue);
    CHECK_GRAPH(graph);
    Graph *e = new Graph();
    e->ops = ((Graph *)graph)->ops;
    adopt(&Handles::execs, e);
    *pExec = (cudaGraphExec_t)e;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pExec, cudaGraph_t graph,
                                          unsigned long long flags) {
    return cudaGraphInstantiate(pExec, graph, flags);
}

cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) {
    if (!exec) return fail(cudaErrorInvalidValue);
    CHECK_EXEC(exec);
    CHECK_STREAM(stream);
    return cudaSuccess;
}

// A launch of an instantiated graph runs its work in order (into a capture, it is captured).
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
    if (!exec) return fail(cudaErrorInvalidValue);
    CHECK_EXEC(exec);
    CHECK_STREAM(stream);
    Graph *e = (Graph *)exec;
    if (Graph *g = capture_of(stream)) {
        g->ops.insert(g->ops.end(), e->ops.begin(), e->ops.end());
        return cudaSuccess;
    }
    for (auto &op : e->ops) {
        cudaError_t r = op();
        if (r != cudaSuccess) return r;
    }
    return cudaSuccess;
}

// Nodes added one by one: each after its dependencies (they must exist already), so the order
// of adding is an order of the graph. A node is named by its place (1, 2, ...).
static cudaError_t add_node(cudaGraphNode_t *node, cudaGraph_t graph, std::function<cudaError_t()> op) {
    if (!node || !graph) return fail(cudaErrorInvalidValue);
    CHECK_GRAPH(graph);
    Graph *g = (Graph *)graph;
    g->ops.push_back(std::move(op));
    *node = (cudaGraphNode_t)(uintptr_t)g->ops.size();
    return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *,
                                   size_t, const struct cudaKernelNodeParams *p) {
    if (!p) return fail(cudaErrorInvalidValue);
    if (p->extra) return fail(cudaErrorNotSupported);
    std::function<cudaError_t()> op;
    cudaError_t e = kernel_op(p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes, &op);
    return e != cudaSuccess ? e : add_node(node, graph, op);
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *,
                                   size_t, const struct cudaMemsetParams *p) {
    if (!p) return fail(cudaErrorInvalidValue);
    unsigned int size = p->elementSize;
    if (size != 1 && size != 2 && size != 4) return fail(cudaErrorInvalidValue);
    struct cudaMemsetParams m = *p;
    return add_node(node, graph, [m, size] {
        // Rows of `width` elements holding `value`'s low `size` bytes, `pitch` bytes apart.
        std::vector<char> row(m.width * size);
        for (size_t i = 0; i < m.width; i++) memcpy(&row[i * size], &m.value, size);
        for (size_t y = 0; y < (m.height ? m.height : 1); y++) {
            cudaError_t e = copy((char *)m.dst + y * m.pitch, row.data(), row.size(), cudaMemcpyHostToDevice);
            if (e != cudaSuccess) return e;
        }
        return cudaSuccess;
    });
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *,
                                   size_t, const struct cudaMemcpy3DParms *p) {
    if (!p) return fail(cudaErrorInvalidValue);
    struct cudaMemcpy3DParms m = *p;
    return add_node(node, graph, [m] { return copy3d(m); });
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *,
                                     size_t, void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind) {
    return add_node(node, graph, [=] { return copy(dst, src, count, kind); });
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *,
                                 size_t, const struct cudaHostNodeParams *p) {
    if (!p || !p->fn) return fail(cudaErrorInvalidValue);
    cudaHostFn_t fn = p->fn;
    void *data = p->userData;
    return add_node(node, graph, [=] { return cudaLaunchHostFunc(0, fn, data); });
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *,
                                  size_t) {
    return add_node(node, graph, [] { return cudaSuccess; });
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *,
                                       size_t, cudaGraph_t child) {
    if (!child) return fail(cudaErrorInvalidValue);
    CHECK_GRAPH(child);
    std::vector<std::function<cudaError_t()>> ops = ((Graph *)child)->ops;
    return add_node(node, graph, [ops] {
        for (auto &op : ops) {
            cudaError_t e = op();
            if (e != cudaSuccess) return e;
        }
        return cudaSuccess;
    });
}

// Edges added later must not reorder: a node's dependencies exist before it, and so precede it.
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, size_t n) {
    if (!graph) return fail(cudaErrorInvalidValue);
    CHECK_GRAPH(graph);
    for (size_t i = 0; i < n; i++) {
        if (from && to && (uintptr_t)from[i] > (uintptr_t)to[i]) return fail(cudaErrorNotSupported);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *p) {
    if (!exec || !p) return fail(cudaErrorInvalidValue);
    CHECK_EXEC(exec);
    Graph *e = (Graph *)exec;
    size_t k = (size_t)(uintptr_t)node;
    if (k == 0 || k > e->ops.size()) return fail(cudaErrorInvalidValue);
    return kernel_op(p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes, &e->ops[k - 1]);
}

// An instantiated graph takes the work of a graph of the same shape (the same number of nodes).
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                struct cudaGraphExecUpdateResultInfo *info) {
    if (!exec || !graph) return fail(cudaErrorInvalidValue);
    CHECK_EXEC(exec);
    CHECK_GRAPH(graph);
    Graph *e = (Graph *)exec, *g = (Graph *)graph;
    bool same = e->ops.size() == g->ops.size();
    if (same) e->ops = g->ops;
    if (info) {
        info->result = same ? cudaGraphExecUpdateSuccess : cudaGraphExecUpdateErrorTopologyChanged;
        info->errorNode = nullptr;
        info->errorFromNode = nullptr;
    }
    return same ? cudaSuccess : fail(cudaErrorGraphExecUpdateFailure);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    if (!release(&Handles::execs, exec)) return fail(cudaErrorInvalidResourceHandle);
    delete (Graph *)exec;
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    if (!release(&Handles::graphs, graph)) return fail(cudaErrorInvalidResourceHandle);
    Graph *g = (Graph *)graph;
    // A graph destroyed while streams still capture into it (cudaStreamGetCaptureInfo gave it
    // out) ends their capture.
    for (Stream *s : g->streams) s->capture = nullptr;
    delete g;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int) {
    if (!event) return fail(cudaErrorInvalidValue);
    Event *e = new Event();
    adopt(&Handles::events, e);
    *event = (cudaEvent_t)e;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    std::lock_guard<std::recursive_mutex> g(lock());
    CHECK_EVENT(event);
    CHECK_STREAM(stream);
    if (Graph *graph = capture_of(stream)) {
        // Inside a capture an event orders streams (an edge of the graph), it is no node.
        ((Event *)event)->capture = graph;
        return cudaSuccess;
    }
    Writer w(WS_CLOCK);
    Reader r = state().ch.call(w);
    if (r.status() != 0) return fail((cudaError_t)r.status());
    Event *e = (Event *)event;
    e->capture = nullptr;
    e->ns = r.u64();
    e->recorded = true;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    CHECK_EVENT(event);
    return sync_point();
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
    CHECK_EVENT(event);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    if (!ms) return fail(cudaErrorInvalidValue);
    CHECK_EVENT(start);
    CHECK_EVENT(end);
    Event *a = (Event *)start, *b = (Event *)end;
    if (!a->recorded || !b->recorded) return fail(cudaErrorInvalidResourceHandle);
    *ms = (float)((double)((int64_t)(b->ns - a->ns)) / 1e6);
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (!release(&Handles::events, event)) return fail(cudaErrorInvalidResourceHandle);
    delete (Event *)event;
    return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream) {
    return launch(func, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                        size_t sharedMem, cudaStream_t stream) {
    return launch(func, gridDim, blockDim, args, sharedMem, stream, true);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
    if (!config || (config->numAttrs && !config->attrs)) return fail(cudaErrorInvalidValue);
    bool cooperative = false;
    for (unsigned int i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute &a = config->attrs[i];
        if (a.id == cudaLaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
        if (a.id == cudaLaunchAttributeClusterDimension) {
            unsigned int x = a.val.clusterDim.x, y = a.val.clusterDim.y, z = a.val.clusterDim.z;
            if (!x || !y || !z || config->gridDim.x % x || config->gridDim.y % y || config->gridDim.z % z)
                return fail(cudaErrorInvalidValue);
        }
    }
    return launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
                  cooperative);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!attr) return fail(cudaErrorInvalidValue);
    KernelInfo *info;
    cudaError_t e = kernel_info(func, &info);
    if (e != cudaSuccess) return e;
    *attr = info->attr;
    return cudaSuccess;
}

// The dynamic shared memory limit and the carveout are kept (cudaFuncGetAttributes reads them
// back); a limit beyond what the device gives a block after opting in is refused, as by CUDA.
// The cluster attributes are hints here.
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
    std::lock_guard<std::recursive_mutex> g(lock());
    KernelInfo *info;
    cudaError_t e = kernel_info(func, &info);
    if (e != cudaSuccess) return e;
    switch (attr) {
        case cudaFuncAttributeMaxDynamicSharedMemorySize:
            if (value < 0 || (int64_t)value + (int64_t)info->attr.sharedSizeBytes > optin_shared())
                return fail(cudaErrorInvalidValue);
            info->attr.maxDynamicSharedSizeBytes = value;
            return cudaSuccess;
        case cudaFuncAttributePreferredSharedMemoryCarveout:
            if (value < -1 || value > 100) return fail(cudaErrorInvalidValue);
            info->attr.preferredShmemCarveout = value;
            return cudaSuccess;
        default:
            return (int)attr >= (int)cudaFuncAttributeMaxDynamicSharedMemorySize && attr < cudaFuncAttributeMax
                       ? cudaSuccess
                       : fail(cudaErrorInvalidValue);
    }
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache) {
    std::lock_guard<std::recursive_mutex> g(lock());
    KernelInfo *info;
    return kernel_info(func, &info);
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig) {
    std::lock_guard<std::recursive_mutex> g(lock());
    KernelInfo *info;
    return kernel_info(func, &info);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize,
                                                                  size_t dynamicSMemSize, unsigned int) {
    std::lock_guard<std::recursive_mutex> g(lock());
    if (!numBlocks || blockSize <= 0) return fail(cudaErrorInvalidValue);
    const Kernel *k = kernel_of(func);
    if (!k) return fail(cudaErrorInvalidDeviceFunction);
    Writer w(WS_OCCUPANCY);
    w.str(k->name).u32((uint32_t)k->unit).u32((uint32_t)blockSize).u64(dynamicSMemSize);
    Reader r = state().ch.call(w);
    if (r.status() != 0) return fail((cudaError_t)r.status());
    *numBlocks = (int)r.u32();
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

}  // extern "C"
