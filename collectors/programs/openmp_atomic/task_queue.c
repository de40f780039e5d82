/* Processes generated work items: each item runs a mixing computation of `work` to 2*`work` rounds, then, inside
 * a critical section, hands its result to a shared log that keeps the results in item order (results that arrive
 * early wait in a pending table until every earlier item is logged). Usage: task_queue items work.
 * Prints the number of items logged, the sum and an order-dependent digest of the log, and its first and last
 * entries. */
#include <stdio.h>
#include <stdlib.h>

struct entry {
    long id;
    unsigned long value;
};

static unsigned long mix(unsigned long x) {
    x += 0x9e3779b97f4a7c15UL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;
    return x ^ (x >> 31);
}

int main(int argc, char **argv) {
    if (argc != 3 || atol(argv[1]) < 1 || atol(argv[2]) < 1) {
        fprintf(stderr, "usage: %s items work\n", argv[0]);
        return 2;
    }
    long items = atol(argv[1]), work = atol(argv[2]);
    unsigned long *pending = malloc(sizeof(unsigned long) * items);
    char *ready = calloc(items, 1);
    struct entry *log = malloc(sizeof(struct entry) * items);
    if (!pending || !ready || !log) return 1;
    long logged = 0;
#pragma omp parallel for
    for (long id = 0; id < items; id++) {
        unsigned long h = mix((unsigned long)id);
        long rounds = work + (long)(h % (unsigned long)(work + 1));
        unsigned long x = h;
        for (long r = 0; r < rounds; r++) {
            x ^= x >> 29;
            x = x * 0xbf58476d1ce4e5b9UL + (unsigned long)r;
        }
#pragma omp critical
        {
            pending[id] = x;
            ready[id] = 1;
            while (logged < items && ready[logged]) {
                log[logged].id = logged;
                log[logged].value = pending[logged];
                logged++;
            }
        }
    }
    unsigned long sum = 0, digest = 0;
    for (long i = 0; i < logged; i++) {
        sum += log[i].value;
        digest = digest * 1000003UL + (log[i].value ^ (unsigned long)log[i].id);
    }
    printf("logged: %ld of %ld\nsum: %lu\ndigest: %lu\n", logged, items, sum, digest);
    printf("first: %ld %lu\nlast: %ld %lu\n", log[0].id, log[0].value, log[logged - 1].id, log[logged - 1].value);
    free(pending);
    free(ready);
    free(log);
    return 0;
}
