/*
 * fuzzy_join - match every name of one list to its most similar name in a
 * second list (person and company names with typos, case changes and
 * "Last, First" ordering).
 *
 * Names are normalised (lower case, letters and digits only, single spaces)
 * and compared with Jaro-Winkler similarity, both as written and with their
 * words sorted alphabetically; the higher of the two counts.  To avoid the
 * full cross product a candidate is only scored when the lengths are close
 * and the names start with the same letter in one of the two forms.
 *
 * usage: fuzzy_join LEFT_FILE RIGHT_FILE [accept_threshold]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#define MAXLEN 128

typedef struct {
    char raw[MAXLEN];     /* as read, trimmed */
    char norm[MAXLEN];    /* normalised */
    char sorted[MAXLEN];  /* normalised, words in alphabetical order */
    int len;
} Name;

typedef struct {
    int best;             /* index into right list, -1 if no candidate */
    double score;
    int edit;             /* Levenshtein distance of the normalised forms */
    long long compared;
} Match;

static void normalise(const char *in, char *out)
{
    int k = 0, space = 0;
    for (const char *p = in; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c)) {
            if (space && k > 0) out[k++] = ' ';
            space = 0;
            out[k++] = (char)tolower(c);
        } else if (c == ' ' || c == '-' || c == ',' || c == '\t') {
            space = 1;
        }
        /* other punctuation (dots, ampersands, quotes) is dropped */
    }
    out[k] = '\0';
}

static int cmp_words(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_words(const char *norm, char *out)
{
    char buf[MAXLEN];
    char *words[MAXLEN / 2];
    int nw = 0;
    strcpy(buf, norm);
    char *save = NULL;
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) words[nw++] = t;
    qsort(words, (size_t)nw, sizeof(char *), cmp_words);
    out[0] = '\0';
    for (int i = 0; i < nw; i++) {
        if (i) strcat(out, " ");
        strcat(out, words[i]);
    }
}

static double jaro_winkler(const char *a, int la, const char *b, int lb)
{
    if (la == 0 || lb == 0) return 0.0;
    int window = (la > lb ? la : lb) / 2 - 1;
    if (window < 0) window = 0;
    char ma[MAXLEN] = { 0 }, mb[MAXLEN] = { 0 };
    int m = 0;
    for (int i = 0; i < la; i++) {
        int lo = i - window < 0 ? 0 : i - window;
        int hi = i + window + 1 > lb ? lb : i + window + 1;
        for (int j = lo; j < hi; j++) {
            if (!mb[j] && a[i] == b[j]) {
                ma[i] = mb[j] = 1;
                m++;
                break;
            }
        }
    }
    if (m == 0) return 0.0;
    int t = 0, j = 0;
    for (int i = 0; i < la; i++) {
        if (!ma[i]) continue;
        while (!mb[j]) j++;
        if (a[i] != b[j]) t++;
        j++;
    }
    double jaro = ((double)m / la + (double)m / lb + (double)(m - t / 2) / m) / 3.0;
    int prefix = 0;
    while (prefix < 4 && prefix < la && prefix < lb && a[prefix] == b[prefix]) prefix++;
    return jaro + prefix * 0.1 * (1.0 - jaro);
}

static int levenshtein(const char *a, int la, const char *b, int lb)
{
    int row[MAXLEN + 1];
    for (int j = 0; j <= lb; j++) row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int v = diag + cost;
            if (up + 1 < v) v = up + 1;
            if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
        }
    }
    return row[lb];
}

static int read_names(const char *path, Name **out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fuzzy_join: cannot open '%s'\n", path);
        return -1;
    }
    int cap = 1024, n = 0, line_no = 0;
    Name *v = malloc(sizeof(Name) * (size_t)cap);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line_no++;
        size_t L = strlen(line);
        if (L == sizeof line - 1 && line[L - 1] != '\n') {
            fprintf(stderr, "fuzzy_join: %s:%d: line too long\n", path, line_no);
            goto bad;
        }
        while (L > 0 && isspace((unsigned char)line[L - 1])) line[--L] = '\0';
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '\0') continue;
        if (strlen(p) >= MAXLEN) {
            fprintf(stderr, "fuzzy_join: %s:%d: name longer than %d characters\n", path, line_no, MAXLEN - 1);
            goto bad;
        }
        if (n == cap) {
            cap *= 2;
            v = realloc(v, sizeof(Name) * (size_t)cap);
        }
        strcpy(v[n].raw, p);
        n++;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "fuzzy_join: %s: no names\n", path);
        free(v);
        return -1;
    }
    *out = v;
    return n;
bad:
    fclose(f);
    free(v);
    return -1;
}

static void prepare(Name *v, int n)
{
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        normalise(v[i].raw, v[i].norm);
        sort_words(v[i].norm, v[i].sorted);
        v[i].len = (int)strlen(v[i].norm);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s LEFT_FILE RIGHT_FILE [accept_threshold]\n", argv[0]);
        return 2;
    }
    double accept = 0.85;
    if (argc == 4) {
        char *end;
        accept = strtod(argv[3], &end);
        if (*end || accept <= 0.0 || accept > 1.0) {
            fprintf(stderr, "usage: %s LEFT_FILE RIGHT_FILE [accept_threshold]\n", argv[0]);
            return 2;
        }
    }

    Name *left, *right;
    int nl = read_names(argv[1], &left);
    if (nl < 0) return 1;
    int nr = read_names(argv[2], &right);
    if (nr < 0) { free(left); return 1; }

    prepare(left, nl);
    prepare(right, nr);

    Match *match = malloc(sizeof(Match) * (size_t)nl);
    long long compared = 0;

    #pragma omp parallel for reduction(+:compared)
    for (int i = 0; i < nl; i++) {
        const Name *a = &left[i];
        Match m = { -1, 0.0, 0, 0 };
        for (int j = 0; j < nr; j++) {
            const Name *b = &right[j];
            /* cheap filters first: length and first letter */
            int d = a->len - b->len;
            int longest = a->len > b->len ? a->len : b->len;
            if (d < 0) d = -d;
            if (d > 3 && d * 4 > longest) continue;
            if (a->norm[0] != b->norm[0] && a->sorted[0] != b->sorted[0]) continue;
            m.compared++;
            double s = jaro_winkler(a->norm, a->len, b->norm, b->len);
            if (s < 1.0) {
                double s2 = jaro_winkler(a->sorted, a->len, b->sorted, b->len);
                if (s2 > s) s = s2;
            }
            if (s > m.score) {
                m.score = s;
                m.best = j;
                if (s == 1.0) break;
            }
        }
        if (m.best >= 0)
            m.edit = levenshtein(a->norm, a->len, right[m.best].norm, right[m.best].len);
        match[i] = m;
        compared += m.compared;
    }

    static const double levels[] = { 1.0, 0.95, 0.90, 0.85, 0.80 };
    int at_level[5] = { 0 };
    int no_candidate = 0, accepted = 0;
    long long edit_sum = 0;
    int hist[11] = { 0 };    /* [0,0.5) and ten bins of 0.05 */
    for (int i = 0; i < nl; i++) {
        const Match *m = &match[i];
        if (m->best < 0) { no_candidate++; hist[0]++; continue; }
        for (int k = 0; k < 5; k++)
            if (m->score >= levels[k]) at_level[k]++;
        if (m->score >= accept) { accepted++; edit_sum += m->edit; }
        int b = m->score < 0.5 ? 0 : 1 + (int)((m->score - 0.5) / 0.05);
        if (b > 10) b = 10;
        hist[b]++;
    }

    printf("left names: %d, right names: %d\n", nl, nr);
    printf("pairs scored after length/letter filter: %lld of %lld (%.1f%%)\n",
           compared, (long long)nl * nr, 100.0 * (double)compared / ((double)nl * nr));
    printf("identical after normalisation: %d\n", at_level[0]);
    for (int k = 1; k < 5; k++)
        printf("best match >= %.2f: %d\n", levels[k], at_level[k]);
    printf("accepted (>= %.2f): %d, mean edit distance %.2f\n", accept, accepted,
           accepted ? (double)edit_sum / accepted : 0.0);
    printf("no candidate passed the filter: %d\n", no_candidate);

    printf("similarity histogram of best matches:\n");
    printf("  %-11s %5d\n", "below 0.50", hist[0]);
    for (int b = 1; b <= 10; b++) {
        char label[32];
        snprintf(label, sizeof label, "%.2f-%.2f", 0.5 + (b - 1) * 0.05, b == 10 ? 1.0 : 0.5 + b * 0.05);
        printf("  %-11s %5d\n", label, hist[b]);
    }

    /* ten least confident accepted matches (ties: file order) */
    int low[10], nlow = 0;
    for (int i = 0; i < nl; i++) {
        if (match[i].best < 0 || match[i].score < accept) continue;
        int pos = nlow;
        while (pos > 0 && match[low[pos - 1]].score > match[i].score) pos--;
        if (pos >= 10) continue;
        if (nlow < 10) nlow++;
        for (int k = nlow - 1; k > pos; k--) low[k] = low[k - 1];
        low[pos] = i;
    }
    printf("least confident accepted matches:\n");
    for (int k = 0; k < nlow; k++) {
        const Match *m = &match[low[k]];
        printf("  %.4f  edits %2d  \"%s\" -> \"%s\"\n", m->score, m->edit, left[low[k]].raw,
               right[m->best].raw);
    }

    free(match);
    free(left);
    free(right);
    return 0;
}
