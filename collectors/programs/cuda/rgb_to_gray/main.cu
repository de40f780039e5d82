// Host program for rgb_to_gray: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "rgb_to_gray.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    size_t count = (size_t)c.xsize * c.ysize;
    std::vector<unsigned char> raw(count * 3);
    fill_small(raw, 13, 255u);
    std::vector<uchar3> img(count);
    for (size_t i = 0; i < count; i++)
        img[i] = make_uchar3(raw[3 * i], raw[3 * i + 1], raw[3 * i + 2]);
    uchar3 *dIn = to_device(img);
    unsigned char *dOut = device_zeros<unsigned char>(count);
    dim3 grid = grid2d(c.xsize, c.ysize, c.block());
    auto launch = [&]() { rgb_to_gray<<<grid, c.block()>>>(dIn, dOut, c.xsize, c.ysize); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dOut, count);
    report(time_launches(launch, c.reps), h);
    cudaFree(dIn); cudaFree(dOut);
    return 0;
}
