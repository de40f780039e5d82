/* Builds the byte histogram (256 bins) and the histogram of consecutive high nibbles (16x16 bins) of a generated
 * byte buffer, with two atomic increments per byte into tables shared by all threads.
 * Usage: byte_hist bytes seed. Prints the buffer's most and least frequent bytes, its most frequent nibble pair,
 * and the number of empty bins of each table. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long mix(unsigned long x) {
    x += 0x9e3779b97f4a7c15UL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;
    return x ^ (x >> 31);
}

int main(int argc, char **argv) {
    if (argc != 3 || atol(argv[1]) < 2) {
        fprintf(stderr, "usage: %s bytes seed\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    unsigned long seed = strtoul(argv[2], NULL, 10);
    unsigned char *buf = malloc(n);
    if (!buf) return 1;
    long blocks = (n + 7) / 8;
    /* text-like content: mostly lower-case letters and spaces, some other bytes */
#pragma omp parallel for
    for (long b = 0; b < blocks; b++) {
        unsigned long h = mix((unsigned long)b ^ (seed << 40));
        for (long i = b * 8; i < b * 8 + 8 && i < n; i++) {
            unsigned int r = (unsigned int)(h & 0xff);
            h >>= 8;
            buf[i] = (unsigned char)(r < 40 ? ' ' : r < 220 ? 'a' + r % 26 : r * 7);
        }
    }
    long hist[256] = {0}, pair[16][16] = {{0}};
#pragma omp parallel for
    for (long i = 0; i < n - 1; i++) {
        unsigned char c = buf[i], d = buf[i + 1];
#pragma omp atomic
        hist[c]++;
#pragma omp atomic
        pair[c >> 4][d >> 4]++;
    }
    hist[buf[n - 1]]++;
    int most = 0, least = -1, empty = 0, pempty = 0, pi = 0, pj = 0;
    for (int c = 0; c < 256; c++) {
        if (hist[c] > hist[most]) most = c;
        if (hist[c] == 0) empty++;
        else if (least < 0 || hist[c] < hist[least]) least = c;
    }
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            if (pair[i][j] > pair[pi][pj]) pi = i, pj = j;
            if (pair[i][j] == 0) pempty++;
        }
    printf("most frequent byte: %d (%ld)\nleast frequent byte: %d (%ld)\n", most, hist[most], least, hist[least]);
    printf("most frequent nibble pair: %x%x (%ld)\n", pi, pj, pair[pi][pj]);
    printf("empty bins: %d of 256, %d of 256 pairs\n", empty, pempty);
    free(buf);
    return 0;
}
