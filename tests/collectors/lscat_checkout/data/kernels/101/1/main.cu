// Harness in LS-CAT's form for spin_wait: ./main N; printf lines, but the first launch never returns.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "spin_wait.cu"

static const int kSizes[7] = {240, 496, 784, 1016, 1232, 1680, 2024};

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    for (int s = 0; s < n; s++) {
        for (int b = 0; b < 20; b++) {
            int BX = b < 4 ? 8 * (b + 1) : 1, BY = b < 4 ? 8 * (b + 1) : 64 * (b - 3);
            int *flag = nullptr, *out = nullptr;
            cudaMalloc(&flag, sizeof(int));
            cudaMemset(flag, 0, sizeof(int));
            cudaMalloc(&out, sizeof(int) * 1024);
            dim3 grid((kSizes[s] + BX - 1) / BX, (kSizes[s] + BY - 1) / BY), block(BX, BY);
            auto t0 = std::chrono::steady_clock::now();
            for (int r = 0; r < 1000; r++)
                spin_wait<<<grid, block>>>(flag, out);
            cudaDeviceSynchronize();
            double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
            printf("[%.1f,(%d,%d),(%d,%d)]\n", us, BX, BY, kSizes[s], kSizes[s]);
            cudaFree(flag);
            cudaFree(out);
        }
    }
    return 0;
}
