/* Collatz stopping times of 1..N; every number whose stopping time sets a new record so far is appended to a
 * shared log inside a critical section, and every number is counted there too. Usage: collatz_log N.
 * Prints the count, the longest stopping time and its number. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2 || atol(argv[1]) < 1) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]), counted = 0, best_n = 1;
    int best = 0;
#pragma omp parallel for
    for (long k = 1; k <= n; k++) {
        long x = k;
        int steps = 0;
        while (x != 1) {
            x = (x & 1) ? 3 * x + 1 : x / 2;
            steps++;
        }
#pragma omp critical
        {
            counted++;
            if (steps > best || (steps == best && k < best_n)) {
                best = steps;
                best_n = k;
            }
        }
    }
    printf("numbers: %ld\nlongest stopping time: %d (for %ld)\n", counted, best, best_n);
    return 0;
}
