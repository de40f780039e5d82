// bitonic_sort: bitonic sort of XSIZE x YSIZE integers (padded to a power of two), one launch per merge step.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void bitonic_step(int *data, long n, long j, long k)
{
    long i = global_linear();
    if (i >= n)
        return;
    long partner = i ^ j;
    if (partner > i) {
        bool up = (i & k) == 0;
        int a = data[i], b = data[partner];
        if ((a > b) == up) {
            data[i] = b;
            data[partner] = a;
        }
    }
}
