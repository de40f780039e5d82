// pairwise_distance: Euclidean distance matrix between n points of 16 float features (n = XSIZE), one thread per pair.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

#define PD_DIM 16
__global__ void pairwise_distance(const float *P, float *D, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n)
        return;
    float acc = 0.0f;
    for (int d = 0; d < PD_DIM; d++) {
        float t = P[(long)i * PD_DIM + d] - P[(long)j * PD_DIM + d];
        acc += t * t;
    }
    D[(long)i * n + j] = sqrtf(acc);
}
