/*
 * markov_rank.c - stationary distribution of a dense Markov chain.
 *
 * Reads a matrix of observed transition counts between named states,
 * normalises each row into transition probabilities (rows without any
 * observation become uniform), and runs power iteration
 *
 *     pi_{k+1} = pi_k P
 *
 * until the largest change of any component drops below a tolerance.
 * Reports the most probable states, the entropy of the stationary
 * distribution and an estimate of the second eigenvalue / mixing time
 * taken from the observed convergence rate.
 *
 * Input format:
 *     # comment lines
 *     states N
 *     NAME c_1 c_2 ... c_N        (N lines, non-negative integer counts)
 *
 * usage: markov_rank COUNTS_FILE TOLERANCE MAX_ITER [TOP]
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define NAME_LEN 32
#define RATE_WINDOW 20

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s COUNTS_FILE TOLERANCE MAX_ITER [TOP]\n", prog);
    exit(2);
}

static void bad_file(const char *path, const char *what)
{
    fprintf(stderr, "markov_rank: %s: %s\n", path, what);
    exit(1);
}

typedef struct {
    int idx;
    double p;
} rank_t;

static int cmp_rank(const void *a, const void *b)
{
    const rank_t *x = a, *y = b;
    if (x->p > y->p) return -1;
    if (x->p < y->p) return 1;
    return x->idx - y->idx;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5)
        usage(argv[0]);
    char *end;
    double tol = strtod(argv[2], &end);
    if (*end != '\0' || !(tol > 0.0) || tol >= 1.0)
        usage(argv[0]);
    long max_iter = strtol(argv[3], &end, 10);
    if (*end != '\0' || max_iter < 1)
        usage(argv[0]);
    int top = 10;
    if (argc == 5) {
        top = (int)strtol(argv[4], &end, 10);
        if (*end != '\0' || top < 1)
            usage(argv[0]);
    }

    const char *path = argv[1];
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "markov_rank: cannot open %s\n", path);
        return 1;
    }

    /* header: skip comment lines, then "states N" */
    int n = 0;
    char line[256];
    for (;;) {
        if (!fgets(line, sizeof line, f))
            bad_file(path, "missing 'states N' header");
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        if (sscanf(s, "states %d", &n) != 1 || n < 2 || n > 20000)
            bad_file(path, "malformed 'states N' header");
        break;
    }

    char (*names)[NAME_LEN] = malloc((size_t)n * NAME_LEN);
    double *P = malloc((size_t)n * n * sizeof(double));   /* row-major P[i][j] */
    double *Pt = malloc((size_t)n * n * sizeof(double));  /* transpose Pt[j][i] */
    double *pi = malloc((size_t)n * sizeof(double));
    double *nxt = malloc((size_t)n * sizeof(double));
    long *rowtot = malloc((size_t)n * sizeof(long));
    if (!names || !P || !Pt || !pi || !nxt || !rowtot) {
        fprintf(stderr, "markov_rank: out of memory\n");
        return 1;
    }

    long total_obs = 0;
    int empty_rows = 0;
    for (int i = 0; i < n; i++) {
        if (fscanf(f, "%31s", names[i]) != 1)
            bad_file(path, "unexpected end of file (too few rows)");
        long tot = 0;
        for (int j = 0; j < n; j++) {
            long c;
            if (fscanf(f, "%ld", &c) != 1 || c < 0)
                bad_file(path, "malformed count (expected non-negative integers)");
            P[(size_t)i * n + j] = (double)c;
            tot += c;
        }
        rowtot[i] = tot;
        total_obs += tot;
        if (tot == 0) {
            empty_rows++;
            for (int j = 0; j < n; j++)
                P[(size_t)i * n + j] = 1.0 / n;
        } else {
            for (int j = 0; j < n; j++)
                P[(size_t)i * n + j] /= (double)tot;
        }
    }
    {
        char extra[8];
        if (fscanf(f, "%7s", extra) == 1)
            bad_file(path, "trailing data after the last row");
    }
    fclose(f);

    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            Pt[(size_t)j * n + i] = P[(size_t)i * n + j];

    for (int i = 0; i < n; i++)
        pi[i] = 1.0 / n;

    /* history of the change norm, to estimate the convergence rate */
    double hist[RATE_WINDOW + 1];
    int nhist = 0;
    long iter = 0;
    double diff = 1.0;
    while (iter < max_iter) {
        diff = 0.0;
#pragma omp parallel for reduction(max:diff)
        for (int j = 0; j < n; j++) {
            const double *col = Pt + (size_t)j * n;
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += col[i] * pi[i];
            nxt[j] = s;
            double d = fabs(s - pi[j]);
            if (d > diff)
                diff = d;
        }
        double *tmp = pi;
        pi = nxt;
        nxt = tmp;
        iter++;

        if (nhist <= RATE_WINDOW) {
            hist[nhist++] = diff;
        } else {
            memmove(hist, hist + 1, RATE_WINDOW * sizeof(double));
            hist[RATE_WINDOW] = diff;
        }
        if (diff < tol)
            break;
    }

    /* convergence-rate estimate of |lambda_2| over the last window */
    double lambda2 = NAN;
    if (nhist == RATE_WINDOW + 1 && hist[0] > 0.0 && hist[RATE_WINDOW] > 0.0)
        lambda2 = pow(hist[RATE_WINDOW] / hist[0], 1.0 / RATE_WINDOW);

    /* sequential summaries in a fixed order */
    double sum = 0.0, entropy = 0.0, pmin = 1.0;
    int imin = 0;
    for (int i = 0; i < n; i++) {
        sum += pi[i];
        if (pi[i] > 0.0)
            entropy -= pi[i] * log(pi[i]);
        if (pi[i] < pmin) {
            pmin = pi[i];
            imin = i;
        }
    }

    rank_t *rk = malloc((size_t)n * sizeof(rank_t));
    for (int i = 0; i < n; i++) {
        rk[i].idx = i;
        rk[i].p = pi[i] / sum;
    }
    qsort(rk, (size_t)n, sizeof(rank_t), cmp_rank);

    printf("states: %d, observed transitions: %ld, rows without data: %d\n", n,
           total_obs, empty_rows);
    if (diff < tol)
        printf("power iteration converged in %ld iterations (max change %.2e < %.1e)\n",
               iter, diff, tol);
    else
        printf("power iteration stopped after %ld iterations (max change %.2e, tol %.1e)\n",
               iter, diff, tol);
    printf("top %d states by stationary probability:\n", top < n ? top : n);
    for (int k = 0; k < top && k < n; k++) {
        int i = rk[k].idx;
        printf("  %2d. %-20s %.6f  (%ld departures observed)\n", k + 1, names[i], rk[k].p,
               rowtot[i]);
    }
    printf("least probable state: %s (%.3e)\n", names[imin], pmin / sum);
    printf("entropy: %.5f nats (uniform would be %.5f), effective states %.2f\n", entropy,
           log((double)n), exp(entropy));
    if (!isnan(lambda2) && lambda2 < 1.0) {
        double t_rel = 1.0 / (1.0 - lambda2);
        double t_mix = t_rel * log(4.0 / (pmin / sum));
        printf("estimated |lambda_2| = %.5f, relaxation time %.1f steps, "
               "mixing time (eps 1/4) <= %.0f steps\n",
               lambda2, t_rel, t_mix);
    } else {
        printf("not enough iterations to estimate the mixing rate\n");
    }

    free(rk); free(names); free(P); free(Pt); free(pi); free(nxt); free(rowtot);
    return 0;
}
