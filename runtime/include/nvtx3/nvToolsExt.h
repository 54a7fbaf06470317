/* warpsim's stand-in for NVTX (nvtx3/nvToolsExt.h): ranges and marks name spans of a
 * program for a profiler's timeline; warpsim draws no timeline, so they do nothing. */
#ifndef WARPSIM_NVTOOLSEXT_H
#define WARPSIM_NVTOOLSEXT_H
#include <stdint.h>

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    uint64_t payload;
    int32_t messageType;
    const void *message;
} nvtxEventAttributes_t;
#define NVTX_VERSION 3
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)sizeof(nvtxEventAttributes_t))
#define NVTX_COLOR_ARGB 1
#define NVTX_MESSAGE_TYPE_ASCII 1

static inline int nvtxRangePushA(const char *message) { (void)message; return 0; }
static inline int nvtxRangePushEx(const nvtxEventAttributes_t *attributes) { (void)attributes; return 0; }
static inline int nvtxRangePop(void) { return 0; }
static inline nvtxRangeId_t nvtxRangeStartA(const char *message) { (void)message; return 0; }
static inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *attributes) { (void)attributes; return 0; }
static inline void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }
static inline void nvtxMarkA(const char *message) { (void)message; }
static inline void nvtxMarkEx(const nvtxEventAttributes_t *attributes) { (void)attributes; }
static inline void nvtxNameOsThreadA(uint32_t thread, const char *name) { (void)thread; (void)name; }
#endif
