// histogram_global: 256-bin histogram of XSIZE x YSIZE bytes with atomicAdd on global memory.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void histogram_global(const unsigned char *in, unsigned int *bins, long n)
{
    long i = global_linear();
    if (i < n)
        atomicAdd(&bins[in[i]], 1u);
}
