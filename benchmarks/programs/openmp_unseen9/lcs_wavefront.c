/*
 * lcs_wavefront.c - longest common subsequence of two DNA sequences.
 *
 * The dynamic-programming table is filled one anti-diagonal at a time:
 * every cell on diagonal d = i + j depends only on diagonals d-1 and d-2,
 * so the cells of one diagonal can be computed in parallel.
 *
 * usage: lcs_wavefront seqA.fa seqB.fa
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define MAX_LEN 60000

static char *read_fasta(const char *path, int *out_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s'\n", path);
        return NULL;
    }
    char line[4096];
    int have_header = 0;
    size_t cap = 1024, len = 0;
    char *seq = malloc(cap);
    if (!seq) {
        fprintf(stderr, "error: out of memory\n");
        fclose(f);
        return NULL;
    }
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t l = strlen(line);
        while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
            line[--l] = '\0';
        if (l == 0)
            continue;
        if (line[0] == '>') {
            if (have_header) {
                fprintf(stderr, "error: %s:%d: more than one sequence in file\n", path, lineno);
                goto bad;
            }
            have_header = 1;
            continue;
        }
        if (!have_header) {
            fprintf(stderr, "error: %s:%d: expected a '>' header line first\n", path, lineno);
            goto bad;
        }
        for (size_t k = 0; k < l; k++) {
            char c = line[k];
            if (c >= 'a' && c <= 'z')
                c = (char)(c - 'a' + 'A');
            if (c != 'A' && c != 'C' && c != 'G' && c != 'T' && c != 'N') {
                fprintf(stderr, "error: %s:%d: invalid character '%c' in sequence\n",
                        path, lineno, line[k]);
                goto bad;
            }
            if (len + 1 >= cap) {
                cap *= 2;
                char *t = realloc(seq, cap);
                if (!t) {
                    fprintf(stderr, "error: out of memory\n");
                    goto bad;
                }
                seq = t;
            }
            seq[len++] = c;
        }
    }
    if (!have_header) {
        fprintf(stderr, "error: %s: no FASTA header found\n", path);
        goto bad;
    }
    if (len == 0) {
        fprintf(stderr, "error: %s: empty sequence\n", path);
        goto bad;
    }
    if (len > MAX_LEN) {
        fprintf(stderr, "error: %s: sequence longer than %d characters\n", path, MAX_LEN);
        goto bad;
    }
    seq[len] = '\0';
    fclose(f);
    *out_len = (int)len;
    return seq;
bad:
    free(seq);
    fclose(f);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s seqA.fa seqB.fa\n", argv[0]);
        return 2;
    }
    int n, m;
    char *a = read_fasta(argv[1], &n);
    if (!a)
        return 1;
    char *b = read_fasta(argv[2], &m);
    if (!b) {
        free(a);
        return 1;
    }

    const size_t w = (size_t)m + 1;
    uint16_t *L = calloc(((size_t)n + 1) * w, sizeof *L);
    if (!L) {
        fprintf(stderr, "error: out of memory for %d x %d table\n", n, m);
        return 1;
    }

    /* anti-diagonal wavefront: cell (i,j) with i+j == d */
    for (int d = 2; d <= n + m; d++) {
        int ilo = d - m > 1 ? d - m : 1;
        int ihi = d - 1 < n ? d - 1 : n;
        #pragma omp parallel for
        for (int i = ilo; i <= ihi; i++) {
            int j = d - i;
            size_t idx = (size_t)i * w + j;
            if (a[i - 1] == b[j - 1]) {
                L[idx] = L[idx - w - 1] + 1;
            } else {
                uint16_t up = L[idx - w], left = L[idx - 1];
                L[idx] = up >= left ? up : left;
            }
        }
    }

    int lcs = L[(size_t)n * w + m];

    /* trace back one common subsequence */
    char *sub = malloc((size_t)lcs + 1);
    int i = n, j = m, k = lcs;
    sub[lcs] = '\0';
    while (i > 0 && j > 0) {
        if (a[i - 1] == b[j - 1]) {
            sub[--k] = a[i - 1];
            i--;
            j--;
        } else if (L[(size_t)(i - 1) * w + j] >= L[(size_t)i * w + j - 1]) {
            i--;
        } else {
            j--;
        }
    }

    /* similarity = 2*LCS/(n+m), printed with two decimals using integers */
    long long sim = (20000LL * lcs + (n + m) / 2) / (n + m);  /* hundredths of a percent */

    printf("sequence A: %d bases\n", n);
    printf("sequence B: %d bases\n", m);
    printf("LCS length: %d\n", lcs);
    printf("similarity: %lld.%02lld%%\n", sim / 100, sim % 100);
    int show = lcs < 40 ? lcs : 40;
    printf("LCS first %d: %.*s\n", show, show, sub);
    printf("LCS last %d:  %s\n", show, sub + (lcs - show));

    free(sub);
    free(L);
    free(a);
    free(b);
    return 0;
}
