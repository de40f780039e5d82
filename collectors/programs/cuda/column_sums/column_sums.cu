// column_sums: sums of each column of an YSIZE x XSIZE float matrix, one thread per column (coalesced rows).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void column_sums(const float *A, float *sums, int nx, int ny)
{
    long col = global_linear();
    if (col >= nx)
        return;
    float acc = 0.0f;
    for (int r = 0; r < ny; r++)
        acc += A[(long)r * nx + col];
    sums[col] = acc;
}
