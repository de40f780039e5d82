/*
 * mlp_train: train a 16-64-4 multilayer perceptron (tanh hidden layer,
 * softmax output, cross-entropy loss) with mini-batch gradient descent.
 *
 * usage: mlp_train data.csv epochs learning_rate
 *
 * The CSV has a header line and rows of 16 features followed by an integer
 * class label 0..3.  Weights start from a seeded LCG, the sample order is
 * reshuffled every epoch with the same LCG, so the run is reproducible.
 * Every 5 epochs the loss and accuracy over the whole training set are
 * printed; at the end the confusion matrix.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NIN 16
#define NHID 64
#define NOUT 4
#define BATCH 32

static double W1[NHID][NIN], b1[NHID];
static double W2[NOUT][NHID], b2[NOUT];

static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;

static unsigned int lcg_next(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned int)(lcg_state >> 33);
}

static double lcg_uniform(double lo, double hi)
{
    return lo + (hi - lo) * (lcg_next() / 2147483648.0);
}

static void usage(void)
{
    fprintf(stderr, "usage: mlp_train data.csv epochs learning_rate\n");
    exit(2);
}

/* Reads the CSV; returns number of samples, exits with status 1 on errors. */
static int load_csv(const char *path, double **xs_out, int **ys_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "mlp_train: cannot open %s: %s\n", path, strerror(errno));
        exit(1);
    }
    char line[4096];
    if (!fgets(line, sizeof line, f) || strncmp(line, "x0,", 3) != 0) {
        fprintf(stderr, "mlp_train: %s: missing header line\n", path);
        exit(1);
    }
    int cap = 1024, n = 0;
    double *xs = malloc((size_t)cap * NIN * sizeof *xs);
    int *ys = malloc((size_t)cap * sizeof *ys);
    int lineno = 1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\0')
            continue;
        if (n == cap) {
            cap *= 2;
            xs = realloc(xs, (size_t)cap * NIN * sizeof *xs);
            ys = realloc(ys, (size_t)cap * sizeof *ys);
        }
        char *p = line, *end;
        for (int i = 0; i < NIN; i++) {
            errno = 0;
            double v = strtod(p, &end);
            if (end == p || *end != ',' || errno != 0 || !isfinite(v)) {
                fprintf(stderr, "mlp_train: %s:%d: bad feature %d\n", path, lineno, i);
                exit(1);
            }
            xs[(size_t)n * NIN + i] = v;
            p = end + 1;
        }
        long lab = strtol(p, &end, 10);
        while (*end == ' ' || *end == '\r' || *end == '\n')
            end++;
        if (end == p || *end != '\0' || lab < 0 || lab >= NOUT) {
            fprintf(stderr, "mlp_train: %s:%d: bad label\n", path, lineno);
            exit(1);
        }
        ys[n++] = (int)lab;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "mlp_train: %s: no samples\n", path);
        exit(1);
    }
    *xs_out = xs;
    *ys_out = ys;
    return n;
}

/* Forward pass for one sample (used for evaluation). */
static void predict(const double *x, double *prob)
{
    double h[NHID], z[NOUT];
    for (int j = 0; j < NHID; j++) {
        double s = b1[j];
        for (int i = 0; i < NIN; i++)
            s += W1[j][i] * x[i];
        h[j] = tanh(s);
    }
    double zmax = -1e300;
    for (int k = 0; k < NOUT; k++) {
        double s = b2[k];
        for (int j = 0; j < NHID; j++)
            s += W2[k][j] * h[j];
        z[k] = s;
        if (s > zmax)
            zmax = s;
    }
    double sum = 0.0;
    for (int k = 0; k < NOUT; k++) {
        prob[k] = exp(z[k] - zmax);
        sum += prob[k];
    }
    for (int k = 0; k < NOUT; k++)
        prob[k] /= sum;
}

/* Loss and accuracy over the whole set; per-sample values summed in order. */
static void evaluate(int n, const double *xs, const int *ys, double *loss_buf,
                     int *pred_buf, double *loss, double *acc)
{
    #pragma omp parallel for
    for (int s = 0; s < n; s++) {
        double prob[NOUT];
        predict(xs + (size_t)s * NIN, prob);
        int best = 0;
        for (int k = 1; k < NOUT; k++)
            if (prob[k] > prob[best])
                best = k;
        pred_buf[s] = best;
        loss_buf[s] = -log(prob[ys[s]] + 1e-12);
    }
    double l = 0.0;
    int correct = 0;
    for (int s = 0; s < n; s++) {
        l += loss_buf[s];
        correct += (pred_buf[s] == ys[s]);
    }
    *loss = l / n;
    *acc = 100.0 * correct / n;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        usage();
    char *end;
    long epochs = strtol(argv[2], &end, 10);
    if (*end != '\0' || epochs < 1 || epochs > 100000)
        usage();
    double lr = strtod(argv[3], &end);
    if (*end != '\0' || !(lr > 0.0) || lr > 100.0)
        usage();

    double *xs;
    int *ys;
    int n = load_csv(argv[1], &xs, &ys);

    /* Uniform initialisation scaled by the fan-in. */
    double a1 = 1.0 / sqrt((double)NIN), a2 = 1.0 / sqrt((double)NHID);
    for (int j = 0; j < NHID; j++) {
        for (int i = 0; i < NIN; i++)
            W1[j][i] = lcg_uniform(-a1, a1);
        b1[j] = 0.0;
    }
    for (int k = 0; k < NOUT; k++) {
        for (int j = 0; j < NHID; j++)
            W2[k][j] = lcg_uniform(-a2, a2);
        b2[k] = 0.0;
    }

    int *order = malloc((size_t)n * sizeof *order);
    double *loss_buf = malloc((size_t)n * sizeof *loss_buf);
    int *pred_buf = malloc((size_t)n * sizeof *pred_buf);
    for (int s = 0; s < n; s++)
        order[s] = s;

    static double xb[BATCH][NIN], hb[BATCH][NHID], db[BATCH][NOUT];
    int yb[BATCH];

    int counts[NOUT] = {0};
    for (int s = 0; s < n; s++)
        counts[ys[s]]++;
    printf("samples %d  (class sizes %d %d %d %d)  network %d-%d-%d  batch %d  lr %g\n",
           n, counts[0], counts[1], counts[2], counts[3], NIN, NHID, NOUT, BATCH, lr);

    double loss, acc;
    evaluate(n, xs, ys, loss_buf, pred_buf, &loss, &acc);
    printf("epoch %4d  loss %.4f  accuracy %6.2f%%\n", 0, loss, acc);

    for (long ep = 1; ep <= epochs; ep++) {
        /* Fisher-Yates shuffle of the sample order. */
        for (int s = n - 1; s > 0; s--) {
            int r = (int)(lcg_next() % (unsigned)(s + 1));
            int t = order[s];
            order[s] = order[r];
            order[r] = t;
        }
        for (int start = 0; start < n; start += BATCH) {
            int bs = n - start < BATCH ? n - start : BATCH;
            for (int b = 0; b < bs; b++) {
                memcpy(xb[b], xs + (size_t)order[start + b] * NIN, sizeof xb[b]);
                yb[b] = ys[order[start + b]];
            }

            /* forward: hidden layer, one hidden unit per iteration */
            #pragma omp parallel for
            for (int j = 0; j < NHID; j++) {
                for (int b = 0; b < bs; b++) {
                    double s = b1[j];
                    for (int i = 0; i < NIN; i++)
                        s += W1[j][i] * xb[b][i];
                    hb[b][j] = tanh(s);
                }
            }

            /* forward: output layer and softmax, gradient of the loss */
            #pragma omp parallel for
            for (int b = 0; b < bs; b++) {
                double z[NOUT], zmax = -1e300, sum = 0.0;
                for (int k = 0; k < NOUT; k++) {
                    double s = b2[k];
                    for (int j = 0; j < NHID; j++)
                        s += W2[k][j] * hb[b][j];
                    z[k] = s;
                    if (s > zmax)
                        zmax = s;
                }
                for (int k = 0; k < NOUT; k++) {
                    z[k] = exp(z[k] - zmax);
                    sum += z[k];
                }
                for (int k = 0; k < NOUT; k++)
                    db[b][k] = (z[k] / sum - (k == yb[b] ? 1.0 : 0.0)) / bs;
            }

            /* output bias update (4 values, serial) */
            for (int k = 0; k < NOUT; k++) {
                double g = 0.0;
                for (int b = 0; b < bs; b++)
                    g += db[b][k];
                b2[k] -= lr * g;
            }

            /* backward + update, one hidden unit per iteration: the unit's
               incoming weights W1[j][*], b1[j] and outgoing weights W2[*][j] */
            #pragma omp parallel for
            for (int j = 0; j < NHID; j++) {
                double gw1[NIN] = {0}, gb1 = 0.0, gw2[NOUT] = {0};
                for (int b = 0; b < bs; b++) {
                    double back = 0.0;
                    for (int k = 0; k < NOUT; k++) {
                        back += W2[k][j] * db[b][k];
                        gw2[k] += db[b][k] * hb[b][j];
                    }
                    double dz = back * (1.0 - hb[b][j] * hb[b][j]);
                    for (int i = 0; i < NIN; i++)
                        gw1[i] += dz * xb[b][i];
                    gb1 += dz;
                }
                for (int i = 0; i < NIN; i++)
                    W1[j][i] -= lr * gw1[i];
                b1[j] -= lr * gb1;
                for (int k = 0; k < NOUT; k++)
                    W2[k][j] -= lr * gw2[k];
            }
        }
        if (ep % 5 == 0 || ep == epochs) {
            evaluate(n, xs, ys, loss_buf, pred_buf, &loss, &acc);
            printf("epoch %4ld  loss %.4f  accuracy %6.2f%%\n", ep, loss, acc);
        }
    }

    int conf[NOUT][NOUT] = {{0}};
    for (int s = 0; s < n; s++)
        conf[ys[s]][pred_buf[s]]++;
    printf("confusion matrix (rows: true class, columns: predicted)\n");
    for (int k = 0; k < NOUT; k++) {
        printf("  class %d:", k);
        for (int m = 0; m < NOUT; m++)
            printf(" %5d", conf[k][m]);
        printf("\n");
    }
    free(order);
    free(loss_buf);
    free(pred_buf);
    free(xs);
    free(ys);
    return 0;
}
