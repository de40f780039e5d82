// Host program for matvec_rows: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "matvec_rows.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    int n = c.xsize;
    std::vector<float> a((size_t)n * n), x(n);
    fill_small(a, 26);
    fill_small(x, 27);
    float *dA = to_device(a), *dX = to_device(x), *dY = device_zeros<float>(n);
    dim3 grid = grid1d(n, c.block());
    auto launch = [&]() { matvec_rows<<<grid, c.block()>>>(dA, dX, dY, n); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dY, n);
    report(time_launches(launch, c.reps), h);
    cudaFree(dA); cudaFree(dX); cudaFree(dY);
    return 0;
}
