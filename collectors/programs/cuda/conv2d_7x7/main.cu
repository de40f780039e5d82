// Host program for conv2d_7x7: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "conv2d_7x7.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    size_t count = (size_t)c.xsize * c.ysize;
    std::vector<float> a(count), w(49);
    fill_small(a, 9);
    fill_small(w, 10, 7u);
    float *dIn = to_device(a), *dW = to_device(w), *dOut = device_zeros<float>(count);
    dim3 grid = grid2d(c.xsize, c.ysize, c.block());
    auto launch = [&]() { conv2d_7x7<<<grid, c.block()>>>(dIn, dW, dOut, c.xsize, c.ysize); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dOut, count);
    report(time_launches(launch, c.reps), h);
    cudaFree(dIn); cudaFree(dW); cudaFree(dOut);
    return 0;
}
