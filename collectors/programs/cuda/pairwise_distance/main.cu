// Host program for pairwise_distance: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "pairwise_distance.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    int n = c.xsize;
    std::vector<float> p((size_t)n * PD_DIM);
    fill_small(p, 30);
    float *dP = to_device(p), *dD = device_zeros<float>((size_t)n * n);
    dim3 grid = grid2d(n, n, c.block());
    auto launch = [&]() { pairwise_distance<<<grid, c.block()>>>(dP, dD, n); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dD, (size_t)n * n);
    report(time_launches(launch, c.reps), h);
    cudaFree(dP); cudaFree(dD);
    return 0;
}
