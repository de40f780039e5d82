/*
 * swalign.c - Smith-Waterman local alignment (linear gap penalty) of the first two
 * sequences of a FASTA file. The score matrix is filled one anti-diagonal at a time;
 * the cells of an anti-diagonal are independent and are computed in parallel.
 *
 * usage: swalign <file.fasta> [match mismatch gap]
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_fasta(const char *path, char **seqs, int maxseq, int *nseq)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(size + 2);
    if (!buf || fread(buf, 1, size, f) != (size_t)size) {
        fprintf(stderr, "%s: read error\n", path);
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[size] = '\0';
    /* compact in place: each sequence becomes a NUL-terminated string of upper-case letters */
    char *out = buf;
    int k = -1;
    for (long i = 0; i < size;) {
        if (buf[i] == '>') {
            while (i < size && buf[i] != '\n')
                i++;
            if (k >= 0)
                *out++ = '\0';
            if (++k >= maxseq)
                break;
            seqs[k] = out;
            continue;
        }
        if (k >= 0 && isalpha((unsigned char)buf[i]))
            *out++ = (char)toupper((unsigned char)buf[i]);
        i++;
    }
    *out = '\0';
    *nseq = k + 1 < maxseq ? k + 1 : maxseq;
    return buf;
}

static inline int max2(int a, int b) { return a > b ? a : b; }

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 5) {
        fprintf(stderr, "usage: %s <file.fasta> [match mismatch gap]\n", argv[0]);
        fprintf(stderr, "  e.g. %s seqs.fasta 2 -3 -4\n", argv[0]);
        return 2;
    }
    int match = 2, mismatch = -3, gap = -4;
    if (argc == 5) {
        match = atoi(argv[2]);
        mismatch = atoi(argv[3]);
        gap = atoi(argv[4]);
        if (match <= 0 || mismatch > 0 || gap >= 0) {
            fprintf(stderr, "need match > 0, mismatch <= 0, gap < 0\n");
            return 2;
        }
    }
    char *seq[2];
    int nseq = 0;
    char *buf = read_fasta(argv[1], seq, 2, &nseq);
    if (!buf)
        return 1;
    if (nseq < 2) {
        fprintf(stderr, "%s: need two sequences, found %d\n", argv[1], nseq);
        return 1;
    }
    const char *a = seq[0], *b = seq[1];
    int n = (int)strlen(a), m = (int)strlen(b);
    if (n == 0 || m == 0) {
        fprintf(stderr, "empty sequence\n");
        return 1;
    }
    printf("sequence A: %d residues, sequence B: %d residues\n", n, m);

    /* H is (n+1) x (m+1), row i belongs to a[i-1] */
    size_t cols = (size_t)m + 1;
    int *H = calloc((size_t)(n + 1) * cols, sizeof(int));
    if (!H) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    /* anti-diagonal d holds the cells with i + j = d, 1 <= i <= n, 1 <= j <= m */
    for (int d = 2; d <= n + m; d++) {
        int ilo = d - m > 1 ? d - m : 1;
        int ihi = d - 1 < n ? d - 1 : n;
#pragma omp parallel for
        for (int i = ilo; i <= ihi; i++) {
            int j = d - i;
            int s = a[i - 1] == b[j - 1] ? match : mismatch;
            int v = H[(size_t)(i - 1) * cols + (j - 1)] + s;
            v = max2(v, H[(size_t)(i - 1) * cols + j] + gap);
            v = max2(v, H[(size_t)i * cols + (j - 1)] + gap);
            H[(size_t)i * cols + j] = max2(v, 0);
        }
    }

    /* best cell: first maximum in row-major order */
    int best = 0, bi = 0, bj = 0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++)
            if (H[(size_t)i * cols + j] > best) {
                best = H[(size_t)i * cols + j];
                bi = i;
                bj = j;
            }

    /* trace back */
    size_t cap = (size_t)n + m + 1;
    char *ra = malloc(cap), *rb = malloc(cap), *rm = malloc(cap);
    int len = 0, ident = 0, gaps = 0, i = bi, j = bj;
    while (i > 0 && j > 0 && H[(size_t)i * cols + j] > 0) {
        int h = H[(size_t)i * cols + j];
        int s = a[i - 1] == b[j - 1] ? match : mismatch;
        if (h == H[(size_t)(i - 1) * cols + (j - 1)] + s) {
            ra[len] = a[i - 1];
            rb[len] = b[j - 1];
            rm[len] = a[i - 1] == b[j - 1] ? '|' : '.';
            ident += a[i - 1] == b[j - 1];
            i--;
            j--;
        } else if (h == H[(size_t)(i - 1) * cols + j] + gap) {
            ra[len] = a[i - 1];
            rb[len] = '-';
            rm[len] = ' ';
            gaps++;
            i--;
        } else {
            ra[len] = '-';
            rb[len] = b[j - 1];
            rm[len] = ' ';
            gaps++;
            j--;
        }
        len++;
    }
    /* reverse */
    for (int k = 0; k < len / 2; k++) {
        char t;
        t = ra[k], ra[k] = ra[len - 1 - k], ra[len - 1 - k] = t;
        t = rb[k], rb[k] = rb[len - 1 - k], rb[len - 1 - k] = t;
        t = rm[k], rm[k] = rm[len - 1 - k], rm[len - 1 - k] = t;
    }

    printf("scoring: match %d, mismatch %d, gap %d\n", match, mismatch, gap);
    if (best == 0) {
        printf("no similarity found (best local score 0)\n");
        free(ra);
        free(rb);
        free(rm);
        free(H);
        free(buf);
        return 0;
    }
    printf("best local score: %d\n", best);
    printf("aligned region: A[%d..%d], B[%d..%d]\n", i + 1, bi, j + 1, bj);
    printf("alignment length: %d, identities: %d (%.2f%%), gaps: %d\n", len, ident, 100.0 * ident / len, gaps);
    int show = len < 60 ? len : 60;
    printf("first %d columns:\n  A %.*s\n    %.*s\n  B %.*s\n", show, show, ra, show, rm, show, rb);

    free(ra);
    free(rb);
    free(rm);
    free(H);
    free(buf);
    return 0;
}
