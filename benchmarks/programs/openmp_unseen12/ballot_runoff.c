/*
 * ballot_runoff: instant-runoff (alternative vote) count of a ranked-ballot
 * election.  Every round each ballot goes to its highest-ranked candidate
 * still in the race; the weakest candidate is then eliminated, until someone
 * holds a majority of the continuing ballots.
 *
 * usage: ballot_runoff CANDIDATES.txt BALLOTS.bin
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXC 15
#define NAMELEN 48

_Noreturn static void fail(const char *path, const char *msg)
{
    fprintf(stderr, "ballot_runoff: %s: %s\n", path, msg);
    exit(1);
}

static int read_names(const char *path, char names[MAXC][NAMELEN])
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail(path, "cannot open candidate list");
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\r\n");
        line[len] = '\0';
        if (len == 0)
            continue;
        if (n == MAXC)
            fail(path, "too many candidates");
        if (len >= NAMELEN)
            fail(path, "candidate name too long");
        memcpy(names[n++], line, len + 1);
    }
    fclose(f);
    if (n < 2)
        fail(path, "need at least two candidates");
    return n;
}

/* Ballots are unpacked into one byte per preference; ballot b occupies
   pref[start[b]] .. pref[start[b+1]-1]. */
static void read_ballots(const char *path, int ncand, uint32_t *nballots, uint32_t **start_out, uint8_t **pref_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail(path, "cannot open ballot file");
    char magic[4];
    uint32_t hdr[3];
    if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "IRVB", 4) != 0)
        fail(path, "not an IRVB ballot file");
    if (fread(hdr, sizeof(uint32_t), 3, f) != 3)
        fail(path, "truncated header");
    if ((int)hdr[0] != ncand)
        fail(path, "candidate count differs from the candidate list");
    uint32_t nb = hdr[1], bytes = hdr[2];
    if (nb == 0 || nb > 100000000u || bytes > 1000000000u || (uint64_t)bytes * 2 < (uint64_t)nb * 4)
        fail(path, "implausible ballot or byte count");
    uint8_t *raw = malloc(bytes);
    if (!raw)
        fail(path, "out of memory");
    if (fread(raw, 1, bytes, f) != bytes)
        fail(path, "ballot data truncated");
    if (fgetc(f) != EOF)
        fail(path, "trailing data after ballots");
    fclose(f);

    size_t nnib = (size_t)bytes * 2;
    uint32_t *start = malloc(((size_t)nb + 1) * sizeof(uint32_t));
    uint8_t *pref = malloc(nnib);
    if (!start || !pref)
        fail(path, "out of memory");
    size_t pos = 0, out = 0;
#define NIB(p) ((p) & 1 ? (raw[(p) >> 1] & 15) : (raw[(p) >> 1] >> 4))
    for (uint32_t b = 0; b < nb; b++) {
        if (pos >= nnib)
            fail(path, "fewer ballots than announced");
        int len = NIB(pos);
        pos++;
        if (len < 1 || len > ncand || pos + (size_t)len > nnib)
            fail(path, "bad ballot length");
        start[b] = (uint32_t)out;
        unsigned seen = 0;
        for (int r = 0; r < len; r++, pos++) {
            int c = NIB(pos);
            if (c >= ncand || (seen >> c) & 1u)
                fail(path, "ballot names an unknown or repeated candidate");
            seen |= 1u << c;
            pref[out++] = (uint8_t)c;
        }
    }
    start[nb] = (uint32_t)out;
    if (nnib - pos > 1 || (pos < nnib && NIB(pos) != 0))
        fail(path, "unused data after the last ballot");
#undef NIB
    free(raw);
    *nballots = nb;
    *start_out = start;
    *pref_out = pref;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s CANDIDATES.txt BALLOTS.bin\n", argv[0]);
        return 2;
    }
    char names[MAXC][NAMELEN];
    int nc = read_names(argv[1], names);
    uint32_t nb;
    uint32_t *start;
    uint8_t *pref;
    read_ballots(argv[2], nc, &nb, &start, &pref);

    unsigned char alive[MAXC];
    long first_round[MAXC];
    for (int c = 0; c < nc; c++)
        alive[c] = 1;
    int remaining = nc;
    const long n = (long)nb;

    printf("ballots: %u  candidates: %d\n", nb, nc);
    printf("round ");
    for (int c = 0; c < nc; c++)
        printf(" %8.8s", names[c]);
    printf(" %9s\n", "exhausted");

    for (int round = 1;; round++) {
        long count[MAXC];
        long exhausted = 0;
        for (int c = 0; c < nc; c++)
            count[c] = 0;
#pragma omp parallel for reduction(+ : exhausted)
        for (long b = 0; b < n; b++) {
            uint32_t p = start[b], e = start[b + 1];
            while (p < e && !alive[pref[p]])
                p++;
            if (p < e) {
                int c = pref[p];
#pragma omp atomic
                count[c]++;
            } else {
                exhausted++;
            }
        }
        if (round == 1)
            for (int c = 0; c < nc; c++)
                first_round[c] = count[c];

        printf("%5d ", round);
        for (int c = 0; c < nc; c++) {
            if (alive[c])
                printf(" %8ld", count[c]);
            else
                printf(" %8s", "-");
        }
        printf(" %9ld\n", exhausted);

        long continuing = n - exhausted;
        int best = -1, worst = -1;
        for (int c = 0; c < nc; c++) {
            if (!alive[c])
                continue;
            if (best < 0 || count[c] > count[best])
                best = c;
            /* weakest: fewest votes, then fewest first-round votes, then
               the later position on the list */
            if (worst < 0 || count[c] < count[worst] ||
                (count[c] == count[worst] && first_round[c] <= first_round[worst]))
                worst = c;
        }
        if (2 * count[best] > continuing || remaining == 1) {
            printf("winner: %s with %ld of %ld continuing ballots (%ld.%02ld%%) after %d rounds\n", names[best],
                   count[best], continuing, 100 * count[best] / continuing,
                   (10000 * count[best] / continuing) % 100, round);
            break;
        }
        printf("      eliminated: %s (%ld votes)\n", names[worst], count[worst]);
        alive[worst] = 0;
        remaining--;
    }
    free(start);
    free(pref);
    return 0;
}
