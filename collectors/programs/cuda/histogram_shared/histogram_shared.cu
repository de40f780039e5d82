// histogram_shared: 256-bin histogram with a private shared-memory histogram per block, merged with atomics.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void histogram_shared(const unsigned char *in, unsigned int *bins, long n)
{
    __shared__ unsigned int local[256];
    int lid = local_linear(), size = blockDim.x * blockDim.y;
    for (int b = lid; b < 256; b += size)
        local[b] = 0;
    __syncthreads();
    long stride = (long)gridDim.x * gridDim.y * size;
    for (long i = global_linear(); i < n; i += stride)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    for (int b = lid; b < 256; b += size)
        if (local[b])
            atomicAdd(&bins[b], local[b]);
}
