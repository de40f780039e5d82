// y = a * x + y, with a typo that keeps it from compiling.
__global__ void broken_axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + yy[i];
}
