// Host program for reduce_max_warp: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "reduce_max_warp.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    long n = (long)c.xsize * c.ysize;
    std::vector<int> a(n);
    fill_small(a, 22, 0xffffu);
    int *dIn = to_device(a), *dOut = device_zeros<int>(1);
    dim3 grid = grid1d(n / 8 + 1, c.block());  // each thread folds about 8 elements
    auto launch = [&]() {
        cudaMemsetAsync(dOut, 0, sizeof(int));
        reduce_max_warp<<<grid, c.block()>>>(dIn, dOut, n);
    };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dOut, 1);
    report(time_launches(launch, c.reps), h);
    cudaFree(dIn); cudaFree(dOut);
    return 0;
}
