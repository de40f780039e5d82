// game_of_life: one generation of Conway's game of life on a 2-D byte grid (cells outside are dead).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void game_of_life(const unsigned char *in, unsigned char *out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    int alive = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            if (dx == 0 && dy == 0)
                continue;
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < nx && yy >= 0 && yy < ny)
                alive += in[(long)yy * nx + xx];
        }
    unsigned char self = in[(long)y * nx + x];
    out[(long)y * nx + x] = (alive == 3 || (self && alive == 2)) ? 1 : 0;
}
