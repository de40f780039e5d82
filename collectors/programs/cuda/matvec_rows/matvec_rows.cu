// matvec_rows: y = A x for an n x n float matrix, one thread per row (n = XSIZE).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void matvec_rows(const float *A, const float *x, float *y, int n)
{
    long row = global_linear();
    if (row >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += A[row * n + k] * x[k];
    y[row] = acc;
}
