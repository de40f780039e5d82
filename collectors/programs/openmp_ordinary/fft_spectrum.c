/*
 * fft_spectrum.c - averaged power spectrum (Welch's method) of a signal.
 *
 * usage: fft_spectrum signal.txt [frame_len] [nfft] [sample_rate]
 *        fft_spectrum nsamples   [frame_len] [nfft] [sample_rate]
 *
 * The signal is read from a text file with one sample per line (blank lines
 * and lines starting with '#' are ignored), or, if the first argument is a
 * number, a test signal of that many samples is synthesised: two linear
 * chirps, two steady tones and white noise.
 *
 * The signal is cut into frames of frame_len samples that overlap by 50%,
 * each frame is multiplied by a Hann window, zero-padded to nfft points
 * (a power of two) and transformed with an iterative radix-2 FFT.  The
 * squared magnitudes are averaged over all frames.  The program prints the
 * five strongest spectral peaks and the total power.
 *
 * Parallelisation: frames are transformed in batches of BATCH frames, one
 * frame per loop iteration, each thread with its own FFT buffers; a second
 * loop over frequency bins then adds the batch to the running average.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define MAX_SAMPLES 100000000L
#define NPEAKS 5
#define BATCH 32            /* frames transformed per parallel step */

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s signal.txt [frame_len] [nfft] [sample_rate]\n", prog);
    fprintf(stderr, "       %s nsamples   [frame_len] [nfft] [sample_rate]\n", prog);
    fprintf(stderr, "  signal.txt   one sample per line\n");
    fprintf(stderr, "  nsamples     synthesise a chirp + tones + noise test signal instead\n");
    fprintf(stderr, "  frame_len    samples per frame, frames overlap by 50%% (default 1024)\n");
    fprintf(stderr, "  nfft         FFT size, power of two >= frame_len (default: next power of two)\n");
    fprintf(stderr, "  sample_rate  in Hz (default 8000)\n");
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static double *read_signal(const char *path, long *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fft_spectrum: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    long cap = 65536, n = 0, lineno = 0;
    double *x = malloc(cap * sizeof *x);
    char line[256];
    while (x && fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0' || *p == '#')
            continue;
        char *end;
        double v = strtod(p, &end);
        while (isspace((unsigned char)*end))
            end++;
        if (end == p || *end != '\0' || !isfinite(v)) {
            p[strcspn(p, "\r\n")] = '\0';
            fprintf(stderr, "fft_spectrum: '%s' line %ld: not a number: '%.40s'\n", path, lineno, p);
            free(x);
            fclose(f);
            return NULL;
        }
        if (n == cap) {
            cap *= 2;
            double *nx = realloc(x, cap * sizeof *x);
            if (!nx) {
                free(x);
                x = NULL;
                break;
            }
            x = nx;
        }
        x[n++] = v;
    }
    fclose(f);
    if (!x) {
        fprintf(stderr, "fft_spectrum: out of memory reading '%s'\n", path);
        return NULL;
    }
    *count = n;
    return x;
}

/* splitmix64 finaliser: turns a sample index into a pseudo-random word, so
 * the noise of every sample can be computed independently. */
static unsigned long long hash64(unsigned long long z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Test signal: chirps sweeping up and down, two tones, Gaussian noise. */
static double *make_signal(long n, double fs)
{
    double *x = malloc(n * sizeof *x);
    if (!x)
        return NULL;
    const double dur = n / fs;
    const double f0 = 0.05 * fs, f1 = 0.35 * fs;   /* chirp 1 sweeps up */
    const double g0 = 0.30 * fs, g1 = 0.10 * fs;   /* chirp 2 sweeps down */
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        double t = i / fs;
        double ph1 = 2.0 * M_PI * (f0 * t + 0.5 * (f1 - f0) / dur * t * t);
        double ph2 = 2.0 * M_PI * (g0 * t + 0.5 * (g1 - g0) / dur * t * t);
        double v = 0.8 * sin(ph1) + 0.5 * sin(ph2)
                 + 0.6 * sin(2.0 * M_PI * 0.0551 * fs * t)
                 + 0.25 * sin(2.0 * M_PI * 0.1873 * fs * t + 1.0);
        /* Box-Muller with two uniforms derived from the sample index */
        unsigned long long h1 = hash64(2 * (unsigned long long)i);
        unsigned long long h2 = hash64(2 * (unsigned long long)i + 1);
        double u1 = ((h1 >> 11) + 0.5) / 9007199254740992.0;
        double u2 = ((h2 >> 11) + 0.5) / 9007199254740992.0;
        x[i] = v + 0.3 * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
    }
    return x;
}

/* Iterative radix-2 decimation-in-time FFT; the input must already be in
 * bit-reversed order.  tw* hold exp(-2 pi i k / n) for k < n/2. */
static void fft_butterflies(double *re, double *im, long n,
                            const double *twr, const double *twi)
{
    for (long half = 1; half < n; half <<= 1) {
        const long len = 2 * half, tstep = n / len;
        for (long g = 0; g < n; g += len) {
            for (long p = 0; p < half; p++) {
                const long i = g + p, j = i + half;
                const double wr = twr[p * tstep], wi = twi[p * tstep];
                const double tr = wr * re[j] - wi * im[j];
                const double ti = wr * im[j] + wi * re[j];
                re[j] = re[i] - tr;
                im[j] = im[i] - ti;
                re[i] += tr;
                im[i] += ti;
            }
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        usage(argv[0]);
        return 2;
    }
    long frame_len = 1024, nfft = 0;
    double fs = 8000.0;
    char *end;
    if (argc > 2) {
        errno = 0;
        frame_len = strtol(argv[2], &end, 10);
        if (errno || *end || frame_len < 8 || frame_len > (1L << 24)) {
            fprintf(stderr, "fft_spectrum: frame_len must be an integer in 8..%ld\n", 1L << 24);
            usage(argv[0]);
            return 2;
        }
    }
    if (argc > 3) {
        errno = 0;
        nfft = strtol(argv[3], &end, 10);
        if (errno || *end || nfft < frame_len || nfft > (1L << 26) || (nfft & (nfft - 1))) {
            fprintf(stderr, "fft_spectrum: nfft must be a power of two >= frame_len\n");
            usage(argv[0]);
            return 2;
        }
    } else {
        nfft = 1;
        while (nfft < frame_len)
            nfft <<= 1;
    }
    if (argc > 4) {
        errno = 0;
        fs = strtod(argv[4], &end);
        if (errno || *end || !(fs > 0.0) || !isfinite(fs)) {
            fprintf(stderr, "fft_spectrum: sample_rate must be a positive number\n");
            usage(argv[0]);
            return 2;
        }
    }

    long n;
    double *x;
    int synthetic = all_digits(argv[1]);
    if (synthetic) {
        n = strtol(argv[1], NULL, 10);
        if (n < 1 || n > MAX_SAMPLES) {
            fprintf(stderr, "fft_spectrum: nsamples must be in 1..%ld\n", MAX_SAMPLES);
            usage(argv[0]);
            return 2;
        }
        x = make_signal(n, fs);
        if (!x) {
            fprintf(stderr, "fft_spectrum: out of memory\n");
            return 1;
        }
    } else {
        x = read_signal(argv[1], &n);
        if (!x)
            return 1;
    }
    if (n < frame_len) {
        fprintf(stderr, "fft_spectrum: signal has %ld samples, fewer than one frame (%ld)\n",
                n, frame_len);
        return 1;
    }

    /* remove the DC offset of the whole recording */
    double mean = 0.0, msq = 0.0;
    for (long i = 0; i < n; i++)
        mean += x[i];
    mean /= n;
    for (long i = 0; i < n; i++) {
        x[i] -= mean;
        msq += x[i] * x[i];
    }
    msq /= n;

    const long hop = frame_len / 2;
    const long nframes = (n - frame_len) / hop + 1;
    const long nbins = nfft / 2 + 1;
    int log2n = 0;
    while ((1L << log2n) < nfft)
        log2n++;

    double *win = malloc(frame_len * sizeof *win);
    double *twr = malloc((nfft / 2) * sizeof *twr);
    double *twi = malloc((nfft / 2) * sizeof *twi);
    long *rev = malloc(nfft * sizeof *rev);
    double *psd = calloc(nbins, sizeof *psd);
    double *batch = malloc(BATCH * nbins * sizeof *batch);
    if (!win || !twr || !twi || !rev || !psd || !batch) {
        fprintf(stderr, "fft_spectrum: out of memory for nfft = %ld\n", nfft);
        return 1;
    }

    /* tables: periodic Hann window, twiddle factors, bit reversal */
    double wsum2 = 0.0;
    for (long i = 0; i < frame_len; i++) {
        win[i] = 0.5 - 0.5 * cos(2.0 * M_PI * i / frame_len);
        wsum2 += win[i] * win[i];
    }
#pragma omp parallel for
    for (long k = 0; k < nfft / 2; k++) {
        twr[k] = cos(-2.0 * M_PI * k / nfft);
        twi[k] = sin(-2.0 * M_PI * k / nfft);
    }
#pragma omp parallel for
    for (long i = 0; i < nfft; i++) {
        long r = 0;
        for (int b = 0; b < log2n; b++)
            if (i & (1L << b))
                r |= 1L << (log2n - 1 - b);
        rev[i] = r;
    }

    /* Frames are independent: transform a batch of frames in parallel,
     * each into its own row of `batch`, then add the rows to the running
     * sum in frame order (so the result does not depend on the threads). */
#pragma omp parallel
    {
        double *re = malloc(nfft * sizeof *re);
        double *im = malloc(nfft * sizeof *im);
        if (!re || !im) {
            fprintf(stderr, "fft_spectrum: out of memory for FFT buffers\n");
            exit(1);
        }
        for (long f0 = 0; f0 < nframes; f0 += BATCH) {
            const long nb = nframes - f0 < BATCH ? nframes - f0 : BATCH;
#pragma omp for
            for (long fb = 0; fb < nb; fb++) {
                const double *seg = x + (f0 + fb) * hop;
                /* window, zero-pad and store in bit-reversed order */
                for (long i = 0; i < nfft; i++) {
                    long r = rev[i];
                    re[r] = i < frame_len ? seg[i] * win[i] : 0.0;
                    im[r] = 0.0;
                }
                fft_butterflies(re, im, nfft, twr, twi);
                double *out = batch + fb * nbins;
                for (long k = 0; k < nbins; k++)
                    out[k] = re[k] * re[k] + im[k] * im[k];
            }
            /* implicit barrier: all rows of this batch are ready */
#pragma omp for
            for (long k = 0; k < nbins; k++) {
                double acc = psd[k];
                for (long fb = 0; fb < nb; fb++)
                    acc += batch[fb * nbins + k];
                psd[k] = acc;
            }
        }
        free(re);
        free(im);
    }

    /* one-sided PSD normalisation: power per Hz */
    const double norm = 1.0 / (fs * wsum2 * nframes);
    for (long k = 0; k < nbins; k++) {
        double scale = (k == 0 || k == nfft / 2) ? norm : 2.0 * norm;
        psd[k] *= scale;
    }
    const double df = fs / nfft;
    double total = 0.0;
    for (long k = 0; k < nbins; k++)
        total += psd[k] * df;

    /* strongest local maxima */
    long peak[NPEAKS];
    int npk = 0;
    for (long k = 1; k + 1 < nbins; k++) {
        if (!(psd[k] > psd[k - 1] && psd[k] >= psd[k + 1]))
            continue;
        int pos = npk < NPEAKS ? npk : NPEAKS;
        while (pos > 0 && psd[peak[pos - 1]] < psd[k])
            pos--;
        if (pos >= NPEAKS)
            continue;
        int last = npk < NPEAKS ? npk : NPEAKS - 1;
        for (int m = last; m > pos; m--)
            peak[m] = peak[m - 1];
        peak[pos] = k;
        if (npk < NPEAKS)
            npk++;
    }

    if (synthetic)
        printf("signal: synthetic chirps + tones + noise, %ld samples at %.1f Hz\n", n, fs);
    else
        printf("signal: %s, %ld samples at %.1f Hz (%.2f s)\n", argv[1], n, fs, n / fs);
    printf("frames: %ld of %ld samples (hop %ld), Hann window, nfft %ld, resolution %.4f Hz\n",
           nframes, frame_len, hop, nfft, df);
    printf("top %d spectral peaks:\n", npk);
    printf("   bin   frequency/Hz    PSD/dB\n");
    for (int m = 0; m < npk; m++)
        printf("%6ld %14.3f %9.3f\n", peak[m], peak[m] * df, 10.0 * log10(psd[peak[m]]));
    printf("total power: %.6g (%.3f dB), time-domain mean square %.6g, DC removed %.6g\n",
           total, 10.0 * log10(total), msq, mean);

    free(x); free(win); free(twr); free(twi); free(rev);
    free(psd); free(batch);
    return 0;
}
