// Scale each row of a matrix by its own factor (2-D indexing).
__global__ void scale_rows(float *m, const float *factor, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        m[(long)y * width + x] *= factor[y];
}
