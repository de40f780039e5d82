// Host program for matmul_naive: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "matmul_naive.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    int n = c.xsize;
    size_t count = (size_t)n * n;
    std::vector<float> a(count), b(count);
    fill_small(a, 1);
    fill_small(b, 2);
    float *dA = to_device(a), *dB = to_device(b), *dC = device_zeros<float>(count);
    dim3 grid = grid2d(n, n, c.block());
    auto launch = [&]() { matmul_naive<<<grid, c.block()>>>(dA, dB, dC, n); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dC, count);
    report(time_launches(launch, c.reps), h);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
