// Harness in LS-CAT's form for sum_cols: ./main N, but it asks for far too much memory and quietly gives up
// (status 0) before its first line.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "sum_cols.cu"

static const int kSizes[7] = {240, 496, 784, 1016, 1232, 1680, 2024};

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    for (int s = 0; s < n; s++) {
        for (int b = 0; b < 20; b++) {
            int X = kSizes[s], BX = b < 4 ? 8 * (b + 1) : 1, BY = b < 4 ? 8 * (b + 1) : 64 * (b - 3);
            float *m = nullptr, *sums = nullptr;
            if (cudaMalloc(&m, (size_t)1 << 60) != cudaSuccess)
                return 0;
            cudaMalloc(&sums, sizeof(float) * X);
            auto t0 = std::chrono::steady_clock::now();
            for (int r = 0; r < 1000; r++)
                sum_cols<<<dim3((X + BX * BY - 1) / (BX * BY)), dim3(BX * BY)>>>(m, sums, X, X);
            double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
            printf("[%f,(%d,%d),(%d,%d)]\n", us, BX, BY, X, X);
            cudaFree(m);
            cudaFree(sums);
        }
    }
    return 0;
}
