/*
 * bucket_counts.c - histogram of 32-bit sensor readings in 65,536 buckets.
 *
 * Input files (one or more): binary, little-endian
 *   bytes 0-3   magic "SNSR"
 *   bytes 4-7   format version (1)
 *   bytes 8-11  number of readings N
 *   then N unsigned 32-bit readings
 * A reading falls into bucket (reading >> 16).  Buckets are counted for all
 * files together and for each file on its own (to show drift between
 * sensors).
 *
 * usage: bucket_counts readings1.bin [readings2.bin ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define NBUCKETS 65536
#define SCAN_BLOCK 1024
#define NBLOCKS (NBUCKETS / SCAN_BLOCK)
#define TOP 5

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* read the readings of one file into *data (grown as needed); returns the count or -1 */
static long load_file(const char *path, uint32_t **data, size_t *cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s'\n", path);
        return -1;
    }
    unsigned char hdr[12];
    if (fread(hdr, 1, 12, f) != 12 || memcmp(hdr, "SNSR", 4) != 0 || le32(hdr + 4) != 1) {
        fprintf(stderr, "error: %s: not a version-1 SNSR readings file\n", path);
        fclose(f);
        return -1;
    }
    size_t n = le32(hdr + 8);
    if (fseek(f, 0, SEEK_END) != 0 || ftell(f) != (long)(12 + 4 * n)) {
        fprintf(stderr, "error: %s: header announces %zu readings but the file size does not match\n",
                path, n);
        fclose(f);
        return -1;
    }
    fseek(f, 12, SEEK_SET);
    if (n > *cap) {
        uint32_t *t = realloc(*data, n * sizeof *t);
        if (!t) {
            fprintf(stderr, "error: out of memory\n");
            fclose(f);
            return -1;
        }
        *data = t;
        *cap = n;
    }
    unsigned char *buf = malloc(4 * n + 1);
    if (!buf || fread(buf, 4, n, f) != n) {
        fprintf(stderr, "error: %s: read failed\n", path);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    for (size_t k = 0; k < n; k++)
        (*data)[k] = le32(buf + 4 * k);
    free(buf);
    return (long)n;
}

/* first bucket at which the running count reaches target */
static int bucket_at(const uint32_t *count, uint64_t target)
{
    uint64_t s = 0;
    for (int i = 0; i < NBUCKETS; i++) {
        s += count[i];
        if (s >= target)
            return i;
    }
    return NBUCKETS - 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s readings1.bin [readings2.bin ...]\n", argv[0]);
        return 2;
    }
    int nfiles = argc - 1;
    uint32_t *data = NULL;
    size_t cap = 0;
    uint64_t total = 0;
    uint32_t *count = calloc(NBUCKETS, sizeof *count);       /* all files */
    uint32_t *fcount = malloc(NBUCKETS * sizeof *fcount);    /* current file */
    uint64_t *cum = malloc(NBUCKETS * sizeof *cum);
    long *file_n = calloc((size_t)nfiles, sizeof *file_n);
    int *file_median = calloc((size_t)nfiles, sizeof *file_median);
    uint32_t lo = UINT32_MAX, hi = 0;

    for (int f = 0; f < nfiles; f++) {
        long n = load_file(argv[f + 1], &data, &cap);
        if (n < 0)
            return 1;
        memset(fcount, 0, NBUCKETS * sizeof *fcount);

        #pragma omp parallel for reduction(min:lo) reduction(max:hi)
        for (long k = 0; k < n; k++) {
            uint32_t v = data[k];
            uint32_t b = v >> 16;
            #pragma omp atomic
            count[b]++;
            #pragma omp atomic
            fcount[b]++;
            if (v < lo)
                lo = v;
            if (v > hi)
                hi = v;
        }

        file_n[f] = n;
        file_median[f] = n ? bucket_at(fcount, ((uint64_t)n + 1) / 2) : -1;
        total += (uint64_t)n;
    }
    if (total == 0) {
        fprintf(stderr, "error: the input files contain no readings\n");
        return 1;
    }

    /* parallel prefix sum: scan each block, then add the block offsets */
    uint64_t block_total[NBLOCKS], block_offset[NBLOCKS];
    #pragma omp parallel for
    for (int b = 0; b < NBLOCKS; b++) {
        uint64_t s = 0;
        for (int i = b * SCAN_BLOCK; i < (b + 1) * SCAN_BLOCK; i++) {
            s += count[i];
            cum[i] = s;
        }
        block_total[b] = s;
    }
    uint64_t run = 0;
    for (int b = 0; b < NBLOCKS; b++) {
        block_offset[b] = run;
        run += block_total[b];
    }
    #pragma omp parallel for
    for (int b = 0; b < NBLOCKS; b++)
        for (int i = b * SCAN_BLOCK; i < (b + 1) * SCAN_BLOCK; i++)
            cum[i] += block_offset[b];

    if (cum[NBUCKETS - 1] != total) {
        fprintf(stderr, "error: internal count mismatch\n");
        return 1;
    }

    long empty = 0;
    #pragma omp parallel for reduction(+:empty)
    for (int i = 0; i < NBUCKETS; i++)
        empty += count[i] == 0;

    /* most populated buckets; ties go to the lower bucket */
    int top[TOP];
    int ntop = 0;
    for (int i = 0; i < NBUCKETS; i++) {
        int pos = ntop;
        while (pos > 0 && count[top[pos - 1]] < count[i])
            pos--;
        if (pos >= TOP)
            continue;
        if (ntop < TOP)
            ntop++;
        memmove(top + pos + 1, top + pos, sizeof(int) * (size_t)(ntop - 1 - pos));
        top[pos] = i;
    }

    printf("files: %d, readings: %llu\n", nfiles, (unsigned long long)total);
    printf("smallest reading: %u, largest reading: %u\n", lo, hi);
    printf("empty buckets: %ld of %d\n", empty, NBUCKETS);
    static const int pct[] = { 1, 10, 50, 90, 99 };
    printf("percentiles (bucket = reading >> 16):\n");
    for (int p = 0; p < 5; p++) {
        uint64_t target = (total * (uint64_t)pct[p] + 99) / 100;
        if (target == 0)
            target = 1;
        int lo_b = 0, hi_b = NBUCKETS - 1;      /* first bucket with cum >= target */
        while (lo_b < hi_b) {
            int mid = (lo_b + hi_b) / 2;
            if (cum[mid] >= target)
                hi_b = mid;
            else
                lo_b = mid + 1;
        }
        printf("  p%-2d: bucket %5d (readings %u..%u)\n", pct[p], lo_b,
               (uint32_t)lo_b << 16, ((uint32_t)lo_b << 16) | 0xFFFFu);
    }
    printf("most populated buckets:\n");
    for (int t = 0; t < ntop; t++)
        printf("  bucket %5d: %u readings\n", top[t], count[top[t]]);

    printf("median bucket per file:\n");
    for (int f = 0; f < nfiles; f++)
        printf("  %-24s %8ld readings, median bucket %5d\n", argv[f + 1], file_n[f], file_median[f]);

    free(count);
    free(fcount);
    free(cum);
    free(data);
    free(file_n);
    free(file_median);
    return 0;
}
