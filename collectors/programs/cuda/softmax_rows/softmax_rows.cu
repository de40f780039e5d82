// softmax_rows: row-wise softmax of an n x n float matrix, one thread per row (max, exp-sum, normalise).
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void softmax_rows(const float *in, float *out, int n)
{
    long row = global_linear();
    if (row >= n)
        return;
    const float *x = in + row * n;
    float *y = out + row * n;
    float m = x[0];
    for (int k = 1; k < n; k++)
        m = fmaxf(m, x[k]);
    float s = 0.0f;
    for (int k = 0; k < n; k++) {
        float e = __expf(x[k] - m);
        y[k] = e;
        s += e;
    }
    float inv = 1.0f / s;
    for (int k = 0; k < n; k++)
        y[k] *= inv;
}
