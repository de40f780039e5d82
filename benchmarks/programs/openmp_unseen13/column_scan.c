/*
 * column_scan: a tiny column store answering range-filter/aggregate queries.
 *
 * Each column lives in its own binary file (little-endian, no header); its
 * name and type come from the file name: [TABLE.]NAME.i32 (int32) or
 * [TABLE.]NAME.f32 (float32).  All columns must have the same number of rows.
 *
 * Query file, one query per line:
 *   AGGCOL where COL1 between LO1 and HI1 and COL2 between LO2 and HI2
 * For every query the rows passing both (inclusive) range predicates are
 * counted and the sum, average, minimum and maximum of AGGCOL over them are
 * printed.  Each query is one scan over all rows.
 *
 * usage: column_scan QUERY_FILE MAX_QUERIES COLUMN_FILE...
 *   MAX_QUERIES  run at most this many queries (0 = all)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stdint.h>
#include <float.h>

#define MAX_COLS 16
#define NAME_LEN 32

enum { T_I32, T_F32 };

typedef struct {
    char name[NAME_LEN];
    int type;
    long rows;
    void *data;
} Column;

typedef struct {
    int col;
    int32_t ilo, ihi;
    float flo, fhi;
} Range;

typedef struct {
    int agg;
    Range pred[2];
    char text[256];
} Query;

static Column cols[MAX_COLS];
static int ncols;

static void usage(void)
{
    fprintf(stderr, "usage: column_scan QUERY_FILE MAX_QUERIES COLUMN_FILE...   (MAX_QUERIES >= 0, 0 = all; columns [TABLE.]NAME.i32 or [TABLE.]NAME.f32)\n");
    exit(2);
}

static void load_column(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    Column *c = &cols[ncols];
    if (dot) {                     /* skip an optional "TABLE." prefix */
        const char *p = dot;
        while (p > base && p[-1] != '.')
            p--;
        base = p;
    }
    if (!dot || dot == base || (size_t)(dot - base) >= NAME_LEN ||
        (strcmp(dot, ".i32") != 0 && strcmp(dot, ".f32") != 0)) {
        fprintf(stderr, "column_scan: %s: column files must be named [TABLE.]NAME.i32 or [TABLE.]NAME.f32\n", path);
        exit(1);
    }
    memcpy(c->name, base, dot - base);
    c->name[dot - base] = '\0';
    c->type = strcmp(dot, ".i32") == 0 ? T_I32 : T_F32;

    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "column_scan: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (bytes <= 0 || bytes % 4 != 0) {
        fprintf(stderr, "column_scan: %s: size %ld is not a positive multiple of 4\n", path, bytes);
        exit(1);
    }
    c->rows = bytes / 4;
    c->data = malloc(bytes);
    if (fread(c->data, 1, bytes, f) != (size_t)bytes) {
        fprintf(stderr, "column_scan: %s: read error\n", path);
        exit(1);
    }
    fclose(f);
    for (int k = 0; k < ncols; k++) {
        if (strcmp(cols[k].name, c->name) == 0) {
            fprintf(stderr, "column_scan: %s: column '%s' given twice\n", path, c->name);
            exit(1);
        }
    }
    if (ncols > 0 && c->rows != cols[0].rows) {
        fprintf(stderr, "column_scan: %s: %ld rows, but %s has %ld\n", path, c->rows, cols[0].name, cols[0].rows);
        exit(1);
    }
    ncols++;
}

static int find_column(const char *name)
{
    for (int k = 0; k < ncols; k++)
        if (strcmp(cols[k].name, name) == 0)
            return k;
    return -1;
}

static int parse_bound(const Column *c, const char *s, int32_t *iv, float *fv)
{
    char *end;
    errno = 0;
    if (c->type == T_I32) {
        long v = strtol(s, &end, 10);
        if (errno || *end || end == s || v < INT32_MIN || v > INT32_MAX)
            return 0;
        *iv = (int32_t)v;
    } else {
        float v = strtof(s, &end);
        if (errno || *end || end == s)
            return 0;
        *fv = v;
    }
    return 1;
}

/* Parse "AGG where C1 between L1 and H1 and C2 between L2 and H2". */
static int parse_query(const char *line, Query *q)
{
    char agg[64], w[16], c[2][64], b[2][16], a[3][16], lo[2][64], hi[2][64];
    char extra[2];
    int got = sscanf(line, "%63s %15s %63s %15s %63s %15s %63s %15s %63s %15s %63s %15s %63s %1s",
                     agg, w, c[0], b[0], lo[0], a[0], hi[0], a[1], c[1], b[1], lo[1], a[2], hi[1], extra);
    if (got != 13 || strcmp(w, "where") || strcmp(b[0], "between") || strcmp(b[1], "between") ||
        strcmp(a[0], "and") || strcmp(a[1], "and") || strcmp(a[2], "and"))
        return 0;
    if ((q->agg = find_column(agg)) < 0)
        return 0;
    for (int p = 0; p < 2; p++) {
        Range *r = &q->pred[p];
        if ((r->col = find_column(c[p])) < 0)
            return 0;
        if (!parse_bound(&cols[r->col], lo[p], &r->ilo, &r->flo) ||
            !parse_bound(&cols[r->col], hi[p], &r->ihi, &r->fhi))
            return 0;
    }
    snprintf(q->text, sizeof q->text, "%s", line);
    return 1;
}

static inline int in_range(const Range *r, long row)
{
    const Column *c = &cols[r->col];
    if (c->type == T_I32) {
        int32_t v = ((const int32_t *)c->data)[row];
        return v >= r->ilo && v <= r->ihi;
    } else {
        float v = ((const float *)c->data)[row];
        return v >= r->flo && v <= r->fhi;
    }
}

static inline double value_at(const Column *c, long row)
{
    if (c->type == T_I32)
        return (double)((const int32_t *)c->data)[row];
    return (double)((const float *)c->data)[row];
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc - 3 > MAX_COLS)
        usage();
    char *end;
    errno = 0;
    long max_queries = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || max_queries < 0)
        usage();

    for (int k = 3; k < argc; k++)
        load_column(argv[k]);
    long rows = cols[0].rows;

    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "column_scan: cannot open %s\n", argv[1]);
        return 1;
    }
    Query *queries = NULL;
    long nq = 0, cap = 0, lineno = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#')
            continue;
        if (max_queries && nq >= max_queries)
            break;
        if (nq == cap) {
            cap = cap ? 2 * cap : 64;
            queries = realloc(queries, sizeof(Query) * cap);
        }
        if (!parse_query(line, &queries[nq])) {
            fprintf(stderr, "column_scan: %s line %ld: bad query (unknown column or syntax): %s\n",
                    argv[1], lineno, line);
            fclose(f);
            return 1;
        }
        nq++;
    }
    fclose(f);
    if (nq == 0) {
        fprintf(stderr, "column_scan: %s: no queries\n", argv[1]);
        return 1;
    }

    printf("table: %ld rows, %d columns:", rows, ncols);
    for (int k = 0; k < ncols; k++)
        printf(" %s(%s)", cols[k].name, cols[k].type == T_I32 ? "int32" : "float32");
    printf("\n");

    for (long qi = 0; qi < nq; qi++) {
        const Query *q = &queries[qi];
        const Column *agg = &cols[q->agg];
        long count = 0;
        double sum = 0.0, vmin = DBL_MAX, vmax = -DBL_MAX;

        #pragma omp parallel for reduction(+:count,sum) reduction(min:vmin) reduction(max:vmax)
        for (long r = 0; r < rows; r++) {
            if (in_range(&q->pred[0], r) && in_range(&q->pred[1], r)) {
                double v = value_at(agg, r);
                count++;
                sum += v;
                if (v < vmin) vmin = v;
                if (v > vmax) vmax = v;
            }
        }

        if (count == 0) {
            printf("q%02ld  count 0                                        | %s\n", qi + 1, q->text);
        } else if (agg->type == T_I32) {
            printf("q%02ld  count %7ld  sum %14.0f  avg %10.4f  min %6.0f  max %6.0f | %s\n",
                   qi + 1, count, sum, sum / count, vmin, vmax, q->text);
        } else {
            printf("q%02ld  count %7ld  sum %14.2f  avg %10.4f  min %6.2f  max %6.2f | %s\n",
                   qi + 1, count, sum, sum / count, vmin, vmax, q->text);
        }
    }

    for (int k = 0; k < ncols; k++)
        free(cols[k].data);
    free(queries);
    return 0;
}
