/*
 * kalman_tracks: constant-velocity Kalman filtering of 2-D tracks.
 *
 * usage: kalman_tracks data.bin K q_min q_max
 *
 * Every track is filtered once for each of K process-noise intensities q,
 * spaced logarithmically between q_min and q_max; the level giving the
 * lowest RMS position error against the true positions is kept.  Prints the
 * RMS error of the raw measurements and of the filtered positions, the
 * histogram of chosen levels and the five worst tracks.
 *
 * Input layout (little endian): "KALM", int32 tracks, int32 steps,
 * float32 dt, float32 sigma, then per track and step float32
 * meas_x, meas_y, true_x, true_y.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double raw_sse;      /* squared error of the measurements */
    double best_sse;     /* squared error of the best filter */
    int best_level;
} track_result;

static void usage(void)
{
    fprintf(stderr, "usage: kalman_tracks data.bin K q_min q_max\n");
    exit(2);
}

static void mat_mul(const double A[4][4], const double B[4][4], double C[4][4])
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
}

static void mat_mul_bt(const double A[4][4], const double B[4][4], double C[4][4])
{
    /* C = A * B^T */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++)
                s += A[i][k] * B[j][k];
            C[i][j] = s;
        }
}

/*
 * Runs the filter over one track; returns the sum over all steps of the
 * squared distance between the filtered and the true position.
 * d holds steps x (meas_x, meas_y, true_x, true_y).
 */
static double run_filter(const float *d, int steps, double dt, double r2, double q)
{
    double F[4][4] = {{1, 0, dt, 0}, {0, 1, 0, dt}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    double dt2 = dt * dt, dt3 = dt2 * dt;
    double Q[4][4] = {{q * dt3 / 3, 0, q * dt2 / 2, 0},
                      {0, q * dt3 / 3, 0, q * dt2 / 2},
                      {q * dt2 / 2, 0, q * dt, 0},
                      {0, q * dt2 / 2, 0, q * dt}};
    double x[4] = {d[0], d[1], 0.0, 0.0};
    double P[4][4] = {{r2, 0, 0, 0}, {0, r2, 0, 0}, {0, 0, 1000.0, 0}, {0, 0, 0, 1000.0}};
    double FP[4][4], IKH[4][4], T[4][4];

    double ex = x[0] - d[2], ey = x[1] - d[3];
    double sse = ex * ex + ey * ey;
    for (int k = 1; k < steps; k++) {
        const float *z = d + 4 * (size_t)k;
        /* predict */
        double xp[4];
        for (int i = 0; i < 4; i++) {
            double s = 0.0;
            for (int j = 0; j < 4; j++)
                s += F[i][j] * x[j];
            xp[i] = s;
        }
        mat_mul(F, P, FP);
        mat_mul_bt(FP, F, P);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                P[i][j] += Q[i][j];

        /* update with the position measurement (H = [I2 0]) */
        double y0 = z[0] - xp[0], y1 = z[1] - xp[1];
        double s00 = P[0][0] + r2, s01 = P[0][1], s10 = P[1][0], s11 = P[1][1] + r2;
        double det = s00 * s11 - s01 * s10;
        double i00 = s11 / det, i01 = -s01 / det, i10 = -s10 / det, i11 = s00 / det;
        double K[4][2];
        for (int i = 0; i < 4; i++) {
            K[i][0] = P[i][0] * i00 + P[i][1] * i10;
            K[i][1] = P[i][0] * i01 + P[i][1] * i11;
        }
        for (int i = 0; i < 4; i++)
            x[i] = xp[i] + K[i][0] * y0 + K[i][1] * y1;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                double h = (j == 0 ? K[i][0] : 0.0) + (j == 1 ? K[i][1] : 0.0);
                IKH[i][j] = (i == j ? 1.0 : 0.0) - h;
            }
        mat_mul(IKH, P, T);
        memcpy(P, T, sizeof P);

        ex = x[0] - z[2];
        ey = x[1] - z[3];
        sse += ex * ex + ey * ey;
    }
    return sse;
}

static int32_t get_i32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static float get_f32(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        usage();
    char *end;
    long K = strtol(argv[2], &end, 10);
    if (*end != '\0' || K < 1 || K > 1000)
        usage();
    double qmin = strtod(argv[3], &end);
    if (*end != '\0' || !(qmin > 0.0) || !isfinite(qmin))
        usage();
    double qmax = strtod(argv[4], &end);
    if (*end != '\0' || !(qmax >= qmin) || !isfinite(qmax))
        usage();

    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "kalman_tracks: cannot open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    unsigned char hdr[20];
    if (fread(hdr, 1, sizeof hdr, f) != sizeof hdr || memcmp(hdr, "KALM", 4) != 0) {
        fprintf(stderr, "kalman_tracks: %s: not a track file\n", argv[1]);
        return 1;
    }
    int ntracks = get_i32(hdr + 4), nsteps = get_i32(hdr + 8);
    double dt = get_f32(hdr + 12), sigma = get_f32(hdr + 16);
    if (ntracks < 1 || ntracks > 10000000 || nsteps < 2 || nsteps > 100000 ||
        (long long)ntracks * nsteps > 50000000LL || !(dt > 0.0) || !(sigma > 0.0)) {
        fprintf(stderr, "kalman_tracks: %s: bad header\n", argv[1]);
        return 1;
    }
    size_t nvals = (size_t)ntracks * nsteps * 4;
    unsigned char *raw = malloc(nvals * 4);
    float *data = malloc(nvals * sizeof *data);
    if (fread(raw, 4, nvals, f) != nvals || fgetc(f) != EOF) {
        fprintf(stderr, "kalman_tracks: %s: file size does not match header\n", argv[1]);
        return 1;
    }
    fclose(f);
    for (size_t i = 0; i < nvals; i++) {
        data[i] = get_f32(raw + 4 * i);
        if (!isfinite(data[i])) {
            fprintf(stderr, "kalman_tracks: %s: non-finite value\n", argv[1]);
            return 1;
        }
    }
    free(raw);

    double *qlev = malloc((size_t)K * sizeof *qlev);
    for (long l = 0; l < K; l++)
        qlev[l] = K == 1 ? qmin : qmin * pow(qmax / qmin, (double)l / (double)(K - 1));

    double r2 = sigma * sigma;
    track_result *res = malloc((size_t)ntracks * sizeof *res);

    #pragma omp parallel for
    for (int t = 0; t < ntracks; t++) {
        const float *d = data + (size_t)t * nsteps * 4;
        double raw_sse = 0.0;
        for (int k = 0; k < nsteps; k++) {
            double ex = d[4 * k] - d[4 * k + 2], ey = d[4 * k + 1] - d[4 * k + 3];
            raw_sse += ex * ex + ey * ey;
        }
        double best = INFINITY;
        int best_l = 0;
        for (int l = 0; l < K; l++) {
            double sse = run_filter(d, nsteps, dt, r2, qlev[l]);
            if (sse < best) {
                best = sse;
                best_l = l;
            }
        }
        res[t].raw_sse = raw_sse;
        res[t].best_sse = best;
        res[t].best_level = best_l;
    }

    double raw_total = 0.0, filt_total = 0.0;
    long *hist = calloc((size_t)K, sizeof *hist);
    for (int t = 0; t < ntracks; t++) {
        raw_total += res[t].raw_sse;
        filt_total += res[t].best_sse;
        hist[res[t].best_level]++;
    }
    double npts = (double)ntracks * nsteps;
    printf("tracks %d, steps %d, dt %.2f s, nominal sigma %.2f m, %ld process-noise levels\n",
           ntracks, nsteps, dt, sigma, K);
    printf("RMS position error, measurements: %.3f m\n", sqrt(raw_total / npts));
    printf("RMS position error, filtered:     %.3f m\n", sqrt(filt_total / npts));
    printf("chosen process-noise level (q in m^2/s^3):\n");
    for (long l = 0; l < K; l++)
        printf("  level %3ld  q %10.4g  tracks %5ld\n", l, qlev[l], hist[l]);

    /* five worst tracks by filtered RMS error (ties: lower index first) */
    int worst[5];
    int nworst = 0;
    for (int t = 0; t < ntracks; t++) {
        int pos = nworst;
        while (pos > 0 && res[worst[pos - 1]].best_sse < res[t].best_sse)
            pos--;
        if (pos >= 5)
            continue;
        int last = nworst < 5 ? nworst : 4;
        for (int i = last; i > pos; i--)
            worst[i] = worst[i - 1];
        worst[pos] = t;
        if (nworst < 5)
            nworst++;
    }
    printf("worst %d tracks after filtering:\n", nworst);
    for (int i = 0; i < nworst; i++) {
        int t = worst[i];
        printf("  track %5d  rms %.3f m  (measurements %.3f m)  level %d\n", t,
               sqrt(res[t].best_sse / nsteps), sqrt(res[t].raw_sse / nsteps), res[t].best_level);
    }
    free(hist);
    free(res);
    free(qlev);
    free(data);
    return 0;
}
