// rgb_to_gray: luma (77 R + 150 G + 29 B) >> 8 of an XSIZE x YSIZE RGB byte image.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void rgb_to_gray(const uchar3 *rgb, unsigned char *gray, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    uchar3 p = rgb[(long)y * nx + x];
    gray[(long)y * nx + x] = (unsigned char)((77 * p.x + 150 * p.y + 29 * p.z) >> 8);
}
