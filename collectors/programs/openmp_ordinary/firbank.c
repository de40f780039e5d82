/*
 * firbank.c - FIR filter-bank analysis of a mono 16-bit PCM WAV file.
 *
 * The band file describes the bank:
 *     # comment
 *     bands <n>
 *     <name> <low_hz> <high_hz> <taps>      (n lines, taps odd, 3..4095)
 * Every band gets a windowed-sinc (Blackman) band-pass filter of its own
 * length.  The signal is filtered through each band, keeping every
 * decim-th output sample; the outputs are processed in blocks of 100 ms,
 * in parallel, each block keeping its own sum of squares and peak.  Block
 * sums are then added in block order, giving per-band RMS energy and the
 * energy of every band in every second of audio.
 *
 * Usage: firbank signal.wav bands.txt [decim]
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BANDS 64
#define MAX_TAPS 4095

typedef struct {
    char name[32];
    double lo, hi;
    int taps;
    double *h;
} Band;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s signal.wav bands.txt [decim]\n", prog);
    fprintf(stderr, "  signal.wav  mono 16-bit PCM WAV\n");
    fprintf(stderr, "  bands.txt   'bands N' then N lines: name low_hz high_hz taps\n");
    fprintf(stderr, "  decim       keep every decim-th filtered sample (1..32, default 1)\n");
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

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* returns the samples scaled to [-1, 1); NULL after printing an error */
static double *read_wav(const char *path, long *nsamples, int *rate)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    unsigned char hdr[12], ch[8];
    int have_fmt = 0;
    double *x = NULL;
    if (fread(hdr, 1, 12, f) != 12 || memcmp(hdr, "RIFF", 4) || memcmp(hdr + 8, "WAVE", 4)) {
        fprintf(stderr, "error: %s: not a RIFF/WAVE file\n", path);
        goto out;
    }
    while (fread(ch, 1, 8, f) == 8) {
        uint32_t size = le32(ch + 4);
        if (!memcmp(ch, "fmt ", 4)) {
            unsigned char fmt[16];
            if (size < 16 || fread(fmt, 1, 16, f) != 16) {
                fprintf(stderr, "error: %s: short fmt chunk\n", path);
                goto out;
            }
            if (le16(fmt) != 1 || le16(fmt + 2) != 1 || le16(fmt + 14) != 16) {
                fprintf(stderr, "error: %s: only mono 16-bit PCM is supported\n", path);
                goto out;
            }
            *rate = (int)le32(fmt + 4);
            if (*rate < 1000 || *rate > 192000) {
                fprintf(stderr, "error: %s: unsupported sample rate %d\n", path, *rate);
                goto out;
            }
            have_fmt = 1;
            if (fseek(f, (long)(size - 16 + (size & 1)), SEEK_CUR)) {
                fprintf(stderr, "error: %s: truncated fmt chunk\n", path);
                goto out;
            }
        } else if (!memcmp(ch, "data", 4)) {
            if (!have_fmt) {
                fprintf(stderr, "error: %s: data chunk before fmt chunk\n", path);
                goto out;
            }
            long n = (long)(size / 2);
            int16_t *raw = xmalloc((size_t)n * sizeof *raw);
            long got = (long)fread(raw, 2, (size_t)n, f);
            if (got != n || n == 0) {
                fprintf(stderr, "error: %s: truncated or empty data chunk\n", path);
                free(raw);
                goto out;
            }
            x = xmalloc((size_t)n * sizeof *x);
            for (long i = 0; i < n; i++) {
                unsigned char *b = (unsigned char *)&raw[i];
                x[i] = (int16_t)le16(b) / 32768.0;
            }
            free(raw);
            *nsamples = n;
            break;
        } else if (fseek(f, (long)(size + (size & 1)), SEEK_CUR)) {
            break;
        }
    }
    if (!x)
        fprintf(stderr, "error: %s: no %s chunk\n", path, have_fmt ? "data" : "fmt");
out:
    fclose(f);
    return x;
}

static int read_bands(const char *path, Band *bands, int rate)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    char line[256];
    long lineno = 0;
    int n = -1, k = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        if (n < 0) {
            if (sscanf(p, "bands %d", &n) != 1 || n < 1 || n > MAX_BANDS) {
                fprintf(stderr, "error: %s:%ld: expected 'bands N' (1..%d)\n", path,
                        lineno, MAX_BANDS);
                fclose(f);
                return -1;
            }
            continue;
        }
        Band *b = &bands[k];
        char extra[2];
        if (k >= n || sscanf(p, "%31s %lf %lf %d %1s", b->name, &b->lo, &b->hi, &b->taps,
                             extra) != 4 ||
            !(b->lo >= 0) || !(b->hi > b->lo) || b->hi > rate / 2.0 || b->taps < 3 ||
            b->taps > MAX_TAPS || b->taps % 2 == 0) {
            fprintf(stderr, "error: %s:%ld: bad band line\n", path, lineno);
            fclose(f);
            return -1;
        }
        k++;
    }
    fclose(f);
    if (n < 0 || k != n) {
        fprintf(stderr, "error: %s: expected %d bands, found %d\n", path, n < 0 ? 0 : n, k);
        return -1;
    }
    return n;
}

/* windowed-sinc band-pass, Blackman window, unit gain at the centre frequency */
static void design(Band *b, int rate)
{
    int m = b->taps, c = m / 2;
    b->h = xmalloc((size_t)m * sizeof(double));
    double w1 = 2 * M_PI * b->lo / rate, w2 = 2 * M_PI * b->hi / rate;
    for (int i = 0; i < m; i++) {
        int k = i - c;
        double ideal = k == 0 ? (w2 - w1) / M_PI : (sin(w2 * k) - sin(w1 * k)) / (M_PI * k);
        double win = 0.42 - 0.5 * cos(2 * M_PI * i / (m - 1)) + 0.08 * cos(4 * M_PI * i / (m - 1));
        b->h[i] = ideal * win;
    }
    double wc = (w1 + w2) / 2, re = 0, im = 0;
    for (int i = 0; i < m; i++) {
        re += b->h[i] * cos(wc * (i - c));
        im -= b->h[i] * sin(wc * (i - c));
    }
    double g = sqrt(re * re + im * im);
    if (g > 0)
        for (int i = 0; i < m; i++)
            b->h[i] /= g;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        usage(argv[0]);
        return 2;
    }
    int decim = 1;
    if (argc == 4) {
        char *end;
        long d = strtol(argv[3], &end, 10);
        if (*end || d < 1 || d > 32) {
            usage(argv[0]);
            return 2;
        }
        decim = (int)d;
    }

    long n;
    int rate;
    double *x = read_wav(argv[1], &n, &rate);
    if (!x)
        return 1;
    static Band bands[MAX_BANDS];
    int nb = read_bands(argv[2], bands, rate);
    if (nb < 0) {
        free(x);
        return 1;
    }
    for (int b = 0; b < nb; b++)
        design(&bands[b], rate);

    /* blocks of 100 ms of input; outputs are the input positions j*decim */
    long block_in = rate / 10;
    long nblocks = (n + block_in - 1) / block_in;
    long nout = (n + decim - 1) / decim;
    long nsec = (n + rate - 1) / rate;
    double *y = xmalloc((size_t)nout * sizeof *y);
    double *bsum = xmalloc((size_t)nblocks * sizeof *bsum);
    double *bpeak = xmalloc((size_t)nblocks * sizeof *bpeak);
    double *energy = xmalloc((size_t)nb * sizeof *energy);
    double *peak = xmalloc((size_t)nb * sizeof *peak);
    double *sec_energy = xmalloc((size_t)nb * nsec * sizeof *sec_energy);
    double *centroid = xmalloc((size_t)nb * sizeof *centroid);

    for (int b = 0; b < nb; b++) {
        const double *h = bands[b].h;
        const int m = bands[b].taps, c = m / 2;

        #pragma omp parallel for
        for (long blk = 0; blk < nblocks; blk++) {
            long first = (blk * block_in + decim - 1) / decim;
            long last = ((blk + 1) * block_in + decim - 1) / decim;
            if (last > nout)
                last = nout;
            double s = 0.0, pk = 0.0;
            for (long j = first; j < last; j++) {
                long i = j * decim + c;          /* centred (zero-phase) filter */
                int k0 = 0, k1 = m;
                if (i - (m - 1) < 0)
                    k1 = (int)(i + 1);
                if (i >= n)
                    k0 = (int)(i - n + 1);
                double acc = 0.0;
                for (int k = k0; k < k1; k++)
                    acc += h[k] * x[i - k];
                y[j] = acc;
                s += acc * acc;
                if (fabs(acc) > pk)
                    pk = fabs(acc);
            }
            bsum[blk] = s;
            bpeak[blk] = pk;
        }

        /* block sums in block order: total and per second */
        double e = 0.0, pk = 0.0;
        for (long s = 0; s < nsec; s++)
            sec_energy[(long)b * nsec + s] = 0.0;
        for (long blk = 0; blk < nblocks; blk++) {
            e += bsum[blk];
            sec_energy[(long)b * nsec + blk / 10] += bsum[blk];
            if (bpeak[blk] > pk)
                pk = bpeak[blk];
        }
        energy[b] = e;
        peak[b] = pk;
        centroid[b] = (bands[b].lo + bands[b].hi) / 2;
    }

    printf("%s: %ld samples at %d Hz (%.2f s), %d bands, decimation %d\n", argv[1], n, rate,
           (double)n / rate, nb, decim);
    /* total energy of the input, for the share column */
    double xe = 0.0;
    for (long i = 0; i < n; i += decim)
        xe += x[i] * x[i];
    printf("%-8s %7s %7s %5s %9s %8s %7s\n", "band", "low", "high", "taps", "rms_db", "peak",
           "share%");
    int loudest = 0;
    double sum_e = 0.0;
    for (int b = 0; b < nb; b++)
        sum_e += energy[b];
    for (int b = 0; b < nb; b++) {
        double rms = sqrt(energy[b] / nout);
        printf("%-8s %7.0f %7.0f %5d %9.2f %8.5f %7.2f\n", bands[b].name, bands[b].lo,
               bands[b].hi, bands[b].taps, rms > 0 ? 20 * log10(rms) : -999.0, peak[b],
               sum_e > 0 ? 100 * energy[b] / sum_e : 0.0);
        if (energy[b] > energy[loudest])
            loudest = b;
    }
    printf("loudest band overall: %s; bank energy / input energy: %.4f\n", bands[loudest].name,
           xe > 0 ? sum_e / xe : 0.0);

    printf("loudest band per second:");
    long changes = 0;
    int prev = -1;
    double wsum = 0.0;
    for (long s = 0; s < nsec; s++) {
        int best = 0;
        for (int b = 1; b < nb; b++)
            if (sec_energy[(long)b * nsec + s] > sec_energy[(long)best * nsec + s])
                best = b;
        printf(" %s", bands[best].name);
        if (prev >= 0 && best != prev)
            changes++;
        prev = best;
        wsum += centroid[best];
    }
    printf("\n");
    printf("changes of loudest band: %ld; mean centre of loudest band: %.1f Hz\n", changes,
           wsum / nsec);

    for (int b = 0; b < nb; b++)
        free(bands[b].h);
    free(centroid);
    free(sec_energy);
    free(peak);
    free(energy);
    free(bpeak);
    free(bsum);
    free(y);
    free(x);
    return 0;
}
