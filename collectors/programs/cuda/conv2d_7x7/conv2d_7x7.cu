// conv2d_7x7: 2-D convolution with a 7 x 7 filter read from global memory (zero padding).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void conv2d_7x7(const float *in, const float *w, float *out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    float acc = 0.0f;
    for (int dy = -3; dy <= 3; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= ny)
            continue;
        for (int dx = -3; dx <= 3; dx++) {
            int xx = x + dx;
            if (xx >= 0 && xx < nx)
                acc += w[(dy + 3) * 7 + dx + 3] * in[(long)yy * nx + xx];
        }
    }
    out[(long)y * nx + x] = acc;
}
