// sobel: Sobel edge magnitude sqrt(gx^2 + gy^2) of a 2-D float image (border set to 0).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void sobel(const float *in, float *out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    long i = (long)y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = 0.0f;
        return;
    }
    float gx = (in[i - nx + 1] + 2.0f * in[i + 1] + in[i + nx + 1]) - (in[i - nx - 1] + 2.0f * in[i - 1] + in[i + nx - 1]);
    float gy = (in[i + nx - 1] + 2.0f * in[i + nx] + in[i + nx + 1]) - (in[i - nx - 1] + 2.0f * in[i - nx] + in[i - nx + 1]);
    out[i] = sqrtf(gx * gx + gy * gy);
}
