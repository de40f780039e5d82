// Host program for spmv_csr: ./prog XSIZE YSIZE BLOCKX BLOCKY [REPS] prints kernel_ms and checksum.
#include "harness.cuh"
#include "spmv_csr.cu"

int main(int argc, char **argv)
{
    Config c = parse_config(argc, argv);
    CUDA_CHECK(cudaSetDevice(0));
    int rows = c.xsize * c.ysize / 4;
    std::vector<int> rowptr(rows + 1), cols;
    std::vector<float> vals;
    cols.reserve((size_t)rows * 8);
    vals.reserve((size_t)rows * 8);
    uint32_t s = 99u;
    for (int r = 0; r < rows; r++) {
        rowptr[r] = (int)cols.size();
        s = s * 1664525u + 1013904223u;
        int half = 1 + (int)((s >> 16) % 5u);  // 3 .. 11 non-zeros
        for (int d = -half; d <= half; d++) {
            int col = r + d * 7;
            if (col >= 0 && col < rows) {
                cols.push_back(col);
                vals.push_back((float)((d + 16) & 15));
            }
        }
    }
    rowptr[rows] = (int)cols.size();
    std::vector<float> x(rows);
    fill_small(x, 32);
    int *dRow = to_device(rowptr), *dCol = to_device(cols);
    float *dVal = to_device(vals), *dX = to_device(x), *dY = device_zeros<float>(rows);
    dim3 grid = grid1d(rows, c.block());
    auto launch = [&]() { spmv_csr<<<grid, c.block()>>>(dRow, dCol, dVal, dX, dY, rows); };
    run_once(launch);
    uint64_t h = hash_device(FNV_OFFSET, dY, rows);
    report(time_launches(launch, c.reps), h);
    cudaFree(dRow); cudaFree(dCol); cudaFree(dVal); cudaFree(dX); cudaFree(dY);
    return 0;
}
