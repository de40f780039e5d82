// reduce_sum: sum of XSIZE x YSIZE integers: a shared-memory tree per block, then one atomicAdd per block.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

// Any block size (not only powers of two): the tree starts at the largest power of two below the size.
__global__ void reduce_sum(const int *in, int *out, long n)
{
    extern __shared__ int partial[];
    int lid = local_linear(), size = blockDim.x * blockDim.y;
    long i = global_linear();
    partial[lid] = i < n ? in[i] : 0;
    __syncthreads();
    int half = 1;
    while (half * 2 < size)
        half *= 2;
    for (int s = half; s > 0; s >>= 1) {
        if (lid < s && lid + s < size)
            partial[lid] += partial[lid + s];
        __syncthreads();
    }
    if (lid == 0)
        atomicAdd(out, partial[0]);
}
