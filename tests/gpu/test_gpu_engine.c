/* The GPU search engine against the CPU engines: every score the GPU
 * reports must equal the CPU's, and the hits must come in the same order
 * (score, then database position). Every test skips without a usable GPU.
 *
 * Suites: gpu_search (what ctest runs: the 20 queries against 20,000
 * Swiss-Prot-like sequences made by the benchmark generator, every length
 * up to 5,000, scores beyond 16 bits, other matrices, a DNA scheme and
 * degenerate databases); gpu_search_quick (the same, every set shrunk:
 * three queries, 600 sequences, shorter random databases, for runs under
 * compute-sanitizer's memcheck, which slows the kernels a hundredfold);
 * gpu_search_tiny (only a set small enough for racecheck). Criterion's
 * --filter picks a suite, as scripts/device-run.sh does. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_required.h"
#include "sw_align_ref.h"
#include "sw_cpu_simd.h"
#include "sw_fasta.h"
#include "sw_gpu.h"
#include "sw_gpu_engine.h"
#include "sw_gpu_tuning.h"
#include "sw_matrix.h"
#include "sw_pool.h"
#include "test_matrices.h"
#include "test_rng.h"
#include "test_tmpdir.h"

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
    cr_assert_not_null(p, "out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    cr_assert_not_null(p, "out of memory");
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
    cr_assert_eq(sw_fasta_open(path, NULL, &f, &err), SW_OK, "%s", err.message);
    sw_fasta_record rec;
    int rc;
    while ((limit == 0 || out->n < limit) && (rc = sw_fasta_next(f, &rec, &err)) == 1)
        set_add(out, rec.residues, (uint32_t)rec.length);
    cr_assert_geq(rc, 0, "%s", err.message);
    sw_fasta_close(f);
}

/* Mostly the 20 standard residues, now and then any other protein code. */
static uint8_t random_residue(test_rng *rng)
{
    uint64_t r = test_rng_next(rng);
    if (r % 50 == 0) return (uint8_t)(20 + (r >> 8) % (SW_PROTEIN_CODES - 20));
    return (uint8_t)((r >> 8) % 20);
}

/* A copy of `src` with about one residue in `rate` substituted, deleted or
 * followed by an insertion, so that scores are high but not trivial. */
static uint32_t mutate(const uint8_t *src, uint32_t len, uint32_t rate, uint8_t *dst, uint32_t cap,
                       test_rng *rng)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < len && n < cap; ++i) {
        uint64_t r = test_rng_next(rng) % (rate ? rate : 1);
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
    const int8_t *const *rows; /* PSSM queries' rows, or NULL */
    int use_reference;
    int32_t *scores; /* [query][seq] */
    size_t next;
    pthread_mutex_t lock;
    int failed;
} cpu_job;

static void cpu_worker(void *arg, int index)
{
    (void)index;
    cpu_job *j = arg;
    sw_simd_workspace *ws = NULL;
    if (!j->use_reference && sw_simd_workspace_create(&ws) != SW_OK) {
        j->failed = 1;
        return;
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
            sw_scoring own = *j->scoring;
            if (j->rows) own.rows = j->rows[q];
            int score;
            if (j->use_reference) {
                sw_ref_result r;
                if (sw_ref_align(qr, ql, sr, j->db->len[s], &own, &r) != SW_OK) {
                    j->failed = 1;
                    return;
                }
                score = r.score;
            } else {
                if (prof_q != q) {
                    sw_simd_profile_free(prof);
                    prof = NULL;
                    if (sw_simd_profile_create(qr, ql, &own, &prof) != SW_OK) {
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
    return;
}

static int32_t *cpu_scores_rows(const sorted_db *db, const seqset *queries, const sw_scoring *scoring,
                                const int8_t *const *rows, int use_reference)
{
    cpu_job j;
    memset(&j, 0, sizeof j);
    j.db = db;
    j.queries = queries;
    j.scoring = scoring;
    j.rows = rows;
    j.use_reference = use_reference;
    j.scores = xmalloc(queries->n * db->n * sizeof *j.scores);
    pthread_mutex_init(&j.lock, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cores > 0 ? (int)cores : 1;
    if (nt > 64) nt = 64;
    int started = 0;
    sw_pool_run(nt, cpu_worker, &j, &started);
    pthread_mutex_destroy(&j.lock);
    cr_assert_gt(started, 0, "no CPU thread could start");
    cr_assert(!j.failed, "CPU engine failed");
    return j.scores;
}

static int32_t *cpu_scores(const sorted_db *db, const seqset *queries, const sw_scoring *scoring,
                           int use_reference)
{
    return cpu_scores_rows(db, queries, scoring, NULL, use_reference);
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

/* A failed comparison fails the test; the first 40 are told, the rest
 * only counted, so that one broken kernel does not drown the log. */
static int failures;

static void check(int ok, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void check(int ok, const char *what, const char *fmt, ...)
{
    if (ok) return;
    if (++failures > 40) {
        if (failures == 41) cr_expect_fail("%s: more failures, not shown", what);
        return;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cr_expect_fail("FAIL %s: %s", what, msg);
}

typedef struct run_options {
    size_t top_n;              /* 0: every sequence */
    size_t max_device_bytes;   /* 0: default */
    int bucket_streams;
    int profile;
    int max_columns;
    uint32_t intra_threshold;  /* 0: default */
    int intra_tile;            /* 0: the engine's rule */
    int intra_warps;           /* 0: the engine's rule */
    int timeline;              /* ask for the timeline and check it */
    int device_launch;
    uint32_t qp_max_length;    /* 0: see compare_gpu */
    const int8_t *const *rows; /* PSSM queries (sw_gpu_engine_search_rows), or NULL */
    int qp_group, qp_columns;  /* 0: the engine's rule */
    int qp_giants;             /* 1: the engine's default (32-thread groups for the longest) */
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
    sw_gpu_tuning tune;
    memset(&tune, 0, sizeof tune);
    tune.bucket_streams = ro->bucket_streams;
    tune.profile = ro->profile;
    tune.max_columns_per_thread = ro->max_columns;
    tune.intra_tile = ro->intra_tile;
    tune.intra_warps = ro->intra_warps;
    tune.timeline = ro->timeline;
    tune.device_launch = ro->device_launch;
    tune.qp_group_size = ro->qp_group;
    tune.qp_columns = ro->qp_columns;
    sw_gpu_engine_options opt;
    memset(&opt, 0, sizeof opt);
    opt.max_device_bytes = ro->max_device_bytes;
    opt.intra_threshold = ro->intra_threshold;
    opt.tuning = &tune;
    /* The options of the subjects-across-threads kernels and of the
     * intra-task kernel are tested without the query-across-threads kernels,
     * so that those take every length they would take alone. */
    opt.qp_max_length = ro->qp_max_length;
    if (!ro->qp_max_length && !ro->rows &&
        (ro->intra_threshold || ro->max_columns || ro->intra_tile || ro->intra_warps || ro->device_launch))
        opt.qp_max_length = SW_GPU_NO_QP;
    /* The cases name the intra-task kernel's shapes: it keeps its sequences
     * unless a case asks for the engine's default. */
    opt.qp_giants = ro->qp_giants ? 0 : SW_GPU_NO_GIANTS;
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
    if (sw_gpu_engine_search_rows(e, qp, ro->rows, ql, queries->n, hits, counts, &st, &err) != SW_OK) {
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

/* Random sequences of every length from 1 to max_len; every tenth is a
 * mutated piece of a query, so high scores and long alignments occur. */
static void make_every_length(uint32_t max_len, const seqset *queries, uint64_t seed, seqset *out)
{
    test_rng rng = test_rng_seed(seed);
    uint8_t *buf = xmalloc(max_len + 16);
    uint8_t *tmp = xmalloc(2 * (size_t)max_len + 16);
    for (uint32_t len = 1; len <= max_len; ++len) {
        if (len % 10 == 0 && queries->n) {
            size_t q = test_rng_next(&rng) % queries->n;
            const uint8_t *src = queries->res + queries->off[q];
            uint32_t qlen = queries->len[q];
            uint32_t start = qlen > len ? (uint32_t)(test_rng_next(&rng) % (qlen - len + 1)) : 0;
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
    test_rng rng = test_rng_seed(7);
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
    ro.qp_max_length = SW_GPU_NO_QP;
    compare_gpu("tiny set, subjects across the threads, all hits", &db, &qs, s62, ref, &ro, &st);
    check(st.recomputed > 0, "tiny set, subjects across the threads", "nothing was recomputed in 32 bits");
    ro.qp_max_length = 8000;
    ro.max_device_bytes = 8192;
    compare_gpu("tiny set, query across the threads up to 8000, batches", &db, &qs, s62, ref, &ro, NULL);
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

/* ---- the tests ---- */

TestSuite(gpu_search, .init = gpu_required);
TestSuite(gpu_search_quick, .init = gpu_required);
TestSuite(gpu_search_tiny, .init = gpu_required);

/* The 20 queries of tests/data, in file order. */
static void read_queries(seqset *q20)
{
    read_fasta(SW_TEST_DATA "/queries20.fasta", 0, q20);
}

/* The Swiss-Prot-like sequences into `path` in `dir`: the benchmark
 * generator's database with the queries' homologs planted (SW_SYNTHDB,
 * built from bench/synthdb.c). The planted homologs of the queries
 * and five giants (up to 35,213 residues) come first; then every 29th of
 * the rest, which spans the whole length distribution: 20,000 in all, or
 * the first `limit` of those. */
static void make_swissprot_like(const char *dir, size_t limit, char *path, size_t cap)
{
    const size_t want = limit && limit < 20000 ? limit : 20000;
    snprintf(path, cap, "%s/sp%zu.fa", dir, want);
    FILE *out = fopen(path, "w");
    cr_assert_not_null(out, "%s", path);
    FILE *in = popen("'" SW_SYNTHDB "' protein --plant '" SW_TEST_DATA "/queries20.fasta'", "r");
    cr_assert_not_null(in, "cannot run %s", SW_SYNTHDB);
    char *line = NULL;
    size_t line_cap = 0, n = 0, kept = 0;
    int keep = 0, stopped = 0;
    while (getline(&line, &line_cap, in) > 0) {
        if (line[0] == '>') {
            if (kept == want) { /* the rest would all be left out */
                stopped = 1;
                break;
            }
            n++;
            keep = n <= 487 || (n - 487) % 29 == 0;
            if (keep) kept++;
        }
        if (keep) fputs(line, out);
    }
    free(line);
    int status = pclose(in);
    cr_assert(stopped || status == 0, "%s failed (status %d)", SW_SYNTHDB, status);
    cr_assert_eq(kept, want, "the generator made %zu of %zu sequences", kept, want);
    cr_assert_eq(fclose(out), 0, "%s", path);
}

/* 1. The 20 queries against the Swiss-Prot-like sequences: every positive
 * score, then the top 10 and top 1000 through the GPU's own selection,
 * then the same database streamed in batches. Quick runs keep the three
 * shortest-first queries and 600 sequences. */
static void swissprot_like(int quick)
{
    seqset q20 = {0};
    read_queries(&q20);
    seqset q3 = {0};
    for (size_t q = 0; q < 3 && q < q20.n; ++q) set_add(&q3, q20.res + q20.off[q], q20.len[q]);
    const seqset *qs = quick ? &q3 : &q20;
    sw_matrix *b62 = load_matrix("BLOSUM62");
    sw_scoring s62 = scoring_of(b62, 11, 1);
    run_options ro;

    char dir[] = "/tmp/test_gpu_engine.XXXXXX";
    temp_dir_make(dir);
    char path[256];
    make_swissprot_like(dir, quick ? 600 : 0, path, sizeof path);
    seqset sp = {0};
    read_fasta(path, 0, &sp);
    temp_dir_remove(dir);
    sorted_db db;
    sort_db(&sp, &db);
    printf("Swiss-Prot-like: %zu sequences, %llu residues, longest %u\n", db.n, (unsigned long long)db.total,
           db.len[db.n - 1]);
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
    ro.qp_max_length = SW_GPU_NO_QP;
    compare_gpu("swissprot-like, top 100, subjects across the threads", &db, qs, &s62, cpu, &ro, NULL);
    ro.qp_max_length = 40000;
    compare_gpu("swissprot-like, top 100, query across the threads for all", &db, qs, &s62, cpu, &ro, NULL);
    ro.qp_max_length = 0;
    ro.qp_giants = 1;
    compare_gpu("swissprot-like, top 100, the longest across warps", &db, qs, &s62, cpu, &ro, NULL);
    ro.qp_giants = 0;
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
    if (!quick) {
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
    }
    free(cpu);
    sorted_free(&db);
    set_free(&sp);
    sw_matrix_free(b62);
    set_free(&q20);
    set_free(&q3);
}

/* The short queries of sets 2, 4 and 5: random ones of lengths around the
 * kernels' tiles, and two real queries, mutated pieces of which are
 * planted. */
static void short_queries(const seqset *q20, int quick, seqset *shortq)
{
    test_rng rng = test_rng_seed(42);
    uint8_t buf[1200];
    const uint32_t lens[] = {1, 2, 7, 31, 32, 33, 100, 257, 1100};
    const size_t nlens = quick ? 6 : sizeof lens / sizeof *lens;
    for (size_t i = 0; i < nlens; ++i) {
        for (uint32_t k = 0; k < lens[i]; ++k) buf[k] = random_residue(&rng);
        set_add(shortq, buf, lens[i]);
    }
    set_add(shortq, q20->res + q20->off[0], q20->len[0]);
    if (!quick) set_add(shortq, q20->res + q20->off[5], q20->len[5]);
}

/* 2. Every length from 1 to 5,000 against short and long queries, the
 * scalar reference as the oracle. */
static void every_length(int quick)
{
    seqset q20 = {0}, shortq = {0}, every = {0};
    read_queries(&q20);
    short_queries(&q20, quick, &shortq);
    sw_matrix *b62 = load_matrix("BLOSUM62");
    sw_scoring s62 = scoring_of(b62, 11, 1);
    run_options ro;
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
    /* The intra-task kernel's sequences in 32-thread groups, for the queries
     * that fit one pass of them (the others keep the intra-task kernel). */
    ro.qp_max_length = 1000;
    ro.qp_giants = 1;
    compare_gpu("lengths 1..5000, above 1000 across warps", &db, &shortq, &s62, ref, &ro, NULL);
    ro.qp_giants = 0;
    ro.qp_max_length = 0;
    /* What `swsearch search --threshold 1000` asks: the query-across-threads
     * kernels up to 1000, the intra-task kernel above. */
    ro.qp_max_length = 1000;
    compare_gpu("lengths 1..5000, query across up to 1000, intra-task above", &db, &shortq, &s62, ref, &ro, NULL);
    ro.qp_max_length = 0;
    /* Every compiled shape of the query-across-threads kernels (a query
     * longer than one pass takes the shape's multipass kernel, or the
     * rule's where there is none), every length theirs: each (group size,
     * columns a thread) once, whether single-pass, multipass or both. */
    memset(&ro, 0, sizeof ro);
    ro.qp_max_length = 5000;
    for (size_t i = 0; i < sw_gpu_engine_qp_shape_count(); ++i) {
        int group, columns, multipass, seen = 0;
        cr_assert_eq(sw_gpu_engine_qp_shape(i, &group, &columns, &multipass), SW_OK);
        for (size_t j = 0; j < i && !seen; ++j) {
            int g, c, m;
            cr_assert_eq(sw_gpu_engine_qp_shape(j, &g, &c, &m), SW_OK);
            seen = g == group && c == columns;
        }
        if (seen) continue;
        char what[96];
        ro.qp_group = group;
        ro.qp_columns = columns;
        snprintf(what, sizeof what, "lengths 1..5000, query across groups of %d, %d columns", group, columns);
        compare_gpu(what, &db, &shortq, &s62, ref, &ro, NULL);
    }
    memset(&ro, 0, sizeof ro);
    /* Both compiled tile heights, whatever the rule picks. */
    static const int tiles[] = {8, 16};
    for (size_t i = 0; i < sizeof tiles / sizeof *tiles; ++i) {
        char what[96];
        ro.intra_threshold = 1;
        ro.intra_tile = tiles[i];
        snprintf(what, sizeof what, "lengths 1..5000, all intra-task, tiles of %d rows", tiles[i]);
        compare_gpu(what, &db, &shortq, &s62, ref, &ro, NULL);
    }
    ro.intra_tile = 0;
    ro.intra_warps = 8;
    compare_gpu("lengths 1..5000, all intra-task, 8 warps a block", &db, &shortq, &s62, ref, &ro, NULL);
    ro.intra_warps = 0;
    free(ref);
    sorted_free(&db);
    set_free(&every);
    sw_matrix_free(b62);
    set_free(&shortq);
    set_free(&q20);
}

/* 3. Scores beyond 16 bits: the longest query (5,478 residues) and its
 * doubled copy against exact and mutated copies of both. */
static void beyond_16_bits(int quick)
{
    seqset q20 = {0};
    read_queries(&q20);
    sw_matrix *b62 = load_matrix("BLOSUM62");
    sw_scoring s62 = scoring_of(b62, 11, 1);
    run_options ro;
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
    test_rng rng = test_rng_seed(99);
    uint8_t *tmp = xmalloc(4 * (size_t)ll + 16);
    set_add(&dbs, lq, ll);
    set_add(&dbs, dbl, 2 * ll);
    for (int i = 0; i < (quick ? 1 : 40); ++i) {
        uint32_t n = mutate(dbl, 2 * ll, (uint32_t)(20 + 40 * i), tmp, 4 * ll, &rng);
        set_add(&dbs, tmp, n);
        n = mutate(lq, ll, (uint32_t)(20 + 40 * i), tmp, 4 * ll, &rng);
        set_add(&dbs, tmp, n);
    }
    /* Short sequences with them, so 16-bit and 32-bit results mix in one
     * bucket. */
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
    ro.qp_max_length = SW_GPU_NO_QP;
    compare_gpu("beyond 16 bits, subjects across the threads", &db, &qs, &s62, ref, &ro, &st);
    check(st.recomputed > 0, "beyond 16 bits, subjects across", "nothing was recomputed in 32 bits");
    ro.qp_max_length = 20000;
    compare_gpu("beyond 16 bits, query across the threads for all", &db, &qs, &s62, ref, &ro, &st);
    check(st.recomputed > 0, "beyond 16 bits, query across", "nothing was recomputed in 32 bits");
    memset(&ro, 0, sizeof ro);
    ro.intra_threshold = 100;
    compare_gpu("beyond 16 bits, intra-task above 100, all hits", &db, &qs, &s62, ref, &ro, &st);
    check(st.recomputed > 0, "beyond 16 bits, intra-task", "nothing was recomputed in 32 bits");
    ro.intra_tile = 8;
    compare_gpu("beyond 16 bits, intra-task above 100, tiles of 8 rows", &db, &qs, &s62, ref, &ro, &st);
    check(st.recomputed > 0, "beyond 16 bits, intra-task, tiles of 8 rows", "nothing was recomputed in 32 bits");
    ro.intra_tile = 0;
    ro.intra_warps = 8;
    compare_gpu("beyond 16 bits, intra-task above 100, 8 warps a block", &db, &qs, &s62, ref, &ro, &st);
    check(st.recomputed > 0, "beyond 16 bits, intra-task, 8 warps", "nothing was recomputed in 32 bits");
    free(ref);
    sorted_free(&db);
    set_free(&dbs);
    set_free(&qs);
    free(dbl);
    free(tmp);
    sw_matrix_free(b62);
    set_free(&q20);
}

/* PSSM queries: each position's scores the matrix row of its residue
 * moved by -4..+4 for the 20 amino acids (B, Z, J, X and the rest keep the
 * matrix's: the engine's classes need codes the matrix scores alike to
 * score alike) and the residue itself +20, so that a query's exact copy
 * scores beyond 16 bits; every 17th position -100 against everything, and
 * every 23rd +100 for its residue: the extremes of a byte-sized profile. */
static int8_t *pssm_rows(const uint8_t *q, uint32_t len, const sw_scoring *s, test_rng *rng)
{
    int8_t *rows = xmalloc((size_t)len * SW_CODE_LIMIT + 1);
    for (uint32_t i = 0; i < len; ++i) {
        int8_t *r = rows + (size_t)i * SW_CODE_LIMIT;
        memcpy(r, s->table + (size_t)q[i] * SW_CODE_LIMIT, SW_CODE_LIMIT);
        for (int c = 0; c < 20; ++c) r[c] = (int8_t)(r[c] + (int)(test_rng_next(rng) % 9) - 4);
        if (q[i] < 20) r[q[i]] = (int8_t)(r[q[i]] + 20);
        if (i % 17 == 16)
            for (int c = 0; c < 20; ++c) r[c] = -100;
        if (i % 23 == 22 && q[i] < 20) r[q[i]] = 100;
    }
    return rows;
}

static void pssm_queries(int quick)
{
    seqset q20 = {0}, qs = {0}, dbs = {0};
    read_queries(&q20);
    sw_matrix *b62 = load_matrix("BLOSUM62");
    sw_scoring s62 = scoring_of(b62, 11, 1);
    /* Queries: 5 of the benchmark's (the longest among them), so that both
     * kernels' shapes, the 32-thread groups of the longest sequences and
     * multipass profiles all occur, and one short peptide. */
    size_t longest = 0;
    for (size_t q = 1; q < q20.n; ++q)
        if (q20.len[q] > q20.len[longest]) longest = q;
    const size_t picks[] = {0, 3, 7, 12, longest};
    for (size_t i = 0; i < sizeof picks / sizeof *picks; ++i)
        set_add(&qs, q20.res + q20.off[picks[i]], q20.len[picks[i]]);
    set_add(&qs, q20.res + q20.off[1], 24);
    test_rng rng = test_rng_seed(46);
    int8_t **rows = xmalloc(qs.n * sizeof *rows);
    for (size_t q = 0; q < qs.n; ++q) rows[q] = pssm_rows(qs.res + qs.off[q], qs.len[q], &s62, &rng);
    /* Every length up to 1,200 (3,500), the queries' mutants among them,
     * and exact copies of the queries: 32-bit recomputation. */
    make_every_length(quick ? 1200 : 3500, &qs, 46, &dbs);
    for (size_t q = 0; q < qs.n; ++q) set_add(&dbs, qs.res + qs.off[q], qs.len[q]);
    sorted_db db;
    sort_db(&dbs, &db);
    int32_t *ref = cpu_scores_rows(&db, &qs, &s62, (const int8_t *const *)rows, 0);
    int32_t best = 0;
    for (size_t i = 0; i < qs.n * db.n; ++i)
        if (ref[i] > best) best = ref[i];
    check(best > 32767, "PSSM set", "no score above 32767 (best %d): the test is too weak", best);
    run_options ro;
    sw_gpu_stats st;
    memset(&ro, 0, sizeof ro);
    ro.rows = (const int8_t *const *)rows;
    compare_gpu("PSSM queries, the engine's plan, all hits", &db, &qs, &s62, ref, &ro, &st);
    check(st.recomputed > 0, "PSSM queries", "nothing was recomputed in 32 bits");
    ro.top_n = 10;
    compare_gpu("PSSM queries, top 10 selected on the GPU", &db, &qs, &s62, ref, &ro, NULL);
    ro.top_n = 0;
    ro.max_device_bytes = 1u << 20;
    compare_gpu("PSSM queries, 1 MiB of device memory", &db, &qs, &s62, ref, &ro, &st);
    check(st.batches > 1, "PSSM queries, 1 MiB", "the database was not streamed");
    ro.max_device_bytes = 0;
    /* The intra-task kernel above 600, and the longest sequences in
     * 32-thread groups instead for the queries that fit them. */
    ro.intra_threshold = 600;
    ro.qp_max_length = 600;
    compare_gpu("PSSM queries, intra-task above 600", &db, &qs, &s62, ref, &ro, &st);
    ro.qp_giants = 1;
    compare_gpu("PSSM queries, above 600 across warps", &db, &qs, &s62, ref, &ro, NULL);
    ro.qp_giants = 0;
    ro.intra_tile = 8;
    compare_gpu("PSSM queries, intra-task above 600, tiles of 8", &db, &qs, &s62, ref, &ro, NULL);
    ro.intra_tile = 0;
    /* An intra-task threshold above the query-across-threads kernels'
     * length: they take the lengths between, not the table kernels. */
    ro.intra_threshold = 2000;
    ro.qp_max_length = 500;
    compare_gpu("PSSM queries, threshold 2000 above query-across 500", &db, &qs, &s62, ref, &ro, NULL);
    /* Plain and PSSM queries in one search. */
    char *keep = (char *)rows[1];
    rows[1] = NULL;
    int32_t *mixed = cpu_scores_rows(&db, &qs, &s62, (const int8_t *const *)rows, 0);
    memset(&ro, 0, sizeof ro);
    ro.rows = (const int8_t *const *)rows;
    compare_gpu("PSSM and plain queries together", &db, &qs, &s62, mixed, &ro, NULL);
    rows[1] = (int8_t *)keep;
    /* The table kernels cannot score a PSSM: refused, not wrong. */
    sw_gpu_engine_options opt;
    memset(&opt, 0, sizeof opt);
    opt.qp_max_length = SW_GPU_NO_QP;
    sw_gpu_engine *e = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_gpu_engine_create(0, &s62, 10, &opt, &e, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_gpu_engine_set_db(e, db.res, db.len, db.tiebreak, db.n, &err), SW_OK, "%s", err.message);
    const uint8_t *q0 = qs.res;
    size_t l0 = qs.len[0], count = 0;
    sw_gpu_hit hits[10];
    cr_assert_eq(sw_gpu_engine_search_rows(e, &q0, (const int8_t *const *)rows, &l0, 1, hits, &count, NULL, &err),
                 SW_ENODEV);
    cr_assert_not_null(strstr(err.message, "PSSM"), "%s", err.message);
    sw_gpu_engine_free(e);
    free(mixed);
    free(ref);
    for (size_t q = 0; q < qs.n; ++q) free(rows[q]);
    free(rows);
    sorted_free(&db);
    set_free(&dbs);
    set_free(&qs);
    sw_matrix_free(b62);
    set_free(&q20);
}

/* 4. Other matrices and gap penalties, extremes included. */
static void other_matrices(int quick)
{
    seqset q20 = {0}, shortq = {0}, every = {0};
    read_queries(&q20);
    short_queries(&q20, quick, &shortq);
    run_options ro;
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
        sw_matrix *m = load_matrix(cases[i].matrix);
        sw_scoring sc = scoring_of(m, cases[i].open, cases[i].ext);
        int32_t *ref = cpu_scores(&db, &shortq, &sc, 0);
        char what[96];
        snprintf(what, sizeof what, "%s %d/%d, lengths 1..1500, all hits", cases[i].matrix, cases[i].open,
                 cases[i].ext);
        memset(&ro, 0, sizeof ro);
        compare_gpu(what, &db, &shortq, &sc, ref, &ro, NULL);
        ro.qp_max_length = SW_GPU_NO_QP;
        snprintf(what, sizeof what, "%s %d/%d, lengths 1..1500, subjects across the threads", cases[i].matrix,
                 cases[i].open, cases[i].ext);
        compare_gpu(what, &db, &shortq, &sc, ref, &ro, NULL);
        ro.qp_max_length = 0;
        ro.intra_threshold = 200;
        snprintf(what, sizeof what, "%s %d/%d, lengths 1..1500, intra-task above 200", cases[i].matrix,
                 cases[i].open, cases[i].ext);
        compare_gpu(what, &db, &shortq, &sc, ref, &ro, NULL);
        free(ref);
        sw_matrix_free(m);
    }
    sorted_free(&db);
    set_free(&every);
    set_free(&shortq);
    set_free(&q20);
}

/* 4b. A DNA scheme, as megabase mode will use. */
static void dna_scheme(int quick)
{
    int8_t dna[SW_CODE_LIMIT * SW_CODE_LIMIT];
    sw_scoring sd = dna_scoring(dna, 1, -3, 3, 2);
    run_options ro;
    seqset dq = {0}, dd = {0};
    test_rng rng = test_rng_seed(5);
    uint8_t buf[3000];
    for (int i = 0; i < 4; ++i) {
        uint32_t len = 100 + 600 * (uint32_t)i;
        for (uint32_t k = 0; k < len; ++k) buf[k] = (uint8_t)(test_rng_next(&rng) % 5);
        set_add(&dq, buf, len);
    }
    for (uint32_t len = 1; len <= (quick ? 600u : 3000u); len += 7) {
        for (uint32_t k = 0; k < len; ++k) buf[k] = (uint8_t)(test_rng_next(&rng) % 4);
        if (len > 200) memcpy(buf + len / 3, dq.res + dq.off[len % 4], len / 3 < dq.len[len % 4] ? len / 3 : dq.len[len % 4]);
        set_add(&dd, buf, len);
    }
    sorted_db ddb;
    sort_db(&dd, &ddb);
    int32_t *ref = cpu_scores(&ddb, &dq, &sd, 1);
    memset(&ro, 0, sizeof ro);
    compare_gpu("DNA +1/-3, 3/2, all hits", &ddb, &dq, &sd, ref, &ro, NULL);
    ro.qp_max_length = SW_GPU_NO_QP;
    compare_gpu("DNA +1/-3, 3/2, subjects across the threads", &ddb, &dq, &sd, ref, &ro, NULL);
    ro.qp_max_length = 0;
    ro.intra_threshold = 300;
    compare_gpu("DNA +1/-3, 3/2, intra-task above 300", &ddb, &dq, &sd, ref, &ro, NULL);
    free(ref);
    sorted_free(&ddb);
    set_free(&dq);
    set_free(&dd);
}

/* 5. Degenerate inputs: one-residue database, more hits asked for than
 * exist, a database of one sequence. */
static void degenerate(int quick)
{
    seqset q20 = {0}, shortq = {0}, one = {0};
    read_queries(&q20);
    short_queries(&q20, quick, &shortq);
    sw_matrix *b62 = load_matrix("BLOSUM62");
    sw_scoring s62 = scoring_of(b62, 11, 1);
    run_options ro;
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
    sw_matrix_free(b62);
    set_free(&shortq);
    set_free(&q20);
}

Test(gpu_search, swissprot_like_hits_equal_the_cpu_engines) { swissprot_like(0); }
Test(gpu_search, every_length_equals_the_reference) { every_length(0); }
Test(gpu_search, scores_beyond_16_bits_equal_the_reference) { beyond_16_bits(0); }
Test(gpu_search, other_matrices_and_gaps_equal_the_cpu_engines) { other_matrices(0); }
Test(gpu_search, a_dna_scheme_equals_the_reference) { dna_scheme(0); }
Test(gpu_search, degenerate_databases) { degenerate(0); }
Test(gpu_search, pssm_queries_equal_the_cpu_engine) { pssm_queries(0); }

Test(gpu_search_quick, swissprot_like_hits_equal_the_cpu_engines) { swissprot_like(1); }
Test(gpu_search_quick, every_length_equals_the_reference) { every_length(1); }
Test(gpu_search_quick, scores_beyond_16_bits_equal_the_reference) { beyond_16_bits(1); }
Test(gpu_search_quick, other_matrices_and_gaps_equal_the_cpu_engines) { other_matrices(1); }
Test(gpu_search_quick, a_dna_scheme_equals_the_reference) { dna_scheme(1); }
Test(gpu_search_quick, degenerate_databases) { degenerate(1); }
Test(gpu_search_quick, pssm_queries_equal_the_cpu_engine) { pssm_queries(1); }

Test(gpu_search_tiny, the_smallest_set_reaches_every_kernel_path)
{
    sw_matrix *m = load_matrix("BLOSUM62");
    sw_scoring sc = scoring_of(m, 11, 1);
    run_tiny(&sc);
    sw_matrix_free(m);
}
