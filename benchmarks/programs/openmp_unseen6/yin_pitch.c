/*
 * yin_pitch - frame-by-frame fundamental frequency estimation with YIN.
 *
 * Reads a mono 16-bit PCM WAV file and runs the YIN estimator
 * (de Cheveigne & Kawahara, 2002) on overlapping frames: difference function,
 * cumulative mean normalised difference, absolute threshold, parabolic
 * interpolation.  Frames whose energy is below a silence gate are skipped.
 * Prints the share of voiced frames, a histogram of the detected notes and
 * the longest stretches of one stable note.
 *
 * usage: yin_pitch FILE.wav [HOP] [WINDOW] [THRESHOLD]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FMIN 50.0      /* lowest pitch searched for (Hz)  */
#define FMAX 1400.0    /* highest pitch searched for (Hz) */
#define SILENCE_DB -45.0
#define TOP_NOTES 8

typedef struct {
    int rate;
    int nsamples;
    float *x; /* samples scaled to [-1, 1) */
} audio_t;

typedef struct {
    float f0;       /* Hz, 0 when unvoiced                 */
    float aperiod;  /* d'(tau) at the chosen lag (0 .. 1+) */
    signed char state; /* 0 silent, 1 unvoiced, 2 voiced */
} frame_t;

typedef struct {
    int note;     /* MIDI number */
    int first;    /* first frame */
    int count;    /* frames      */
    double mean_hz;
} run_t;

static const char *NOTE_NAMES[12] = {"C", "C#", "D", "D#", "E", "F",
                                     "F#", "G", "G#", "A", "A#", "B"};

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s FILE.wav [HOP (default 256)] [WINDOW (default 2048)] "
                    "[THRESHOLD (default 0.12)]\n", prog);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static int read_wav(const char *path, audio_t *a)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "yin_pitch: cannot open '%s'\n", path);
        return 0;
    }
    unsigned char hdr[12], ck[8];
    int have_fmt = 0, ok = 0;
    if (fread(hdr, 1, 12, f) != 12 || memcmp(hdr, "RIFF", 4) || memcmp(hdr + 8, "WAVE", 4)) {
        fprintf(stderr, "yin_pitch: '%s' is not a RIFF/WAVE file\n", path);
        fclose(f);
        return 0;
    }
    while (fread(ck, 1, 8, f) == 8) {
        uint32_t size = le32(ck + 4);
        if (!memcmp(ck, "fmt ", 4)) {
            unsigned char fmt[16];
            if (size < 16 || fread(fmt, 1, 16, f) != 16)
                break;
            int format = le16(fmt), channels = le16(fmt + 2), bits = le16(fmt + 14);
            a->rate = (int)le32(fmt + 4);
            if (format != 1 || channels != 1 || bits != 16) {
                fprintf(stderr, "yin_pitch: '%s': need mono 16-bit PCM (got format %d, %d channels, "
                                "%d bits)\n", path, format, channels, bits);
                fclose(f);
                return 0;
            }
            if (a->rate < 4000 || a->rate > 192000)
                break;
            have_fmt = 1;
            if (fseek(f, (long)(size - 16 + (size & 1)), SEEK_CUR))
                break;
        } else if (!memcmp(ck, "data", 4)) {
            if (!have_fmt || size < 2)
                break;
            a->nsamples = (int)(size / 2);
            unsigned char *raw = malloc(size);
            a->x = malloc((size_t)a->nsamples * sizeof(float));
            if (!raw || !a->x || fread(raw, 1, size, f) != size) {
                free(raw);
                break;
            }
            for (int i = 0; i < a->nsamples; i++)
                a->x[i] = (float)(int16_t)le16(raw + 2 * i) / 32768.0f;
            free(raw);
            ok = 1;
            break;
        } else if (fseek(f, (long)(size + (size & 1)), SEEK_CUR)) {
            break;
        }
    }
    fclose(f);
    if (!ok)
        fprintf(stderr, "yin_pitch: '%s': missing or truncated fmt/data chunk\n", path);
    return ok;
}

static void note_name(int midi, char *buf, size_t n)
{
    snprintf(buf, n, "%s%d", NOTE_NAMES[((midi % 12) + 12) % 12], midi / 12 - 1);
}

static int hz_to_midi(double f)
{
    return (int)floor(69.0 + 12.0 * log2(f / 440.0) + 0.5);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        usage(argv[0]);
        return 2;
    }
    int hop = 256, window = 2048;
    double threshold = 0.12;
    char *end;
    if (argc > 2) {
        long v = strtol(argv[2], &end, 10);
        if (*end || v < 1 || v > 65536) {
            usage(argv[0]);
            return 2;
        }
        hop = (int)v;
    }
    if (argc > 3) {
        long v = strtol(argv[3], &end, 10);
        if (*end || v < 64 || v > 65536 || v % 2) {
            usage(argv[0]);
            return 2;
        }
        window = (int)v;
    }
    if (argc > 4) {
        threshold = strtod(argv[4], &end);
        if (*end || !(threshold > 0.0 && threshold < 1.0)) {
            usage(argv[0]);
            return 2;
        }
    }

    audio_t au = {0, 0, NULL};
    if (!read_wav(argv[1], &au))
        return 1;

    /* YIN integrates over W = window/2 samples and searches lags up to W */
    const int W = window / 2;
    int tau_max = (int)(au.rate / FMIN) + 1;
    int tau_min = (int)(au.rate / FMAX);
    if (tau_max > W)
        tau_max = W;
    if (tau_min < 2)
        tau_min = 2;
    if (au.nsamples < window || tau_min + 2 >= tau_max) {
        fprintf(stderr, "yin_pitch: '%s': recording too short for a %d-sample window\n",
                argv[1], window);
        return 1;
    }
    const int nframes = (au.nsamples - window) / hop + 1;
    frame_t *fr = calloc((size_t)nframes, sizeof(frame_t));
    if (!fr) {
        fprintf(stderr, "yin_pitch: out of memory\n");
        return 1;
    }
    const double gate = pow(10.0, SILENCE_DB / 10.0); /* mean-square level */

    #pragma omp parallel
    {
        double *d = malloc((size_t)(tau_max + 2) * sizeof(double));

        #pragma omp for
        for (int i = 0; i < nframes; i++) {
            const float *x = au.x + (size_t)i * hop;

            double energy = 0.0;
            for (int j = 0; j < window; j++)
                energy += (double)x[j] * x[j];
            energy /= window;
            if (energy < gate) {
                fr[i].state = 0;
                fr[i].f0 = 0.0f;
                fr[i].aperiod = 1.0f;
                continue;
            }

            /* difference function */
            d[0] = 0.0;
            for (int tau = 1; tau <= tau_max; tau++) {
                double s = 0.0;
                for (int j = 0; j < W; j++) {
                    double diff = (double)x[j] - x[j + tau];
                    s += diff * diff;
                }
                d[tau] = s;
            }

            /* cumulative mean normalised difference */
            double running = 0.0;
            d[0] = 1.0;
            for (int tau = 1; tau <= tau_max; tau++) {
                running += d[tau];
                d[tau] = running > 0.0 ? d[tau] * tau / running : 1.0;
            }

            /* absolute threshold: first dip below it, then walk to its minimum */
            int best = -1;
            for (int tau = tau_min; tau < tau_max; tau++) {
                if (d[tau] < threshold) {
                    while (tau + 1 < tau_max && d[tau + 1] < d[tau])
                        tau++;
                    best = tau;
                    break;
                }
            }
            if (best < 0) {
                int m = tau_min;
                for (int tau = tau_min + 1; tau < tau_max; tau++)
                    if (d[tau] < d[m])
                        m = tau;
                fr[i].state = 1;
                fr[i].f0 = 0.0f;
                fr[i].aperiod = (float)d[m];
                continue;
            }

            /* parabolic interpolation around the chosen lag */
            double t = best;
            if (best > 1 && best < tau_max) {
                double a = d[best - 1], b = d[best], c = d[best + 1];
                double den = a - 2.0 * b + c;
                if (den > 0.0)
                    t = best + 0.5 * (a - c) / den;
            }
            fr[i].state = 2;
            fr[i].f0 = (float)(au.rate / t);
            fr[i].aperiod = (float)d[best];
        }
        free(d);
    }

    /* ---- summaries (sequential, in frame order) ---- */
    int nsilent = 0, nunvoiced = 0, nvoiced = 0;
    int hist[128] = {0};
    double cents_dev = 0.0, aper = 0.0;
    for (int i = 0; i < nframes; i++) {
        if (fr[i].state == 0) {
            nsilent++;
        } else if (fr[i].state == 1) {
            nunvoiced++;
        } else {
            nvoiced++;
            double m = 69.0 + 12.0 * log2(fr[i].f0 / 440.0);
            int note = hz_to_midi(fr[i].f0);
            if (note >= 0 && note < 128)
                hist[note]++;
            cents_dev += fabs(100.0 * (m - note));
            aper += fr[i].aperiod;
        }
    }

    /* runs of consecutive voiced frames with the same note */
    int cap = 64, nruns = 0;
    run_t *runs = malloc((size_t)cap * sizeof(run_t));
    for (int i = 0; i < nframes;) {
        if (fr[i].state != 2) {
            i++;
            continue;
        }
        int note = hz_to_midi(fr[i].f0);
        int j = i;
        double sum = 0.0;
        while (j < nframes && fr[j].state == 2 && hz_to_midi(fr[j].f0) == note) {
            sum += fr[j].f0;
            j++;
        }
        if (nruns == cap) {
            cap *= 2;
            runs = realloc(runs, (size_t)cap * sizeof(run_t));
        }
        runs[nruns].note = note;
        runs[nruns].first = i;
        runs[nruns].count = j - i;
        runs[nruns].mean_hz = sum / (j - i);
        nruns++;
        i = j;
    }
    /* selection of the longest runs; ties keep the earlier one */
    int top[TOP_NOTES], ntop = 0;
    for (int k = 0; k < TOP_NOTES && k < nruns; k++) {
        int b = -1;
        for (int r = 0; r < nruns; r++) {
            int used = 0;
            for (int q = 0; q < ntop; q++)
                used |= top[q] == r;
            if (!used && (b < 0 || runs[r].count > runs[b].count))
                b = r;
        }
        top[ntop++] = b;
    }

    const double sec_per_hop = (double)hop / au.rate;
    printf("file %s: %d Hz, %d samples (%.2f s)\n", argv[1], au.rate, au.nsamples,
           (double)au.nsamples / au.rate);
    printf("frames: %d (window %d, hop %d), lag range %d..%d (%.0f..%.0f Hz), threshold %.3f\n",
           nframes, window, hop, tau_min, tau_max, (double)au.rate / tau_max,
           (double)au.rate / tau_min, threshold);
    printf("silent %d, unvoiced %d, voiced %d -> voiced share %.1f%% (%.1f%% of non-silent)\n",
           nsilent, nunvoiced, nvoiced, 100.0 * nvoiced / nframes,
           nframes - nsilent ? 100.0 * nvoiced / (nframes - nsilent) : 0.0);
    if (nvoiced) {
        printf("mean aperiodicity %.3f, mean deviation from equal temperament %.1f cents\n",
               aper / nvoiced, cents_dev / nvoiced);
        int hmax = 0, rest_notes = 0, rest_frames = 0;
        for (int m = 0; m < 128; m++)
            if (hist[m] > hmax)
                hmax = hist[m];
        printf("detected notes (frames, at least 1%% of voiced frames):\n");
        for (int m = 0; m < 128; m++) {
            if (!hist[m])
                continue;
            if (hist[m] * 100 < nvoiced) {
                rest_notes++;
                rest_frames += hist[m];
                continue;
            }
            char name[8];
            note_name(m, name, sizeof name);
            char bar[41];
            int len = (int)(40.0 * hist[m] / hmax + 0.5);
            memset(bar, '#', (size_t)len);
            bar[len] = '\0';
            printf("  %-4s %6.1f Hz %5d  %s\n", name, 440.0 * pow(2.0, (m - 69) / 12.0), hist[m], bar);
        }
        if (rest_notes)
            printf("  (%d rarer notes, %d frames)\n", rest_notes, rest_frames);
        printf("longest stable notes (of %d note runs):\n", nruns);
        for (int k = 0; k < ntop; k++) {
            const run_t *r = &runs[top[k]];
            char name[8];
            note_name(r->note, name, sizeof name);
            printf("  %-4s at %6.2f s for %5.2f s (%3d frames), mean %7.2f Hz\n", name,
                   r->first * sec_per_hop, r->count * sec_per_hop, r->count, r->mean_hz);
        }
    }

    free(runs);
    free(fr);
    free(au.x);
    return 0;
}
