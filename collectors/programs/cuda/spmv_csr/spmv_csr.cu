// spmv_csr: y = A x for a banded sparse matrix in CSR (XSIZE x YSIZE rows, 3 to 11 non-zeros each), one thread per row.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void spmv_csr(const int *rowptr, const int *cols, const float *vals, const float *x, float *y, int rows)
{
    long r = global_linear();
    if (r >= rows)
        return;
    float acc = 0.0f;
    for (int k = rowptr[r]; k < rowptr[r + 1]; k++)
        acc += vals[k] * x[cols[k]];
    y[r] = acc;
}
