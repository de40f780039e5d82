// Host program for scan_exclusive: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "scan_exclusive.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    long n = (long)c.xsize * c.ysize;
    std::vector<int> a(n);
    fill_small(a, 24);
    dim3 grid = grid1d(n, c.block());
    long blocks = (long)grid.x * grid.y;
    int *dIn = to_device(a), *dOut = device_zeros<int>(n), *dTotals = device_zeros<int>(blocks);
    size_t shared = (size_t)c.threads() * sizeof(int);
    auto launch = [&]() {
        scan_blocks<<<grid, c.block(), shared>>>(dIn, dOut, dTotals, n);
        scan_totals<<<1, 1024>>>(dTotals, blocks);
        scan_add<<<grid, c.block()>>>(dOut, dTotals, n);
    };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dOut, n);
    report(time_launches(launch, c.reps), h);
    cudaFree(dIn); cudaFree(dOut); cudaFree(dTotals);
    return 0;
}
