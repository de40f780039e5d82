/*
 * dict_attack: password audit against salted, iterated FNV-1a-64 hashes.
 *
 * usage: dict_attack <hashes.txt> <words.txt> <rounds>
 *
 * hashes.txt: "name:salt:hash" per line, hash = 16 hex digits of
 *   h = FNV1a64(salt + password), then (rounds - 1) times
 *   h = FNV1a64(salt + 8 little-endian bytes of h)
 * Every word is tried with these mangling rules:
 *   plain, capitalise, reverse, digits (word0..word99),
 *   cap+digits (Word0..Word99), leet (every non-empty subset of the
 *   substitutions a->4 e->3 i->1 o->0 s->5 t->7 on the first 8 such letters),
 *   leet+digits (all substitutions, then 0..99 appended).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME  0x100000001b3ULL
#define MAX_WORD   32
#define MAX_SALT   32
#define MAX_LEET   8

enum { R_PLAIN, R_CAP, R_REVERSE, R_DIGITS, R_CAP_DIGITS, R_LEET, R_LEET_DIGITS, NRULES };
static const char *rule_names[NRULES] = {
    "plain", "capitalise", "reverse", "digits", "cap+digits", "leet", "leet+digits"
};

typedef struct {
    char name[64];
    int salt_id;
    uint64_t hash;
} account_t;

typedef struct {
    char salt[MAX_SALT + 1];
    uint64_t state;          /* FNV state after hashing the salt */
    int n;                   /* accounts using this salt */
    unsigned mask;           /* open-addressing table of size mask + 1 */
    uint64_t *hashes;
    int *owner;              /* account index, -1 for an empty slot */
} salt_t;

typedef struct {
    long long key;           /* word * 2^20 + candidate number; -1 = not cracked */
    int rule;
    char password[MAX_WORD + 4];
} crack_t;

static account_t *accounts;
static int n_accounts;
static salt_t *salts;
static int n_salts;
static crack_t *cracks;
static int rounds;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s <hashes.txt> <words.txt> <rounds>\n", prog);
}

static uint64_t fnv_bytes(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* Finish the hash of salt + text, where h already covers salt + text. */
static uint64_t stretch(const salt_t *s, uint64_t h)
{
    for (int r = 1; r < rounds; r++) {
        uint64_t x = s->state;
        for (int b = 0; b < 8; b++) {
            x ^= (h >> (8 * b)) & 0xff;
            x *= FNV_PRIME;
        }
        h = x;
    }
    return h;
}

static void report_hit(int acc, long long key, int rule, const char *pw)
{
    #pragma omp critical
    {
        if (cracks[acc].key < 0 || key < cracks[acc].key) {
            cracks[acc].key = key;
            cracks[acc].rule = rule;
            snprintf(cracks[acc].password, sizeof cracks[acc].password, "%s", pw);
        }
    }
}

/* Report every account of this salt whose stored hash equals h. */
static void lookup(const salt_t *s, uint64_t h, long long key, int rule, const char *pw)
{
    for (unsigned k = (unsigned)(h >> 40) & s->mask; s->owner[k] >= 0; k = (k + 1) & s->mask)
        if (s->hashes[k] == h)
            report_hit(s->owner[k], key, rule, pw);
}

/* Does any account of this salt have hash h? */
static int present(const salt_t *s, uint64_t h)
{
    for (unsigned k = (unsigned)(h >> 40) & s->mask; s->owner[k] >= 0; k = (k + 1) & s->mask)
        if (s->hashes[k] == h)
            return 1;
    return 0;
}

/* Try one candidate (or its 100 digit suffixes 0..99) against every salt. */
static long try_candidate(const char *cand, int with_digits, long long word_key, int *seq, int rule)
{
    size_t len = strlen(cand);
    char buf[MAX_WORD + 4];
    for (int si = 0; si < n_salts; si++) {
        const salt_t *s = &salts[si];
        uint64_t base = fnv_bytes(s->state, cand, len);
        if (!with_digits) {
            lookup(s, stretch(s, base), word_key + *seq, rule, cand);
            continue;
        }
        for (int d = 0; d < 100; d++) {
            char digits[3];
            int nd = 0;
            if (d >= 10)
                digits[nd++] = (char)('0' + d / 10);
            digits[nd++] = (char)('0' + d % 10);
            digits[nd] = '\0';
            uint64_t h = stretch(s, fnv_bytes(base, digits, (size_t)nd));
            if (present(s, h)) {
                memcpy(buf, cand, len);
                memcpy(buf + len, digits, (size_t)nd + 1);
                lookup(s, h, word_key + *seq + d, rule, buf);
            }
        }
    }
    long tried = with_digits ? 100 : 1;
    *seq += (int)tried;
    return tried;
}

static long attack_word(const char *w, int wi)
{
    long long key = (long long)wi << 20;
    int seq = 0;
    long tried = 0;
    size_t len = strlen(w);
    char v[MAX_WORD + 1];

    tried += try_candidate(w, 0, key, &seq, R_PLAIN);

    memcpy(v, w, len + 1);
    v[0] = (char)toupper((unsigned char)v[0]);
    if (v[0] != w[0])
        tried += try_candidate(v, 0, key, &seq, R_CAP);

    for (size_t i = 0; i < len; i++)
        v[i] = w[len - 1 - i];
    v[len] = '\0';
    if (strcmp(v, w) != 0)
        tried += try_candidate(v, 0, key, &seq, R_REVERSE);

    tried += try_candidate(w, 1, key, &seq, R_DIGITS);
    memcpy(v, w, len + 1);
    v[0] = (char)toupper((unsigned char)v[0]);
    if (v[0] != w[0])
        tried += try_candidate(v, 1, key, &seq, R_CAP_DIGITS);

    /* leetspeak: only for words with substitutable letters */
    int pos[MAX_LEET], m = 0;
    for (size_t i = 0; i < len && m < MAX_LEET; i++)
        if (strchr("aeiost", w[i]))
            pos[m++] = (int)i;
    if (m == 0)
        return tried;
    static const char from[] = "aeiost", to[] = "431057";
    for (int mask = 1; mask < (1 << m); mask++) {
        memcpy(v, w, len + 1);
        for (int b = 0; b < m; b++)
            if (mask >> b & 1)
                v[pos[b]] = to[strchr(from, w[pos[b]]) - from];
        tried += try_candidate(v, 0, key, &seq, R_LEET);
    }
    /* v now holds the word with every substitution applied */
    tried += try_candidate(v, 1, key, &seq, R_LEET_DIGITS);
    return tried;
}

static int read_hashes(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "dict_attack: cannot open '%s': %s\n", path, strerror(errno));
        return 0;
    }
    char line[512];
    int cap = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#')
            continue;
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        char *end;
        if (!c1 || !c2 || c1 - line >= 64 || c2 - c1 - 1 > MAX_SALT || strlen(c2 + 1) != 16) {
            fprintf(stderr, "dict_attack: '%s': malformed line %d\n", path, lineno);
            fclose(f);
            return 0;
        }
        *c1 = *c2 = '\0';
        errno = 0;
        uint64_t h = strtoull(c2 + 1, &end, 16);
        if (*end != '\0' || errno) {
            fprintf(stderr, "dict_attack: '%s': bad hash on line %d\n", path, lineno);
            fclose(f);
            return 0;
        }
        if (n_accounts == cap) {
            cap = cap ? 2 * cap : 256;
            accounts = realloc(accounts, (size_t)cap * sizeof *accounts);
            salts = realloc(salts, (size_t)cap * sizeof *salts);
            if (!accounts || !salts) {
                fprintf(stderr, "dict_attack: out of memory\n");
                exit(1);
            }
        }
        int si;
        for (si = 0; si < n_salts; si++)
            if (strcmp(salts[si].salt, c1 + 1) == 0)
                break;
        if (si == n_salts) {
            memset(&salts[si], 0, sizeof salts[si]);
            strcpy(salts[si].salt, c1 + 1);
            salts[si].state = fnv_bytes(FNV_OFFSET, c1 + 1, strlen(c1 + 1));
            n_salts++;
        }
        account_t *a = &accounts[n_accounts++];
        snprintf(a->name, sizeof a->name, "%s", line);
        a->salt_id = si;
        a->hash = h;
        salts[si].n++;
    }
    fclose(f);
    if (n_accounts == 0) {
        fprintf(stderr, "dict_attack: '%s': no accounts\n", path);
        return 0;
    }
    for (int si = 0; si < n_salts; si++) {
        salt_t *s = &salts[si];
        unsigned size = 16;
        while (size < 4u * (unsigned)s->n)
            size *= 2;
        s->mask = size - 1;
        s->hashes = calloc(size, sizeof(uint64_t));
        s->owner = malloc(size * sizeof(int));
        if (!s->hashes || !s->owner) {
            fprintf(stderr, "dict_attack: out of memory\n");
            exit(1);
        }
        for (unsigned k = 0; k < size; k++)
            s->owner[k] = -1;
        for (int i = 0; i < n_accounts; i++)
            if (accounts[i].salt_id == si) {
                unsigned k = (unsigned)(accounts[i].hash >> 40) & s->mask;
                while (s->owner[k] >= 0)
                    k = (k + 1) & s->mask;
                s->hashes[k] = accounts[i].hash;
                s->owner[k] = i;
            }
    }
    return 1;
}

static char (*read_words(const char *path, int *count))[MAX_WORD + 1]
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "dict_attack: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    char (*words)[MAX_WORD + 1] = NULL;
    int n = 0, cap = 0, lineno = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0')
            continue;
        if (strlen(line) > MAX_WORD - 4) {
            fprintf(stderr, "dict_attack: '%s': word on line %d is too long\n", path, lineno);
            fclose(f);
            free(words);
            return NULL;
        }
        for (char *p = line; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            words = realloc(words, (size_t)cap * sizeof *words);
            if (!words) {
                fprintf(stderr, "dict_attack: out of memory\n");
                exit(1);
            }
        }
        strcpy(words[n++], line);
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "dict_attack: '%s': empty word list\n", path);
        free(words);
        return NULL;
    }
    *count = n;
    return words;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    long r = strtol(argv[3], &end, 10);
    if (*end != '\0' || argv[3][0] == '\0' || r < 1 || r > 1000000) {
        usage(argv[0]);
        return 2;
    }
    rounds = (int)r;

    if (!read_hashes(argv[1]))
        return 1;
    int n_words;
    char (*words)[MAX_WORD + 1] = read_words(argv[2], &n_words);
    if (!words)
        return 1;
    if (n_words >= (1 << 22)) {
        fprintf(stderr, "dict_attack: word list too long\n");
        return 1;
    }

    cracks = malloc((size_t)n_accounts * sizeof *cracks);
    for (int i = 0; i < n_accounts; i++)
        cracks[i].key = -1;

    long tried = 0;
    #pragma omp parallel for reduction(+:tried)
    for (int wi = 0; wi < n_words; wi++)
        tried += attack_word(words[wi], wi);

    int per_rule[NRULES] = { 0 };
    int cracked = 0;
    for (int i = 0; i < n_accounts; i++)
        if (cracks[i].key >= 0) {
            cracked++;
            per_rule[cracks[i].rule]++;
        }

    printf("accounts: %d (%d distinct salts), words: %d, rounds: %d\n",
           n_accounts, n_salts, n_words, rounds);
    printf("candidates tried: %ld per salt, %ld hashes computed\n", tried, tried * n_salts);
    printf("cracked: %d of %d (%.1f%%)\n", cracked, n_accounts, 100.0 * cracked / n_accounts);
    printf("cracked by rule:\n");
    for (int k = 0; k < NRULES; k++)
        printf("  %-12s %4d\n", rule_names[k], per_rule[k]);
    printf("first cracked accounts:\n");
    for (int i = 0, shown = 0; i < n_accounts && shown < 8; i++)
        if (cracks[i].key >= 0) {
            printf("  %-10s %-18s (%s, word %lld)\n", accounts[i].name, cracks[i].password,
                   rule_names[cracks[i].rule], (cracks[i].key >> 20) + 1);
            shown++;
        }

    free(cracks);
    free(words);
    return 0;
}
