/* warpsim's stand-in for the CUDA toolkit's cuda_runtime_api.h: the C runtime API that
 * `warpsim cu` serves. Every function here is implemented by warpsim's runtime
 * (runtime/src/warpsim_runtime.cpp), which forwards device work to warpsim over a private
 * channel; the README's "Running CUDA programs" lists what each one does. A function of the
 * CUDA runtime that is not declared here is not provided: the program fails to build, and
 * warpsim names the function. */
#ifndef WARPSIM_CUDA_RUNTIME_API_H
#define WARPSIM_CUDA_RUNTIME_API_H
#define __CUDA_RUNTIME_API_H__

#include "host_defines.h"
#include "driver_types.h"
#include "vector_types.h"

/* The CUDA version warpsim's runtime presents itself as (12.4). */
#define CUDART_VERSION 12040
#define __CUDART_API_VERSION 12040

#ifdef __cplusplus
extern "C" {
#endif

/* Errors. */
extern cudaError_t cudaGetLastError(void);
extern cudaError_t cudaPeekAtLastError(void);
extern const char *cudaGetErrorString(cudaError_t error);
extern const char *cudaGetErrorName(cudaError_t error);

/* Versions. */
extern cudaError_t cudaDriverGetVersion(int *driverVersion);
extern cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);

/* Devices: one device, the profile warpsim runs (`--device`). */
extern cudaError_t cudaGetDeviceCount(int *count);
extern cudaError_t cudaSetDevice(int device);
extern cudaError_t cudaGetDevice(int *device);
extern cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
extern cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
extern cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
extern cudaError_t cudaSetDeviceFlags(unsigned int flags);
extern cudaError_t cudaGetDeviceFlags(unsigned int *flags);
extern cudaError_t cudaDeviceSynchronize(void);
extern cudaError_t cudaDeviceReset(void);
extern cudaError_t cudaThreadSynchronize(void);
extern cudaError_t cudaThreadExit(void);
extern cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
extern cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);
extern cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
extern cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *cacheConfig);
extern cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
extern cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config);
extern cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
extern cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
extern cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
extern cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
extern cudaError_t cudaMemGetInfo(size_t *free, size_t *total);

/* Memory. Device pointers are addresses in warpsim's device address space: host code may do
 * arithmetic on them and pass them on, never dereference them. */
extern cudaError_t cudaMalloc(void **devPtr, size_t size);
extern cudaError_t cudaFree(void *devPtr);
extern cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
extern cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
extern cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
extern cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
extern cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);
extern cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);
extern cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
extern cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
extern cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
extern cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, const cudaStreamAttrValue *value);
extern cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out);
extern cudaError_t cudaCtxResetPersistingL2Cache(void);
extern cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int srcDevice, int dstDevice);
extern cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
extern cudaError_t cudaMallocHost(void **ptr, size_t size);
extern cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
extern cudaError_t cudaFreeHost(void *ptr);
extern cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
extern cudaError_t cudaHostUnregister(void *ptr);
extern cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
extern cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost);
extern cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags __dv(cudaMemAttachGlobal));
extern cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);
extern cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
extern cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream __dv(0));
extern cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
extern cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count, cudaStream_t stream __dv(0));
extern struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
extern cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height __dv(0), unsigned int flags __dv(0));
extern cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent, unsigned int flags __dv(0));
extern cudaError_t cudaFreeArray(cudaArray_t array);
extern cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned int *flags, cudaArray_t array);
extern cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array);
extern cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count, enum cudaMemcpyKind kind);
extern cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count, enum cudaMemcpyKind kind);
extern cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
extern cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream __dv(0));
extern cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind);
extern cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
extern cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream __dv(0));
extern cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc, const struct cudaTextureDesc *pTexDesc, const struct cudaResourceViewDesc *pResViewDesc);
extern cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
extern cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject);
extern cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject);
extern cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *texref, const void *devPtr, const struct cudaChannelFormatDesc *desc, size_t size __dv(~(size_t)0));
extern cudaError_t cudaBindTexture2D(size_t *offset, const struct textureReference *texref, const void *devPtr, const struct cudaChannelFormatDesc *desc, size_t width, size_t height, size_t pitch);
extern cudaError_t cudaBindTextureToArray(const struct textureReference *texref, cudaArray_const_t array, const struct cudaChannelFormatDesc *desc);
extern cudaError_t cudaUnbindTexture(const struct textureReference *texref);
extern cudaError_t cudaGetTextureAlignmentOffset(size_t *offset, const struct textureReference *texref);
extern cudaError_t cudaGetTextureReference(const struct textureReference **texref, const void *symbol);
extern cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
extern cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream __dv(0));
extern cudaError_t cudaMemset(void *devPtr, int value, size_t count);
extern cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream __dv(0));
extern cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
extern cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset __dv(0), enum cudaMemcpyKind kind __dv(cudaMemcpyHostToDevice));
extern cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset __dv(0), enum cudaMemcpyKind kind __dv(cudaMemcpyDeviceToHost));
extern cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream __dv(0));
extern cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream __dv(0));
extern cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
extern cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);
extern cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream __dv(0));
extern cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, int device);
extern cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream __dv(0));
extern cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location);

/* Streams and events: work runs in the order it is issued, whatever the stream; an event's
 * elapsed time is the CPU time warpsim spent on the work between the two records. */
extern cudaError_t cudaStreamCreate(cudaStream_t *pStream);
extern cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
extern cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
extern cudaError_t cudaStreamDestroy(cudaStream_t stream);
extern cudaError_t cudaStreamSynchronize(cudaStream_t stream);
extern cudaError_t cudaStreamQuery(cudaStream_t stream);
extern cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags __dv(0));
extern cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags);
extern cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length __dv(0), unsigned int flags __dv(cudaMemAttachSingle));
extern cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
extern cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
extern cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
extern cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus);
extern cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out, unsigned long long *id_out __dv(0), cudaGraph_t *graph_out __dv(0), const cudaGraphNode_t **dependencies_out __dv(0), size_t *numDependencies_out __dv(0));
extern cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
extern cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
extern cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);
extern cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags __dv(0));
extern cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags __dv(0));
extern cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
extern cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
extern cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
extern cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaKernelNodeParams *pNodeParams);
extern cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaMemsetParams *pMemsetParams);
extern cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaMemcpy3DParms *pCopyParams);
extern cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
extern cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaHostNodeParams *pNodeParams);
extern cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies);
extern cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaGraph_t childGraph);
extern cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to, size_t numDependencies);
extern cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
extern cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, struct cudaGraphExecUpdateResultInfo *resultInfo);
extern cudaError_t cudaGraphDestroy(cudaGraph_t graph);
extern cudaError_t cudaEventCreate(cudaEvent_t *event);
extern cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
extern cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream __dv(0));
extern cudaError_t cudaEventSynchronize(cudaEvent_t event);
extern cudaError_t cudaEventQuery(cudaEvent_t event);
extern cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
extern cudaError_t cudaEventDestroy(cudaEvent_t event);

/* Kernels. `func` is the kernel itself (the host-side function the `<<<>>>` syntax calls). */
extern cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);
extern cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);
extern cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
extern cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
extern cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
extern cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig);
extern cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config);
extern cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize);
extern cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags);

/* Profiler (cuda_profiler_api.h): accepted; warpsim counts every launch. */
extern cudaError_t cudaProfilerStart(void);
extern cudaError_t cudaProfilerStop(void);

/* What the `<<<grid, block, smem, stream>>>` syntax turns into (as with nvcc). */
extern unsigned int __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem __dv(0), cudaStream_t stream __dv(0));
extern cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, cudaStream_t *stream);

/* The spelling of a name after macro expansion (the host pass registers kernels by it); a
   specialisation's name may hold commas (`k<float, 2>`). */
#define __WARPSIM_STR(...) #__VA_ARGS__
#define __WARPSIM_XSTR(...) __WARPSIM_STR(__VA_ARGS__)

/* warpsim's registration of kernels and __constant__/__device__ variables (emitted by the
 * host pass next to each definition). */
extern int __warpsim_register_kernel(const void *func, const char *name, int unit);
extern int __warpsim_register_symbol(const void *symbol, const char *name, int unit);

#ifdef __cplusplus
}
#endif

#endif
