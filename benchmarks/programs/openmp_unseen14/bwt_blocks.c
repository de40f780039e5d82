/*
 * bwt_blocks: estimate how well a file compresses with a block-sorting
 * (bzip2-style) compressor.  The file is cut into blocks of B KB; every
 * block gets a Burrows-Wheeler transform (rotations sorted with qsort),
 * a move-to-front coding, and an order-0 entropy estimate of the MTF output.
 *
 * usage: bwt_blocks file block_kb
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long offset;      /* start of the block in the file */
    int len;          /* bytes in the block */
    int primary;      /* row of the original string in the sorted matrix */
    int mtf_zeros;    /* MTF output symbols equal to 0 */
    double bits;      /* order-0 entropy of the MTF output, in bits */
} block_info;

/* the block being sorted, per thread (qsort has no context argument) */
static _Thread_local const unsigned char *rot_text;
static _Thread_local int rot_len;

static int cmp_rotation(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    int c = memcmp(rot_text + a, rot_text + b, (size_t)rot_len);
    if (c != 0)
        return c;
    return (a > b) - (a < b);
}

static void process_block(const unsigned char *data, block_info *bi)
{
    int n = bi->len;
    unsigned char *twice = malloc(2 * (size_t)n);
    int *rows = malloc((size_t)n * sizeof *rows);
    unsigned char *last = malloc((size_t)n);
    memcpy(twice, data, (size_t)n);
    memcpy(twice + n, data, (size_t)n);
    for (int i = 0; i < n; i++)
        rows[i] = i;

    rot_text = twice;
    rot_len = n;
    qsort(rows, (size_t)n, sizeof *rows, cmp_rotation);

    bi->primary = -1;
    for (int i = 0; i < n; i++) {
        int r = rows[i];
        if (r == 0)
            bi->primary = i;
        last[i] = twice[r + n - 1];
    }

    /* move-to-front coding and symbol statistics */
    unsigned char table[256];
    long count[256] = {0};
    for (int c = 0; c < 256; c++)
        table[c] = (unsigned char)c;
    for (int i = 0; i < n; i++) {
        unsigned char c = last[i];
        int k = 0;
        while (table[k] != c)
            k++;
        memmove(table + 1, table, (size_t)k);
        table[0] = c;
        count[k]++;
    }
    double bits = 0.0;
    for (int k = 0; k < 256; k++)
        if (count[k] > 0)
            bits += count[k] * log2((double)n / count[k]);
    bi->bits = bits;
    bi->mtf_zeros = (int)count[0];

    free(twice);
    free(rows);
    free(last);
}

static double ratio(const block_info *b)
{
    return b->bits / (8.0 * b->len);
}

static int cmp_ratio(const void *pa, const void *pb)
{
    const block_info *a = *(block_info *const *)pa, *b = *(block_info *const *)pb;
    double ra = ratio(a), rb = ratio(b);
    if (ra < rb)
        return -1;
    if (ra > rb)
        return 1;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

static void print_block(const block_info *b, long block_bytes)
{
    printf("  block %4ld  offset %8ld  bytes %6d  mtf zeros %5.1f%%  est. bits/byte %.3f  ratio %.4f\n",
           b->offset / block_bytes, b->offset, b->len, 100.0 * b->mtf_zeros / b->len,
           b->bits / b->len, ratio(b));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bwt_blocks file block_kb\n");
        return 2;
    }
    char *end;
    long kb = strtol(argv[2], &end, 10);
    if (*end != '\0' || kb < 1 || kb > 4096) {
        fprintf(stderr, "usage: bwt_blocks file block_kb   (block_kb in 1..4096)\n");
        return 2;
    }
    long block_bytes = kb * 1024;

    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "bwt_blocks: cannot open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    size_t cap = 1 << 20, size = 0;
    unsigned char *data = malloc(cap);
    for (;;) {
        if (size == cap) {
            cap *= 2;
            data = realloc(data, cap);
        }
        size_t got = fread(data + size, 1, cap - size, f);
        if (got == 0)
            break;
        size += got;
    }
    if (ferror(f)) {
        fprintf(stderr, "bwt_blocks: read error on %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    if (size == 0) {
        fprintf(stderr, "bwt_blocks: %s is empty\n", argv[1]);
        return 1;
    }

    long nblocks = (long)((size + block_bytes - 1) / block_bytes);
    block_info *blocks = calloc((size_t)nblocks, sizeof *blocks);
    for (long b = 0; b < nblocks; b++) {
        blocks[b].offset = b * block_bytes;
        long rest = (long)size - blocks[b].offset;
        blocks[b].len = (int)(rest < block_bytes ? rest : block_bytes);
    }

    #pragma omp parallel for
    for (long b = 0; b < nblocks; b++)
        process_block(data + blocks[b].offset, &blocks[b]);

    double total_bits = 0.0;
    long zeros = 0;
    for (long b = 0; b < nblocks; b++) {
        total_bits += blocks[b].bits;
        zeros += blocks[b].mtf_zeros;
    }
    printf("input: %zu bytes, block size %ld KB\n", size, kb);
    printf("blocks: %ld\n", nblocks);
    printf("MTF zero symbols: %.2f%%\n", 100.0 * zeros / (double)size);
    printf("estimated compressed size: %.0f bits (%.0f bytes), %.3f bits/byte, ratio %.4f\n",
           total_bits, ceil(total_bits / 8.0), total_bits / size, total_bits / (8.0 * size));

    block_info **sorted = malloc((size_t)nblocks * sizeof *sorted);
    for (long b = 0; b < nblocks; b++)
        sorted[b] = &blocks[b];
    qsort(sorted, (size_t)nblocks, sizeof *sorted, cmp_ratio);
    long show = nblocks < 5 ? nblocks : 5;
    printf("best %ld blocks:\n", show);
    for (long i = 0; i < show; i++)
        print_block(sorted[i], block_bytes);
    printf("worst %ld blocks:\n", show);
    for (long i = 0; i < show; i++)
        print_block(sorted[nblocks - 1 - i], block_bytes);

    free(sorted);
    free(blocks);
    free(data);
    return 0;
}
