/* Simulates transfers between bank accounts: each transfer's amount is computed from its index, and the two
 * balances are updated inside a critical section. Usage: bank_sim accounts transfers. Prints the total (which
 * transfers keep) and the balances of the first and last accounts. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3 || atoi(argv[1]) < 2 || atol(argv[2]) < 1) {
        fprintf(stderr, "usage: %s accounts transfers\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    long transfers = atol(argv[2]);
    long *balance = malloc(sizeof(long) * n);
    if (!balance) return 1;
    for (int i = 0; i < n; i++) balance[i] = 1000;
#pragma omp parallel for
    for (long t = 0; t < transfers; t++) {
        int from = (int)((t * 7919) % n), to = (int)((t * 104729 + 1) % n);
        long amount = (t * 31) % 97;
#pragma omp critical
        {
            balance[from] -= amount;
            balance[to] += amount;
        }
    }
    long total = 0;
    for (int i = 0; i < n; i++) total += balance[i];
    printf("total: %ld\nfirst: %ld\nlast: %ld\n", total, balance[0], balance[n - 1]);
    free(balance);
    return 0;
}
