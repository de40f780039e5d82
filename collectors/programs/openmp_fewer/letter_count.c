/* Counts the letters of a generated text (a repeated pangram with a varying shift) into 26 shared counters with
 * atomic updates. Usage: letter_count characters. Prints the five most frequent letters and their counts. */
#include <stdio.h>
#include <stdlib.h>

static const char *TEXT = "the quick brown fox jumps over the lazy dog while five boxing wizards jump quickly";

int main(int argc, char **argv) {
    if (argc != 2 || atol(argv[1]) < 1) {
        fprintf(stderr, "usage: %s characters\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]), len = 0;
    while (TEXT[len]) len++;
    long count[26] = {0};
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        char c = TEXT[(i + i / len) % len];
        if (c >= 'a' && c <= 'z') {
#pragma omp atomic
            count[c - 'a']++;
        }
    }
    for (int k = 0; k < 5; k++) {
        int best = 0;
        for (int j = 1; j < 26; j++)
            if (count[j] > count[best]) best = j;
        printf("%c: %ld\n", 'a' + best, count[best]);
        count[best] = -1;
    }
    return 0;
}
