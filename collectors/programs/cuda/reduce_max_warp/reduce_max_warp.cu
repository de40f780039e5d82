// reduce_max_warp: maximum of XSIZE x YSIZE integers with grid-stride loads, warp shuffles and atomicMax.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

// Each thread folds a grid-stride slice, warps reduce with shuffles, lane 0 of each warp does one atomicMax.
__global__ void reduce_max_warp(const int *in, int *out, long n)
{
    long stride = (long)gridDim.x * gridDim.y * blockDim.x * blockDim.y;
    int m = 0;
    for (long i = global_linear(); i < n; i += stride)
        m = max(m, in[i]);
    if ((blockDim.x * blockDim.y) % 32 != 0) {  // a partial warp cannot shuffle with a full mask
        atomicMax(out, m);
        return;
    }
    for (int off = 16; off > 0; off >>= 1)
        m = max(m, __shfl_down_sync(0xffffffffu, m, off));
    if ((local_linear() & 31) == 0)
        atomicMax(out, m);
}
