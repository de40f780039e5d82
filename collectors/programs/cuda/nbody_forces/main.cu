// Host program for nbody_forces: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "nbody_forces.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    int n = c.xsize * 4;  // 960 ... 8096 bodies
    std::vector<float> raw((size_t)n * 4);
    fill_small(raw, 31);
    std::vector<float4> pos(n);
    for (int i = 0; i < n; i++)
        pos[i] = make_float4(raw[4 * i], raw[4 * i + 1], raw[4 * i + 2], 1.0f + raw[4 * i + 3]);
    float4 *dPos = to_device(pos);
    float3 *dAcc = device_zeros<float3>(n);
    dim3 grid = grid1d(n, c.block());
    auto launch = [&]() { nbody_forces<<<grid, c.block()>>>(dPos, dAcc, n); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dAcc, n);
    report(time_launches(launch, c.reps), h);
    cudaFree(dPos); cudaFree(dAcc);
    return 0;
}
