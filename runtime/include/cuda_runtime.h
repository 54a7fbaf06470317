/* warpsim's stand-in for the CUDA toolkit's cuda_runtime.h: the runtime API (C, and the C++
 * conveniences the toolkit adds), the vector types and the host side of the math functions
 * CUDA declares __host__ __device__. */
#ifndef WARPSIM_CUDA_RUNTIME_H
#define WARPSIM_CUDA_RUNTIME_H
/* helper_cuda.h and others test this guard. */
#define __CUDA_RUNTIME_H__

#include "host_defines.h"
#include "driver_types.h"
#include "vector_types.h"
#include "vector_functions.h"
#include "cuda_runtime_api.h"
#include "cuda_host_math.h"
/* The toolkit's headers bring these in (crt/common_functions.h), and programs rely on it
 * (`time(0)` to seed `srand` without including <time.h>, INT_MAX without <limits.h>). */
#include <stdlib.h>
#include <time.h>
#include <limits.h>
#include <stdint.h>

#ifdef __cplusplus

#include <string>

/* cudaGraphInstantiate as CUDA 11 declared it (an error node and log, never written here). */
static inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                               cudaGraphNode_t *, char *, size_t) {
    return ::cudaGraphInstantiate(pGraphExec, graph, 0);
}

/* cudaGraphExecUpdate as CUDA 11 declared it. */
static inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                              cudaGraphNode_t *errorNode,
                                              enum cudaGraphExecUpdateResult *result) {
    struct cudaGraphExecUpdateResultInfo info;
    cudaError_t e = ::cudaGraphExecUpdate(exec, graph, &info);
    if (errorNode) *errorNode = info.errorNode;
    if (result) *result = info.result;
    return e;
}

static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz) {
    struct cudaPitchedPtr r = {d, p, xsz, ysz};
    return r;
}
static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z) {
    struct cudaPos r = {x, y, z};
    return r;
}
static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) {
    struct cudaExtent r = {w, h, d};
    return r;
}

/* cudaCreateChannelDesc<T>(): the texel format of T. */
template <class T>
static inline cudaChannelFormatDesc cudaCreateChannelDesc(void) {
    return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}
#define __WARPSIM_CHANNEL(T, bits, n, kind)                                                        \
    template <>                                                                                   \
    inline cudaChannelFormatDesc cudaCreateChannelDesc<T>(void) {                                 \
        return cudaCreateChannelDesc(bits, (n) > 1 ? (bits) : 0, (n) > 2 ? (bits) : 0,            \
                                     (n) > 3 ? (bits) : 0, kind);                                 \
    }
#define __WARPSIM_CHANNELS(T, bits, kind)                                                          \
    __WARPSIM_CHANNEL(T##1, bits, 1, kind)                                                         \
    __WARPSIM_CHANNEL(T##2, bits, 2, kind) __WARPSIM_CHANNEL(T##4, bits, 4, kind)
__WARPSIM_CHANNEL(char, 8, 1, cudaChannelFormatKindSigned)
__WARPSIM_CHANNEL(signed char, 8, 1, cudaChannelFormatKindSigned)
__WARPSIM_CHANNEL(unsigned char, 8, 1, cudaChannelFormatKindUnsigned)
__WARPSIM_CHANNEL(short, 16, 1, cudaChannelFormatKindSigned)
__WARPSIM_CHANNEL(unsigned short, 16, 1, cudaChannelFormatKindUnsigned)
__WARPSIM_CHANNEL(int, 32, 1, cudaChannelFormatKindSigned)
__WARPSIM_CHANNEL(unsigned int, 32, 1, cudaChannelFormatKindUnsigned)
__WARPSIM_CHANNEL(float, 32, 1, cudaChannelFormatKindFloat)
__WARPSIM_CHANNELS(char, 8, cudaChannelFormatKindSigned)
__WARPSIM_CHANNELS(uchar, 8, cudaChannelFormatKindUnsigned)
__WARPSIM_CHANNELS(short, 16, cudaChannelFormatKindSigned)
__WARPSIM_CHANNELS(ushort, 16, cudaChannelFormatKindUnsigned)
__WARPSIM_CHANNELS(int, 32, cudaChannelFormatKindSigned)
__WARPSIM_CHANNELS(uint, 32, cudaChannelFormatKindUnsigned)
__WARPSIM_CHANNELS(float, 32, cudaChannelFormatKindFloat)
#undef __WARPSIM_CHANNELS
#undef __WARPSIM_CHANNEL

/* A legacy texture reference: `texture<float, 2> t;` at file scope, its fields set on the host
 * (filterMode, addressMode, normalized), bound with cudaBindTexture* and read in kernels with
 * tex1Dfetch(t, i), tex1D(t, x), tex2D(t, x, y), tex3D(t, x, y, z). */
template <class T, int texType = cudaTextureType1D, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct texture : public textureReference {
    texture(int norm = 0, enum cudaTextureFilterMode fMode = cudaFilterModePoint,
            enum cudaTextureAddressMode aMode = cudaAddressModeClamp) {
        init(norm, fMode, aMode, cudaCreateChannelDesc<T>());
    }
    texture(int norm, enum cudaTextureFilterMode fMode, enum cudaTextureAddressMode aMode,
            struct cudaChannelFormatDesc desc) {
        init(norm, fMode, aMode, desc);
    }

  private:
    void init(int norm, enum cudaTextureFilterMode fMode, enum cudaTextureAddressMode aMode,
              struct cudaChannelFormatDesc desc) {
        textureReference &r = *this;
        r = textureReference();
        normalized = norm;
        filterMode = fMode;
        addressMode[0] = addressMode[1] = addressMode[2] = aMode;
        channelDesc = desc;
        mipmapFilterMode = cudaFilterModePoint;
        __warpsim_readMode = mode;
    }
};
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTexture(size_t *offset, const struct texture<T, dim, readMode> &tex,
                                          const void *devPtr, const struct cudaChannelFormatDesc &desc,
                                          size_t size = ~(size_t)0) {
    return ::cudaBindTexture(offset, &tex, devPtr, &desc, size);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTexture(size_t *offset, const struct texture<T, dim, readMode> &tex,
                                          const void *devPtr, size_t size = ~(size_t)0) {
    return ::cudaBindTexture(offset, &tex, devPtr, &tex.channelDesc, size);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTexture2D(size_t *offset, const struct texture<T, dim, readMode> &tex,
                                            const void *devPtr, const struct cudaChannelFormatDesc &desc,
                                            size_t width, size_t height, size_t pitch) {
    return ::cudaBindTexture2D(offset, &tex, devPtr, &desc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTexture2D(size_t *offset, const struct texture<T, dim, readMode> &tex,
                                            const void *devPtr, size_t width, size_t height, size_t pitch) {
    return ::cudaBindTexture2D(offset, &tex, devPtr, &tex.channelDesc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTextureToArray(const struct texture<T, dim, readMode> &tex,
                                                 cudaArray_const_t array,
                                                 const struct cudaChannelFormatDesc &desc) {
    return ::cudaBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaBindTextureToArray(const struct texture<T, dim, readMode> &tex,
                                                 cudaArray_const_t array) {
    struct cudaChannelFormatDesc desc;
    cudaError_t e = ::cudaGetChannelDesc(&desc, array);
    return e == cudaSuccess ? ::cudaBindTextureToArray(&tex, array, &desc) : e;
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaUnbindTexture(const struct texture<T, dim, readMode> &tex) {
    return ::cudaUnbindTexture(&tex);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static inline cudaError_t cudaGetTextureAlignmentOffset(size_t *offset,
                                                        const struct texture<T, dim, readMode> &tex) {
    return ::cudaGetTextureAlignmentOffset(offset, &tex);
}

/* The C++ overloads of cuda_runtime.h: typed pointers, symbols and kernels by reference. */
template <class T>
static inline cudaError_t cudaMalloc(T **devPtr, size_t size) {
    return ::cudaMalloc((void **)(void *)devPtr, size);
}
template <class T>
static inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream) {
    return ::cudaMallocAsync((void **)(void *)devPtr, size, stream);
}
template <class T>
static inline cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height) {
    return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}
template <class T>
static inline cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0) {
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
static inline cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags) {
    return ::cudaHostAlloc(ptr, size, flags);
}
template <class T>
static inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T>
static inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags) {
    return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}
template <class T>
static inline cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal) {
    return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                             size_t offset = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return ::cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                                  size_t offset = 0,
                                                  enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                  cudaStream_t stream = 0) {
    return ::cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                               size_t offset = 0,
                                               enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return ::cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                                                    size_t offset = 0,
                                                    enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                    cudaStream_t stream = 0) {
    return ::cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, stream);
}
template <class T>
static inline cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol) {
    return ::cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}
template <class T>
static inline cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) {
    return ::cudaGetSymbolSize(size, (const void *)&symbol);
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
    return ::cudaEventCreateWithFlags(event, flags);
}
template <class T>
static inline cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                                           size_t sharedMem = 0, cudaStream_t stream = 0) {
    return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static inline cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim,
                                                      void **args, size_t sharedMem = 0,
                                                      cudaStream_t stream = 0) {
    return ::cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem,
                                         stream);
}
/* The arguments as the kernel's parameter types, then their addresses, as nvcc's header does. */
template <typename... ExpTypes, typename... ActTypes>
static inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(ExpTypes...),
                                             ActTypes &&...args) {
    return [&](ExpTypes... coerced) {
        void *pArgs[] = {&coerced..., nullptr};
        return ::cudaLaunchKernelExC(config, (const void *)kernel, pArgs);
    }(static_cast<ActTypes &&>(args)...);
}
/* CUDA 13's names for the location forms. */
static inline cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, cudaMemLocation location,
                                               unsigned int flags, cudaStream_t stream = 0) {
    return ::cudaMemPrefetchAsync_v2(devPtr, count, location, flags, stream);
}
static inline cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise advice,
                                        cudaMemLocation location) {
    return ::cudaMemAdvise_v2(devPtr, count, advice, location);
}
template <class T>
static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry) {
    return ::cudaFuncGetAttributes(attr, (const void *)entry);
}
template <class T>
static inline cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value) {
    return ::cudaFuncSetAttribute((const void *)entry, attr, value);
}
template <class T>
static inline cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig) {
    return ::cudaFuncSetCacheConfig((const void *)func, cacheConfig);
}
template <class T>
static inline cudaError_t cudaFuncSetSharedMemConfig(T *func, enum cudaSharedMemConfig config) {
    return ::cudaFuncSetSharedMemConfig((const void *)func, config);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                                                        int blockSize,
                                                                        size_t dynamicSMemSize) {
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, (const void *)func, blockSize, dynamicSMemSize, 0);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, (const void *)func, blockSize, dynamicSMemSize, flags);
}

/* cudaOccupancyMaxPotentialBlockSize: the block size with the highest occupancy, as the
 * toolkit's template computes it (largest block size first, ties keep the larger block). */
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0, unsigned int flags = 0) {
    if (!minGridSize || !blockSize || !func) return cudaErrorInvalidValue;
    int device = 0, maxThreadsPerMultiProcessor = 0, warpSize = 0, devMaxThreadsPerBlock = 0,
        multiProcessorCount = 0;
    cudaError_t status;
    if ((status = ::cudaGetDevice(&device)) != cudaSuccess) return status;
    ::cudaDeviceGetAttribute(&maxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    ::cudaDeviceGetAttribute(&warpSize, cudaDevAttrWarpSize, device);
    ::cudaDeviceGetAttribute(&devMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, device);
    ::cudaDeviceGetAttribute(&multiProcessorCount, cudaDevAttrMultiProcessorCount, device);
    struct cudaFuncAttributes attr;
    if ((status = ::cudaFuncGetAttributes(&attr, (const void *)func)) != cudaSuccess) return status;
    int funcMaxThreadsPerBlock = attr.maxThreadsPerBlock;
    int occupancyLimit = maxThreadsPerMultiProcessor;
    int granularity = warpSize;
    if (blockSizeLimit == 0 || blockSizeLimit > devMaxThreadsPerBlock) blockSizeLimit = devMaxThreadsPerBlock;
    if (blockSizeLimit > funcMaxThreadsPerBlock) blockSizeLimit = funcMaxThreadsPerBlock;
    int blockSizeLimitAligned = ((blockSizeLimit + (granularity - 1)) / granularity) * granularity;
    int maxBlockSize = 0, numBlocks = 0, maxOccupancy = 0;
    for (int blockSizeToTryAligned = blockSizeLimitAligned; blockSizeToTryAligned > 0;
         blockSizeToTryAligned -= granularity) {
        int blockSizeToTry = blockSizeLimit < blockSizeToTryAligned ? blockSizeLimit : blockSizeToTryAligned;
        size_t dynamicSMemSize = blockSizeToDynamicSMemSize(blockSizeToTry);
        status = ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &numBlocks, (const void *)func, blockSizeToTry, dynamicSMemSize, flags);
        if (status != cudaSuccess) return status;
        int occupancyInThreads = blockSizeToTry * numBlocks;
        if (occupancyInThreads > maxOccupancy) {
            maxBlockSize = blockSizeToTry;
            maxOccupancy = occupancyInThreads;
        }
        if (occupancyLimit == maxOccupancy) break;
    }
    *minGridSize = maxOccupancy / (maxBlockSize > 0 ? maxBlockSize : 1) * multiProcessorCount;
    *blockSize = maxBlockSize;
    return cudaSuccess;
}
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, blockSizeToDynamicSMemSize, blockSizeLimit, 0);
}
namespace __warpsim {
struct constant_smem {
    size_t n;
    size_t operator()(int) const { return n; }
};
}  // namespace __warpsim
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                                             T func, size_t dynamicSMemSize = 0,
                                                             int blockSizeLimit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, __warpsim::constant_smem{dynamicSMemSize}, blockSizeLimit, 0);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, T func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0,
    unsigned int flags = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, __warpsim::constant_smem{dynamicSMemSize}, blockSizeLimit,
        flags);
}

/* What the host pass puts in a kernel's body: the launch through cudaLaunchKernel, and the
 * kernel's name (with its template arguments) registered before main runs. */
namespace __warpsim {
template <class T>
inline std::string type_name() {
    /* Class types: the compiler's own spelling, from this function's signature. */
    std::string s = __PRETTY_FUNCTION__;
    size_t at = s.find("T = ");
    if (at == std::string::npos) return "?";
    s = s.substr(at + 4);
    size_t end = s.find_first_of(";]");
    return end == std::string::npos ? s : s.substr(0, end);
}
#define WARPSIM_TYPE_NAME(T, text) \
    template <> inline std::string type_name<T>() { return text; }
WARPSIM_TYPE_NAME(bool, "bool")
WARPSIM_TYPE_NAME(char, "char")
WARPSIM_TYPE_NAME(signed char, "signed char")
WARPSIM_TYPE_NAME(unsigned char, "unsigned char")
WARPSIM_TYPE_NAME(short, "short")
WARPSIM_TYPE_NAME(unsigned short, "unsigned short")
WARPSIM_TYPE_NAME(int, "int")
WARPSIM_TYPE_NAME(unsigned int, "unsigned int")
WARPSIM_TYPE_NAME(long, "long")
WARPSIM_TYPE_NAME(unsigned long, "unsigned long")
WARPSIM_TYPE_NAME(long long, "long long")
WARPSIM_TYPE_NAME(unsigned long long, "unsigned long long")
WARPSIM_TYPE_NAME(float, "float")
WARPSIM_TYPE_NAME(double, "double")
#define WARPSIM_VECTOR_NAMES(base) \
    WARPSIM_TYPE_NAME(base##1, #base "1") \
    WARPSIM_TYPE_NAME(base##2, #base "2") \
    WARPSIM_TYPE_NAME(base##3, #base "3") \
    WARPSIM_TYPE_NAME(base##4, #base "4")
WARPSIM_VECTOR_NAMES(char)
WARPSIM_VECTOR_NAMES(uchar)
WARPSIM_VECTOR_NAMES(short)
WARPSIM_VECTOR_NAMES(ushort)
WARPSIM_VECTOR_NAMES(int)
WARPSIM_VECTOR_NAMES(uint)
WARPSIM_VECTOR_NAMES(long)
WARPSIM_VECTOR_NAMES(ulong)
WARPSIM_VECTOR_NAMES(longlong)
WARPSIM_VECTOR_NAMES(ulonglong)
WARPSIM_VECTOR_NAMES(float)
WARPSIM_VECTOR_NAMES(double)
#undef WARPSIM_VECTOR_NAMES
#undef WARPSIM_TYPE_NAME

template <class T>
inline std::string value_name(T v) {
    return std::to_string((long long)v);
}
inline std::string value_name(bool v) { return v ? "true" : "false"; }
inline std::string value_name(unsigned long long v) { return std::to_string(v); }
inline std::string value_name(unsigned long v) { return std::to_string(v); }

/* `base<a, b>` from the template arguments' spellings. */
inline std::string kernel_name(const char *base, std::initializer_list<std::string> args) {
    std::string s = base;
    if (args.size() == 0) return s;
    s += "<";
    bool first = true;
    for (const std::string &a : args) {
        if (!first) s += ", ";
        s += a;
        first = false;
    }
    return s + ">";
}

/* The body of every kernel's host-side stub: the `<<<>>>` configuration, then the launch. */
inline void launch_stub(const void *func, void **args) {
    dim3 grid, block;
    size_t smem = 0;
    cudaStream_t stream = 0;
    ::__cudaPopCallConfiguration(&grid, &block, &smem, &stream);
    ::cudaLaunchKernel(func, grid, block, args, smem, stream);
}
}  // namespace __warpsim

#endif /* __cplusplus */

#endif
