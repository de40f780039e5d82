/* triangle_count: number of triangles in a generated power-law undirected graph, by merging the sorted higher-id neighbour lists of u and v for every edge u < v.
 * Category: graph analytics (two big parallel loops over vertices; hubs, which have the low ids, cost 10^4-10^6 times more than typical vertices: the top 10 vertices do 60% of the work).
 * Sizes: MIRTUNE_SIZE=1 -> 130000 vertices, ~0.84M edges (max degree ~6400); MIRTUNE_SIZE=2 -> 400000 vertices, ~2.6M edges (max degree ~14500). */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NVERT 400000
#else
#define NVERT 130000
#endif
#define MAXM 12  /* most edges a new vertex brings */

static unsigned long long rng_state = 0x5DEECE66DULL * 7919ULL;

static unsigned long long next_rand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    const int n = NVERT;
    const long maxe = (long)n * MAXM;
    int *eu = malloc(sizeof(int) * (size_t)maxe);
    int *ev = malloc(sizeof(int) * (size_t)maxe);
    long *first = malloc(sizeof(long) * ((size_t)n + 1)); /* edges brought by vertex i: first[i] .. first[i+1]-1 */
    long *rowptr = calloc((size_t)n + 1, sizeof(long));
    if (!eu || !ev || !first || !rowptr)
        return 1;

    /* Holme-Kim style preferential attachment: the first edge of a new vertex goes to the endpoint of a
     * random earlier edge (degree-proportional); each further edge, with probability 1/8, closes a
     * triangle by going to a target of the previous target, otherwise it is degree-proportional again. */
    long ne = 0;
    const int m0 = 6;
    for (int i = 0; i < m0; i++) {
        first[i] = ne;
        for (int j = 0; j < i; j++) {
            eu[ne] = i; ev[ne] = j; ne++;
        }
    }
    for (int i = m0; i < n; i++) {
        first[i] = ne;
        int m = 1 + (int)(next_rand() % MAXM);
        int prev = -1;
        for (int k = 0; k < m; k++) {
            int t;
            unsigned long long r = next_rand();
            if (prev >= 0 && (r & 7) == 0 && first[prev + 1] > first[prev]) {
                long cnt = first[prev + 1] - first[prev];
                t = ev[first[prev] + (long)((r >> 3) % (unsigned long long)cnt)];
            } else {
                long e = (long)((r >> 1) % (unsigned long long)ne);
                t = ((r >> 40) & 1) ? eu[e] : ev[e];
            }
            eu[ne] = i; ev[ne] = t; ne++;
            prev = t;
        }
    }
    first[n] = ne;

    /* symmetric CSR, sorted neighbour lists without duplicates */
    for (long e = 0; e < ne; e++) {
        rowptr[eu[e] + 1]++;
        rowptr[ev[e] + 1]++;
    }
    for (int i = 0; i < n; i++)
        rowptr[i + 1] += rowptr[i];
    int *adj = malloc(sizeof(int) * (size_t)rowptr[n]);
    if (!adj)
        return 1;
    for (int i = 0; i < n; i++)
        first[i] = rowptr[i];
    for (long e = 0; e < ne; e++) {
        adj[first[eu[e]]++] = ev[e];
        adj[first[ev[e]]++] = eu[e];
    }
    free(eu);
    free(ev);
    long w = 0;
    for (int i = 0; i < n; i++) {
        long b = rowptr[i], end = rowptr[i + 1];
        qsort(adj + b, (size_t)(end - b), sizeof(int), cmp_int);
        rowptr[i] = w;
        for (long p = b; p < end; p++)
            if (p == b || adj[p] != adj[p - 1])
                adj[w++] = adj[p];
    }
    rowptr[n] = w;

    /* hi[u]: first position in u's list holding a neighbour with a larger id (binary search) */
    long *hi = first;
    long long wedges = 0;
#pragma omp parallel for reduction(+:wedges)
    for (int u = 0; u < n; u++) {
        long lo = rowptr[u], up = rowptr[u + 1];
        while (lo < up) {
            long mid = lo + (up - lo) / 2;
            if (adj[mid] <= u)
                lo = mid + 1;
            else
                up = mid;
        }
        hi[u] = lo;
        long long d = rowptr[u + 1] - lo;
        wedges += d * (d - 1) / 2;
    }

    /* triangles u < v < w: for each higher neighbour v of u, merge N+(u) after v with N+(v) */
    long long *tri = malloc(sizeof(long long) * (size_t)n);
    if (!tri)
        return 1;
    long long total = 0;
#pragma omp parallel for reduction(+:total)
    for (int u = 0; u < n; u++) {
        long long t = 0;
        const long uend = rowptr[u + 1];
        for (long p = hi[u]; p < uend; p++) {
            const int v = adj[p];
            long a = p + 1, b = hi[v];
            const long vend = rowptr[v + 1];
            while (a < uend && b < vend) {
                int x = adj[a], y = adj[b];
                if (x < y)
                    a++;
                else if (x > y)
                    b++;
                else {
                    t++;
                    a++;
                    b++;
                }
            }
        }
        tri[u] = t;
        total += t;
    }

    long long weighted = 0, maxtri = 0;
    for (int u = 0; u < n; u++) {
        weighted += tri[u] * (u % 13 + 1);
        if (tri[u] > maxtri)
            maxtri = tri[u];
    }
    long long checksum = total * 1000 + weighted % 1000003LL + maxtri + wedges % 999983LL + w;
    printf("checksum: %lld\n", checksum);
    free(first); free(rowptr); free(adj); free(tri);
    return 0;
}
