// matrix_axpby: C = alpha A + beta B element-wise on an YSIZE x XSIZE float matrix.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void matrix_axpby(const float *A, const float *B, float *C, float alpha, float beta, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < nx && y < ny) {
        long i = (long)y * nx + x;
        C[i] = alpha * A[i] + beta * B[i];
    }
}
