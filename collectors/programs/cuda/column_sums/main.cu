// Host program for column_sums: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "column_sums.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    std::vector<float> a((size_t)c.xsize * c.ysize);
    fill_small(a, 28);
    float *dA = to_device(a), *dS = device_zeros<float>(c.xsize);
    dim3 grid = grid1d(c.xsize, c.block());
    auto launch = [&]() { column_sums<<<grid, c.block()>>>(dA, dS, c.xsize, c.ysize); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dS, c.xsize);
    report(time_launches(launch, c.reps), h);
    cudaFree(dA); cudaFree(dS);
    return 0;
}
