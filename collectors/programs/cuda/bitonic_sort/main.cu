// Host program for bitonic_sort: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "bitonic_sort.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    long count = (long)c.xsize * c.ysize, n = 1;
    while (n < count)
        n *= 2;
    std::vector<int> a(n, 0x7fffffff);
    std::vector<int> vals(count);
    fill_small(vals, 25, 0xfffffu);
    for (long i = 0; i < count; i++)
        a[i] = vals[i];
    int *dPristine = to_device(a), *dData = device_zeros<int>(n);
    dim3 grid = grid1d(n, c.block());
    auto launch = [&]() {
        cudaMemcpyAsync(dData, dPristine, n * sizeof(int), cudaMemcpyDeviceToDevice);
        for (long k = 2; k <= n; k *= 2)
            for (long j = k / 2; j > 0; j /= 2)
                bitonic_step<<<grid, c.block()>>>(dData, n, j, k);
    };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dData, count);
    report(time_launches(launch, c.reps), h);
    cudaFree(dPristine); cudaFree(dData);
    return 0;
}
