// transpose_naive: out = in^T for an YSIZE x XSIZE float matrix, one thread per element.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void transpose_naive(const float *in, float *out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < nx && y < ny)
        out[(long)x * ny + y] = in[(long)y * nx + x];
}
