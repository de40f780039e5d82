// mirtune harness for the CUDA kernels in this folder (LS-CAT layout: one directory per kernel, holding the
// kernel source <name>.cu and a main.cu that includes it).
//
// Every main.cu is run as   ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS]
// It builds deterministic inputs (small integers, so results do not depend on the order of any sum), launches
// its kernel(s) once on a grid of dim3(BLOCKX, BLOCKY) blocks covering the problem, copies the result back and
// hashes it, then times REPS more launches with CUDA events and prints
//     kernel_ms: <mean milliseconds per launch>
//     checksum: 0x<16 hex digits>
// The checksum is the same for every block shape: each output element is computed by one thread in a fixed
// order, and cross-thread reductions use integers. A launch that fails (a block too large for the kernel's
// registers or shared memory, for example) prints the CUDA error on stderr and exits with status 3.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "harness_device.cuh"

#define CUDA_CHECK(call)                                                                                    \
    do {                                                                                                    \
        cudaError_t err_ = (call);                                                                          \
        if (err_ != cudaSuccess) {                                                                          \
            fprintf(stderr, "CUDA error %s: %s (%s:%d)\n", cudaGetErrorName(err_), cudaGetErrorString(err_),  \
                    __FILE__, __LINE__);                                                                    \
            exit(3);                                                                                        \
        }                                                                                                   \
    } while (0)

struct Config {
    int xsize, ysize, blockx, blocky, reps;
    dim3 block() const { return dim3(blockx, blocky); }
    int threads() const { return blockx * blocky; }
};

static Config parse_config(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s XSIZE YSIZE BLOCKX BLOCKY [REPS]\n", argv[0]);
        exit(2);
    }
    Config c;
    c.xsize = atoi(argv[1]);
    c.ysize = atoi(argv[2]);
    c.blockx = atoi(argv[3]);
    c.blocky = atoi(argv[4]);
    c.reps = argc > 5 ? atoi(argv[5]) : 10;
    if (c.xsize < 1 || c.ysize < 1 || c.blockx < 1 || c.blocky < 1 || c.reps < 1) {
        fprintf(stderr, "sizes, block dimensions and repetitions must be positive\n");
        exit(2);
    }
    if (c.blockx * c.blocky > 1024) {
        fprintf(stderr, "a block holds at most 1024 threads, not %d x %d\n", c.blockx, c.blocky);
        exit(2);
    }
    return c;
}

// A 2-D grid of blocks covering nx x ny elements.
static dim3 grid2d(int nx, int ny, dim3 b)
{
    return dim3((nx + b.x - 1) / b.x, (ny + b.y - 1) / b.y);
}

// A grid of blocks covering n elements with one thread each (block shape flattened).
static dim3 grid1d(long n, dim3 b)
{
    long per = (long)b.x * b.y;
    return dim3((unsigned)((n + per - 1) / per));
}

// Small integers 0..15 from a fixed-seed LCG (exact in every type, so no sum depends on its order).
template <typename T>
static void fill_small(std::vector<T> &v, uint32_t seed, uint32_t mask = 15u)
{
    uint32_t s = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < v.size(); i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = (T)((s >> 16) & mask);
    }
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

template <typename T>
static uint64_t hash_device(uint64_t h, const T *dev, size_t count)
{
    std::vector<T> host(count);
    CUDA_CHECK(cudaMemcpy(host.data(), dev, count * sizeof(T), cudaMemcpyDeviceToHost));
    return fnv1a(h, host.data(), count * sizeof(T));
}

template <typename T>
static T *to_device(const std::vector<T> &v)
{
    T *d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
    CUDA_CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T>
static T *device_zeros(size_t count)
{
    T *d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, count * sizeof(T)));
    CUDA_CHECK(cudaMemset(d, 0, count * sizeof(T)));
    return d;
}

// Run `launch` once, checking for launch and execution errors (a block shape the kernel cannot run with).
template <typename F>
static void run_once(F launch)
{
    launch();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
}

// The mean time of `reps` launches, with CUDA events.
template <typename F>
static float time_launches(F launch, int reps)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    for (int r = 0; r < reps; r++)
        launch();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms / reps;
}

static void report(float ms, uint64_t checksum)
{
    printf("kernel_ms: %.6f\n", ms);
    printf("checksum: 0x%016llx\n", (unsigned long long)checksum);
}

static const uint64_t FNV_OFFSET = 1469598103934665603ULL;
