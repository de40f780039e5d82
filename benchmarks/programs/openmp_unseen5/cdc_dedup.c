/*
 * cdc_dedup: estimate how well a set of files deduplicates with
 * content-defined chunking.
 *
 *   usage: cdc_dedup LIST.txt AVG_CHUNK
 *
 * LIST.txt names one file per line (paths relative to the list file;
 * blank lines and lines starting with '#' are skipped).  AVG_CHUNK is the
 * target average chunk size, a power of two from 1024 to 1048576.
 *
 * Every file is cut with a gear rolling hash (FastCDC style normalised
 * chunking, min = avg/4, max = avg*8).  Each chunk gets a SHA-256
 * fingerprint and three "super-features" (from 12 maxima of transformed
 * Rabin-Karp window hashes) used to spot near-duplicate chunks that a
 * delta compressor could exploit.  Files are processed in parallel; the
 * chunk index is then built sequentially in list order.  Finally every
 * unique chunk is run through a small LZ77 compressor (hash chains, LZ4
 * style sequence encoding) in parallel to estimate the stored size.
 * For comparison the files are also chunked at 1/4, 1/2, 2 and 4 times
 * the target size and the dedup ratio of each setting is reported.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFEAT 12
#define NSUPER 3
#define WIN 48

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "cdc_dedup: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory", NULL);
    return p;
}

/* ------------------------------------------------------------ SHA-256 */

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t st[8], const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
    uint32_t e = st[4], f = st[5], g = st[6], h = st[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    st[0] += a; st[1] += b; st[2] += c; st[3] += d;
    st[4] += e; st[5] += f; st[6] += g; st[7] += h;
}

static void sha256(const uint8_t *data, size_t len, uint8_t out[32])
{
    uint32_t st[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    size_t i = 0;
    for (; i + 64 <= len; i += 64) sha256_block(st, data + i);
    uint8_t tail[128];
    size_t rem = len - i;
    memcpy(tail, data + i, rem);
    tail[rem] = 0x80;
    size_t tl = rem + 1 + 8 <= 64 ? 64 : 128;
    memset(tail + rem + 1, 0, tl - rem - 1);
    uint64_t bits = (uint64_t)len * 8;
    for (int k = 0; k < 8; k++) tail[tl - 1 - k] = (uint8_t)(bits >> (8 * k));
    for (size_t k = 0; k < tl; k += 64) sha256_block(st, tail + k);
    for (int k = 0; k < 8; k++) {
        out[4 * k] = st[k] >> 24; out[4 * k + 1] = st[k] >> 16;
        out[4 * k + 2] = st[k] >> 8; out[4 * k + 3] = st[k];
    }
}

static uint64_t sha_key(const uint8_t *s)
{
    uint64_t k;
    memcpy(&k, s, 8);
    return k;
}

/* -------------------------------------------------------- chunking */

static uint64_t gear[256];
static uint32_t feat_m[NFEAT], feat_a[NFEAT];
static uint64_t rk_pow;                 /* base^WIN for the window hash */
#define RK_BASE 0x100000001b3ULL

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void init_tables(void)
{
    uint64_t s = 0x5eed;
    for (int i = 0; i < 256; i++) gear[i] = splitmix(&s);
    for (int i = 0; i < NFEAT; i++) {
        feat_m[i] = (uint32_t)splitmix(&s) | 1;
        feat_a[i] = (uint32_t)splitmix(&s);
    }
    rk_pow = 1;
    for (int i = 0; i < WIN; i++) rk_pow *= RK_BASE;
}

typedef struct {
    uint64_t off;
    uint32_t len;
    uint8_t sha[32];
    uint64_t super[NSUPER];
} Chunk;

#define NSWEEP 5          /* avg/4, avg/2, avg, 2 avg, 4 avg */
#define MAIN_SWEEP 2

typedef struct {
    size_t avg, minsz, maxsz;
    uint64_t mask_s, mask_l;
} CutParams;

static CutParams cut_params(int bits)
{
    CutParams c;
    c.avg = (size_t)1 << bits;
    c.minsz = c.avg / 4;
    c.maxsz = c.avg * 8;
    /* normalised chunking: harder cut condition before avg, easier after;
       the test uses the high bits of the gear hash */
    c.mask_s = ((1ULL << (bits + 2)) - 1) << (64 - (bits + 2));
    c.mask_l = ((1ULL << (bits - 2)) - 1) << (64 - (bits - 2));
    return c;
}

typedef struct {
    char *path;
    uint8_t *data;
    size_t size;
    Chunk *chunks;
    int nchunks;
    uint64_t *sweep_key[NSWEEP];   /* first 8 bytes of SHA-256, other sizes */
    uint32_t *sweep_len[NSWEEP];
    int sweep_n[NSWEEP];
    int error;                   /* 1 = cannot open, 2 = read error */
} FileInfo;

static size_t cut_point(const uint8_t *p, size_t n, size_t minsz, size_t avg, size_t maxsz,
                        uint64_t mask_s, uint64_t mask_l)
{
    if (n <= minsz) return n;
    if (n > maxsz) n = maxsz;
    size_t norm = avg < n ? avg : n;
    uint64_t h = 0;
    size_t i = minsz;
    for (; i < norm; i++) {
        h = (h << 1) + gear[p[i]];
        if (!(h & mask_s)) return i + 1;
    }
    for (; i < n; i++) {
        h = (h << 1) + gear[p[i]];
        if (!(h & mask_l)) return i + 1;
    }
    return n;
}

static void features(const uint8_t *p, size_t n, uint64_t super[NSUPER])
{
    uint32_t mx[NFEAT];
    for (int k = 0; k < NFEAT; k++) mx[k] = 0;
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++) {
        h = h * RK_BASE + p[i] + 1;
        if (i >= WIN) h -= rk_pow * (p[i - WIN] + 1);
        if (i + 1 < WIN && i + 1 < n) continue;
        uint32_t x = (uint32_t)(h >> 32) ^ (uint32_t)h;
        for (int k = 0; k < NFEAT; k++) {
            uint32_t t = feat_m[k] * x + feat_a[k];
            if (t > mx[k]) mx[k] = t;
        }
    }
    int per = NFEAT / NSUPER;
    for (int s = 0; s < NSUPER; s++) {
        uint64_t z = 0x243f6a8885a308d3ULL ^ (uint64_t)s;
        for (int k = 0; k < per; k++) {
            z ^= mx[s * per + k];
            z *= 0x100000001b3ULL;
            z ^= z >> 29;
        }
        super[s] = z;
    }
}

static int read_whole(FileInfo *f)
{
    FILE *fp = fopen(f->path, "rb");
    if (!fp) return 1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) { fclose(fp); return 2; }
    for (;;) {
        size_t r = fread(buf + n, 1, cap - n, fp);
        n += r;
        if (n < cap) break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) { free(buf); fclose(fp); return 2; }
        buf = nb;
        cap *= 2;
    }
    int err = ferror(fp) ? 2 : 0;
    fclose(fp);
    f->data = buf;
    f->size = n;
    return err;
}

/* ------------------------------------------- LZ77 size estimate */

#define LZ_HASH_BITS 12
#define LZ_MAX_CHAIN 24
#define LZ_MIN_MATCH 4
#define LZ_NICE 128

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static size_t seq_cost(size_t lits, size_t mlen)
{
    /* token + extra literal length bytes + literals + offset + extra match length bytes */
    size_t c = 1 + lits;
    if (lits >= 15) c += 1 + (lits - 15) / 255;
    if (mlen) {
        c += 2;
        if (mlen - LZ_MIN_MATCH >= 15) c += 1 + (mlen - LZ_MIN_MATCH - 15) / 255;
    }
    return c;
}

/* size of p[0..n) after greedy LZ77 compression; prev must hold n ints */
static size_t lz_size(const uint8_t *p, size_t n, int32_t *prev)
{
    int32_t head[1 << LZ_HASH_BITS];
    for (int i = 0; i < (1 << LZ_HASH_BITS); i++) head[i] = -1;
    size_t out = 0, lit_start = 0, i = 0;
    while (i + LZ_MIN_MATCH <= n) {
        uint32_t h = (rd32(p + i) * 2654435761u) >> (32 - LZ_HASH_BITS);
        size_t best = 0, limit = n - i;
        int32_t cand = head[h];
        for (int depth = 0; cand >= 0 && depth < LZ_MAX_CHAIN; depth++) {
            const uint8_t *q = p + cand;
            if (best < limit && q[best] == p[i + best] && rd32(q) == rd32(p + i)) {
                size_t l = 4;
                while (l < limit && q[l] == p[i + l]) l++;
                if (l > best) {
                    best = l;
                    if (l >= LZ_NICE) break;
                }
            }
            cand = prev[cand];
        }
        prev[i] = head[h];
        head[h] = (int32_t)i;
        if (best >= LZ_MIN_MATCH) {
            out += seq_cost(i - lit_start, best);
            for (size_t k = i + 1; k < i + best && k + LZ_MIN_MATCH <= n; k++) {
                uint32_t hk = (rd32(p + k) * 2654435761u) >> (32 - LZ_HASH_BITS);
                prev[k] = head[hk];
                head[hk] = (int32_t)k;
            }
            i += best;
            lit_start = i;
        } else {
            i++;
        }
    }
    out += seq_cost(n - lit_start, 0);
    return out;
}

/* ------------------------------------------------------ chunk index */

typedef struct {
    int file, idx;        /* first occurrence */
    int refs;
    int nfiles, last_file;
} Entry;

typedef struct { int entry; int refs; int nfiles; int file; int idx; } Shared;

static int cmp_shared(const void *a, const void *b)
{
    const Shared *x = a, *y = b;
    if (x->refs != y->refs) return y->refs - x->refs;
    if (x->file != y->file) return x->file - y->file;
    return x->idx - y->idx;
}

static void fmt_bytes(char *out, double b)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB"};
    int k = 0;
    while (b >= 1024.0 && k < 3) { b /= 1024.0; k++; }
    sprintf(out, "%.2f %s", b, u[k]);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIST.txt AVG_CHUNK   (AVG_CHUNK: power of two, 1024..1048576)\n", argv[0]);
        return 2;
    }
    char *end;
    long avg = strtol(argv[2], &end, 10);
    if (*end || avg < 1024 || avg > (1L << 20) || (avg & (avg - 1))) {
        fprintf(stderr, "cdc_dedup: AVG_CHUNK must be a power of two between 1024 and 1048576\n");
        fprintf(stderr, "usage: %s LIST.txt AVG_CHUNK\n", argv[0]);
        return 2;
    }
    int bits = 0;
    while ((1L << bits) < avg) bits++;
    CutParams cp[NSWEEP];
    for (int k = 0; k < NSWEEP; k++) cp[k] = cut_params(bits + k - MAIN_SWEEP);
    size_t minsz = cp[MAIN_SWEEP].minsz, maxsz = cp[MAIN_SWEEP].maxsz;

    /* read the list */
    FILE *lf = fopen(argv[1], "r");
    if (!lf) die("cannot open", argv[1]);
    char dir[4096] = "";
    const char *slash = strrchr(argv[1], '/');
    if (slash) {
        size_t dl = slash - argv[1] + 1;
        if (dl >= sizeof dir) die("path too long", argv[1]);
        memcpy(dir, argv[1], dl);
        dir[dl] = 0;
    }
    int nf = 0, cap = 64;
    FileInfo *files = xmalloc(sizeof(FileInfo) * cap);
    char line[4096];
    while (fgets(line, sizeof line, lf)) {
        size_t l = strlen(line);
        if (l == sizeof line - 1 && line[l - 1] != '\n') die("line too long in list", argv[1]);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r' || line[l - 1] == ' ')) line[--l] = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        for (char *c = s; *c; c++)
            if ((unsigned char)*c < 32 && *c != '\t') die("malformed list file (control character)", argv[1]);
        if (nf == cap) {
            cap *= 2;
            files = realloc(files, sizeof(FileInfo) * cap);
            if (!files) die("out of memory", NULL);
        }
        FileInfo *f = &files[nf++];
        memset(f, 0, sizeof *f);
        f->path = xmalloc(strlen(dir) + strlen(s) + 1);
        strcpy(f->path, s[0] == '/' ? "" : dir);
        strcat(f->path, s);
    }
    fclose(lf);
    if (nf == 0) die("list names no files", argv[1]);
    init_tables();

    /* chunk + fingerprint every file (parallel over files) */
    #pragma omp parallel for
    for (int i = 0; i < nf; i++) {
        FileInfo *f = &files[i];
        f->error = read_whole(f);
        if (f->error) continue;
        int ccap = (int)(f->size / minsz) + 2;
        f->chunks = malloc(sizeof(Chunk) * ccap);
        if (!f->chunks) { f->error = 2; continue; }
        size_t pos = 0;
        while (pos < f->size) {
            const CutParams *c0 = &cp[MAIN_SWEEP];
            size_t len = cut_point(f->data + pos, f->size - pos, c0->minsz, c0->avg, c0->maxsz,
                                   c0->mask_s, c0->mask_l);
            Chunk *c = &f->chunks[f->nchunks++];
            c->off = pos;
            c->len = (uint32_t)len;
            sha256(f->data + pos, len, c->sha);
            features(f->data + pos, len, c->super);
            pos += len;
        }
        /* the same file at the other chunk sizes, fingerprints only */
        for (int k = 0; k < NSWEEP; k++) {
            if (k == MAIN_SWEEP) continue;
            const CutParams *ck = &cp[k];
            size_t n = f->size / ck->minsz + 2;
            f->sweep_key[k] = malloc(sizeof(uint64_t) * n);
            f->sweep_len[k] = malloc(sizeof(uint32_t) * n);
            if (!f->sweep_key[k] || !f->sweep_len[k]) { f->error = 2; break; }
            pos = 0;
            while (pos < f->size) {
                size_t len = cut_point(f->data + pos, f->size - pos, ck->minsz, ck->avg, ck->maxsz,
                                       ck->mask_s, ck->mask_l);
                uint8_t sha[32];
                sha256(f->data + pos, len, sha);
                f->sweep_key[k][f->sweep_n[k]] = sha_key(sha);
                f->sweep_len[k][f->sweep_n[k]++] = (uint32_t)len;
                pos += len;
            }
        }
    }
    for (int i = 0; i < nf; i++) {
        if (files[i].error == 1) die("cannot open", files[i].path);
        if (files[i].error) die("read error", files[i].path);
    }

    /* sequential index in list order */
    long total_chunks = 0;
    for (int i = 0; i < nf; i++) total_chunks += files[i].nchunks;
    size_t tcap = 1024;
    while (tcap < 2 * (size_t)total_chunks) tcap *= 2;
    int *slot = xmalloc(sizeof(int) * tcap);            /* -> entry id */
    for (size_t i = 0; i < tcap; i++) slot[i] = -1;
    Entry *ent = xmalloc(sizeof(Entry) * (total_chunks ? total_chunks : 1));
    int nent = 0;
    int *uniq_file = xmalloc(sizeof(int) * (total_chunks ? total_chunks : 1));
    int *uniq_idx = xmalloc(sizeof(int) * (total_chunks ? total_chunks : 1));
    /* super-feature index: one table per super-feature, value = 1 if seen */
    uint64_t *sf_key = xmalloc(sizeof(uint64_t) * tcap * NSUPER);
    char *sf_used = calloc(tcap * NSUPER, 1);
    if (!sf_used) die("out of memory", NULL);

    uint64_t total_bytes = 0, unique_bytes = 0, similar_bytes = 0;
    long similar_chunks = 0;
    long hist[32] = {0};
    uint64_t *file_new = xmalloc(sizeof(uint64_t) * nf);
    for (int i = 0; i < nf; i++) {
        FileInfo *f = &files[i];
        file_new[i] = 0;
        total_bytes += f->size;
        for (int j = 0; j < f->nchunks; j++) {
            Chunk *c = &f->chunks[j];
            int b = 0;
            while ((2u << b) <= c->len) b++;
            hist[b]++;
            size_t m = tcap - 1, h = (sha_key(c->sha) * 0x9e3779b97f4a7c15ULL) >> 20 & m;
            int e = -1;
            while (slot[h] >= 0) {
                Entry *q = &ent[slot[h]];
                if (memcmp(files[q->file].chunks[q->idx].sha, c->sha, 32) == 0) { e = slot[h]; break; }
                h = (h + 1) & m;
            }
            if (e >= 0) {
                ent[e].refs++;
                if (ent[e].last_file != i) { ent[e].nfiles++; ent[e].last_file = i; }
                continue;
            }
            e = nent++;
            slot[h] = e;
            uniq_file[e] = i;
            uniq_idx[e] = j;
            ent[e].file = i; ent[e].idx = j; ent[e].refs = 1;
            ent[e].nfiles = 1; ent[e].last_file = i;
            unique_bytes += c->len;
            file_new[i] += c->len;
            /* near-duplicate detection against earlier unique chunks */
            int similar = 0;
            for (int s = 0; s < NSUPER; s++) {
                uint64_t *keys = sf_key + (size_t)s * tcap;
                char *used = sf_used + (size_t)s * tcap;
                uint64_t k = c->super[s];
                size_t p = (k * 0xff51afd7ed558ccdULL) >> 17 & m;
                while (used[p] && keys[p] != k) p = (p + 1) & m;
                if (used[p]) similar = 1;
                else { used[p] = 1; keys[p] = k; }
            }
            if (similar) { similar_chunks++; similar_bytes += c->len; }
        }
    }

    /* compress every unique chunk (parallel over unique chunks) */
    uint64_t *csize = xmalloc(sizeof(uint64_t) * (nent ? nent : 1));
    #pragma omp parallel
    {
        int32_t *prev = xmalloc(sizeof(int32_t) * maxsz);
        #pragma omp for
        for (int e = 0; e < nent; e++) {
            const FileInfo *f = &files[uniq_file[e]];
            const Chunk *c = &f->chunks[uniq_idx[e]];
            size_t z = lz_size(f->data + c->off, c->len, prev);
            csize[e] = z < c->len ? z : c->len + 1;   /* store raw if it does not shrink */
        }
        free(prev);
    }
    uint64_t stored = 0;
    long incompressible = 0;
    for (int e = 0; e < nent; e++) {
        stored += csize[e];
        if (csize[e] > files[uniq_file[e]].chunks[uniq_idx[e]].len) incompressible++;
    }

    /* dedup ratio at the other chunk sizes (8-byte fingerprint prefixes) */
    long sw_chunks[NSWEEP], sw_unique[NSWEEP];
    uint64_t sw_ubytes[NSWEEP];
    for (int k = 0; k < NSWEEP; k++) {
        sw_chunks[k] = 0; sw_unique[k] = 0; sw_ubytes[k] = 0;
        if (k == MAIN_SWEEP) {
            sw_chunks[k] = total_chunks; sw_unique[k] = nent; sw_ubytes[k] = unique_bytes;
            continue;
        }
        for (int i = 0; i < nf; i++) sw_chunks[k] += files[i].sweep_n[k];
        size_t sc = 1024;
        while (sc < 2 * (size_t)sw_chunks[k]) sc *= 2;
        uint64_t *set = xmalloc(sizeof(uint64_t) * sc);
        char *used = calloc(sc, 1);
        if (!used) die("out of memory", NULL);
        for (int i = 0; i < nf; i++) {
            for (int j = 0; j < files[i].sweep_n[k]; j++) {
                uint64_t key = files[i].sweep_key[k][j];
                size_t p = (key * 0x9e3779b97f4a7c15ULL) >> 20 & (sc - 1);
                while (used[p] && set[p] != key) p = (p + 1) & (sc - 1);
                if (used[p]) continue;
                used[p] = 1;
                set[p] = key;
                sw_unique[k]++;
                sw_ubytes[k] += files[i].sweep_len[k][j];
            }
        }
        free(set);
        free(used);
    }

    char b1[32], b2[32], b3[32], b4[32];
    fmt_bytes(b1, (double)total_bytes);
    fmt_bytes(b2, (double)unique_bytes);
    printf("files: %d, %llu bytes (%s); target chunk %ld (min %zu, max %zu)\n",
           nf, (unsigned long long)total_bytes, b1, avg, minsz, maxsz);
    printf("chunks: %ld total, %d unique, %ld duplicate references\n",
           total_chunks, nent, total_chunks - nent);
    printf("unique data: %llu bytes (%s), dedup ratio %.3f, space saved %.2f%%\n",
           (unsigned long long)unique_bytes, b2,
           unique_bytes ? (double)total_bytes / unique_bytes : 0.0,
           total_bytes ? 100.0 * (total_bytes - unique_bytes) / total_bytes : 0.0);
    fmt_bytes(b4, (double)stored);
    printf("after LZ compression of unique chunks: %llu bytes (%s), overall ratio %.3f, %ld chunks stored raw\n",
           (unsigned long long)stored, b4, stored ? (double)total_bytes / stored : 0.0, incompressible);
    fmt_bytes(b3, (double)similar_bytes);
    printf("near-duplicate unique chunks (shared super-feature): %ld, %s (%.2f%% of unique data)\n",
           similar_chunks, b3, unique_bytes ? 100.0 * similar_bytes / unique_bytes : 0.0);
    printf("chunk size sweep:\n");
    for (int k = 0; k < NSWEEP; k++)
        printf("  avg %8zu: %7ld chunks, %6ld unique, dedup ratio %.3f%s\n", cp[k].avg, sw_chunks[k],
               sw_unique[k], sw_ubytes[k] ? (double)total_bytes / sw_ubytes[k] : 0.0,
               k == MAIN_SWEEP ? "  <- target" : "");
    printf("chunk size histogram:\n");
    for (int b = 0; b < 32; b++) {
        if (!hist[b]) continue;
        printf("  %8lu .. %8lu  %7ld  %5.1f%%\n", 1UL << b, (2UL << b) - 1, hist[b],
               100.0 * hist[b] / total_chunks);
    }
    int best = 0, worst = 0;
    for (int i = 1; i < nf; i++) {
        double ri = files[i].size ? (double)file_new[i] / files[i].size : 0.0;
        double rb = files[best].size ? (double)file_new[best] / files[best].size : 0.0;
        double rw = files[worst].size ? (double)file_new[worst] / files[worst].size : 0.0;
        if (ri < rb) best = i;
        if (ri > rw) worst = i;
    }
    printf("least new data: %s (%.2f%% new)\n", files[best].path,
           files[best].size ? 100.0 * file_new[best] / files[best].size : 0.0);
    printf("most new data:  %s (%.2f%% new)\n", files[worst].path,
           files[worst].size ? 100.0 * file_new[worst] / files[worst].size : 0.0);

    Shared *sh = xmalloc(sizeof(Shared) * (nent ? nent : 1));
    for (int e = 0; e < nent; e++) {
        sh[e].entry = e; sh[e].refs = ent[e].refs; sh[e].nfiles = ent[e].nfiles;
        sh[e].file = ent[e].file; sh[e].idx = ent[e].idx;
    }
    qsort(sh, nent, sizeof(Shared), cmp_shared);
    printf("most shared chunks:\n");
    for (int k = 0; k < 5 && k < nent; k++) {
        Chunk *c = &files[sh[k].file].chunks[sh[k].idx];
        char hex[17];
        for (int b = 0; b < 8; b++) sprintf(hex + 2 * b, "%02x", c->sha[b]);
        printf("  %s  %7u bytes  %5d refs in %2d files, first in %s at %llu\n", hex, c->len,
               sh[k].refs, sh[k].nfiles, files[sh[k].file].path, (unsigned long long)c->off);
    }
    return 0;
}
