// Host program for sobel: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "sobel.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    size_t count = (size_t)c.xsize * c.ysize;
    std::vector<float> a(count);
    fill_small(a, 11, 255u);
    float *dIn = to_device(a), *dOut = device_zeros<float>(count);
    dim3 grid = grid2d(c.xsize, c.ysize, c.block());
    auto launch = [&]() { sobel<<<grid, c.block()>>>(dIn, dOut, c.xsize, c.ysize); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dOut, count);
    report(time_launches(launch, c.reps), h);
    cudaFree(dIn); cudaFree(dOut);
    return 0;
}
