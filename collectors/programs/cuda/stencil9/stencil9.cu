// stencil9: 9-point weighted stencil (corners 1, edges 2, centre 4) / 16 on a 2-D float grid.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void stencil9(const float *in, float *out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    long i = (long)y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = in[i];
        return;
    }
    float corners = in[i - nx - 1] + in[i - nx + 1] + in[i + nx - 1] + in[i + nx + 1];
    float edges = in[i - nx] + in[i + nx] + in[i - 1] + in[i + 1];
    out[i] = (corners + 2.0f * edges + 4.0f * in[i]) * 0.0625f;
}
