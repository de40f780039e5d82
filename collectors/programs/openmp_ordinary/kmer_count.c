/*
 * kmer_count.c - count canonical k-mers in a FASTA file.
 *
 * usage: kmer_count FILE K [SPECTRUM_ROWS]
 *
 * Every record of the FASTA file is split into blocks; the blocks are
 * scanned in parallel with a rolling 2-bit encoding and each canonical
 * k-mer (the smaller of the k-mer and its reverse complement) is counted in
 * a dense table of 4^K counters with atomic increments.  Non-ACGT letters
 * (N, IUPAC codes) break k-mers; lower-case (soft-masked) bases are counted.
 * The table is then scanned in parallel for the number of distinct k-mers,
 * the k-mer spectrum (how many k-mers occur 1, 2, 3, ... times) and the ten
 * most frequent k-mers, and a second pass over the sequence measures how
 * repetitive every record is.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAXK 15
#define BLOCK 8192        /* k-mer start positions per work block */
#define SPEC_MAX 1000     /* spectrum bins 1..SPEC_MAX-1, last bin = overflow */
#define TOPN 10
#define CHUNK 16384       /* table entries per work chunk in table scans */

typedef struct {
    char name[64];
    long start;           /* offset into the code array */
    long len;
    long acgt, gc, masked;
} record_t;

typedef struct {
    long start, end;      /* k-mer start positions [start, end) */
    int rec;
} block_t;

typedef struct {
    uint32_t count;
    uint32_t kmer;
} hit_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s FILE K [SPECTRUM_ROWS]\n", prog);
    fprintf(stderr, "  FILE           FASTA file\n");
    fprintf(stderr, "  K              k-mer length, 1..%d\n", MAXK);
    fprintf(stderr, "  SPECTRUM_ROWS  rows of the k-mer spectrum to print (default 12)\n");
    exit(2);
}

static int parse_int_arg(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

static int base_code(int c)
{
    switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return 4;
    }
}

static void decode(uint32_t kmer, int k, char *out)
{
    static const char letters[4] = {'A', 'C', 'G', 'T'};
    for (int i = k - 1; i >= 0; i--) {
        out[i] = letters[kmer & 3];
        kmer >>= 2;
    }
    out[k] = '\0';
}

/* better = higher count, ties broken by the smaller k-mer */
static int better(const hit_t *a, const hit_t *b)
{
    return a->count > b->count || (a->count == b->count && a->kmer < b->kmer);
}

static void insert_top(hit_t *top, int *n, hit_t h)
{
    if (*n == TOPN && !better(&h, &top[TOPN - 1]))
        return;
    int i = *n < TOPN ? (*n)++ : TOPN - 1;
    while (i > 0 && better(&h, &top[i - 1])) {
        top[i] = top[i - 1];
        i--;
    }
    top[i] = h;
}

/* Read the FASTA file into 2-bit codes (4 = not ACGT). */
static unsigned char *read_fasta(const char *path, record_t **recs_out, int *nrec_out, long *len_out)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "kmer_count: cannot open '%s': %s\n", path, strerror(errno));
        exit(1);
    }
    long cap = 1 << 20, len = 0;
    unsigned char *code = malloc((size_t)cap);
    int rcap = 16, nrec = 0;
    record_t *recs = malloc((size_t)rcap * sizeof *recs);
    char line[4096];
    long lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        size_t n = strcspn(line, "\r\n");
        line[n] = '\0';
        if (line[0] == '>') {
            if (nrec == rcap) {
                rcap *= 2;
                recs = realloc(recs, (size_t)rcap * sizeof *recs);
            }
            record_t *r = &recs[nrec++];
            memset(r, 0, sizeof *r);
            size_t w = strcspn(line + 1, " \t");
            if (w >= sizeof r->name)
                w = sizeof r->name - 1;
            memcpy(r->name, line + 1, w);
            r->name[w] = '\0';
            r->start = len;
            continue;
        }
        if (n == 0)
            continue;
        if (nrec == 0) {
            fprintf(stderr, "kmer_count: %s:%ld: sequence data before the first '>' header\n",
                    path, lineno);
            exit(1);
        }
        if (len + (long)n > cap) {
            while (len + (long)n > cap)
                cap *= 2;
            code = realloc(code, (size_t)cap);
        }
        record_t *r = &recs[nrec - 1];
        for (size_t i = 0; i < n; i++) {
            int c = base_code(line[i]);
            code[len++] = (unsigned char)c;
            if (c < 4) {
                r->acgt++;
                r->gc += (c == 1 || c == 2);
                r->masked += (line[i] >= 'a');
            }
        }
        r->len = len - r->start;
    }
    fclose(fp);
    if (nrec == 0) {
        fprintf(stderr, "kmer_count: '%s' contains no FASTA records\n", path);
        exit(1);
    }
    *recs_out = recs;
    *nrec_out = nrec;
    *len_out = len;
    return code;
}

/* Write the canonical k-mers starting in [b->start, b->end) to out (at most
 * BLOCK of them, in order) and return how many there are. */
static int block_kmers(const unsigned char *code, const record_t *recs, const block_t *b,
                       int k, uint32_t *out)
{
    const long rec_end = recs[b->rec].start + recs[b->rec].len;
    long stop = b->end + k - 1;
    if (stop > rec_end)
        stop = rec_end;
    const uint32_t mask = (1u << (2 * k)) - 1;
    const int shift = 2 * (k - 1);
    uint32_t fwd = 0, rev = 0;
    int run = 0, n = 0;
    for (long p = b->start; p < stop; p++) {
        unsigned c = code[p];
        if (c > 3) {
            run = 0;
            fwd = rev = 0;
            continue;
        }
        fwd = ((fwd << 2) | c) & mask;
        rev = (rev >> 2) | ((uint32_t)(3 - c) << shift);
        if (++run >= k)
            out[n++] = fwd < rev ? fwd : rev;
    }
    return n;
}

int main(int argc, char **argv)
{
    int k, spec_rows = 12;
    if (argc < 3 || argc > 4)
        usage(argv[0]);
    if (!parse_int_arg(argv[2], 1, MAXK, &k))
        usage(argv[0]);
    if (argc > 3 && !parse_int_arg(argv[3], 1, SPEC_MAX - 1, &spec_rows))
        usage(argv[0]);

    record_t *recs;
    int nrec;
    long len;
    unsigned char *code = read_fasta(argv[1], &recs, &nrec, &len);

    /* split every record into blocks of k-mer start positions */
    long nblocks = 0;
    for (int r = 0; r < nrec; r++)
        nblocks += (recs[r].len + BLOCK - 1) / BLOCK;
    block_t *blocks = malloc((size_t)(nblocks > 0 ? nblocks : 1) * sizeof *blocks);
    long nb = 0;
    for (int r = 0; r < nrec; r++)
        for (long s = 0; s < recs[r].len; s += BLOCK) {
            blocks[nb].start = recs[r].start + s;
            blocks[nb].end = recs[r].start + (s + BLOCK < recs[r].len ? s + BLOCK : recs[r].len);
            blocks[nb].rec = r;
            nb++;
        }

    size_t tsize = (size_t)1 << (2 * k);
    uint32_t *counts = malloc(tsize * sizeof *counts);
    if (!counts) {
        fprintf(stderr, "kmer_count: cannot allocate a table of 4^%d counters\n", k);
        return 1;
    }
    long nchunks = (long)((tsize + CHUNK - 1) / CHUNK);

    /* zero the table in parallel (first touch spreads the page faults) */
#pragma omp parallel for
    for (long ch = 0; ch < nchunks; ch++) {
        size_t lo = (size_t)ch * CHUNK, hi = lo + CHUNK < tsize ? lo + CHUNK : tsize;
        memset(counts + lo, 0, (hi - lo) * sizeof *counts);
    }

    /* 1. count canonical k-mers */
    long long total = 0;
#pragma omp parallel for reduction(+:total)
    for (long i = 0; i < nblocks; i++) {
        uint32_t km[BLOCK];
        int n = block_kmers(code, recs, &blocks[i], k, km);
        for (int j = 0; j < n; j++) {
#pragma omp atomic
            counts[km[j]]++;
        }
        total += n;
    }

    /* 2. distinct k-mers and the k-mer spectrum */
    long long distinct = 0;
    long long spectrum[SPEC_MAX];
    memset(spectrum, 0, sizeof spectrum);
#pragma omp parallel
    {
        long long local[SPEC_MAX];
        memset(local, 0, sizeof local);
#pragma omp for reduction(+:distinct)
        for (long ch = 0; ch < nchunks; ch++) {
            size_t lo = (size_t)ch * CHUNK, hi = lo + CHUNK < tsize ? lo + CHUNK : tsize;
            for (size_t i = lo; i < hi; i++) {
                uint32_t c = counts[i];
                if (c) {
                    distinct++;
                    local[c < SPEC_MAX ? c : SPEC_MAX - 1]++;
                }
            }
        }
#pragma omp critical
        for (int j = 0; j < SPEC_MAX; j++)
            spectrum[j] += local[j];
    }

    /* 3. top k-mers: best TOPN of every chunk, merged sequentially */
    hit_t *chunk_top = malloc((size_t)nchunks * TOPN * sizeof *chunk_top);
    int *chunk_n = malloc((size_t)nchunks * sizeof *chunk_n);
#pragma omp parallel for
    for (long ch = 0; ch < nchunks; ch++) {
        size_t lo = (size_t)ch * CHUNK, hi = lo + CHUNK < tsize ? lo + CHUNK : tsize;
        int n = 0;
        hit_t *top = &chunk_top[ch * TOPN];
        for (size_t i = lo; i < hi; i++) {
            if (counts[i] == 0)
                continue;
            if (n == TOPN && counts[i] <= top[TOPN - 1].count)
                continue;
            hit_t h = {counts[i], (uint32_t)i};
            insert_top(top, &n, h);
        }
        chunk_n[ch] = n;
    }
    hit_t best[TOPN];
    int nbest = 0;
    for (long ch = 0; ch < nchunks; ch++)
        for (int j = 0; j < chunk_n[ch]; j++)
            insert_top(best, &nbest, chunk_top[ch * TOPN + j]);

    /* 4. repetitiveness per record: k-mer positions whose k-mer is seen >= 3 times */
    long long *blk_rep = calloc((size_t)(nblocks > 0 ? nblocks : 1), sizeof *blk_rep);
    long long *blk_all = calloc((size_t)(nblocks > 0 ? nblocks : 1), sizeof *blk_all);
#pragma omp parallel for
    for (long i = 0; i < nblocks; i++) {
        uint32_t km[BLOCK];
        int n = block_kmers(code, recs, &blocks[i], k, km);
        long long rep = 0;
        for (int j = 0; j < n; j++)
            rep += counts[km[j]] >= 3;
        blk_rep[i] = rep;
        blk_all[i] = n;
    }

    /* ---- report ---- */
    long long bases = 0;
    for (int r = 0; r < nrec; r++)
        bases += recs[r].len;
    printf("file %s: %d records, %lld bases, k = %d (table of %zu counters)\n",
           argv[1], nrec, bases, k, tsize);
    printf("k-mers counted: %lld, distinct canonical: %lld, singletons: %lld\n",
           total, distinct, spectrum[1]);

    printf("\nrecord        length   GC%%  masked%%  kmers  repetitive%%\n");
    for (int r = 0; r < nrec; r++) {
        long long rep = 0, all = 0;
        for (long i = 0; i < nblocks; i++)
            if (blocks[i].rec == r) {
                rep += blk_rep[i];
                all += blk_all[i];
            }
        printf("%-12s %7ld  %5.2f  %6.2f  %7lld  %6.2f\n", recs[r].name, recs[r].len,
               recs[r].acgt ? 100.0 * recs[r].gc / recs[r].acgt : 0.0,
               recs[r].acgt ? 100.0 * recs[r].masked / recs[r].acgt : 0.0, all,
               all ? 100.0 * rep / all : 0.0);
    }

    printf("\ntop %d k-mers:\n", nbest);
    char buf[MAXK + 1];
    for (int i = 0; i < nbest; i++) {
        decode(best[i].kmer, k, buf);
        printf("  %2d. %s  %u\n", i + 1, buf, best[i].count);
    }

    printf("\nk-mer spectrum (occurrences: number of distinct k-mers)\n");
    long long beyond = 0;
    for (int j = spec_rows + 1; j < SPEC_MAX; j++)
        beyond += spectrum[j];
    for (int j = 1; j <= spec_rows; j++)
        printf("  %4d: %lld\n", j, spectrum[j]);
    printf("  >%3d: %lld (largest count %u)\n", spec_rows, beyond, nbest ? best[0].count : 0);

    free(blk_rep);
    free(blk_all);
    free(chunk_top);
    free(chunk_n);
    free(counts);
    free(blocks);
    free(recs);
    free(code);
    return 0;
}
