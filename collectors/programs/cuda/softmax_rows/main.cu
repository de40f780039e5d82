// Host program for softmax_rows: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "softmax_rows.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    int n = c.xsize;
    std::vector<float> a((size_t)n * n);
    fill_small(a, 29);
    float *dIn = to_device(a), *dOut = device_zeros<float>((size_t)n * n);
    dim3 grid = grid1d(n, c.block());
    auto launch = [&]() { softmax_rows<<<grid, c.block()>>>(dIn, dOut, n); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dOut, (size_t)n * n);
    report(time_launches(launch, c.reps), h);
    cudaFree(dIn); cudaFree(dOut);
    return 0;
}
