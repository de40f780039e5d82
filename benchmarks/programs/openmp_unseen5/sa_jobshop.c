/*
 * sa_jobshop: simulated annealing for a batch of job-shop scheduling
 * instances.
 *
 * A solution is an operation-based sequence (each job index appears once per
 * machine); it is decoded into a semi-active schedule and the makespan is the
 * cost.  The neighbourhood swaps two positions that hold different jobs.
 * Temperature falls geometrically from T0 to T_end over the iteration budget.
 *
 * usage: sa_jobshop INSTANCE_FILE T0 T_END ITERATIONS [SEED]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JOBS 64
#define MAX_MACH 32
#define NAME_LEN 32

typedef struct {
    char name[NAME_LEN];
    int jobs, machines;
    int mach[MAX_JOBS][MAX_MACH]; /* machine of k-th operation of job j */
    int time[MAX_JOBS][MAX_MACH]; /* processing time of that operation */
} Instance;

typedef struct {
    int best;
    int lower_bound;
    long long evaluations;
    long long accepted;
} Result;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s INSTANCE_FILE T0 T_END ITERATIONS [SEED]\n", prog);
}

/* skip blank lines and '#' comment lines, return next line or NULL */
static char *next_line(FILE *f, char *buf, int len)
{
    while (fgets(buf, len, f)) {
        char *p = buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        return p;
    }
    return NULL;
}

static Instance *read_instances(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open instance file '%s'\n", path);
        return NULL;
    }
    char line[4096];
    char *p = next_line(f, line, sizeof line);
    int n = 0;
    if (!p || sscanf(p, "%d", &n) != 1 || n <= 0 || n > 10000) {
        fprintf(stderr, "error: '%s': bad instance count\n", path);
        fclose(f);
        return NULL;
    }
    Instance *inst = calloc((size_t)n, sizeof *inst);
    if (!inst) {
        fprintf(stderr, "error: out of memory\n");
        fclose(f);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        Instance *in = &inst[i];
        p = next_line(f, line, sizeof line);
        if (!p || sscanf(p, "%31s %d %d", in->name, &in->jobs, &in->machines) != 3 ||
            in->jobs < 1 || in->jobs > MAX_JOBS || in->machines < 1 || in->machines > MAX_MACH) {
            fprintf(stderr, "error: '%s': bad header for instance %d\n", path, i + 1);
            goto fail;
        }
        for (int j = 0; j < in->jobs; j++) {
            p = next_line(f, line, sizeof line);
            if (!p) {
                fprintf(stderr, "error: '%s': instance %s truncated\n", path, in->name);
                goto fail;
            }
            int seen[MAX_MACH] = {0};
            for (int k = 0; k < in->machines; k++) {
                char *end;
                long m = strtol(p, &end, 10);
                if (end == p)
                    goto bad_row;
                p = end;
                long t = strtol(p, &end, 10);
                if (end == p)
                    goto bad_row;
                p = end;
                if (m < 0 || m >= in->machines || seen[m] || t < 0 || t > 100000)
                    goto bad_row;
                seen[m] = 1;
                in->mach[j][k] = (int)m;
                in->time[j][k] = (int)t;
            }
        }
    }
    fclose(f);
    *count = n;
    return inst;

bad_row:
    fprintf(stderr, "error: '%s': malformed job line\n", path);
fail:
    fclose(f);
    free(inst);
    return NULL;
}

/* xorshift64* */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int rng_below(uint64_t *s, int n)
{
    return (int)((rng_next(s) >> 33) % (uint64_t)n);
}

static int lower_bound(const Instance *in)
{
    int lb = 0;
    int load[MAX_MACH] = {0};
    for (int j = 0; j < in->jobs; j++) {
        int len = 0;
        for (int k = 0; k < in->machines; k++) {
            len += in->time[j][k];
            load[in->mach[j][k]] += in->time[j][k];
        }
        if (len > lb)
            lb = len;
    }
    for (int m = 0; m < in->machines; m++)
        if (load[m] > lb)
            lb = load[m];
    return lb;
}

/* decode an operation sequence into a semi-active schedule, return makespan */
static int makespan(const Instance *in, const unsigned char *seq, int len)
{
    int job_ready[MAX_JOBS] = {0};
    int next_op[MAX_JOBS] = {0};
    int mach_ready[MAX_MACH] = {0};
    int cmax = 0;
    for (int i = 0; i < len; i++) {
        int j = seq[i];
        int k = next_op[j]++;
        int m = in->mach[j][k];
        int start = job_ready[j] > mach_ready[m] ? job_ready[j] : mach_ready[m];
        int end = start + in->time[j][k];
        job_ready[j] = end;
        mach_ready[m] = end;
        if (end > cmax)
            cmax = end;
    }
    return cmax;
}

static Result anneal(const Instance *in, double t0, double t_end, long iters, uint64_t seed)
{
    int len = in->jobs * in->machines;
    unsigned char cur[MAX_JOBS * MAX_MACH];
    unsigned char best_seq[MAX_JOBS * MAX_MACH];
    Result r = {0, lower_bound(in), 0, 0};

    /* random initial sequence */
    for (int j = 0, p = 0; j < in->jobs; j++)
        for (int k = 0; k < in->machines; k++)
            cur[p++] = (unsigned char)j;
    for (int i = len - 1; i > 0; i--) {
        int k = rng_below(&seed, i + 1);
        unsigned char t = cur[i];
        cur[i] = cur[k];
        cur[k] = t;
    }
    int cur_cost = makespan(in, cur, len);
    r.evaluations = 1;
    int best = cur_cost;
    memcpy(best_seq, cur, (size_t)len);

    /* scale temperatures to the instance: T is given in units of the mean
       operation time so the same schedule works for every instance */
    long total = 0;
    for (int j = 0; j < in->jobs; j++)
        for (int k = 0; k < in->machines; k++)
            total += in->time[j][k];
    double unit = (double)total / len;
    double temp = t0 * unit;
    double alpha = pow(t_end / t0, 1.0 / (double)iters);

    for (long it = 0; it < iters; it++) {
        int a = rng_below(&seed, len);
        int b = rng_below(&seed, len);
        if (cur[a] == cur[b]) {
            temp *= alpha;
            continue;
        }
        unsigned char t = cur[a];
        cur[a] = cur[b];
        cur[b] = t;
        int cost = makespan(in, cur, len);
        r.evaluations++;
        int delta = cost - cur_cost;
        if (delta <= 0 || rng_unit(&seed) < exp(-(double)delta / temp)) {
            cur_cost = cost;
            r.accepted++;
            if (cost < best) {
                best = cost;
                memcpy(best_seq, cur, (size_t)len);
            }
        } else {
            cur[b] = cur[a];
            cur[a] = t;
        }
        temp *= alpha;
    }
    r.best = makespan(in, best_seq, len);
    return r;
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    double t0 = strtod(argv[2], &end);
    if (*end || !(t0 > 0.0)) {
        usage(argv[0]);
        return 2;
    }
    double t_end = strtod(argv[3], &end);
    if (*end || !(t_end > 0.0) || t_end > t0) {
        usage(argv[0]);
        return 2;
    }
    long iters = strtol(argv[4], &end, 10);
    if (*end || iters < 1) {
        usage(argv[0]);
        return 2;
    }
    unsigned long long seed = 12345;
    if (argc == 6) {
        seed = strtoull(argv[5], &end, 10);
        if (*end) {
            usage(argv[0]);
            return 2;
        }
    }

    int n = 0;
    Instance *inst = read_instances(argv[1], &n);
    if (!inst)
        return 1;

    Result *res = calloc((size_t)n, sizeof *res);
    if (!res) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }

    /* the instances are independent; each has its own random stream */
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        uint64_t s = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + (uint64_t)(i + 1) * 0xD1B54A32D192ED03ULL;
        if (s == 0)
            s = 1;
        res[i] = anneal(&inst[i], t0, t_end, iters, s);
    }

    /* report the ten largest instances (by operation count, then file order) */
    int order[10];
    int shown = n < 10 ? n : 10;
    char *taken = calloc((size_t)n, 1);
    for (int s = 0; s < shown; s++) {
        int pick = -1;
        for (int i = 0; i < n; i++) {
            if (taken[i])
                continue;
            if (pick < 0 || inst[i].jobs * inst[i].machines > inst[pick].jobs * inst[pick].machines)
                pick = i;
        }
        taken[pick] = 1;
        order[s] = pick;
    }

    printf("job-shop simulated annealing: %d instances, T0=%g T_end=%g, %ld iterations each\n",
           n, t0, t_end, iters);
    printf("%-16s %5s %8s %8s %7s\n", "instance", "size", "best", "lb", "gap%");
    for (int s = 0; s < shown; s++) {
        const Instance *in = &inst[order[s]];
        const Result *r = &res[order[s]];
        char size[16];
        snprintf(size, sizeof size, "%dx%d", in->jobs, in->machines);
        printf("%-16s %5s %8d %8d %7.2f\n", in->name, size, r->best, r->lower_bound,
               100.0 * (r->best - r->lower_bound) / r->lower_bound);
    }

    double gap_sum = 0.0;
    long long evals = 0, accepted = 0;
    int at_bound = 0;
    for (int i = 0; i < n; i++) {
        gap_sum += 100.0 * (res[i].best - res[i].lower_bound) / res[i].lower_bound;
        evals += res[i].evaluations;
        accepted += res[i].accepted;
        if (res[i].best == res[i].lower_bound)
            at_bound++;
    }
    printf("mean gap to lower bound: %.3f%%\n", gap_sum / n);
    printf("instances solved to the lower bound: %d of %d\n", at_bound, n);
    printf("total evaluations: %lld (accepted moves: %lld)\n", evals, accepted);

    free(taken);
    free(res);
    free(inst);
    return 0;
}
