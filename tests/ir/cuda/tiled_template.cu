// A templated tiled matrix product: static shared tiles sized by a template parameter, explicit instances.
#include <cuda_runtime.h>

template <typename T, int TILE>
__global__ void matmul_tiled(const T *A, const T *B, T *C, int n)
{
    __shared__ T As[TILE][TILE];
    __shared__ T Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    T acc = T(0);
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : T(0);
        Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : T(0);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}

template <typename T>
__device__ T clamp_to(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }

// dynamic shared memory through extern __shared__, as block-wide scans write it
template <typename T>
__global__ void block_scan(const T *in, T *out, int n)
{
    extern __shared__ unsigned char raw[];
    T *buf = reinterpret_cast<T *>(raw);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s <<= 1) {
        T v = threadIdx.x >= s ? buf[threadIdx.x - s] : T(0);
        __syncthreads();
        buf[threadIdx.x] += v;
        __syncthreads();
    }
    if (i < n)
        out[i] = clamp_to(buf[threadIdx.x], T(-1000), T(1000));
}

template __global__ void matmul_tiled<float, 16>(const float *, const float *, float *, int);
template __global__ void matmul_tiled<double, 8>(const double *, const double *, double *, int);
template __global__ void block_scan<int>(const int *, int *, int);
