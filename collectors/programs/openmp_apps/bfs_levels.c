/* bfs_levels: level-synchronous breadth-first search from 16 sources on a generated power-law undirected graph (CSR).
 * Category: graph traversal (two parallel regions per BFS level, frontiers from 1 vertex to a large share of the graph; hub vertices cost thousands of times more).
 * Sizes: MIRTUNE_SIZE=1 -> 100000 vertices, ~0.71M edges; MIRTUNE_SIZE=2 -> 300000 vertices, ~2.1M edges. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NVERT 300000
#else
#define NVERT 100000
#endif
#define MAXM 14        /* most edges a new core vertex brings */
#define NSOURCES 16
#define TAIL_PERCENT 6 /* last 6% of the vertices hang off the core as chains */

static unsigned long long rng_state = 0x2545F4914F6CDD1DULL;

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

/* Preferential attachment: a new vertex picks endpoints of random existing edges, so targets are chosen
 * proportionally to their degree. The tail vertices form chains (each continues the previous one with
 * probability 7/8, otherwise starts a new chain at a random core vertex). Returns the edge count. */
static long generate_edges(int n, int *eu, int *ev)
{
    int *ends = malloc(sizeof(int) * 2 * (size_t)n * MAXM);
    if (!ends) {
        exit(1);
    }
    long ne = 0, nends = 0;
    const int ncore = n - n / 100 * TAIL_PERCENT;
    const int m0 = 8;
    for (int i = 0; i < m0; i++)
        for (int j = i + 1; j < m0; j++) {
            eu[ne] = i; ev[ne] = j; ne++;
            ends[nends++] = i; ends[nends++] = j;
        }
    for (int i = m0; i < ncore; i++) {
        int m = 1 + (int)(next_rand() % MAXM);
        for (int k = 0; k < m; k++) {
            int t = ends[next_rand() % (unsigned long long)nends];
            eu[ne] = i; ev[ne] = t; ne++;
            ends[nends++] = i; ends[nends++] = t;
        }
    }
    for (int i = ncore; i < n; i++) {
        int t;
        if (i > ncore && next_rand() % 8 != 0)
            t = i - 1;
        else
            t = (int)(next_rand() % (unsigned long long)ncore);
        eu[ne] = i; ev[ne] = t; ne++;
    }
    free(ends);
    return ne;
}

int main(void)
{
    const int n = NVERT;
    const long maxe = (long)n * MAXM;
    int *eu = malloc(sizeof(int) * maxe);
    int *ev = malloc(sizeof(int) * maxe);
    long *rowptr = calloc((size_t)n + 1, sizeof(long));
    if (!eu || !ev || !rowptr)
        return 1;
    const long ne = generate_edges(n, eu, ev);

    /* symmetric CSR, sorted neighbour lists without duplicates */
    for (long e = 0; e < ne; e++) {
        rowptr[eu[e] + 1]++;
        rowptr[ev[e] + 1]++;
    }
    for (int i = 0; i < n; i++)
        rowptr[i + 1] += rowptr[i];
    int *adj = malloc(sizeof(int) * (size_t)rowptr[n]);
    long *fill = malloc(sizeof(long) * (size_t)n);
    if (!adj || !fill)
        return 1;
    for (int i = 0; i < n; i++)
        fill[i] = rowptr[i];
    for (long e = 0; e < ne; e++) {
        adj[fill[eu[e]]++] = ev[e];
        adj[fill[ev[e]]++] = eu[e];
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
    free(fill);

    int *level = malloc(sizeof(int) * (size_t)n);
    int *parent = malloc(sizeof(int) * (size_t)n);
    int *frontier = malloc(sizeof(int) * (size_t)n);
    int *next = malloc(sizeof(int) * (size_t)n);
    long *offs = malloc(sizeof(long) * ((size_t)n + 1));
    if (!level || !parent || !frontier || !next || !offs)
        return 1;

    long long checksum = 0;
    for (int s = 0; s < NSOURCES; s++) {
        /* mix of hubs (low ids), ordinary core vertices and chain vertices */
        int src;
        if (s % 4 == 0)
            src = s;
        else
            src = (int)(((long long)s * 2654435761LL) % n);

#pragma omp parallel for
        for (int v = 0; v < n; v++) {
            level[v] = -1;
            parent[v] = -1;
        }
        level[src] = 0;
        parent[src] = src;
        frontier[0] = src;
        long fsize = 1;
        int depth = 0;
        long long reached = 1, levelsum = 0;

        while (fsize > 0) {
            /* claim unvisited neighbours; offs[i] counts the vertices frontier[i] claimed */
#pragma omp parallel for
            for (long i = 0; i < fsize; i++) {
                const int u = frontier[i];
                long c = 0;
                for (long p = rowptr[u]; p < rowptr[u + 1]; p++) {
                    const int v = adj[p];
                    if (__atomic_load_n(&parent[v], __ATOMIC_RELAXED) == -1 &&
                        __sync_bool_compare_and_swap(&parent[v], -1, u)) {
                        level[v] = depth + 1;
                        c++;
                    }
                }
                offs[i] = c;
            }
            long total = 0;
            for (long i = 0; i < fsize; i++) {
                long c = offs[i];
                offs[i] = total;
                total += c;
            }
            /* compact: each frontier vertex writes the vertices it claimed to its own slice */
#pragma omp parallel for
            for (long i = 0; i < fsize; i++) {
                const int u = frontier[i];
                long k = offs[i];
                for (long p = rowptr[u]; p < rowptr[u + 1]; p++)
                    if (parent[adj[p]] == u)
                        next[k++] = adj[p];
            }
            depth++;
            reached += total;
            levelsum += (long long)total * depth;
            checksum += total * (long long)(depth % 7 + 1);
            int *tmp = frontier;
            frontier = next;
            next = tmp;
            fsize = total;
        }
        long long unreached = 0, lvsum = 0;
        for (int v = 0; v < n; v++) {
            if (level[v] < 0)
                unreached++;
            else
                lvsum += level[v];
        }
        checksum += reached * 3 + levelsum + lvsum * 5 + unreached * 11 + (long long)depth * 1000003LL;
    }

    printf("checksum: %lld\n", checksum);
    free(rowptr); free(adj); free(level); free(parent); free(frontier); free(next); free(offs);
    return 0;
}
