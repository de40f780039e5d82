// scan_exclusive: exclusive prefix sum of XSIZE x YSIZE integers: block scans, a scan of block sums, offsets.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

// 1. each block scans its segment (Hillis-Steele, any block size) and writes its total;
// 2. one block of 1024 threads scans the totals (a serial chunk per thread, then the chunk sums);
// 3. every element adds its block's offset. The result does not depend on the block size.
__global__ void scan_blocks(const int *in, int *out, int *totals, long n)
{
    extern __shared__ int buf[];
    int lid = local_linear(), size = blockDim.x * blockDim.y;
    long i = global_linear();
    long block = (long)blockIdx.y * gridDim.x + blockIdx.x;
    int v = i < n ? in[i] : 0;
    buf[lid] = v;
    __syncthreads();
    for (int off = 1; off < size; off *= 2) {
        int t = lid >= off ? buf[lid - off] : 0;
        __syncthreads();
        buf[lid] += t;
        __syncthreads();
    }
    if (i < n)
        out[i] = buf[lid] - v;  // exclusive within the block
    if (lid == size - 1)
        totals[block] = buf[lid];
}

__global__ void scan_totals(int *totals, long count)
{
    __shared__ int chunk_sum[1024];
    int t = threadIdx.x;
    long per = (count + blockDim.x - 1) / blockDim.x;
    long lo = t * per, hi = lo + per < count ? lo + per : count;
    int run = 0;
    for (long k = lo; k < hi; k++) {
        int v = totals[k];
        totals[k] = run;
        run += v;
    }
    chunk_sum[t] = run;
    __syncthreads();
    if (t == 0) {
        int acc = 0;
        for (int k = 0; k < (int)blockDim.x; k++) {
            int v = chunk_sum[k];
            chunk_sum[k] = acc;
            acc += v;
        }
    }
    __syncthreads();
    for (long k = lo; k < hi; k++)
        totals[k] += chunk_sum[t];
}

__global__ void scan_add(int *out, const int *totals, long n)
{
    long i = global_linear();
    long block = (long)blockIdx.y * gridDim.x + blockIdx.x;
    if (i < n)
        out[i] += totals[block];
}
