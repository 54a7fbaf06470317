/* warpsim's stand-in for the CUDA toolkit's cuda_gl_interop.h: there is no OpenGL context to
 * share buffers with, so a program may include this header (many do for one display path)
 * but a call of the interop API is a link error that warpsim names. OpenGL's own header is
 * included only where the machine has it. */
#ifndef WARPSIM_CUDA_GL_INTEROP_H
#define WARPSIM_CUDA_GL_INTEROP_H
#define __CUDA_GL_INTEROP_H__

#include <cuda_runtime_api.h>
#if defined(__has_include) && __has_include(<GL/gl.h>)
#include <GL/gl.h>
#else
typedef unsigned int GLuint;
typedef unsigned int GLenum;
#endif

struct cudaGraphicsResource;
typedef struct cudaGraphicsResource *cudaGraphicsResource_t;

enum cudaGLDeviceList {
    cudaGLDeviceListAll = 1,
    cudaGLDeviceListCurrentFrame = 2,
    cudaGLDeviceListNextFrame = 3
};
enum cudaGLMapFlags {
    cudaGLMapFlagsNone = 0,
    cudaGLMapFlagsReadOnly = 1,
    cudaGLMapFlagsWriteDiscard = 2
};

cudaError_t cudaGLGetDevices(unsigned int *count, int *devices, unsigned int max,
                             enum cudaGLDeviceList list);
cudaError_t cudaGraphicsGLRegisterImage(struct cudaGraphicsResource **resource, GLuint image,
                                        GLenum target, unsigned int flags);
cudaError_t cudaGraphicsGLRegisterBuffer(struct cudaGraphicsResource **resource, GLuint buffer,
                                         unsigned int flags);
cudaError_t cudaGraphicsMapResources(int count, cudaGraphicsResource_t *resources,
                                     cudaStream_t stream = 0);
cudaError_t cudaGraphicsUnmapResources(int count, cudaGraphicsResource_t *resources,
                                       cudaStream_t stream = 0);
cudaError_t cudaGraphicsResourceGetMappedPointer(void **ptr, size_t *size,
                                                 cudaGraphicsResource_t resource);
cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t resource);
cudaError_t cudaGLSetGLDevice(int device);
cudaError_t cudaGLRegisterBufferObject(GLuint buffer);
cudaError_t cudaGLMapBufferObject(void **ptr, GLuint buffer);
cudaError_t cudaGLUnmapBufferObject(GLuint buffer);
cudaError_t cudaGLUnregisterBufferObject(GLuint buffer);

#endif
