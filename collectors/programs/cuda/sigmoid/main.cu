// Host program for sigmoid: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "sigmoid.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    long n = (long)c.xsize * c.ysize;
    std::vector<float> a(n);
    fill_small(a, 33);
    float *dIn = to_device(a), *dOut = device_zeros<float>(n);
    dim3 grid = grid1d(n, c.block());
    auto launch = [&]() { sigmoid<<<grid, c.block()>>>(dIn, dOut, n); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dOut, n);
    report(time_launches(launch, c.reps), h);
    cudaFree(dIn); cudaFree(dOut);
    return 0;
}
