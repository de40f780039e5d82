// transpose_tiled: out = in^T through a padded shared-memory tile shaped like the block.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

// Any block shape: the block reads a BLOCKY x BLOCKX tile, then its threads, renumbered, write the
// BLOCKX x BLOCKY transposed tile so that consecutive threads write consecutive addresses.
__global__ void transpose_tiled(const float *in, float *out, int nx, int ny)
{
    extern __shared__ float tile[];  // BLOCKY rows of BLOCKX + 1
    const int bx = blockDim.x, by = blockDim.y, pitch = blockDim.x + 1;
    int x0 = blockIdx.x * bx, y0 = blockIdx.y * by;
    int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x < nx && y < ny)
        tile[threadIdx.y * pitch + threadIdx.x] = in[(long)y * nx + x];
    __syncthreads();
    int t = threadIdx.y * bx + threadIdx.x;
    int r = t / by, cc = t % by;  // row r of the output tile (an input column), column cc (an input row)
    int ox = x0 + r, oy = y0 + cc;
    if (ox < nx && oy < ny)
        out[(long)ox * ny + oy] = tile[cc * pitch + r];
}
