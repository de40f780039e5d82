// Harness in LS-CAT's form for scale_rows: ./main N; one line per (matrix size, block shape), printed with cout.
#include <cuda.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include "scale_rows.cu"

static const int kSizes[7] = {240, 496, 784, 1016, 1232, 1680, 2024};
static const int kBlocks[20][2] = {{8, 8}, {16, 16}, {24, 24}, {32, 32}, {1, 64}, {1, 128}, {1, 192}, {1, 256},
                                   {1, 320}, {1, 384}, {1, 448}, {1, 512}, {1, 576}, {1, 640}, {1, 704}, {1, 768},
                                   {1, 832}, {1, 896}, {1, 960}, {1, 1024}};

int main(int argc, char **argv)
{
    int n = (int)strtol(argv[1], nullptr, 10);
    for (int s = 0; s < n; s++) {
        for (int b = 0; b < 20; b++) {
            int X = kSizes[s], Y = kSizes[s], BX = kBlocks[b][0], BY = kBlocks[b][1];
            float *m = nullptr, *f = nullptr;
            cudaMalloc(&m, sizeof(float) * X * Y);
            cudaMalloc(&f, sizeof(float) * Y);
            int gx = (X + BX - 1) / BX, gy = (Y + BY - 1) / BY;
            dim3 grid(gx, gy), block(BX, BY);
            for (int w = 0; w < 10; w++)
                scale_rows<<<grid, block>>>(m, f, X, Y);
            cudaDeviceSynchronize();
            auto t0 = std::chrono::steady_clock::now();
            for (int r = 0; r < 1000; r++)
                scale_rows<<<grid, block>>>(m, f, X, Y);
            cudaDeviceSynchronize();
            double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
            std::cout << '[' << us << ',' << '(' << BX << ',' << BY << ')' << ',' << '(' << X << ',' << Y << ')'
                      << ']' << std::endl;
            cudaFree(m);
            cudaFree(f);
        }
    }
    return 0;
}
