// Texture objects: CUDA arrays (1-D, 2-D, 3-D), linear and pitched memory; point sampling and
// linear filtering; every address mode with and without normalized coordinates; float, integer
// and normalized-integer texels of 1, 2 and 4 channels. Each case fetches at 512 coordinates
// (inside, on texel edges and centres, outside, negative) and prints a hash of the results'
// bits and their sum, for comparison with a GPU's output (textures.h200.txt: this program built
// with nvcc, sm_90).
#include <cstdio>
#include <cstring>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e != cudaSuccess) {                                                                    \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

const int N = 512;

// The coordinate of thread i along axis a: a walk from below the texture to past its end,
// landing on centres (k + 0.5), edges (k) and between.
__host__ __device__ float coord(int i, int a, float extent, bool normalized) {
    float c = -2.0f + (float)((i * (a == 0 ? 7 : a == 1 ? 11 : 13)) % 97) * (extent + 4.0f) / 96.0f;
    if (i % 5 == 0) c = floorf(c) + 0.5f;
    if (i % 7 == 0) c = floorf(c);
    return normalized ? c / extent : c;
}

__global__ void fetch1(cudaTextureObject_t t, float4 *out, float w, bool norm) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1D<float4>(t, coord(i, 0, w, norm));
}
__global__ void fetch2(cudaTextureObject_t t, float *out, float w, float h, bool norm) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<float>(t, coord(i, 0, w, norm), coord(i, 1, h, norm));
}
__global__ void fetch2v(cudaTextureObject_t t, float4 *out, float w, float h, bool norm) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<float4>(t, coord(i, 0, w, norm), coord(i, 1, h, norm));
}
// A texture object handed to a device function, fetched under a divergent branch.
__device__ uchar4 sample(cudaTextureObject_t t, int i, float w, float h) {
    return tex2D<uchar4>(t, coord(i, 0, w, false), coord(i, 1, h, false));
}
__global__ void fetch2u(cudaTextureObject_t t, uchar4 *out, float w, float h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i % 3 ? sample(t, i, w, h) : make_uchar4(1, 2, 3, 4);
}
__global__ void fetch2s(cudaTextureObject_t t, float2 *out, float w, float h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<float2>(t, coord(i, 0, w, false), coord(i, 1, h, false));
}
__global__ void fetch3(cudaTextureObject_t t, float *out, float w, float h, float d, bool norm) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex3D<float>(t, coord(i, 0, w, norm), coord(i, 1, h, norm), coord(i, 2, d, norm));
}
__global__ void fetchi(cudaTextureObject_t t, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1Dfetch<int>(t, i - 40);
}

unsigned long long fnv(const void *p, size_t n) {
    unsigned long long h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < n; k++) h = (h ^ ((const unsigned char *)p)[k]) * 0x100000001b3ull;
    return h;
}

// A case's line: its name, the hash of its results, and their sum (of the floats, or of the
// bytes of integer results).
template <class T> void show(const char *name, const std::vector<T> &v, bool floats = true) {
    double sum = 0;
    size_t n = v.size() * sizeof(T);
    for (size_t k = 0; k < (floats ? n / 4 : n); k++)
        sum += floats ? ((const float *)v.data())[k] : ((const unsigned char *)v.data())[k];
    printf("%s %016llx %.9g\n", name, fnv(v.data(), n), sum);
}

cudaTextureDesc describe(cudaTextureAddressMode m, cudaTextureFilterMode f, bool norm,
                         cudaTextureReadMode r = cudaReadModeElementType) {
    cudaTextureDesc d;
    memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = m;
    d.filterMode = f;
    d.readMode = r;
    d.normalizedCoords = norm;
    return d;
}

cudaResourceDesc of_array(cudaArray_t a) {
    cudaResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    return r;
}

int main() {
    const char *modes[] = {"wrap", "clamp", "mirror", "border"};
    const int W = 8, H = 6, D = 3;
    // A 2-D float array: texel (x, y) = x + 10 y + 0.125 (x ^ y).
    std::vector<float> img(W * H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) img[y * W + x] = x + 10 * y + 0.125f * (x ^ y);
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CK(cudaMallocArray(&arr, &fd, W, H));
    CK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    float *d_f;
    float4 *d_f4;
    CK(cudaMalloc(&d_f, N * sizeof(float)));
    CK(cudaMalloc(&d_f4, N * sizeof(float4)));
    std::vector<float> got(N);
    std::vector<float4> got4(N);
    char name[64];
    for (int m = 0; m < 4; m++)
        for (int f = 0; f < 2; f++)
            for (int norm = 0; norm < 2; norm++) {
                cudaTextureObject_t t;
                cudaResourceDesc rd = of_array(arr);
                cudaTextureDesc td = describe((cudaTextureAddressMode)m, (cudaTextureFilterMode)f, norm);
                CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
                fetch2<<<N / 128, 128>>>(t, d_f, W, H, norm);
                CK(cudaMemcpy(got.data(), d_f, N * sizeof(float), cudaMemcpyDeviceToHost));
                snprintf(name, sizeof name, "2d-float-%s-%s%s", modes[m], f ? "linear" : "point", norm ? "-norm" : "");
                show(name, got);
                CK(cudaDestroyTextureObject(t));
            }

    // 2-D uchar4, read as normalized floats (linear) and as they are (point).
    std::vector<uchar4> px(W * H);
    for (int k = 0; k < W * H; k++) px[k] = make_uchar4(k * 37 % 256, k * 91 % 256, 255 - k, k * k % 256);
    cudaChannelFormatDesc ud = cudaCreateChannelDesc<uchar4>();
    cudaArray_t uarr;
    CK(cudaMallocArray(&uarr, &ud, W, H));
    CK(cudaMemcpyToArray(uarr, 0, 0, px.data(), px.size() * sizeof(uchar4), cudaMemcpyHostToDevice));
    for (int f = 0; f < 2; f++) {
        cudaTextureObject_t t;
        cudaResourceDesc rd = of_array(uarr);
        cudaTextureDesc td = describe(cudaAddressModeClamp, (cudaTextureFilterMode)f, true, cudaReadModeNormalizedFloat);
        CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
        fetch2v<<<N / 128, 128>>>(t, d_f4, W, H, true);
        CK(cudaMemcpy(got4.data(), d_f4, N * sizeof(float4), cudaMemcpyDeviceToHost));
        show(f ? "2d-uchar4-normalized-linear" : "2d-uchar4-normalized-point", got4);
        CK(cudaDestroyTextureObject(t));
    }
    {
        cudaTextureObject_t t;
        cudaResourceDesc rd = of_array(uarr);
        cudaTextureDesc td = describe(cudaAddressModeBorder, cudaFilterModePoint, false);
        CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
        uchar4 *d_u;
        CK(cudaMalloc(&d_u, N * sizeof(uchar4)));
        fetch2u<<<N / 128, 128>>>(t, d_u, W, H);
        std::vector<uchar4> gu(N);
        CK(cudaMemcpy(gu.data(), d_u, N * sizeof(uchar4), cudaMemcpyDeviceToHost));
        show("2d-uchar4-element-border", gu, false);
        CK(cudaDestroyTextureObject(t));
        CK(cudaFree(d_u));
    }

    // 2-D signed short pairs in pitched memory, read as normalized floats, linear.
    {
        size_t pitch;
        short2 *d_s;
        CK(cudaMallocPitch(&d_s, &pitch, W * sizeof(short2), H));
        std::vector<short2> sv(W * H);
        for (int k = 0; k < W * H; k++) sv[k] = make_short2((k * 2777) % 65536 - 32768, -k * 1000);
        CK(cudaMemcpy2D(d_s, pitch, sv.data(), W * sizeof(short2), W * sizeof(short2), H, cudaMemcpyHostToDevice));
        cudaResourceDesc rd;
        memset(&rd, 0, sizeof rd);
        rd.resType = cudaResourceTypePitch2D;
        rd.res.pitch2D.devPtr = d_s;
        rd.res.pitch2D.desc = cudaCreateChannelDesc<short2>();
        rd.res.pitch2D.width = W;
        rd.res.pitch2D.height = H;
        rd.res.pitch2D.pitchInBytes = pitch;
        cudaTextureDesc td = describe(cudaAddressModeClamp, cudaFilterModeLinear, false, cudaReadModeNormalizedFloat);
        cudaTextureObject_t t;
        CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
        float2 *d_f2;
        CK(cudaMalloc(&d_f2, N * sizeof(float2)));
        fetch2s<<<N / 128, 128>>>(t, d_f2, W, H);
        std::vector<float2> g2(N);
        CK(cudaMemcpy(g2.data(), d_f2, N * sizeof(float2), cudaMemcpyDeviceToHost));
        show("pitch2d-short2-normalized-linear", g2);
        CK(cudaDestroyTextureObject(t));
        CK(cudaFree(d_f2));
        CK(cudaFree(d_s));
    }

    // 1-D float4 array, linear, wrap and mirror (normalized).
    {
        std::vector<float4> line(W);
        for (int k = 0; k < W; k++) line[k] = make_float4(k, k * k, -k, 0.5f * k);
        cudaChannelFormatDesc d4 = cudaCreateChannelDesc<float4>();
        cudaArray_t a1;
        CK(cudaMallocArray(&a1, &d4, W));
        CK(cudaMemcpyToArray(a1, 0, 0, line.data(), W * sizeof(float4), cudaMemcpyHostToDevice));
        for (int m = 0; m < 3; m += 2) {
            cudaTextureObject_t t;
            cudaResourceDesc rd = of_array(a1);
            cudaTextureDesc td = describe((cudaTextureAddressMode)m, cudaFilterModeLinear, true);
            CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
            fetch1<<<N / 128, 128>>>(t, d_f4, W, true);
            CK(cudaMemcpy(got4.data(), d_f4, N * sizeof(float4), cudaMemcpyDeviceToHost));
            snprintf(name, sizeof name, "1d-float4-%s-linear-norm", modes[m]);
            show(name, got4);
            CK(cudaDestroyTextureObject(t));
        }
        CK(cudaFreeArray(a1));
    }

    // 3-D float array through cudaMemcpy3D, point and linear.
    {
        std::vector<float> vol(W * H * D);
        for (int k = 0; k < W * H * D; k++) vol[k] = (float)(k % 17) - 0.25f * (k % 5);
        cudaChannelFormatDesc fd3 = cudaCreateChannelDesc<float>();
        cudaArray_t a3;
        CK(cudaMalloc3DArray(&a3, &fd3, make_cudaExtent(W, H, D)));
        cudaMemcpy3DParms p;
        memset(&p, 0, sizeof p);
        p.srcPtr = make_cudaPitchedPtr(vol.data(), W * sizeof(float), W, H);
        p.dstArray = a3;
        p.extent = make_cudaExtent(W, H, D);
        p.kind = cudaMemcpyHostToDevice;
        CK(cudaMemcpy3D(&p));
        for (int f = 0; f < 2; f++) {
            cudaTextureObject_t t;
            cudaResourceDesc rd = of_array(a3);
            cudaTextureDesc td = describe(f ? cudaAddressModeClamp : cudaAddressModeWrap, (cudaTextureFilterMode)f, f == 0);
            CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
            fetch3<<<N / 128, 128>>>(t, d_f, W, H, D, f == 0);
            CK(cudaMemcpy(got.data(), d_f, N * sizeof(float), cudaMemcpyDeviceToHost));
            show(f ? "3d-float-clamp-linear" : "3d-float-wrap-point-norm", got);
            CK(cudaDestroyTextureObject(t));
        }
        CK(cudaFreeArray(a3));
    }

    // tex1Dfetch on linear memory: inside, and zero outside.
    {
        int *d_i, *d_o;
        std::vector<int> iv(300);
        for (int k = 0; k < 300; k++) iv[k] = k * k - 7;
        CK(cudaMalloc(&d_i, 300 * sizeof(int)));
        CK(cudaMalloc(&d_o, N * sizeof(int)));
        CK(cudaMemcpy(d_i, iv.data(), 300 * sizeof(int), cudaMemcpyHostToDevice));
        cudaResourceDesc rd;
        memset(&rd, 0, sizeof rd);
        rd.resType = cudaResourceTypeLinear;
        rd.res.linear.devPtr = d_i;
        rd.res.linear.desc = cudaCreateChannelDesc<int>();
        rd.res.linear.sizeInBytes = 300 * sizeof(int);
        cudaTextureDesc td = describe(cudaAddressModeClamp, cudaFilterModePoint, false);
        cudaTextureObject_t t;
        CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
        fetchi<<<N / 128, 128>>>(t, d_o);
        std::vector<int> gi(N);
        CK(cudaMemcpy(gi.data(), d_o, N * sizeof(int), cudaMemcpyDeviceToHost));
        show("linear-int-fetch", gi, false);
        CK(cudaDestroyTextureObject(t));
        CK(cudaFree(d_i));
        CK(cudaFree(d_o));
    }
    // Reading an array back.
    std::vector<float> back(W * H);
    CK(cudaMemcpy2DFromArray(back.data(), W * sizeof(float), arr, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost));
    printf("array-read-back %s\n", back == img ? "equal" : "differs");
    CK(cudaFreeArray(arr));
    CK(cudaFreeArray(uarr));
    CK(cudaFree(d_f));
    CK(cudaFree(d_f4));
    return 0;
}
