// sigmoid: logistic function 1 / (1 + exp(-x)) element-wise over XSIZE x YSIZE floats (1-D indexing).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void sigmoid(const float *in, float *out, long n)
{
    long i = global_linear();
    if (i < n)
        out[i] = 1.0f / (1.0f + expf(-(in[i] - 7.5f) * 0.25f));
}
