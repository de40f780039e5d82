/*
 * loan_book.c - amortise every loan of a loan book (fixed-rate, level monthly
 * payments) and aggregate the monthly interest, principal and outstanding
 * balance over the whole book.  All money is in integer cents; each loan is
 * handled by one thread and added into the shared month totals inside a
 * critical section, so the totals do not depend on the thread count.
 *
 * usage: loan_book LOANS_CSV
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>

#define MAX_TERM 480

struct loan {
    long long principal;   /* cents */
    int rate_milli;        /* annual rate in thousandths of a percent */
    int term;              /* months */
    int start;             /* months since January of the first year */
};

/* parse "digits[.d[d]]" into units of 10^-scale; returns end pointer or NULL */
static const char *parse_fixed(const char *s, int scale, long long *out)
{
    long long v = 0;
    int nd = 0;
    while (isdigit((unsigned char)*s)) {
        if (v > 100000000000LL) return NULL;
        v = v * 10 + (*s++ - '0');
        nd++;
    }
    if (nd == 0) return NULL;
    int frac = 0;
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s)) {
            if (frac == scale) return NULL;
            v = v * 10 + (*s++ - '0');
            frac++;
        }
        if (frac == 0) return NULL;
    }
    for (; frac < scale; frac++) v *= 10;
    *out = v;
    return s;
}

static void print_cents(long long c, int width)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%s%lld.%02lld", c < 0 ? "-" : "", llabs(c) / 100, llabs(c) % 100);
    printf("%*s", width, buf);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LOANS_CSV\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "loan_book: cannot open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }

    struct loan *loans = NULL;
    int *year_of = NULL;
    long nloans = 0, cap = 0;
    char line[256];
    long lineno = 0;
    int min_year = 100000;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = '\0';
        if (lineno == 1 && strncmp(line, "principal,", 10) == 0) continue;   /* header */
        if (l == 0) continue;
        long long principal, rate, term;
        int year, month, used = 0;
        const char *p = parse_fixed(line, 2, &principal);
        if (p && *p == ',') p = parse_fixed(p + 1, 3, &rate); else p = NULL;
        if (p && *p == ',') p = parse_fixed(p + 1, 0, &term); else p = NULL;
        if (p && *p == ',' && sscanf(p + 1, "%4d-%2d%n", &year, &month, &used) == 2 &&
            p[1 + used] == '\0' && used == 7) {
            /* ok */
        } else p = NULL;
        if (!p || principal <= 0 || rate > 100000 || term < 1 || term > MAX_TERM ||
            year < 1900 || year > 2200 || month < 1 || month > 12) {
            fprintf(stderr, "loan_book: %s:%ld: malformed loan record\n", argv[1], lineno);
            fclose(f);
            return 1;
        }
        if (nloans == cap) {
            cap = cap ? 2 * cap : 65536;
            loans = realloc(loans, cap * sizeof *loans);
            year_of = realloc(year_of, cap * sizeof *year_of);
            if (!loans || !year_of) {
                fprintf(stderr, "loan_book: out of memory\n");
                return 1;
            }
        }
        loans[nloans].principal = principal;
        loans[nloans].rate_milli = (int)rate;
        loans[nloans].term = (int)term;
        loans[nloans].start = month - 1;
        year_of[nloans] = year;
        if (year < min_year) min_year = year;
        nloans++;
    }
    fclose(f);
    if (nloans == 0) {
        fprintf(stderr, "loan_book: %s: no loan records\n", argv[1]);
        return 1;
    }
    int horizon = 0;
    for (long i = 0; i < nloans; i++) {
        loans[i].start += 12 * (year_of[i] - min_year);
        if (loans[i].start + loans[i].term > horizon) horizon = loans[i].start + loans[i].term;
    }

    long long *interest = calloc(horizon, sizeof(long long));
    long long *repaid = calloc(horizon, sizeof(long long));
    long long *outstanding = calloc(horizon, sizeof(long long));
    long term_count[MAX_TERM + 1] = {0};
    long long total_payments = 0;
    if (!interest || !repaid || !outstanding) {
        fprintf(stderr, "loan_book: out of memory\n");
        return 1;
    }

    #pragma omp parallel for
    for (long i = 0; i < nloans; i++) {
        long long li[MAX_TERM], lp[MAX_TERM], lb[MAX_TERM];
        const struct loan *ln = &loans[i];
        int n = ln->term;
        double r = ln->rate_milli / 1200000.0;          /* monthly rate */
        long long payment;
        if (ln->rate_milli == 0)
            payment = (ln->principal + n - 1) / n;
        else
            payment = llround(ln->principal * r / (1.0 - pow(1.0 + r, -n)));
        long long bal = ln->principal, paid = 0;
        for (int k = 0; k < n; k++) {
            long long in = llround(bal * r);
            long long pr = payment - in;
            if (k == n - 1 || pr > bal) pr = bal;     /* final payment clears the loan */
            if (pr < 0) pr = 0;
            bal -= pr;
            li[k] = in;
            lp[k] = pr;
            lb[k] = bal;
            paid += in + pr;
        }
        #pragma omp critical
        {
            for (int k = 0; k < n; k++) {
                interest[ln->start + k] += li[k];
                repaid[ln->start + k] += lp[k];
                outstanding[ln->start + k] += lb[k];
            }
            term_count[n]++;
            total_payments += paid;
        }
    }

    /* month with the largest end-of-month outstanding balance (earliest on ties) */
    long long peak = -1;
    int peak_month = 0;
    for (int m = 0; m < horizon; m++)
        if (outstanding[m] > peak) { peak = outstanding[m]; peak_month = m; }

    long long sum_principal = 0;
    for (long i = 0; i < nloans; i++) sum_principal += loans[i].principal;

    printf("loans: %ld, principal ", nloans);
    print_cents(sum_principal, 0);
    printf(", payments ");
    print_cents(total_payments, 0);
    printf("\n");
    printf("%-6s %20s %20s\n", "year", "interest (cents)", "principal (cents)");
    long long ti = 0, tp = 0;
    for (int y = 0; y * 12 < horizon; y++) {
        long long yi = 0, yp = 0;
        for (int m = y * 12; m < y * 12 + 12 && m < horizon; m++) {
            yi += interest[m];
            yp += repaid[m];
        }
        ti += yi;
        tp += yp;
        printf("%-6d %20lld %20lld\n", min_year + y, yi, yp);
    }
    printf("%-6s %20lld %20lld\n", "total", ti, tp);
    printf("loans by term:");
    for (int t = 1; t <= MAX_TERM; t++)
        if (term_count[t]) printf(" %dm:%ld", t, term_count[t]);
    printf("\n");
    printf("peak outstanding balance: ");
    print_cents(peak, 0);
    printf(" at end of %04d-%02d\n", min_year + peak_month / 12, peak_month % 12 + 1);

    free(loans); free(year_of); free(interest); free(repaid); free(outstanding);
    return 0;
}
