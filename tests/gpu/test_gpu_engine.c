/* GPU engine against the CPU engines: every score the GPU reports must equal
 * the CPU's, and the hits must come in the same order (score, then database
 * position). Exits 77 (skipped) when no GPU is usable.
 *
 * usage: test_gpu_engine [--quick|--tiny] MATRIX_DIR QUERIES.fa SWISSPROT_LIKE.fa
 * The third file holds the Swiss-Prot-like sequences to search (20,000 of
 * them in the ctest run); the other databases are made here. --quick shrinks
 * every set (three queries, 600 sequences, shorter random databases), for
 * runs under compute-sanitizer's memcheck, which slows the kernels a
 * hundredfold; --tiny runs only a set small enough for racecheck. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sw_align_ref.h"
#include "sw_cpu_simd.h"
#include "sw_fasta.h"
#include "sw_gpu.h"
#include "sw_gpu_engine.h"
#include "sw_matrix.h"

/* A set of sequences: codes back to back. */
typedef struct seqset {
    uint8_t *res;
    uint64_t *off;
    uint32_t *len;
    size_t n, cap;
    uint64_t total, res_cap;
} seqset;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static void set_add(seqset *s, const uint8_t *res, uint32_t len)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->off = xrealloc(s->off, s->cap * sizeof *s->off);
        s->len = xrealloc(s->len, s->cap * sizeof *s->len);
    }
    if (s->total + len > s->res_cap) {
        while (s->total + len > s->res_cap) s->res_cap = s->res_cap ? 2 * s->res_cap : 1 << 16;
        s->res = xrealloc(s->res, s->res_cap);
    }
    memcpy(s->res + s->total, res, len);
    s->off[s->n] = s->total;
    s->len[s->n] = len;
    s->total += len;
    s->n++;
}

static void set_free(seqset *s)
{
    free(s->res);
    free(s->off);
    free(s->len);
    memset(s, 0, sizeof *s);
}

static void read_fasta(const char *path, size_t limit, seqset *out)
{
    sw_fasta *f = NULL;
    sw_error err = {0};
    if (sw_fasta_open(path, NULL, &f, &err) != SW_OK) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    sw_fasta_record rec;
    int rc;
    while ((limit == 0 || out->n < limit) && (rc = sw_fasta_next(f, &rec, &err)) == 1)
        set_add(out, rec.residues, (uint32_t)rec.length);
    if (rc < 0) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    sw_fasta_close(f);
}

/* Deterministic generator (splitmix64), so a failure can be replayed. */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Mostly the 20 standard residues, now and then any other protein code. */
static uint8_t random_residue(uint64_t *rng)
{
    uint64_t r = rng_next(rng);
    if (r % 50 == 0) return (uint8_t)(20 + (r >> 8) % (SW_PROTEIN_CODES - 20));
    return (uint8_t)((r >> 8) % 20);
}

/* A copy of `src` with about one residue in `rate` substituted, deleted or
 * followed by an insertion, so that scores are high but not trivial. */
static uint32_t mutate(const uint8_t *src, uint32_t len, uint32_t rate, uint8_t *dst, uint32_t cap,
                       uint64_t *rng)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < len && n < cap; ++i) {
        uint64_t r = rng_next(rng) % (rate ? rate : 1);
        if (rate && r == 0) continue;
        dst[n++] = (rate && r == 1) ? random_residue(rng) : src[i];
        if (rate && r == 2 && n < cap) dst[n++] = random_residue(rng);
    }
    return n;
}

/* ---- the database as the engine takes it: sorted by length ---- */

typedef struct sorted_db {
    uint8_t *res;
    uint32_t *len;
    uint32_t *tiebreak; /* position in the unsorted set */
    uint64_t *off;
    size_t n;
    uint64_t total;
} sorted_db;

static const seqset *sort_src;

static int by_length(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t lx = sort_src->len[x], ly = sort_src->len[y];
    if (lx != ly) return lx < ly ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void sort_db(const seqset *s, sorted_db *d)
{
    d->n = s->n;
    d->total = s->total;
    d->tiebreak = xmalloc(s->n * sizeof *d->tiebreak);
    d->len = xmalloc(s->n * sizeof *d->len);
    d->off = xmalloc(s->n * sizeof *d->off);
    d->res = xmalloc(s->total);
    for (size_t i = 0; i < s->n; ++i) d->tiebreak[i] = (uint32_t)i;
    sort_src = s;
    qsort(d->tiebreak, s->n, sizeof *d->tiebreak, by_length);
    uint64_t at = 0;
    for (size_t i = 0; i < s->n; ++i) {
        uint32_t src = d->tiebreak[i];
        d->len[i] = s->len[src];
        d->off[i] = at;
        memcpy(d->res + at, s->res + s->off[src], s->len[src]);
        at += s->len[src];
    }
}

static void sorted_free(sorted_db *d)
{
    free(d->res);
    free(d->len);
    free(d->tiebreak);
    free(d->off);
}

/* ---- CPU scores, on all cores ---- */

typedef struct cpu_job {
    const sorted_db *db;
    const seqset *queries;
    const sw_scoring *scoring;
    int use_reference;
    int32_t *scores; /* [query][seq] */
    size_t next;
    pthread_mutex_t lock;
    int failed;
} cpu_job;

static void *cpu_worker(void *arg)
{
    cpu_job *j = arg;
    sw_simd_workspace *ws = NULL;
    if (!j->use_reference && sw_simd_workspace_create(&ws) != SW_OK) {
        j->failed = 1;
        return NULL;
    }
    sw_simd_profile *prof = NULL;
    size_t prof_q = (size_t)-1;
    const size_t block = 64;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t w = j->next;
        j->next += block;
        pthread_mutex_unlock(&j->lock);
        /* Work items run query-major: item w is (w / n, w % n). */
        size_t total = j->queries->n * j->db->n;
        if (w >= total) break;
        size_t end = w + block < total ? w + block : total;
        for (size_t x = w; x < end; ++x) {
            size_t q = x / j->db->n, s = x % j->db->n;
            const uint8_t *qr = j->queries->res + j->queries->off[q];
            uint32_t ql = j->queries->len[q];
            const uint8_t *sr = j->db->res + j->db->off[s];
            int score;
            if (j->use_reference) {
                sw_ref_result r;
                if (sw_ref_align(qr, ql, sr, j->db->len[s], j->scoring, &r) != SW_OK) {
                    j->failed = 1;
                    return NULL;
                }
                score = r.score;
            } else {
                if (prof_q != q) {
                    sw_simd_profile_free(prof);
                    prof = NULL;
                    if (sw_simd_profile_create(qr, ql, j->scoring, &prof) != SW_OK) {
                        j->failed = 1;
                        break;
                    }
                    prof_q = q;
                }
                score = sw_simd_align(prof, ws, sr, j->db->len[s]);
                if (score < 0) {
                    j->failed = 1;
                    break;
                }
            }
            j->scores[q * j->db->n + s] = score;
        }
    }
    sw_simd_profile_free(prof);
    sw_simd_workspace_free(ws);
    return NULL;
}

static int32_t *cpu_scores(const sorted_db *db, const seqset *queries, const sw_scoring *scoring,
                           int use_reference)
{
    cpu_job j;
    memset(&j, 0, sizeof j);
    j.db = db;
    j.queries = queries;
    j.scoring = scoring;
    j.use_reference = use_reference;
    j.scores = xmalloc(queries->n * db->n * sizeof *j.scores);
    pthread_mutex_init(&j.lock, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cores > 0 ? (int)cores : 1;
    if (nt > 64) nt = 64;
    pthread_t t[64];
    for (int i = 0; i < nt; ++i) pthread_create(&t[i], NULL, cpu_worker, &j);
    for (int i = 0; i < nt; ++i) pthread_join(t[i], NULL);
    pthread_mutex_destroy(&j.lock);
    if (j.failed) {
        fprintf(stderr, "CPU engine failed\n");
        exit(1);
    }
    return j.scores;
}

/* ---- comparison ---- */

typedef struct ranked {
    int32_t score;
    uint32_t tiebreak;
    uint32_t seq;
} ranked;

static int by_rank(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return a->tiebreak < b->tiebreak ? -1 : a->tiebreak > b->tiebreak;
}

static int failures;

static void check(int ok, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#include <stdarg.h>
static void check(int ok, const char *what, const char *fmt, ...)
{
    if (ok) return;
    if (++failures > 40) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s: ", what);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

typedef struct run_options {
    size_t top_n;              /* 0: every sequence */
    size_t max_device_bytes;   /* 0: default */
    int bucket_streams;
    int profile;
    int max_columns;
    uint32_t intra_threshold;  /* 0: default */
    int timeline;              /* ask for the timeline and check it */
    int device_launch;
    sw_gpu_engine *engine;     /* an engine to give this database to, instead of a new one */
} run_options;

/* The timeline of a search: spans in order on the clock, every query's
 * buckets there, intra-task spans exactly when the intra-task kernel had
 * sequences. */
static void check_timeline(const char *what, const sw_gpu_engine *e, size_t num_queries, const sw_gpu_stats *st)
{
    const sw_gpu_span *sp = NULL;
    size_t n = 0;
    sw_error err = {0};
    if (sw_gpu_engine_timeline(e, &sp, &n, &err) != SW_OK) {
        check(0, what, "timeline: %s", err.message);
        return;
    }
    int want_intra = 0;
    for (size_t b = 0; b < st->num_buckets; ++b) want_intra |= st->buckets[b].intra && st->buckets[b].seqs;
    size_t *kernels = calloc(num_queries ? num_queries : 1, sizeof *kernels);
    int saw_intra = 0;
    for (size_t i = 0; i < n; ++i) {
        check(sp[i].start >= -1e-4 && sp[i].end >= sp[i].start, what, "span %zu (%s) from %.6f to %.6f s", i,
              sw_gpu_span_name(sp[i].kind), sp[i].start, sp[i].end);
        check(sp[i].query < num_queries, what, "span %zu of query %zu", i, sp[i].query);
        if (sp[i].query < num_queries && (sp[i].kind == SW_GPU_SPAN_INTER || sp[i].kind == SW_GPU_SPAN_INTRA))
            kernels[sp[i].query]++;
        saw_intra |= sp[i].kind == SW_GPU_SPAN_INTRA;
    }
    for (size_t q = 0; q < num_queries; ++q) check(kernels[q] > 0, what, "no kernel span for query %zu", q);
    check(saw_intra == want_intra, what, "intra-task spans %s, intra-task sequences %s", saw_intra ? "seen" : "none",
          want_intra ? "present" : "none");
    free(kernels);
}

/* Runs the GPU engine and compares its hits with the ranking of `expected`.
 * Returns the engine's statistics through *stats_out when not NULL. */
static void compare_gpu(const char *what, const sorted_db *db, const seqset *queries, const sw_scoring *scoring,
                        const int32_t *expected, const run_options *ro, sw_gpu_stats *stats_out)
{
    size_t top_n = ro->top_n ? ro->top_n : (db->n ? db->n : 1);
    sw_gpu_engine_options opt;
    memset(&opt, 0, sizeof opt);
    opt.max_device_bytes = ro->max_device_bytes;
    opt.bucket_streams = ro->bucket_streams;
    opt.profile = ro->profile;
    opt.max_columns_per_thread = ro->max_columns;
    opt.intra_threshold = ro->intra_threshold;
    opt.timeline = ro->timeline;
    opt.device_launch = ro->device_launch;
    sw_gpu_engine *e = ro->engine;
    sw_error err = {0};
    if ((!e && sw_gpu_engine_create(0, scoring, top_n, &opt, &e, &err) != SW_OK) ||
        sw_gpu_engine_set_db(e, db->res, db->len, db->tiebreak, db->n, &err) != SW_OK) {
        check(0, what, "engine setup: %s", err.message);
        if (!ro->engine) sw_gpu_engine_free(e);
        return;
    }
    const uint8_t **qp = xmalloc(queries->n * sizeof *qp);
    size_t *ql = xmalloc(queries->n * sizeof *ql);
    for (size_t q = 0; q < queries->n; ++q) {
        qp[q] = queries->res + queries->off[q];
        ql[q] = queries->len[q];
    }
    sw_gpu_hit *hits = xmalloc(queries->n * top_n * sizeof *hits);
    size_t *counts = xmalloc(queries->n * sizeof *counts);
    sw_gpu_stats st;
    if (sw_gpu_engine_search(e, qp, ql, queries->n, hits, counts, &st, &err) != SW_OK) {
        check(0, what, "search: %s", err.message);
    } else {
        ranked *r = xmalloc(db->n * sizeof *r);
        size_t compared = 0;
        for (size_t q = 0; q < queries->n; ++q) {
            size_t k = 0;
            for (size_t s = 0; s < db->n; ++s) {
                int32_t sc = expected[q * db->n + s];
                if (sc > 0) r[k++] = (ranked){sc, db->tiebreak[s], (uint32_t)s};
            }
            qsort(r, k, sizeof *r, by_rank);
            size_t want = k < top_n ? k : top_n;
            check(counts[q] == want, what, "query %zu: %zu hits, expected %zu", q, counts[q], want);
            size_t n = counts[q] < want ? counts[q] : want;
            const sw_gpu_hit *h = hits + q * top_n;
            for (size_t i = 0; i < n; ++i) {
                /* A right score on the wrong one of two equal hits is a
                 * failure too: ties go by database position. */
                int same = h[i].score == r[i].score && h[i].seq == r[i].seq;
                check(same, what,
                      "query %zu (length %u) rank %zu: GPU score %d for seq %llu (length %u), "
                      "CPU score %d for seq %u (length %u)%s",
                      q, queries->len[q], i + 1, h[i].score, (unsigned long long)h[i].seq,
                      h[i].seq < db->n ? db->len[h[i].seq] : 0, r[i].score, r[i].seq, db->len[r[i].seq],
                      h[i].seq < db->n ? "" : " (GPU sequence index out of range)");
                ++compared;
            }
        }
        free(r);
        if (ro->timeline) check_timeline(what, e, queries->n, &st);
        printf("  %-52s %9zu hits compared, %llu recomputed in 32 bits, %d batch(es), %.3f s kernels\n", what,
               compared, (unsigned long long)st.recomputed, st.batches, st.kernel_seconds);
        if (stats_out) *stats_out = st;
    }
    free(qp);
    free(ql);
    free(hits);
    free(counts);
    if (!ro->engine) sw_gpu_engine_free(e);
}

static sw_matrix *load_matrix(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    sw_matrix *m = NULL;
    sw_error err = {0};
    if (sw_matrix_load(path, &m, &err) != SW_OK) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    return m;
}

static sw_scoring scoring_of(const sw_matrix *m, int open, int ext)
{
    sw_scoring s;
    sw_error err = {0};
    if (sw_scoring_init(&s, m, open, ext, &err) != SW_OK) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    return s;
}

/* Random sequences of every length from 1 to max_len; every tenth is a
 * mutated piece of a query, so high scores and long alignments occur. */
static void make_every_length(uint32_t max_len, const seqset *queries, uint64_t seed, seqset *out)
{
    uint64_t rng = seed;
    uint8_t *buf = xmalloc(max_len + 16);
    uint8_t *tmp = xmalloc(2 * (size_t)max_len + 16);
    for (uint32_t len = 1; len <= max_len; ++len) {
        if (len % 10 == 0 && queries->n) {
            size_t q = rng_next(&rng) % queries->n;
            const uint8_t *src = queries->res + queries->off[q];
            uint32_t qlen = queries->len[q];
            uint32_t start = qlen > len ? (uint32_t)(rng_next(&rng) % (qlen - len + 1)) : 0;
            uint32_t take = qlen - start < len ? qlen - start : len;
            uint32_t n = mutate(src + start, take, 12, tmp, 2 * max_len, &rng);
            for (uint32_t i = 0; i < len; ++i) buf[i] = i < n ? tmp[i] : random_residue(&rng);
        } else {
            for (uint32_t i = 0; i < len; ++i) buf[i] = random_residue(&rng);
        }
        set_add(out, buf, len);
    }
    free(buf);
    free(tmp);
}

/* The smallest set that still reaches every kernel path, for racecheck,
 * which slows shared-memory code a thousandfold: two short queries and a
 * 3,000-residue tryptophan run (11 per match under BLOSUM62, so 33,000:
 * beyond 16 bits) against short sequences of every length bucket, one long
 * enough for the multi-pass kernel and the tryptophan run itself; all hits,
 * GPU top-N selection, and batches. */
static void run_tiny(const sw_scoring *s62)
{
    uint64_t rng = 7;
    uint8_t buf[3000];
    seqset qs = {0}, dbs = {0};
    for (uint32_t len = 23; len <= 61; len += 38) {
        for (uint32_t k = 0; k < len; ++k) buf[k] = random_residue(&rng);
        set_add(&qs, buf, len);
    }
    for (uint32_t len = 1; len <= 700; len += 13) {
        for (uint32_t k = 0; k < len; ++k) buf[k] = random_residue(&rng);
        if (len > 80) memcpy(buf + len / 2, qs.res, qs.len[0]);
        set_add(&dbs, buf, len);
    }
    for (uint32_t k = 0; k < 1000; ++k) buf[k] = random_residue(&rng);
    memcpy(buf + 400, qs.res + qs.off[1], qs.len[1]);
    set_add(&dbs, buf, 1000);
    memset(buf, 17, sizeof buf); /* W */
    set_add(&qs, buf, sizeof buf);
    set_add(&dbs, buf, sizeof buf);
    sorted_db db;
    sort_db(&dbs, &db);
    int32_t *ref = cpu_scores(&db, &qs, s62, 1);
    check(ref[2 * db.n + db.n - 1] > 32767, "tiny set", "the tryptophan run scores %d, not beyond 16 bits",
          ref[2 * db.n + db.n - 1]);
    run_options ro;
    sw_gpu_stats st;
    memset(&ro, 0, sizeof ro);
    compare_gpu("tiny set, all hits", &db, &qs, s62, ref, &ro, &st);
    check(st.recomputed > 0, "tiny set", "nothing was recomputed in 32 bits");
    ro.top_n = 5;
    compare_gpu("tiny set, top 5", &db, &qs, s62, ref, &ro, NULL);
    ro.max_device_bytes = 8192;
    compare_gpu("tiny set, top 5, batches", &db, &qs, s62, ref, &ro, NULL);
    memset(&ro, 0, sizeof ro);
    ro.intra_threshold = 300;
    compare_gpu("tiny set, intra-task above 300, all hits", &db, &qs, s62, ref, &ro, NULL);
    ro.intra_threshold = 1;
    ro.max_device_bytes = 8192;
    compare_gpu("tiny set, intra-task above 1, batches", &db, &qs, s62, ref, &ro, NULL);

    /* One engine, one database after another: buffers sized for the first
     * must grow or be remade for the second. */
    sw_gpu_engine_options opt;
    memset(&opt, 0, sizeof opt);
    opt.intra_threshold = 1;
    sw_error err = {0};
    memset(&ro, 0, sizeof ro);
    ro.top_n = db.n; /* the engine's N, whichever database it has */
    if (sw_gpu_engine_create(0, s62, db.n, &opt, &ro.engine, &err) != SW_OK) {
        check(0, "tiny set, reused engine", "%s", err.message);
    } else {
        sorted_db small;
        seqset few = {0};
        for (size_t i = 0; i < 20; ++i) set_add(&few, db.res + db.off[i], db.len[i]);
        sort_db(&few, &small);
        int32_t *ref_small = cpu_scores(&small, &qs, s62, 1);
        compare_gpu("tiny set, reused engine, first database", &small, &qs, s62, ref_small, &ro, NULL);
        compare_gpu("tiny set, reused engine, second database", &db, &qs, s62, ref, &ro, NULL);
        compare_gpu("tiny set, reused engine, first again", &small, &qs, s62, ref_small, &ro, NULL);
        free(ref_small);
        sorted_free(&small);
        set_free(&few);
        sw_gpu_engine_free(ro.engine);
    }
    free(ref);
    sorted_free(&db);
    set_free(&dbs);
    set_free(&qs);
}

int main(int argc, char **argv)
{
    /* Without a GPU nothing else matters: skip before reading anything. */
    sw_gpu_info info[4];
    int ngpu = 0;
    sw_error err = {0};
    if (sw_gpu_list(info, 4, &ngpu, &err) != SW_OK || ngpu == 0) {
        printf("skipped: %s\n", err.message[0] ? err.message : "no GPU");
        return 77;
    }
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int tiny = argc > 1 && !strcmp(argv[1], "--tiny");
    if (quick || tiny) {
        argc--;
        argv++;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: test_gpu_engine [--quick|--tiny] MATRIX_DIR QUERIES.fa SWISSPROT_LIKE.fa\n");
        return 2;
    }
    printf("GPU 0: %s (sm_%d%d, %d SMs)\n", info[0].name, info[0].compute_major, info[0].compute_minor,
           info[0].multiprocessors);

    const char *mdir = argv[1];
    if (tiny) {
        sw_matrix *m = load_matrix(mdir, "BLOSUM62");
        sw_scoring sc = scoring_of(m, 11, 1);
        run_tiny(&sc);
        sw_matrix_free(m);
        if (failures) {
            fprintf(stderr, "%d failure(s)\n", failures);
            return 1;
        }
        printf("all GPU scores equal the CPU engines'\n");
        return 0;
    }
    seqset q20 = {0};
    read_fasta(argv[2], 0, &q20);
    /* Quick runs keep the three shortest-first queries for the first set. */
    seqset q3 = {0};
    for (size_t q = 0; q < 3 && q < q20.n; ++q) set_add(&q3, q20.res + q20.off[q], q20.len[q]);
    const seqset *first_queries = quick ? &q3 : &q20;
    sw_matrix *b62 = load_matrix(mdir, "BLOSUM62");
    sw_scoring s62 = scoring_of(b62, 11, 1);
    run_options ro;

    /* 1. The 20 queries against the Swiss-Prot-like sequences: every
     * positive score, then the top 10 and top 1000 through the GPU's own
     * selection, then the same database streamed in batches. */
    {
        seqset sp = {0};
        read_fasta(argv[3], quick ? 600 : 0, &sp);
        sorted_db db;
        sort_db(&sp, &db);
        printf("Swiss-Prot-like: %zu sequences, %llu residues, longest %u\n", db.n,
               (unsigned long long)db.total, db.len[db.n - 1]);
        const seqset *qs = first_queries;
        int32_t *cpu = cpu_scores(&db, qs, &s62, 0);
        memset(&ro, 0, sizeof ro);
        compare_gpu("swissprot-like, all hits", &db, qs, &s62, cpu, &ro, NULL);
        ro.top_n = 10;
        compare_gpu("swissprot-like, top 10", &db, qs, &s62, cpu, &ro, NULL);
        ro.top_n = 1000;
        if (!quick) compare_gpu("swissprot-like, top 1000", &db, qs, &s62, cpu, &ro, NULL);
        ro.top_n = 100;
        ro.max_device_bytes = db.total / 2;
        compare_gpu("swissprot-like, top 100, batches", &db, qs, &s62, cpu, &ro, NULL);
        ro.max_device_bytes = 0;
        ro.intra_threshold = 500;
        compare_gpu("swissprot-like, top 100, intra-task above 500", &db, qs, &s62, cpu, &ro, NULL);
        ro.timeline = 1;
        compare_gpu("swissprot-like, top 100, intra-task above 500, timeline", &db, qs, &s62, cpu, &ro, NULL);
        ro.timeline = 0;
        if (sw_gpu_engine_device_launch_available()) {
            ro.device_launch = 1;
            compare_gpu("swissprot-like, top 100, device-side launches", &db, qs, &s62, cpu, &ro, NULL);
            ro.max_device_bytes = db.total / 2;
            compare_gpu("swissprot-like, top 100, device-side launches, batches", &db, qs, &s62, cpu, &ro, NULL);
            ro.max_device_bytes = 0;
            ro.device_launch = 0;
        } else {
            printf("  device-side launches: not in this build\n");
        }
        ro.intra_threshold = 0;
        if (quick) {
            free(cpu);
            sorted_free(&db);
            set_free(&sp);
            goto every_length;
        }
        ro.bucket_streams = 1;
        ro.profile = 1;
        compare_gpu("swissprot-like, top 100, one stream, profiled", &db, &q20, &s62, cpu, &ro, NULL);
        ro.profile = 0;
        ro.bucket_streams = 0;
        ro.max_columns = 16;
        compare_gpu("swissprot-like, top 100, 16 columns per thread", &db, &q20, &s62, cpu, &ro, NULL);
        ro.max_columns = 32;
        compare_gpu("swissprot-like, top 100, 32 columns per thread", &db, &q20, &s62, cpu, &ro, NULL);
        ro.max_columns = 0;
        ro.intra_threshold = SW_GPU_NO_INTRA;
        compare_gpu("swissprot-like, top 100, no intra-task kernel", &db, &q20, &s62, cpu, &ro, NULL);
        ro.intra_threshold = 1;
        ro.max_device_bytes = db.total / 3;
        compare_gpu("swissprot-like, top 100, all intra-task, batches", &db, &q20, &s62, cpu, &ro, NULL);
        ro.max_device_bytes = 0;
        ro.intra_threshold = 0;
        free(cpu);
        sorted_free(&db);
        set_free(&sp);
    }

    /* 2. Every length from 1 to 5,000 against short and long queries, the
     * scalar reference as the oracle. */
every_length:;
    seqset shortq = {0};
    {
        uint64_t rng = 42;
        uint8_t buf[1200];
        const uint32_t lens[] = {1, 2, 7, 31, 32, 33, 100, 257, 1100};
        const size_t nlens = quick ? 6 : sizeof lens / sizeof *lens;
        for (size_t i = 0; i < nlens; ++i) {
            for (uint32_t k = 0; k < lens[i]; ++k) buf[k] = random_residue(&rng);
            set_add(&shortq, buf, lens[i]);
        }
        /* Two real queries as well: mutated pieces of them are planted. */
        set_add(&shortq, q20.res + q20.off[0], q20.len[0]);
        if (!quick) set_add(&shortq, q20.res + q20.off[5], q20.len[5]);
    }
    {
        seqset every = {0};
        make_every_length(quick ? 600 : 5000, &shortq, 7, &every);
        sorted_db db;
        sort_db(&every, &db);
        int32_t *ref = cpu_scores(&db, &shortq, &s62, 1);
        memset(&ro, 0, sizeof ro);
        compare_gpu("lengths 1..5000, reference engine, all hits", &db, &shortq, &s62, ref, &ro, NULL);
        ro.max_device_bytes = 4u << 20;
        compare_gpu("lengths 1..5000, all hits, 4 MiB of device memory", &db, &shortq, &s62, ref, &ro, NULL);
        memset(&ro, 0, sizeof ro);
        ro.intra_threshold = 1;
        compare_gpu("lengths 1..5000, all intra-task, all hits", &db, &shortq, &s62, ref, &ro, NULL);
        ro.intra_threshold = 1000;
        compare_gpu("lengths 1..5000, intra-task above 1000, all hits", &db, &shortq, &s62, ref, &ro, NULL);
        free(ref);
        sorted_free(&db);
        set_free(&every);
    }

    /* 3. Scores beyond 16 bits: the longest query (5,478 residues) and its
     * doubled copy against exact and mutated copies of both. */
    {
        size_t longest = 0;
        for (size_t q = 1; q < q20.n; ++q)
            if (q20.len[q] > q20.len[longest]) longest = q;
        const uint8_t *lq = q20.res + q20.off[longest];
        uint32_t ll = q20.len[longest];
        seqset qs = {0}, dbs = {0};
        uint8_t *dbl = xmalloc(2 * (size_t)ll + 16);
        memcpy(dbl, lq, ll);
        memcpy(dbl + ll, lq, ll);
        set_add(&qs, lq, ll);
        set_add(&qs, dbl, 2 * ll);
        set_add(&qs, q20.res + q20.off[0], q20.len[0]);
        uint64_t rng = 99;
        uint8_t *tmp = xmalloc(4 * (size_t)ll + 16);
        set_add(&dbs, lq, ll);
        set_add(&dbs, dbl, 2 * ll);
        for (int i = 0; i < (quick ? 1 : 40); ++i) {
            uint32_t n = mutate(dbl, 2 * ll, (uint32_t)(20 + 40 * i), tmp, 4 * ll, &rng);
            set_add(&dbs, tmp, n);
            n = mutate(lq, ll, (uint32_t)(20 + 40 * i), tmp, 4 * ll, &rng);
            set_add(&dbs, tmp, n);
        }
        /* Short sequences with them, so 16-bit and 32-bit results mix in
         * one bucket. */
        for (uint32_t len = 50; len <= (quick ? 300u : 3000u); len += 50) {
            for (uint32_t k = 0; k < len; ++k) tmp[k] = random_residue(&rng);
            set_add(&dbs, tmp, len);
        }
        sorted_db db;
        sort_db(&dbs, &db);
        int32_t *ref = cpu_scores(&db, &qs, &s62, 1);
        int32_t best = 0;
        for (size_t i = 0; i < qs.n * db.n; ++i)
            if (ref[i] > best) best = ref[i];
        printf("  best score of the 16-bit overflow set: %d\n", best);
        check(best > 32767, "overflow set", "no score above 32767 (best %d): the test is too weak", best);
        sw_gpu_stats st;
        memset(&ro, 0, sizeof ro);
        compare_gpu("beyond 16 bits, all hits", &db, &qs, &s62, ref, &ro, &st);
        check(st.recomputed > 0, "beyond 16 bits", "nothing was recomputed in 32 bits");
        ro.max_device_bytes = 1u << 20;
        compare_gpu("beyond 16 bits, all hits, 1 MiB of device memory", &db, &qs, &s62, ref, &ro, NULL);
        memset(&ro, 0, sizeof ro);
        ro.intra_threshold = 100;
        compare_gpu("beyond 16 bits, intra-task above 100, all hits", &db, &qs, &s62, ref, &ro, &st);
        check(st.recomputed > 0, "beyond 16 bits, intra-task", "nothing was recomputed in 32 bits");
        free(ref);
        sorted_free(&db);
        set_free(&dbs);
        set_free(&qs);
        free(dbl);
        free(tmp);
    }

    /* 4. Other matrices and gap penalties, extremes included. */
    {
        seqset every = {0};
        make_every_length(quick ? 300 : 1500, &shortq, 11, &every);
        sorted_db db;
        sort_db(&every, &db);
        static const struct {
            const char *matrix;
            int open, ext;
        } cases[] = {
            {"BLOSUM45", 14, 2}, {"BLOSUM50", 10, 3}, {"BLOSUM80", 10, 1}, {"BLOSUM90", 9, 1},
            {"PAM30", 9, 1},     {"PAM70", 10, 1},    {"PAM250", 14, 2},   {"BLOSUM62", 0, 1},
            {"BLOSUM62", 255, 255}, {"BLOSUM62", 5, 5},
        };
        const size_t ncases = quick ? 2 : sizeof cases / sizeof *cases;
        for (size_t i = 0; i < ncases; ++i) {
            sw_matrix *m = load_matrix(mdir, cases[i].matrix);
            sw_scoring sc = scoring_of(m, cases[i].open, cases[i].ext);
            int32_t *ref = cpu_scores(&db, &shortq, &sc, 0);
            char what[96];
            snprintf(what, sizeof what, "%s %d/%d, lengths 1..1500, all hits", cases[i].matrix, cases[i].open,
                     cases[i].ext);
            memset(&ro, 0, sizeof ro);
            compare_gpu(what, &db, &shortq, &sc, ref, &ro, NULL);
            ro.intra_threshold = 200;
            snprintf(what, sizeof what, "%s %d/%d, lengths 1..1500, intra-task above 200", cases[i].matrix,
                     cases[i].open, cases[i].ext);
            compare_gpu(what, &db, &shortq, &sc, ref, &ro, NULL);
            free(ref);
            sw_matrix_free(m);
        }
        /* A DNA scheme, as megabase mode will use. */
        sw_matrix *dna = NULL;
        if (sw_matrix_create_dna(1, -3, &dna, &err) != SW_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        seqset dq = {0}, dd = {0};
        uint64_t rng = 5;
        uint8_t buf[3000];
        for (int i = 0; i < 4; ++i) {
            uint32_t len = 100 + 600 * (uint32_t)i;
            for (uint32_t k = 0; k < len; ++k) buf[k] = (uint8_t)(rng_next(&rng) % 5);
            set_add(&dq, buf, len);
        }
        for (uint32_t len = 1; len <= (quick ? 600u : 3000u); len += 7) {
            for (uint32_t k = 0; k < len; ++k) buf[k] = (uint8_t)(rng_next(&rng) % 4);
            if (len > 200) memcpy(buf + len / 3, dq.res + dq.off[len % 4], len / 3 < dq.len[len % 4] ? len / 3 : dq.len[len % 4]);
            set_add(&dd, buf, len);
        }
        sorted_db ddb;
        sort_db(&dd, &ddb);
        sw_scoring sd = scoring_of(dna, 3, 2);
        int32_t *ref = cpu_scores(&ddb, &dq, &sd, 1);
        memset(&ro, 0, sizeof ro);
        compare_gpu("DNA +1/-3, 3/2, all hits", &ddb, &dq, &sd, ref, &ro, NULL);
        ro.intra_threshold = 300;
        compare_gpu("DNA +1/-3, 3/2, intra-task above 300", &ddb, &dq, &sd, ref, &ro, NULL);
        free(ref);
        sorted_free(&ddb);
        set_free(&dq);
        set_free(&dd);
        sw_matrix_free(dna);
        sorted_free(&db);
        set_free(&every);
    }

    /* 5. Degenerate inputs: one-residue database, more hits asked for than
     * exist, a database of one sequence. */
    {
        seqset one = {0};
        uint8_t w = 17; /* W */
        set_add(&one, &w, 1);
        sorted_db db;
        sort_db(&one, &db);
        int32_t *ref = cpu_scores(&db, &shortq, &s62, 1);
        memset(&ro, 0, sizeof ro);
        ro.top_n = 50;
        compare_gpu("one-residue database, top 50", &db, &shortq, &s62, ref, &ro, NULL);
        free(ref);
        sorted_free(&db);
        set_free(&one);
    }

    sw_matrix_free(b62);
    set_free(&shortq);
    set_free(&q20);
    set_free(&q3);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("all GPU scores equal the CPU engines'\n");
    return 0;
}
