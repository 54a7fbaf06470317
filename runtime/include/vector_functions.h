/* warpsim's stand-in for the CUDA toolkit's vector_functions.h: the make_* constructors. */
#ifndef WARPSIM_VECTOR_FUNCTIONS_H
#define WARPSIM_VECTOR_FUNCTIONS_H
#define __VECTOR_FUNCTIONS_H__

#include "vector_types.h"

static inline char1 make_char1(char x) { char1 t = {x}; return t; }
static inline char2 make_char2(char x, char y) { char2 t = {x, y}; return t; }
static inline char3 make_char3(char x, char y, char z) { char3 t = {x, y, z}; return t; }
static inline char4 make_char4(char x, char y, char z, char w) { char4 t = {x, y, z, w}; return t; }
static inline uchar1 make_uchar1(unsigned char x) { uchar1 t = {x}; return t; }
static inline uchar2 make_uchar2(unsigned char x, unsigned char y) { uchar2 t = {x, y}; return t; }
static inline uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z) { uchar3 t = {x, y, z}; return t; }
static inline uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) { uchar4 t = {x, y, z, w}; return t; }
static inline short1 make_short1(short x) { short1 t = {x}; return t; }
static inline short2 make_short2(short x, short y) { short2 t = {x, y}; return t; }
static inline short3 make_short3(short x, short y, short z) { short3 t = {x, y, z}; return t; }
static inline short4 make_short4(short x, short y, short z, short w) { short4 t = {x, y, z, w}; return t; }
static inline ushort1 make_ushort1(unsigned short x) { ushort1 t = {x}; return t; }
static inline ushort2 make_ushort2(unsigned short x, unsigned short y) { ushort2 t = {x, y}; return t; }
static inline ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z) { ushort3 t = {x, y, z}; return t; }
static inline ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w) { ushort4 t = {x, y, z, w}; return t; }
static inline int1 make_int1(int x) { int1 t = {x}; return t; }
static inline int2 make_int2(int x, int y) { int2 t = {x, y}; return t; }
static inline int3 make_int3(int x, int y, int z) { int3 t = {x, y, z}; return t; }
static inline int4 make_int4(int x, int y, int z, int w) { int4 t = {x, y, z, w}; return t; }
static inline uint1 make_uint1(unsigned int x) { uint1 t = {x}; return t; }
static inline uint2 make_uint2(unsigned int x, unsigned int y) { uint2 t = {x, y}; return t; }
static inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { uint3 t = {x, y, z}; return t; }
static inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { uint4 t = {x, y, z, w}; return t; }
static inline long1 make_long1(long int x) { long1 t = {x}; return t; }
static inline long2 make_long2(long int x, long int y) { long2 t = {x, y}; return t; }
static inline long3 make_long3(long int x, long int y, long int z) { long3 t = {x, y, z}; return t; }
static inline long4 make_long4(long int x, long int y, long int z, long int w) { long4 t = {x, y, z, w}; return t; }
static inline ulong1 make_ulong1(unsigned long int x) { ulong1 t = {x}; return t; }
static inline ulong2 make_ulong2(unsigned long int x, unsigned long int y) { ulong2 t = {x, y}; return t; }
static inline ulong3 make_ulong3(unsigned long int x, unsigned long int y, unsigned long int z) { ulong3 t = {x, y, z}; return t; }
static inline ulong4 make_ulong4(unsigned long int x, unsigned long int y, unsigned long int z, unsigned long int w) { ulong4 t = {x, y, z, w}; return t; }
static inline longlong1 make_longlong1(long long int x) { longlong1 t = {x}; return t; }
static inline longlong2 make_longlong2(long long int x, long long int y) { longlong2 t = {x, y}; return t; }
static inline longlong3 make_longlong3(long long int x, long long int y, long long int z) { longlong3 t = {x, y, z}; return t; }
static inline longlong4 make_longlong4(long long int x, long long int y, long long int z, long long int w) { longlong4 t = {x, y, z, w}; return t; }
static inline ulonglong1 make_ulonglong1(unsigned long long int x) { ulonglong1 t = {x}; return t; }
static inline ulonglong2 make_ulonglong2(unsigned long long int x, unsigned long long int y) { ulonglong2 t = {x, y}; return t; }
static inline ulonglong3 make_ulonglong3(unsigned long long int x, unsigned long long int y, unsigned long long int z) { ulonglong3 t = {x, y, z}; return t; }
static inline ulonglong4 make_ulonglong4(unsigned long long int x, unsigned long long int y, unsigned long long int z, unsigned long long int w) { ulonglong4 t = {x, y, z, w}; return t; }
static inline float1 make_float1(float x) { float1 t = {x}; return t; }
static inline float2 make_float2(float x, float y) { float2 t = {x, y}; return t; }
static inline float3 make_float3(float x, float y, float z) { float3 t = {x, y, z}; return t; }
static inline float4 make_float4(float x, float y, float z, float w) { float4 t = {x, y, z, w}; return t; }
static inline double1 make_double1(double x) { double1 t = {x}; return t; }
static inline double2 make_double2(double x, double y) { double2 t = {x, y}; return t; }
static inline double3 make_double3(double x, double y, double z) { double3 t = {x, y, z}; return t; }
static inline double4 make_double4(double x, double y, double z, double w) { double4 t = {x, y, z, w}; return t; }

#endif
