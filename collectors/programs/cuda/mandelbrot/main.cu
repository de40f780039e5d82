// Host program for mandelbrot: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "mandelbrot.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    size_t count = (size_t)c.xsize * c.ysize;
    int *dOut = device_zeros<int>(count);
    dim3 grid = grid2d(c.xsize, c.ysize, c.block());
    auto launch = [&]() { mandelbrot<<<grid, c.block()>>>(dOut, c.xsize, c.ysize, 256); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dOut, count);
    report(time_launches(launch, c.reps), h);
    cudaFree(dOut);
    return 0;
}
