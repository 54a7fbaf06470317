/* warpsim's stand-in for the CUDA toolkit's vector_types.h: CUDA's vector types with the
 * toolkit's sizes and alignments (float2 is 8-byte aligned, float4 16-byte, float3 4-byte), so
 * that host and device agree on every layout. */
#ifndef WARPSIM_VECTOR_TYPES_H
#define WARPSIM_VECTOR_TYPES_H
#define __VECTOR_TYPES_H__

#include "host_defines.h"

struct __align__(1) char1 { char x; };
typedef struct char1 char1;
struct __align__(2) char2 { char x; char y; };
typedef struct char2 char2;
struct __align__(1) char3 { char x; char y; char z; };
typedef struct char3 char3;
struct __align__(4) char4 { char x; char y; char z; char w; };
typedef struct char4 char4;
struct __align__(1) uchar1 { unsigned char x; };
typedef struct uchar1 uchar1;
struct __align__(2) uchar2 { unsigned char x; unsigned char y; };
typedef struct uchar2 uchar2;
struct __align__(1) uchar3 { unsigned char x; unsigned char y; unsigned char z; };
typedef struct uchar3 uchar3;
struct __align__(4) uchar4 { unsigned char x; unsigned char y; unsigned char z; unsigned char w; };
typedef struct uchar4 uchar4;
struct __align__(2) short1 { short x; };
typedef struct short1 short1;
struct __align__(4) short2 { short x; short y; };
typedef struct short2 short2;
struct __align__(2) short3 { short x; short y; short z; };
typedef struct short3 short3;
struct __align__(8) short4 { short x; short y; short z; short w; };
typedef struct short4 short4;
struct __align__(2) ushort1 { unsigned short x; };
typedef struct ushort1 ushort1;
struct __align__(4) ushort2 { unsigned short x; unsigned short y; };
typedef struct ushort2 ushort2;
struct __align__(2) ushort3 { unsigned short x; unsigned short y; unsigned short z; };
typedef struct ushort3 ushort3;
struct __align__(8) ushort4 { unsigned short x; unsigned short y; unsigned short z; unsigned short w; };
typedef struct ushort4 ushort4;
struct __align__(4) int1 { int x; };
typedef struct int1 int1;
struct __align__(8) int2 { int x; int y; };
typedef struct int2 int2;
struct __align__(4) int3 { int x; int y; int z; };
typedef struct int3 int3;
struct __align__(16) int4 { int x; int y; int z; int w; };
typedef struct int4 int4;
struct __align__(4) uint1 { unsigned int x; };
typedef struct uint1 uint1;
struct __align__(8) uint2 { unsigned int x; unsigned int y; };
typedef struct uint2 uint2;
struct __align__(4) uint3 { unsigned int x; unsigned int y; unsigned int z; };
typedef struct uint3 uint3;
struct __align__(16) uint4 { unsigned int x; unsigned int y; unsigned int z; unsigned int w; };
typedef struct uint4 uint4;
struct __align__(8) long1 { long int x; };
typedef struct long1 long1;
struct __align__(16) long2 { long int x; long int y; };
typedef struct long2 long2;
struct __align__(8) long3 { long int x; long int y; long int z; };
typedef struct long3 long3;
struct __align__(16) long4 { long int x; long int y; long int z; long int w; };
typedef struct long4 long4;
struct __align__(8) ulong1 { unsigned long int x; };
typedef struct ulong1 ulong1;
struct __align__(16) ulong2 { unsigned long int x; unsigned long int y; };
typedef struct ulong2 ulong2;
struct __align__(8) ulong3 { unsigned long int x; unsigned long int y; unsigned long int z; };
typedef struct ulong3 ulong3;
struct __align__(16) ulong4 { unsigned long int x; unsigned long int y; unsigned long int z; unsigned long int w; };
typedef struct ulong4 ulong4;
struct __align__(8) longlong1 { long long int x; };
typedef struct longlong1 longlong1;
struct __align__(16) longlong2 { long long int x; long long int y; };
typedef struct longlong2 longlong2;
struct __align__(8) longlong3 { long long int x; long long int y; long long int z; };
typedef struct longlong3 longlong3;
struct __align__(16) longlong4 { long long int x; long long int y; long long int z; long long int w; };
typedef struct longlong4 longlong4;
struct __align__(8) ulonglong1 { unsigned long long int x; };
typedef struct ulonglong1 ulonglong1;
struct __align__(16) ulonglong2 { unsigned long long int x; unsigned long long int y; };
typedef struct ulonglong2 ulonglong2;
struct __align__(8) ulonglong3 { unsigned long long int x; unsigned long long int y; unsigned long long int z; };
typedef struct ulonglong3 ulonglong3;
struct __align__(16) ulonglong4 { unsigned long long int x; unsigned long long int y; unsigned long long int z; unsigned long long int w; };
typedef struct ulonglong4 ulonglong4;
struct __align__(4) float1 { float x; };
typedef struct float1 float1;
struct __align__(8) float2 { float x; float y; };
typedef struct float2 float2;
struct __align__(4) float3 { float x; float y; float z; };
typedef struct float3 float3;
struct __align__(16) float4 { float x; float y; float z; float w; };
typedef struct float4 float4;
struct __align__(8) double1 { double x; };
typedef struct double1 double1;
struct __align__(16) double2 { double x; double y; };
typedef struct double2 double2;
struct __align__(8) double3 { double x; double y; double z; };
typedef struct double3 double3;
struct __align__(16) double4 { double x; double y; double z; double w; };
typedef struct double4 double4;

/* dim3: a uint3 with a constructor in C++ (every component defaults to 1). */
struct dim3 {
    unsigned int x, y, z;
#ifdef __cplusplus
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

#endif
