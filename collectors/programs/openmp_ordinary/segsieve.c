/*
 * segsieve.c - segmented sieve of Eratosthenes over a range [lo, hi).
 *
 * The base primes up to sqrt(hi) are found with a small ordinary sieve.
 * The range is then cut into segments of equal length; each segment is
 * sieved on its own (odd numbers only) and summarised: number of primes,
 * first and last prime, twin pairs and gaps inside the segment, a gap
 * histogram and counts by last digit.  Segments are processed in parallel;
 * the summaries are merged afterwards in segment order, which also takes
 * care of the gaps and twin pairs that straddle segment boundaries.
 *
 * Usage: segsieve lo hi [segment_size]
 *   e.g. segsieve 1000000000 1030000000
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GAP_BINS 256          /* histogram of gap/2, last bin = overflow */
#define DEFAULT_SEGMENT 262144    /* numbers per segment */

typedef struct {
    long count;                   /* primes in the segment */
    uint64_t first, last;         /* first and last prime (0 if none) */
    long twins;                   /* twin pairs with both members inside */
    uint64_t max_gap;             /* largest gap inside the segment */
    uint64_t max_gap_at;          /* the prime that starts it */
    long digit[10];               /* primes by last decimal digit */
    int gaps[MAX_GAP_BINS];       /* gap histogram, gap/2 */
} Segment;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s lo hi [segment_size]\n", prog);
    fprintf(stderr, "  sieve the integers lo <= n < hi (hi <= 10^15, hi - lo <= 10^10)\n");
    fprintf(stderr, "  segment_size  numbers per segment (1000 .. 10^8, default %d)\n",
            DEFAULT_SEGMENT);
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        return -1;
    /* accept plain integers and forms like 1e9 */
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == 0 && *end == '\0') {
        *out = v;
        return 0;
    }
    double d = strtod(s, &end);
    if (*end != '\0' || !(d >= 0) || d > 1e18 || d != floor(d))
        return -1;
    *out = (uint64_t)d;
    return 0;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* all primes <= limit, by a plain sieve */
static uint32_t *base_primes(uint32_t limit, int *nprimes)
{
    unsigned char *composite = xmalloc((size_t)limit + 1);
    memset(composite, 0, (size_t)limit + 1);
    int n = 0;
    for (uint32_t i = 2; i <= limit; i++) {
        if (composite[i])
            continue;
        n++;
        for (uint64_t j = (uint64_t)i * i; j <= limit; j += i)
            composite[j] = 1;
    }
    uint32_t *p = xmalloc((size_t)n * sizeof *p);
    n = 0;
    for (uint32_t i = 2; i <= limit; i++)
        if (!composite[i])
            p[n++] = i;
    free(composite);
    *nprimes = n;
    return p;
}

/* sieve [a, b) into buf (one byte per odd number) and summarise it */
static void sieve_segment(uint64_t a, uint64_t b, const uint32_t *primes, int np,
                          unsigned char *buf, Segment *s)
{
    memset(s, 0, sizeof *s);
    /* odd numbers a0, a0+2, ... < b */
    uint64_t a0 = a | 1;
    if (a0 >= b)
        a0 = b;
    size_t nodd = (b > a0) ? (size_t)((b - a0 + 1) / 2) : 0;
    memset(buf, 1, nodd);

    for (int i = 1; i < np; i++) {          /* skip 2: only odd numbers */
        uint64_t p = primes[i];
        uint64_t start = p * p;
        if (start >= b)
            break;
        if (start < a0) {
            start = ((a0 + p - 1) / p) * p;
            if ((start & 1) == 0)
                start += p;
        }
        for (uint64_t j = (start - a0) / 2; j < nodd; j += p)
            buf[j] = 0;
    }
    if (a0 == 1 && nodd > 0)
        buf[0] = 0;                          /* 1 is not prime */

    uint64_t prev = 0;
    if (a <= 2 && b > 2) {                   /* the only even prime */
        prev = 2;
        s->first = 2;
        s->count = 1;
        s->digit[2]++;
    }
    for (size_t j = 0; j < nodd; j++) {
        if (!buf[j])
            continue;
        uint64_t q = a0 + 2 * (uint64_t)j;
        s->count++;
        s->digit[q % 10]++;
        if (prev) {
            uint64_t g = q - prev;
            if (g == 2)
                s->twins++;
            if (g > s->max_gap) {
                s->max_gap = g;
                s->max_gap_at = prev;
            }
            uint64_t bin = g / 2;
            s->gaps[bin < MAX_GAP_BINS ? bin : MAX_GAP_BINS - 1]++;
        } else {
            s->first = q;
        }
        prev = q;
    }
    s->last = prev;
}

int main(int argc, char **argv)
{
    uint64_t lo, hi, seg = DEFAULT_SEGMENT;
    if (argc < 3 || argc > 4 || parse_u64(argv[1], &lo) || parse_u64(argv[2], &hi) ||
        (argc == 4 && parse_u64(argv[3], &seg))) {
        usage(argv[0]);
        return 2;
    }
    if (hi <= lo || hi > 1000000000000000ULL || hi - lo > 10000000000ULL ||
        seg < 1000 || seg > 100000000) {
        usage(argv[0]);
        return 2;
    }
    if (seg & 1)
        seg++;                               /* keep segment starts of one parity */

    uint32_t root = (uint32_t)sqrt((double)hi);
    while ((uint64_t)root * root < hi)
        root++;
    int np;
    uint32_t *primes = base_primes(root, &np);

    long nseg = (long)((hi - lo + seg - 1) / seg);
    Segment *segs = xmalloc((size_t)nseg * sizeof *segs);

    double t0 = omp_get_wtime();
    #pragma omp parallel
    {
        unsigned char *buf = xmalloc((size_t)seg / 2 + 2);
        #pragma omp for
        for (long i = 0; i < nseg; i++) {
            uint64_t a = lo + (uint64_t)i * seg;
            uint64_t b = a + seg < hi ? a + seg : hi;
            sieve_segment(a, b, primes, np, buf, &segs[i]);
        }
        free(buf);
    }
    double t1 = omp_get_wtime();

    /* merge in segment order */
    long total = 0, twins = 0, digit[10] = {0};
    long gaps[MAX_GAP_BINS] = {0};
    uint64_t first = 0, last = 0, max_gap = 0, max_gap_at = 0;
    long densest = -1, sparsest = -1;
    for (long i = 0; i < nseg; i++) {
        const Segment *s = &segs[i];
        if (s->count == 0)
            continue;
        if (densest < 0 || s->count > segs[densest].count)
            densest = i;
        if (sparsest < 0 || s->count < segs[sparsest].count)
            sparsest = i;
        if (last) {                          /* gap across the boundary */
            uint64_t g = s->first - last;
            if (g == 2)
                twins++;
            if (g > max_gap) {
                max_gap = g;
                max_gap_at = last;
            }
            uint64_t bin = g / 2;
            gaps[bin < MAX_GAP_BINS ? bin : MAX_GAP_BINS - 1]++;
        } else {
            first = s->first;
        }
        if (s->max_gap > max_gap) {
            max_gap = s->max_gap;
            max_gap_at = s->max_gap_at;
        }
        total += s->count;
        twins += s->twins;
        for (int d = 0; d < 10; d++)
            digit[d] += s->digit[d];
        for (int k = 0; k < MAX_GAP_BINS; k++)
            gaps[k] += s->gaps[k];
        last = s->last;
    }

    printf("range [%llu, %llu): %ld segments of %llu, %d base primes\n",
           (unsigned long long)lo, (unsigned long long)hi, nseg,
           (unsigned long long)seg, np);
    if (total == 0) {
        printf("no primes in range\n");
        fprintf(stderr, "sieve time %.3f s\n", t1 - t0);
        free(segs);
        free(primes);
        return 0;
    }
    double range = (double)(hi - lo);
    double expected = 0.0;                   /* li-style estimate: range / ln(mid) */
    double mid = (double)lo + range / 2;
    if (mid > 2)
        expected = range / log(mid);
    printf("primes: %ld (density %.6f, estimate range/ln(mid) %.1f)\n", total,
           total / range, expected);
    printf("first prime %llu, last prime %llu\n", (unsigned long long)first,
           (unsigned long long)last);
    printf("twin prime pairs: %ld\n", twins);
    if (total > 1) {
        printf("largest gap: %llu after %llu\n", (unsigned long long)max_gap,
               (unsigned long long)max_gap_at);
        printf("mean gap: %.4f\n", (double)(last - first) / (double)(total - 1));
        /* the five most common gaps, ties by smaller gap */
        int used[MAX_GAP_BINS] = {0};
        printf("most common gaps:");
        for (int r = 0; r < 5; r++) {
            int best = -1;
            for (int k = 0; k < MAX_GAP_BINS - 1; k++)
                if (!used[k] && gaps[k] > 0 && (best < 0 || gaps[k] > gaps[best]))
                    best = k;
            if (best < 0)
                break;
            used[best] = 1;
            printf(" %d(%ld)", 2 * best + (best == 0), gaps[best]);
        }
        printf("\n");
        if (gaps[MAX_GAP_BINS - 1])
            printf("gaps of %d or more: %ld\n", 2 * (MAX_GAP_BINS - 1),
                   gaps[MAX_GAP_BINS - 1]);
    }
    printf("last digit 1/3/7/9: %ld %ld %ld %ld\n", digit[1], digit[3], digit[7], digit[9]);
    printf("densest segment %ld (%ld primes), sparsest segment %ld (%ld primes)\n",
           densest, segs[densest].count, sparsest, segs[sparsest].count);
    fprintf(stderr, "sieve time %.3f s\n", t1 - t0);

    free(segs);
    free(primes);
    return 0;
}
