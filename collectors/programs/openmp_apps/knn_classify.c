/* knn_classify: brute-force k-nearest-neighbour (k = 7) classification of Q query points against M labelled training points drawn from Gaussian clusters, with a confusion matrix.
 * Category: uniform compute-bound (a parallel loop over queries, each scanning all M training points with a sorted insertion list; then an integer-reduction loop).
 * Sizes: MIRTUNE_SIZE=1 -> M=24000, Q=1400, d=16, 12 classes; MIRTUNE_SIZE=2 -> M=40000, Q=1900, d=24, 12 classes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define M 40000
#define Q 1900
#define D 24
#else
#define M 24000
#define Q 1400
#define D 16
#endif
#define K 7
#define NCLASS 12
#define CLUSTERS_PER_CLASS 3
#define NCLUST (NCLASS * CLUSTERS_PER_CLASS)

static unsigned long long rng = 0x2545F4914F6CDD1DULL;

static unsigned long long next_u64(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

static double uniform01(void)
{
    return ((double)(next_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
    double u = uniform01(), v = uniform01();
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static void sample(const float *centre, float spread, float *out)
{
    for (int j = 0; j < D; j++)
        out[j] = centre[j] + spread * (float)gauss();
}

int main(void)
{
    float *train = malloc(sizeof(float) * (size_t)M * D);
    float *query = malloc(sizeof(float) * (size_t)Q * D);
    int *train_lab = malloc(sizeof(int) * M);
    int *query_lab = malloc(sizeof(int) * Q);
    int *pred = malloc(sizeof(int) * Q);
    float *kdist = malloc(sizeof(float) * Q);
    float *centres = malloc(sizeof(float) * NCLUST * D);
    float *spread = malloc(sizeof(float) * NCLUST);
    if (!train || !query || !train_lab || !query_lab || !pred || !kdist || !centres || !spread)
        return 1;

    /* overlapping Gaussian clusters; cluster c belongs to class c % NCLASS */
    for (int c = 0; c < NCLUST; c++) {
        for (int j = 0; j < D; j++)
            centres[c * D + j] = (float)(6.0 * uniform01() - 3.0);
        spread[c] = (float)(1.2 + 1.2 * uniform01());
    }
    for (int i = 0; i < M; i++) {
        int c = (int)(next_u64() % NCLUST);
        sample(&centres[c * D], spread[c], &train[(size_t)i * D]);
        train_lab[i] = c % NCLASS;
    }
    for (int q = 0; q < Q; q++) {
        int c = (int)(next_u64() % NCLUST);
        sample(&centres[c * D], spread[c], &query[(size_t)q * D]);
        query_lab[q] = c % NCLASS;
    }

#pragma omp parallel for
    for (int q = 0; q < Q; q++) {
        float bd[K];
        int bl[K];
        for (int k = 0; k < K; k++) {
            bd[k] = INFINITY;
            bl[k] = -1;
        }
        const float *x = &query[(size_t)q * D];
        for (int i = 0; i < M; i++) {
            const float *t = &train[(size_t)i * D];
            float dist = 0.0f;
            for (int j = 0; j < D; j++) {
                float diff = x[j] - t[j];
                dist += diff * diff;
            }
            if (dist < bd[K - 1]) {
                int p = K - 1;
                while (p > 0 && bd[p - 1] > dist) {
                    bd[p] = bd[p - 1];
                    bl[p] = bl[p - 1];
                    p--;
                }
                bd[p] = dist;
                bl[p] = train_lab[i];
            }
        }
        /* majority vote; ties go to the class whose nearest member is closest */
        int votes[NCLASS] = {0};
        for (int k = 0; k < K; k++)
            votes[bl[k]]++;
        int best = bl[0];
        for (int k = 1; k < K; k++)
            if (votes[bl[k]] > votes[best])
                best = bl[k];
        pred[q] = best;
        kdist[q] = bd[K - 1];
    }

    long long conf[NCLASS * NCLASS] = {0};
    long long correct = 0;
#pragma omp parallel for reduction(+:conf[:NCLASS * NCLASS], correct)
    for (int q = 0; q < Q; q++) {
        conf[query_lab[q] * NCLASS + pred[q]]++;
        correct += (pred[q] == query_lab[q]);
    }

    double radius = 0.0; /* sequential sum of the k-th neighbour distances */
    for (int q = 0; q < Q; q++)
        radius += sqrt((double)kdist[q]);
    long long cs = 0;
    for (int i = 0; i < NCLASS * NCLASS; i++)
        cs += conf[i] * (i + 1);

    printf("checksum: %.12e\n", radius + (double)cs + 1e6 * (double)correct);
    free(train);
    free(query);
    free(train_lab);
    free(query_lab);
    free(pred);
    free(kdist);
    free(centres);
    free(spread);
    return 0;
}
