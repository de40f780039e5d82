/*
 * forest.c - random forest classifier (CART trees, Gini impurity) on a CSV
 * file whose last column is the class label and whose other columns are
 * numeric features.
 *
 * Every fifth row is held out as a test set.  Each tree is grown on a
 * bootstrap sample of the training rows, trying sqrt(#features) random
 * features at every node.  Reports out-of-bag and test accuracy, a
 * confusion matrix and mean-decrease-in-impurity feature importances.
 *
 * Usage: forest DATA.csv [trees] [max_depth] [seed]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAX_FEATURES 64
#define MAX_CLASSES 16
#define MIN_SPLIT 4

typedef struct {
    int feature;        /* -1 for a leaf */
    double threshold;   /* go left if x[feature] <= threshold */
    int left, right;
    int cls;            /* majority class (used at leaves) */
} Node;

typedef struct {
    Node *nodes;
    int count, cap;
    int depth;
    double importance[MAX_FEATURES];
} Tree;

typedef struct {
    double v;
    int label;
} VL;

typedef struct {
    uint64_t s;
} Rng;

static int nrows, nfeat, nclass;
static double *X;               /* nrows x nfeat */
static int *Y;
static char feat_name[MAX_FEATURES][32];
static char class_name[MAX_CLASSES][32];

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s DATA.csv [trees=100] [max_depth=16] [seed=1]\n", prog);
    exit(2);
}

static uint64_t rng_next(Rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define rng_below(r, n) ((int)(rng_next(r) % (uint64_t)(n)))

static int load_csv(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s'\n", path);
        return -1;
    }
    char line[4096];
    if (!fgets(line, sizeof line, f)) {
        fprintf(stderr, "error: '%s' is empty\n", path);
        fclose(f);
        return -1;
    }
    int ncol = 0;
    for (char *tok = strtok(line, ",\r\n"); tok; tok = strtok(NULL, ",\r\n")) {
        if (ncol < MAX_FEATURES)
            snprintf(feat_name[ncol], sizeof feat_name[0], "%s", tok);
        ncol++;
    }
    nfeat = ncol - 1;
    if (nfeat < 1 || nfeat > MAX_FEATURES) {
        fprintf(stderr, "error: '%s': need 2..%d columns\n", path, MAX_FEATURES + 1);
        fclose(f);
        return -1;
    }
    int cap = 1024;
    X = malloc(sizeof(double) * (size_t)cap * nfeat);
    Y = malloc(sizeof(int) * (size_t)cap);
    int lineno = 1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\r')
            continue;
        if (nrows == cap) {
            cap *= 2;
            X = realloc(X, sizeof(double) * (size_t)cap * nfeat);
            Y = realloc(Y, sizeof(int) * (size_t)cap);
        }
        char *p = line;
        for (int j = 0; j < nfeat; j++) {
            char *e;
            X[(size_t)nrows * nfeat + j] = strtod(p, &e);
            if (e == p || *e != ',') {
                fprintf(stderr, "error: '%s': bad number on line %d\n", path, lineno);
                fclose(f);
                return -1;
            }
            p = e + 1;
        }
        p[strcspn(p, "\r\n")] = '\0';
        int c;
        for (c = 0; c < nclass; c++)
            if (strcmp(class_name[c], p) == 0)
                break;
        if (c == nclass) {
            if (nclass == MAX_CLASSES || *p == '\0') {
                fprintf(stderr, "error: '%s': bad or too many class labels (line %d)\n", path, lineno);
                fclose(f);
                return -1;
            }
            snprintf(class_name[nclass++], sizeof class_name[0], "%s", p);
        }
        Y[nrows++] = c;
    }
    fclose(f);
    if (nrows < 10 || nclass < 2) {
        fprintf(stderr, "error: '%s': need at least 10 rows and 2 classes\n", path);
        return -1;
    }
    return 0;
}

static int vl_cmp(const void *a, const void *b)
{
    const VL *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->label - y->label;
}

static double gini(const int *cnt, int n)
{
    if (n == 0)
        return 0.0;
    double s = 0.0;
    for (int c = 0; c < nclass; c++) {
        double p = (double)cnt[c] / n;
        s += p * p;
    }
    return 1.0 - s;
}

static int add_node(Tree *t)
{
    if (t->count == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->nodes = realloc(t->nodes, sizeof(Node) * (size_t)t->cap);
    }
    return t->count++;
}

/* grow the subtree for rows idx[0..n); returns its node index */
static int grow(Tree *t, int *idx, int n, int depth, int max_depth, Rng *rng, VL *scratch)
{
    int cnt[MAX_CLASSES] = {0}, major = 0;
    for (int k = 0; k < n; k++)
        cnt[Y[idx[k]]]++;
    for (int c = 1; c < nclass; c++)
        if (cnt[c] > cnt[major])
            major = c;
    int me = add_node(t);
    t->nodes[me] = (Node){-1, 0.0, -1, -1, major};
    if (depth > t->depth)
        t->depth = depth;
    if (depth >= max_depth || n < MIN_SPLIT || cnt[major] == n)
        return me;

    const double parent_gini = gini(cnt, n);
    int feats[MAX_FEATURES];
    for (int j = 0; j < nfeat; j++)
        feats[j] = j;
    int mtry = (int)(sqrt((double)nfeat) + 0.5);
    double best_score = parent_gini - 1e-12;
    int best_f = -1;
    double best_thr = 0.0;
    for (int k = 0; k < mtry; k++) {
        int r = k + rng_below(rng, nfeat - k);
        int f = feats[r];
        feats[r] = feats[k];
        feats[k] = f;
        for (int i = 0; i < n; i++)
            scratch[i] = (VL){X[(size_t)idx[i] * nfeat + f], Y[idx[i]]};
        qsort(scratch, (size_t)n, sizeof(VL), vl_cmp);
        int left[MAX_CLASSES] = {0}, right[MAX_CLASSES];
        memcpy(right, cnt, sizeof right);
        for (int i = 0; i < n - 1; i++) {
            left[scratch[i].label]++;
            right[scratch[i].label]--;
            if (scratch[i].v == scratch[i + 1].v)
                continue;
            int nl = i + 1, nr = n - nl;
            double score = (nl * gini(left, nl) + nr * gini(right, nr)) / n;
            if (score < best_score) {
                best_score = score;
                best_f = f;
                best_thr = 0.5 * (scratch[i].v + scratch[i + 1].v);
            }
        }
    }
    if (best_f < 0)
        return me;

    /* partition rows in place */
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        if (X[(size_t)idx[lo] * nfeat + best_f] <= best_thr) {
            lo++;
        } else {
            int tmp = idx[lo];
            idx[lo] = idx[hi];
            idx[hi--] = tmp;
        }
    }
    t->importance[best_f] += n * (parent_gini - best_score);
    int l = grow(t, idx, lo, depth + 1, max_depth, rng, scratch);
    int r = grow(t, idx + lo, n - lo, depth + 1, max_depth, rng, scratch);
    t->nodes[me].feature = best_f;
    t->nodes[me].threshold = best_thr;
    t->nodes[me].left = l;
    t->nodes[me].right = r;
    return me;
}

static int predict(const Tree *t, const double *x)
{
    int k = 0;
    while (t->nodes[k].feature >= 0)
        k = x[t->nodes[k].feature] <= t->nodes[k].threshold ? t->nodes[k].left : t->nodes[k].right;
    return t->nodes[k].cls;
}

static int vote(const int *v)
{
    int best = 0;
    for (int c = 1; c < nclass; c++)
        if (v[c] > v[best])
            best = c;
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5)
        usage(argv[0]);
    int ntrees = 100, max_depth = 16;
    long seed = 1;
    char *end;
    if (argc > 2) {
        ntrees = (int)strtol(argv[2], &end, 10);
        if (*end || ntrees < 1 || ntrees > 10000)
            usage(argv[0]);
    }
    if (argc > 3) {
        max_depth = (int)strtol(argv[3], &end, 10);
        if (*end || max_depth < 1 || max_depth > 64)
            usage(argv[0]);
    }
    if (argc > 4) {
        seed = strtol(argv[4], &end, 10);
        if (*end)
            usage(argv[0]);
    }
    if (load_csv(argv[1]) != 0)
        return 1;

    /* every fifth row is test data */
    int ntrain = 0, ntest = 0;
    int *train = malloc(sizeof(int) * (size_t)nrows);
    int *test = malloc(sizeof(int) * (size_t)nrows);
    for (int i = 0; i < nrows; i++) {
        if (i % 5 == 4)
            test[ntest++] = i;
        else
            train[ntrain++] = i;
    }
    printf("data: %d rows, %d features, %d classes (%d train, %d test)\n",
           nrows, nfeat, nclass, ntrain, ntest);

    Tree *trees = calloc((size_t)ntrees, sizeof(Tree));
    unsigned char *inbag = calloc((size_t)ntrees * ntrain, 1);
    double t0 = omp_get_wtime();
    #pragma omp parallel
    {
        int *idx = malloc(sizeof(int) * (size_t)ntrain);
        VL *scratch = malloc(sizeof(VL) * (size_t)ntrain);
        #pragma omp for
        for (int t = 0; t < ntrees; t++) {
            Rng rng = {(uint64_t)seed * 1000003u + (uint64_t)t};
            unsigned char *bag = inbag + (size_t)t * ntrain;
            for (int k = 0; k < ntrain; k++) {
                int r = rng_below(&rng, ntrain);
                idx[k] = train[r];
                if (bag[r] < 255)
                    bag[r]++;
            }
            grow(&trees[t], idx, ntrain, 0, max_depth, &rng, scratch);
        }
        free(scratch);
        free(idx);
    }
    double t1 = omp_get_wtime();

    /* out-of-bag estimate: each training row votes with trees that never saw it */
    int oob_correct = 0, oob_rows = 0;
    #pragma omp parallel for reduction(+:oob_correct, oob_rows)
    for (int k = 0; k < ntrain; k++) {
        int v[MAX_CLASSES] = {0}, any = 0;
        const double *x = X + (size_t)train[k] * nfeat;
        for (int t = 0; t < ntrees; t++)
            if (!inbag[(size_t)t * ntrain + k]) {
                v[predict(&trees[t], x)]++;
                any = 1;
            }
        if (any) {
            oob_rows++;
            oob_correct += vote(v) == Y[train[k]];
        }
    }

    int *pred = malloc(sizeof(int) * (size_t)ntest);
    #pragma omp parallel for
    for (int k = 0; k < ntest; k++) {
        int v[MAX_CLASSES] = {0};
        const double *x = X + (size_t)test[k] * nfeat;
        for (int t = 0; t < ntrees; t++)
            v[predict(&trees[t], x)]++;
        pred[k] = vote(v);
    }

    int conf[MAX_CLASSES][MAX_CLASSES] = {{0}};
    int correct = 0;
    for (int k = 0; k < ntest; k++) {
        conf[Y[test[k]]][pred[k]]++;
        correct += pred[k] == Y[test[k]];
    }
    long total_nodes = 0, depth_sum = 0;
    double imp[MAX_FEATURES] = {0};
    for (int t = 0; t < ntrees; t++) {
        total_nodes += trees[t].count;
        depth_sum += trees[t].depth;
        for (int j = 0; j < nfeat; j++)
            imp[j] += trees[t].importance[j];
    }
    double imp_total = 0.0;
    for (int j = 0; j < nfeat; j++)
        imp_total += imp[j];

    printf("forest: %d trees, %.1f nodes and depth %.2f on average\n", ntrees,
           (double)total_nodes / ntrees, (double)depth_sum / ntrees);
    printf("out-of-bag accuracy: %.4f (%d rows)\n", (double)oob_correct / oob_rows, oob_rows);
    printf("test accuracy: %.4f (%d of %d)\n", (double)correct / ntest, correct, ntest);
    printf("confusion matrix (rows = true class):\n%12s", "");
    for (int c = 0; c < nclass; c++)
        printf(" %9.9s", class_name[c]);
    printf("\n");
    for (int a = 0; a < nclass; a++) {
        printf("%12.12s", class_name[a]);
        for (int c = 0; c < nclass; c++)
            printf(" %9d", conf[a][c]);
        printf("\n");
    }
    printf("feature importance (mean decrease in impurity):\n");
    int order[MAX_FEATURES];
    for (int j = 0; j < nfeat; j++)
        order[j] = j;
    for (int a = 1; a < nfeat; a++)
        for (int b = a; b > 0 && imp[order[b]] > imp[order[b - 1]]; b--) {
            int tmp = order[b];
            order[b] = order[b - 1];
            order[b - 1] = tmp;
        }
    for (int j = 0; j < nfeat; j++)
        printf("  %-12s %.4f\n", feat_name[order[j]], imp[order[j]] / imp_total);
    fprintf(stderr, "training time: %.3f s\n", t1 - t0);

    for (int t = 0; t < ntrees; t++)
        free(trees[t].nodes);
    free(trees), free(inbag), free(pred), free(test), free(train), free(X), free(Y);
    return 0;
}
