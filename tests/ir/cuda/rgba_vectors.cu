// Vector types as image code uses them: uchar4 pixels in, float4 out, read through the read-only cache.
#include <cuda_runtime.h>

__global__ void rgba_to_float(const uchar4 *__restrict__ in, float4 *__restrict__ out, int width, int height,
                              float scale)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    uchar4 p = __ldg(&in[y * width + x]);
    float4 f = make_float4(p.x, p.y, p.z, p.w);
    float gray = 0.299f * f.x + 0.587f * f.y + 0.114f * f.z;
    out[y * width + x] = make_float4(f.x * scale, f.y * scale, f.z * scale, gray);
}

__global__ void blend(const float4 *a, const float4 *b, float4 *out, int n, float t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 u = a[i], v = b[i];
        float3 w = make_float3(u.x + t * (v.x - u.x), u.y + t * (v.y - u.y), u.z + t * (v.z - u.z));
        out[i] = make_float4(w.x, w.y, w.z, fmaxf(u.w, v.w));
    }
}
