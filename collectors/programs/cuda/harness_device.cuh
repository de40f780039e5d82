// The device-side helpers of mirtune's CUDA harness: what a kernel source needs, and nothing of the host or the
// CUDA runtime, so that a kernel file compiles to device LLVM IR on its own (clang --cuda-device-only with
// mirtune's prelude; `mirtune recommend --task cuda_blocks` reads kernels this way). harness.cuh includes it.
#pragma once

// The linear index of this thread among all threads of the grid, and within its block.
__device__ __forceinline__ long global_linear()
{
    long block = (long)blockIdx.y * gridDim.x + blockIdx.x;
    return block * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ int local_linear()
{
    return threadIdx.y * blockDim.x + threadIdx.x;
}
