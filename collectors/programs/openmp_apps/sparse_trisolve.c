/* sparse_trisolve: level-scheduled sparse lower-triangular solve L x = b (as in applying an incomplete-Cholesky preconditioner), repeated for a sequence of right-hand sides.
 * Category: sparse solver (one parallel region per dependency level; levels from 1 row to thousands of rows, rows of 1 to 40 nonzeros; many regions of very unequal size).
 * Sizes: MIRTUNE_SIZE=1 -> 65020 rows, 0.66M off-diagonal nonzeros, 775 levels (widest 1351 rows), 70 solves; MIRTUNE_SIZE=2 -> 201880 rows, 2.1M nonzeros, 1525 levels (widest 2822), 80 solves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
static const int boxes[3][3] = {{56, 56, 40}, {40, 36, 30}, {90, 24, 14}};
#define NSEP 3000
#define NSOLVES 80
#else
static const int boxes[3][3] = {{36, 36, 30}, {30, 24, 20}, {64, 16, 10}};
#define NSEP 1500
#define NSOLVES 70
#endif
#define MAXOFF 39       /* most off-diagonal entries per row */
#define REACH 3         /* fill reaches up to REACH cells back along each axis */

static unsigned long long lcg_state = 0x853C49E6748FEA9BULL;

static unsigned int next_u32(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned int)(lcg_state >> 33);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorts the columns of row [start, *nnz), drops duplicates, gives them values and returns the diagonal. */
static double finish_row(int *col, double *val, int start, int *nnz)
{
    qsort(col + start, (size_t)(*nnz - start), sizeof(int), cmp_int);
    int w = start;
    double offsum = 0.0;
    for (int p = start; p < *nnz; p++)
        if (p == start || col[p] != col[p - 1]) {
            col[w] = col[p];
            val[w] = -(0.2 + (double)(next_u32() % 1000) / 1250.0);
            offsum += -val[w];
            w++;
        }
    *nnz = w;
    return 1.0 + offsum;
}

int main(void)
{
    int maxrows = NSEP;
    for (int bx = 0; bx < 3; bx++)
        maxrows += boxes[bx][0] * boxes[bx][1] * boxes[bx][2];
    int *rowptr = malloc(sizeof(int) * ((size_t)maxrows + 1));
    int *col = malloc(sizeof(int) * (size_t)maxrows * (MAXOFF + 1));
    double *val = malloc(sizeof(double) * (size_t)maxrows * (MAXOFF + 1));
    double *diag = malloc(sizeof(double) * (size_t)maxrows);
    if (!rowptr || !col || !val || !diag)
        return 1;

    /* Strictly lower part in CSR (sorted, no duplicates), diagonal kept apart. Like an incomplete
     * factor of a 3-D problem split into three independent subdomains (boxes, natural ordering) and a
     * separator: a box row couples to its face neighbours below it and to random fill cells up to REACH
     * back along each axis; a separator row couples to a few earlier separator rows and to random box
     * rows. Box rows form wavefront levels (x + y + z), the separator a long chain of narrow levels. */
    int nnz = 0, row = 0, base = 0;
    rowptr[0] = 0;
    for (int bx = 0; bx < 3; bx++) {
        const int nx = boxes[bx][0], ny = boxes[bx][1], nz = boxes[bx][2];
        for (int z = 0; z < nz; z++)
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < nx; x++) {
                    const int start = nnz;
                    if (x > 0 && next_u32() % 8 != 0)
                        col[nnz++] = row - 1;
                    if (y > 0 && next_u32() % 8 != 0)
                        col[nnz++] = row - nx;
                    if (z > 0 && next_u32() % 8 != 0)
                        col[nnz++] = row - nx * ny;
                    int fill = (int)(next_u32() % (MAXOFF - 2));
                    if (next_u32() % 2 != 0)
                        fill /= 4; /* half the rows are short */
                    for (int k = 0; k < fill; k++) {
                        int dx = (int)(next_u32() % (REACH + 1)), dy = (int)(next_u32() % (REACH + 1));
                        int dz = (int)(next_u32() % (REACH + 1));
                        if (dx + dy + dz == 0 || dx > x || dy > y || dz > z)
                            continue;
                        col[nnz++] = row - dx - nx * (dy + ny * dz);
                    }
                    if (nnz == start && x + y + z > 0) /* every row but a box corner has a neighbour */
                        col[nnz++] = x > 0 ? row - 1 : (y > 0 ? row - nx : row - nx * ny);
                    diag[row] = finish_row(col, val, start, &nnz);
                    rowptr[++row] = nnz;
                }
        base = row;
    }
    for (int s = 0; s < NSEP; s++) {
        const int start = nnz;
        const int nprev = s < 3 ? s : 1 + (int)(next_u32() % 3);
        for (int k = 0; k < nprev; k++)
            col[nnz++] = row - 1 - (int)(next_u32() % (s < 5 ? (unsigned int)s : 5u));
        const int nfar = 1 + (int)(next_u32() % 20);
        for (int k = 0; k < nfar; k++)
            col[nnz++] = (int)(next_u32() % (unsigned int)base);
        diag[row] = finish_row(col, val, start, &nnz);
        rowptr[++row] = nnz;
    }
    const int n = row;

    /* level of a row: one more than the deepest row it depends on (sequential, once) */
    int *level = malloc(sizeof(int) * (size_t)n);
    if (!level)
        return 1;
    int nlev = 0;
    for (int i = 0; i < n; i++) {
        int l = 0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
            if (level[col[p]] + 1 > l)
                l = level[col[p]] + 1;
        level[i] = l;
        if (l + 1 > nlev)
            nlev = l + 1;
    }
    int *levptr = calloc((size_t)nlev + 1, sizeof(int));
    int *order = malloc(sizeof(int) * (size_t)n);
    if (!levptr || !order)
        return 1;
    for (int i = 0; i < n; i++)
        levptr[level[i] + 1]++;
    for (int l = 0; l < nlev; l++)
        levptr[l + 1] += levptr[l];
    for (int i = 0; i < n; i++)
        order[levptr[level[i]]++] = i;
    for (int l = nlev; l > 0; l--)
        levptr[l] = levptr[l - 1];
    levptr[0] = 0;

    double *x = calloc((size_t)n, sizeof(double));
    double *b = malloc(sizeof(double) * (size_t)n);
    if (!x || !b)
        return 1;

    double checksum = 0.0;
    double xmax = 1.0;
    for (int s = 0; s < NSOLVES; s++) {
        /* next right-hand side: a fixed load plus the scaled previous solution */
        const double scale = 0.5 / xmax;
#pragma omp parallel for firstprivate(scale)
        for (int i = 0; i < n; i++)
            b[i] = 1.0 + 0.25 * ((i * 7 + s) % 11) + scale * x[i];

        for (int l = 0; l < nlev; l++) {
            const int lo = levptr[l], hi = levptr[l + 1];
#pragma omp parallel for
            for (int k = lo; k < hi; k++) {
                const int i = order[k];
                double acc = b[i];
                for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
                    acc -= val[p] * x[col[p]];
                x[i] = acc / diag[i];
            }
        }

        xmax = 0.0;
        double sum = 0.0;
        for (int i = 0; i < n; i++) {
            if (fabs(x[i]) > xmax)
                xmax = fabs(x[i]);
            sum += x[i] * (double)(1 + i % 5);
        }
        checksum += sum / (double)n + xmax;
    }

    printf("checksum: %.12e\n", checksum + 1e-6 * (double)nlev);
    free(rowptr); free(col); free(val); free(diag); free(level); free(levptr); free(order); free(x); free(b);
    return 0;
}
