// matmul_tiled: C = A B with shared-memory tiles shaped like the block (BLOCKY rows x BLOCKX columns, K step BLOCKX).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

// Works for any block shape: the block computes a BLOCKY x BLOCKX tile of C, stepping along k by T = BLOCKX.
__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    extern __shared__ float sh[];
    const int bx = blockDim.x, by = blockDim.y, T = blockDim.x;
    float *As = sh;           // by x T
    float *Bs = sh + by * T;  // T x bx
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * by + ty, col = blockIdx.x * bx + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        As[ty * T + tx] = (row < n && k0 + tx < n) ? A[(long)row * n + k0 + tx] : 0.0f;
        for (int r = ty; r < T; r += by)
            Bs[r * bx + tx] = (k0 + r < n && col < n) ? B[(long)(k0 + r) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; k++)
            acc += As[ty * T + k] * Bs[k * bx + tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[(long)row * n + col] = acc;
}
