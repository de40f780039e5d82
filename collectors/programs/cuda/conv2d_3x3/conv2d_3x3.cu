// conv2d_3x3: 2-D convolution with a 3 x 3 filter in constant memory (zero padding).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__constant__ float conv3_w[9];

__global__ void conv2d_3x3(const float *in, float *out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx, yy = y + dy;
            float v = (xx >= 0 && xx < nx && yy >= 0 && yy < ny) ? in[(long)yy * nx + xx] : 0.0f;
            acc += conv3_w[(dy + 1) * 3 + dx + 1] * v;
        }
    out[(long)y * nx + x] = acc;
}
