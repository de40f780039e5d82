// Host program for histogram_global: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "histogram_global.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    long n = (long)c.xsize * c.ysize;
    std::vector<unsigned char> a(n);
    fill_small(a, 23, 255u);
    for (long i = 0; i < n; i += 3)
        a[i] = (unsigned char)(a[i] & 7u);  // skewed: low bins are hot
    unsigned char *dIn = to_device(a);
    unsigned int *dBins = device_zeros<unsigned int>(256);
    dim3 grid = grid1d(n, c.block());
    auto launch = [&]() {
        cudaMemsetAsync(dBins, 0, 256 * sizeof(unsigned int));
        histogram_global<<<grid, c.block()>>>(dIn, dBins, n);
    };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dBins, 256);
    report(time_launches(launch, c.reps), h);
    cudaFree(dIn); cudaFree(dBins);
    return 0;
}
