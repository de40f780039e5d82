// jacobi5: one Jacobi sweep of the 5-point average on a 2-D float grid (boundary copied).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void jacobi5(const float *in, float *out, int nx, int ny)
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
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
