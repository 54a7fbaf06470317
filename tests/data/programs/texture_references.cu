// Legacy texture references (texture<T, dim, readMode>, gone from CUDA 12), each case fetched
// through a reference and through a texture object made over the same memory the same way, in
// the same program: linear memory (aligned, and at an offset cudaBindTexture reports), a
// cudaArray with point and linear filtering, normalized coordinates and texels read as
// normalized floats, pitched memory (cudaBindTexture2D), a 3-D array, rebinding between
// launches, and a fetch through an unbound reference. Each case prints the bits' hash and
// the sum of both fetches' results: `case -> same HASH SUM` where they agree.
#include <cstdio>
#include <cstring>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e != cudaSuccess) {                                                                    \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

const int N = 256;

texture<float, 1, cudaReadModeElementType> lin;
texture<float, cudaTextureType1D> lin1d;
texture<float, 2> plane;
texture<uchar4, 2, cudaReadModeNormalizedFloat> colours;
texture<float2, 2> pitched;
texture<float, 3> volume;

// Coordinates from below the texture to past its end, on centres, edges and between.
__host__ __device__ float coord(int i, int a, float extent) {
    return -1.5f + (float)((i * (a == 0 ? 7 : a == 1 ? 11 : 13)) % 61) * (extent + 3.0f) / 60.0f;
}

__global__ void fetch_index(float *out, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1Dfetch(lin, i % 64 + shift);
}
__global__ void fetch_index_obj(cudaTextureObject_t t, float *out, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1Dfetch<float>(t, i % 64 + shift);
}
__global__ void fetch_1d(float *out, float w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1D(lin1d, coord(i, 0, w) / w);
}
__global__ void fetch_1d_obj(cudaTextureObject_t t, float *out, float w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1D<float>(t, coord(i, 0, w) / w);
}
__global__ void fetch_2d(float *out, float w, float h, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D(plane, coord(i, 0, w) * scale, coord(i, 1, h) * scale);
}
__global__ void fetch_2d_obj(cudaTextureObject_t t, float *out, float w, float h, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<float>(t, coord(i, 0, w) * scale, coord(i, 1, h) * scale);
}
// A device function fetching through a reference, under a divergent branch.
__device__ float4 colour(int i, float w, float h) { return tex2D(colours, coord(i, 0, w), coord(i, 1, h)); }
__global__ void fetch_colours(float4 *out, float w, float h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i % 3 ? colour(i, w, h) : make_float4(1, 2, 3, 4);
}
__global__ void fetch_colours_obj(cudaTextureObject_t t, float4 *out, float w, float h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i % 3 ? tex2D<float4>(t, coord(i, 0, w), coord(i, 1, h)) : make_float4(1, 2, 3, 4);
}
__global__ void fetch_pitched(float2 *out, float w, float h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D(pitched, coord(i, 0, w), coord(i, 1, h));
}
__global__ void fetch_pitched_obj(cudaTextureObject_t t, float2 *out, float w, float h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<float2>(t, coord(i, 0, w), coord(i, 1, h));
}
__global__ void fetch_3d(float *out, float w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex3D(volume, coord(i, 0, w), coord(i, 1, w), coord(i, 2, w));
}
__global__ void fetch_3d_obj(cudaTextureObject_t t, float *out, float w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex3D<float>(t, coord(i, 0, w), coord(i, 1, w), coord(i, 2, w));
}

static unsigned hash(const void *p, size_t bytes) {
    unsigned h = 2166136261u;
    for (size_t k = 0; k < bytes; k++) h = (h ^ ((const unsigned char *)p)[k]) * 16777619u;
    return h;
}

// Compares the reference's results (`ref`) with the object's (`obj`), `n` floats each.
static void report(const char *name, float *ref, float *obj, int n) {
    static float a[4 * N], b[4 * N];
    cudaMemcpy(a, ref, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(b, obj, n * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int k = 0; k < n; k++) sum += a[k];
    bool same = memcmp(a, b, n * sizeof(float)) == 0;
    printf("%s -> %s %08x %.4f\n", name, same ? "same" : "DIFFERENT", hash(a, n * sizeof(float)), sum);
}

static cudaTextureDesc sampling(cudaTextureFilterMode filter, cudaTextureAddressMode address, bool normalized,
                                cudaTextureReadMode read) {
    cudaTextureDesc t;
    memset(&t, 0, sizeof t);
    t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = address;
    t.filterMode = filter;
    t.readMode = read;
    t.normalizedCoords = normalized;
    return t;
}

static cudaResourceDesc linear(void *p, cudaChannelFormatDesc desc, size_t bytes) {
    cudaResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = p;
    r.res.linear.desc = desc;
    r.res.linear.sizeInBytes = bytes;
    return r;
}

static cudaResourceDesc of_array(cudaArray_t a) {
    cudaResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    return r;
}

int main() {
    float *ref, *obj;
    CK(cudaMalloc(&ref, 4 * N * sizeof(float)));
    CK(cudaMalloc(&obj, 4 * N * sizeof(float)));
    cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();

    // 1-D references over linear memory: from the allocation's start, then 3 floats in.
    float host[1024];
    for (int k = 0; k < 1024; k++) host[k] = (float)(k * k % 1009) * 0.25f;
    float *a, *b;
    CK(cudaMalloc(&a, sizeof host));
    CK(cudaMalloc(&b, sizeof host));
    CK(cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice));
    for (int k = 0; k < 1024; k++) host[k] = -host[k];
    CK(cudaMemcpy(b, host, sizeof host, cudaMemcpyHostToDevice));
    cudaTextureObject_t ta, tb;
    cudaResourceDesc ra = linear(a, f1, sizeof host), rb = linear(b, f1, sizeof host);
    cudaTextureDesc point = sampling(cudaFilterModePoint, cudaAddressModeClamp, false, cudaReadModeElementType);
    CK(cudaCreateTextureObject(&ta, &ra, &point, nullptr));
    CK(cudaCreateTextureObject(&tb, &rb, &point, nullptr));
    CK(cudaBindTexture(0, lin, a, sizeof host));
    fetch_index<<<N / 64, 64>>>(ref, 0);
    fetch_index_obj<<<N / 64, 64>>>(ta, obj, 0);
    report("linear", ref, obj, N);
    size_t offset = 1;
    CK(cudaBindTexture(&offset, lin, a + 3, 64 * sizeof(float)));
    size_t asked = 0;
    CK(cudaGetTextureAlignmentOffset(&asked, lin));
    printf("offset -> %zu %zu\n", offset, asked);
    fetch_index<<<N / 64, 64>>>(ref, (int)(offset / sizeof(float)));
    fetch_index_obj<<<N / 64, 64>>>(ta, obj, 3);
    report("linear-offset", ref, obj, N);
    printf("unaligned-without-offset -> %s\n", cudaGetErrorName(cudaBindTexture(0, lin, a + 3, 64 * sizeof(float))));
    // Rebinding between launches (through the C function): the next launch reads the new memory.
    CK(cudaBindTexture(NULL, &lin, b, &f1, sizeof host));
    fetch_index<<<N / 64, 64>>>(ref, 0);
    fetch_index_obj<<<N / 64, 64>>>(tb, obj, 0);
    report("rebound", ref, obj, N);

    // A 1-D array, linear filtering at normalized coordinates, wrapping.
    cudaArray_t row;
    CK(cudaMallocArray(&row, &f1, 40));
    CK(cudaMemcpyToArray(row, 0, 0, host + 100, 40 * sizeof(float), cudaMemcpyHostToDevice));
    lin1d.filterMode = cudaFilterModeLinear;
    lin1d.normalized = true;
    lin1d.addressMode[0] = cudaAddressModeWrap;
    CK(cudaBindTextureToArray(lin1d, row));
    cudaTextureObject_t trow;
    cudaResourceDesc rrow = of_array(row);
    cudaTextureDesc wrap = sampling(cudaFilterModeLinear, cudaAddressModeWrap, true, cudaReadModeElementType);
    CK(cudaCreateTextureObject(&trow, &rrow, &wrap, nullptr));
    fetch_1d<<<N / 64, 64>>>(ref, 40);
    fetch_1d_obj<<<N / 64, 64>>>(trow, obj, 40);
    report("array-1d-linear-normalized", ref, obj, N);

    // A 2-D array: point sampling, then linear filtering at normalized coordinates.
    const int W = 24, H = 16;
    float grid[W * H];
    for (int k = 0; k < W * H; k++) grid[k] = (float)((k * 37) % 101) - 50.0f;
    cudaArray_t arr;
    CK(cudaMallocArray(&arr, &f1, W, H));
    CK(cudaMemcpy2DToArray(arr, 0, 0, grid, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc rarr = of_array(arr);
    CK(cudaBindTextureToArray(plane, arr));
    cudaTextureObject_t tpoint, tlinear;
    CK(cudaCreateTextureObject(&tpoint, &rarr, &point, nullptr));
    fetch_2d<<<N / 64, 64>>>(ref, W, H, 1.0f);
    fetch_2d_obj<<<N / 64, 64>>>(tpoint, obj, W, H, 1.0f);
    report("array-2d-point", ref, obj, N);
    plane.filterMode = cudaFilterModeLinear;
    plane.normalized = 1;
    plane.addressMode[0] = cudaAddressModeMirror;
    plane.addressMode[1] = cudaAddressModeBorder;
    CK(cudaBindTextureToArray(plane, arr));
    cudaTextureDesc mixed = sampling(cudaFilterModeLinear, cudaAddressModeMirror, true, cudaReadModeElementType);
    mixed.addressMode[1] = cudaAddressModeBorder;
    CK(cudaCreateTextureObject(&tlinear, &rarr, &mixed, nullptr));
    fetch_2d<<<N / 64, 64>>>(ref, W, H, 1.0f / W);
    fetch_2d_obj<<<N / 64, 64>>>(tlinear, obj, W, H, 1.0f / W);
    report("array-2d-linear-normalized", ref, obj, N);

    // uchar4 texels read as normalized floats, linear filtering.
    uchar4 pixels[W * H];
    for (int k = 0; k < W * H; k++) pixels[k] = make_uchar4(k % 256, (k * 7) % 256, (k * 13) % 256, 255 - k % 256);
    cudaChannelFormatDesc u4 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t carr;
    CK(cudaMallocArray(&carr, &u4, W, H));
    CK(cudaMemcpy2DToArray(carr, 0, 0, pixels, W * sizeof(uchar4), W * sizeof(uchar4), H, cudaMemcpyHostToDevice));
    colours.filterMode = cudaFilterModeLinear;
    CK(cudaBindTextureToArray(colours, carr, u4));
    cudaResourceDesc rcarr = of_array(carr);
    cudaTextureDesc unorm = sampling(cudaFilterModeLinear, cudaAddressModeClamp, false, cudaReadModeNormalizedFloat);
    cudaTextureObject_t tcol;
    CK(cudaCreateTextureObject(&tcol, &rcarr, &unorm, nullptr));
    fetch_colours<<<N / 64, 64>>>((float4 *)ref, W, H);
    fetch_colours_obj<<<N / 64, 64>>>(tcol, (float4 *)obj, W, H);
    report("array-2d-normalized-float", ref, obj, 4 * N);

    // Pitched memory through cudaBindTexture2D, float2 texels, linear filtering.
    float2 *pm;
    size_t pitch;
    CK(cudaMallocPitch(&pm, &pitch, W * sizeof(float2), H));
    float2 rows[W * H];
    for (int k = 0; k < W * H; k++) rows[k] = make_float2(grid[k], grid[W * H - 1 - k] * 0.5f);
    CK(cudaMemcpy2D(pm, pitch, rows, W * sizeof(float2), W * sizeof(float2), H, cudaMemcpyHostToDevice));
    pitched.filterMode = cudaFilterModeLinear;
    CK(cudaBindTexture2D(0, pitched, pm, W, H, pitch));
    cudaResourceDesc rpm;
    memset(&rpm, 0, sizeof rpm);
    rpm.resType = cudaResourceTypePitch2D;
    rpm.res.pitch2D.devPtr = pm;
    rpm.res.pitch2D.desc = cudaCreateChannelDesc<float2>();
    rpm.res.pitch2D.width = W;
    rpm.res.pitch2D.height = H;
    rpm.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc clamp = sampling(cudaFilterModeLinear, cudaAddressModeClamp, false, cudaReadModeElementType);
    cudaTextureObject_t tpm;
    CK(cudaCreateTextureObject(&tpm, &rpm, &clamp, nullptr));
    fetch_pitched<<<N / 64, 64>>>((float2 *)ref, W, H);
    fetch_pitched_obj<<<N / 64, 64>>>(tpm, (float2 *)obj, W, H);
    report("pitch-2d-linear", ref, obj, 2 * N);

    // A 3-D array, point sampling.
    const int D = 6;
    float cube[D * D * D];
    for (int k = 0; k < D * D * D; k++) cube[k] = (float)(k * 5 % 43);
    cudaArray_t varr;
    CK(cudaMalloc3DArray(&varr, &f1, make_cudaExtent(D, D, D)));
    cudaMemcpy3DParms copy;
    memset(&copy, 0, sizeof copy);
    copy.srcPtr = make_cudaPitchedPtr(cube, D * sizeof(float), D, D);
    copy.dstArray = varr;
    copy.extent = make_cudaExtent(D, D, D);
    copy.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&copy));
    CK(cudaBindTextureToArray(volume, varr));
    cudaResourceDesc rvarr = of_array(varr);
    cudaTextureObject_t tvol;
    CK(cudaCreateTextureObject(&tvol, &rvarr, &point, nullptr));
    fetch_3d<<<N / 64, 64>>>(ref, D);
    fetch_3d_obj<<<N / 64, 64>>>(tvol, obj, D);
    report("array-3d-point", ref, obj, N);

    cudaChannelFormatDesc got;
    CK(cudaGetChannelDesc(&got, carr));
    printf("channel-desc -> %d %d %d %d %d\n", got.x, got.y, got.z, got.w, (int)got.f);
    const textureReference *r = nullptr;
    CK(cudaGetTextureReference(&r, &plane));
    printf("reference -> %s %d\n", r == &plane ? "plane" : "other", r->filterMode);

    // Unbound: the launch fails, naming the reference; bound again, launches run.
    CK(cudaUnbindTexture(lin));
    fetch_index<<<N / 64, 64>>>(ref, 0);
    printf("unbound-launch -> %s\n", cudaGetErrorName(cudaGetLastError()));
    CK(cudaBindTexture(0, lin, a, sizeof host));
    fetch_index<<<N / 64, 64>>>(ref, 0);
    CK(cudaGetLastError());
    fetch_index_obj<<<N / 64, 64>>>(ta, obj, 0);
    report("bound-again", ref, obj, N);

    // cudaDeviceReset frees the texture objects; a reference binds again after it.
    CK(cudaDeviceReset());
    float *fresh, back[64];
    CK(cudaMalloc(&fresh, 2 * sizeof back));
    CK(cudaMemcpy(fresh, host, sizeof back, cudaMemcpyHostToDevice));
    CK(cudaBindTexture(0, lin, fresh, sizeof back));
    fetch_index<<<1, 64>>>(fresh + 64, 0);
    CK(cudaMemcpy(back, fresh + 64, sizeof back, cudaMemcpyDeviceToHost));
    double sum = 0;
    for (int k = 0; k < 64; k++) sum += back[k];
    printf("after-reset -> %s %.4f\n", cudaGetErrorName(cudaGetLastError()), sum);
    printf("PASSED\n");
    return 0;
}
