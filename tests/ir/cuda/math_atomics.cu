// Math functions in float and double, and the atomics people use for histograms and arg-max.
#include <cuda_runtime.h>
#include <math_constants.h>

__device__ float gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678f)); }

__global__ void activations(const float *x, float *y, double *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = gelu(v) + tanhf(v) + __expf(-v) * rsqrtf(fabsf(v) + 1.0f) + powf(v, 3.0f) + sinf(v) * cosf(v)
               + logf(1.0f + expf(v)) + fmaf(v, v, CUDART_PI_F) + fminf(v, 1.0f) + floorf(v) + __fdividef(v, 3.0f);
        z[i] = sqrt((double)v * v + 1.0) + exp(-(double)v) + atan2((double)v, 2.0) + log1p(fabs((double)v));
    }
}

__global__ void histogram_argmax(const int *keys, const float *vals, unsigned *bins, float *sum, double *dsum,
                                 int *best, int *lock, int n, int nbins)
{
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < nbins && b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&local[keys[i] % nbins], 1u);
        atomicAdd(sum, vals[i]);
        atomicAdd(dsum, (double)vals[i]);
        atomicMax(best, __float_as_int(vals[i]));
        atomicMin(best + 1, keys[i]);
        atomicOr((unsigned *)best + 2, 1u << (keys[i] & 31));
        while (atomicCAS(lock, 0, 1) != 0) {
        }
        atomicExch(lock, 0);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < nbins && b < 256; b += blockDim.x)
        atomicAdd(&bins[b], local[b]);
}
