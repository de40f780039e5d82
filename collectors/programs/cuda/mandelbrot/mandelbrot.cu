// mandelbrot: escape-time iteration counts (at most 256) of the Mandelbrot set over an XSIZE x YSIZE grid.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void mandelbrot(int *out, int nx, int ny, int maxit)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    float cr = -2.0f + 2.5f * x / nx, ci = -1.25f + 2.5f * y / ny;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < maxit && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    out[(long)y * nx + x] = it;
}
