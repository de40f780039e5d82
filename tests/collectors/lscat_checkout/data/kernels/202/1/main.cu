// Harness in LS-CAT's form for broken_axpy: ./main N (never built: the kernel does not compile).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include "broken_axpy.cu"

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    for (int s = 0; s < n; s++)
        for (int b = 0; b < 20; b++)
            printf("[%d,(%d,%d),(%d,%d)]\n", 1, 16, 16, 240, 240);
    return 0;
}
