// Monte Carlo estimate of pi with cuRAND's device API: one generator state per thread, hits counted with a warp
// reduction and one 64-bit atomic per warp.
#include <curand_kernel.h>

__global__ void setup_states(curandState *states, unsigned long long seed)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);
}

__global__ void count_hits(curandState *states, unsigned long long *hits, int samples)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];
    unsigned count = 0;
    for (int s = 0; s < samples; ++s) {
        float x = curand_uniform(&local), y = curand_uniform(&local);
        count += x * x + y * y <= 1.0f;
    }
    float jitter = curand_normal(&local);
    states[id] = local;
    for (int offset = 16; offset > 0; offset /= 2)
        count += __shfl_down_sync(0xffffffffu, count, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(hits, (unsigned long long)count + (jitter > 100.0f));
}
