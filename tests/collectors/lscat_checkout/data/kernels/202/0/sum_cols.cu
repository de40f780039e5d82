// Column sums of a matrix (one thread per column, 1-D indexing).
__global__ void sum_cols(const float *m, float *sums, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width)
        return;
    float acc = 0.0f;
    for (int y = 0; y < height; y++)
        acc += m[(long)y * width + x];
    sums[x] = acc;
}
