// Host program for matrix_axpby: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "matrix_axpby.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    size_t count = (size_t)c.xsize * c.ysize;
    std::vector<float> a(count), b(count);
    fill_small(a, 4);
    fill_small(b, 5);
    float *dA = to_device(a), *dB = to_device(b), *dC = device_zeros<float>(count);
    dim3 grid = grid2d(c.xsize, c.ysize, c.block());
    auto launch = [&]() { matrix_axpby<<<grid, c.block()>>>(dA, dB, dC, 1.5f, -0.25f, c.xsize, c.ysize); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dC, count);
    report(time_launches(launch, c.reps), h);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return 0;
}
