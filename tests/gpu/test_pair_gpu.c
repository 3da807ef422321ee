/* The GPU engine of pairwise alignment against the CPU engines: every
 * shape around the band (512 rows; 256 in a build of 8 rows a lane), lane
 * (16 rows; 8), chunk (64 columns) and tile sizes, random and related pairs up to 100,000 x 100,000, alignments
 * touching each edge, all-mismatch and identical pairs, both passes, with
 * and without pruning, the diagonal layout, and the overlap engine (local
 * passes, in several cuts, including short-against-long pairs in both
 * orders and identical sequences), forbidden boxes on every engine and
 * best-K alignments against the CPU engine's. Every test skips without a
 * usable GPU. The pairs of 100,000 bases and more are the suite
 * pair_gpu_large, which runs under compute-sanitizer can leave out with
 * Criterion's --filter (the suite pair_gpu alone). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_pair.h"
#include "sw_pair_cpu.h"
#include "sw_pair_gpu.h"
#include "sw_pair_overlap.h"
#include "pair_random.h"
#include "test_rng.h"

/* Every test draws from this one stream, from the same seed in each test
 * (each runs in a process of its own). */
static test_rng rng = {88172645463325252ull};

/* Random bases, with an N in about one in 97 when `with_n`. */
static uint8_t *random_seq(uint64_t len, int with_n) { return random_dna(len, &rng, with_n ? 97 : 0); }

/* A copy of `src` with substitutions, insertions and deletions, each at
 * about `per_mille` / 1000 of the positions. */
static uint8_t *mutate(const uint8_t *src, uint64_t len, unsigned per_mille, uint64_t *out_len)
{
    uint8_t *d = malloc(2 * len + 16);
    cr_assert_not_null(d);
    uint64_t k = 0;
    for (uint64_t i = 0; i < len; ++i) {
        const unsigned r = (unsigned)test_rng_below(&rng, 3000);
        if (r < per_mille) d[k++] = (uint8_t)((src[i] + 1 + test_rng_below(&rng, 3)) % 4);
        else if (r < 2 * per_mille) {
            d[k++] = src[i];
            d[k++] = (uint8_t)test_rng_below(&rng, 4);
        } else if (r >= 3 * per_mille) d[k++] = src[i];
    }
    *out_len = k;
    return d;
}

static void check_pass(const char *what, const sw_pair_pass *pass, const sw_pair_hit *want,
                       const sw_pair_gpu_options *opt)
{
    sw_pair_hit got;
    sw_error err;
    sw_error_clear(&err);
    if (getenv("SW_TEST_VERBOSE")) {
        printf("check %s %s prune %d layout %d warps %d\n", what, pass->mode == SW_PAIR_LOCAL ? "local" : "anchored",
               opt->prune, (int)opt->layout, opt->warps);
        fflush(stdout);
    }
    int rc = sw_pair_gpu_run(pass, opt, &got, NULL, &err);
    if (rc) {
        cr_expect_fail("FAIL %s: %s", what, err.message);
        return;
    }
    if (got.score != want->score || got.a_end != want->a_end || got.b_end != want->b_end) {
        cr_expect_fail("FAIL %s (%llu x %llu, %s, prune %d, layout %d): GPU %d at %llu/%llu, CPU %d at %llu/%llu", what,
                       (unsigned long long)pass->a_len, (unsigned long long)pass->b_len,
                       pass->mode == SW_PAIR_LOCAL ? "local" : "anchored", opt->prune, (int)opt->layout, got.score,
                       (unsigned long long)got.a_end, (unsigned long long)got.b_end, want->score,
                       (unsigned long long)want->a_end, (unsigned long long)want->b_end);
    }
}

static int64_t recomputed_total; /* chunks the overlap engine recomputed, over the test's checks */

static void check_overlap(const char *what, const sw_pair_pass *pass, const sw_pair_hit *want, int chunk_bands,
                          int overlap_bands)
{
    sw_pair_overlap_options opt = {0, overlap_bands, chunk_bands};
    sw_pair_overlap_stats st;
    sw_pair_hit got;
    sw_error err;
    sw_error_clear(&err);
    if (getenv("SW_TEST_VERBOSE")) {
        printf("check %s overlap chunk %d overlap %d\n", what, chunk_bands, overlap_bands);
        fflush(stdout);
    }
    if (sw_pair_overlap_run(pass, &opt, &got, &st, &err)) {
        cr_expect_fail("FAIL %s: overlap engine: %s", what, err.message);
        return;
    }
    recomputed_total += st.recomputed;
    if (got.score != want->score || got.a_end != want->a_end || got.b_end != want->b_end) {
        cr_expect_fail(
            "FAIL %s (%llu x %llu, overlap engine, chunks of %d bands, overlap %d): GPU %d at %llu/%llu, CPU %d "
            "at %llu/%llu (%lld chunks, %d rounds, %lld recomputed)",
            what, (unsigned long long)pass->a_len, (unsigned long long)pass->b_len, chunk_bands, overlap_bands,
            got.score, (unsigned long long)got.a_end, (unsigned long long)got.b_end, want->score,
            (unsigned long long)want->a_end, (unsigned long long)want->b_end, (long long)st.chunks, st.rounds,
            (long long)st.recomputed);
    }
}

/* The overlap engine in its default cut and in the smallest chunks (one
 * band, one band of overlap: the most chunks, the most recomputation). */
static void check_overlaps(const char *what, const sw_pair_pass *pass, const sw_pair_hit *want)
{
    check_overlap(what, pass, want, 0, 0);
    check_overlap(what, pass, want, 1, 1);
    check_overlap(what, pass, want, 3, 2);
}

/* The CPU's answer to `pass` (the reference engine or the multi-threaded
 * one); 0, or a failure counted and reported. */
static int cpu_hit(const char *what, const sw_pair_pass *pass, int use_reference, sw_pair_hit *want)
{
    sw_error err;
    const int rc = use_reference ? sw_pair_cpu_reference(pass, want, &err) : sw_pair_cpu_run(pass, 0, want, &err);
    if (rc) {
        cr_expect_fail("FAIL %s: CPU%s: %s", what, pass->mode == SW_PAIR_ANCHORED ? " anchored" : "", err.message);
    }
    return rc;
}

/* Local pass on every GPU variant, anchored pass at the best score over
 * the reversed prefixes (as sw_pair_align runs it), both against the CPU. */
static void check_pair(const char *what, const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n,
                       const sw_pair_scoring *sc, int use_reference)
{
    sw_pair_pass pass = {a, m, b, n, *sc, SW_PAIR_LOCAL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
    sw_pair_hit want;
    if (cpu_hit(what, &pass, use_reference, &want)) return;
    sw_pair_gpu_options opt = {0, 0, SW_PAIR_GPU_PERSISTENT, 0};
    check_pass(what, &pass, &want, &opt);
    opt.prune = 1;
    check_pass(what, &pass, &want, &opt);
    opt.prune = 0;
    opt.layout = SW_PAIR_GPU_DIAGONAL;
    check_pass(what, &pass, &want, &opt);
    /* Few warps: bands go round several times and rings wrap. */
    opt.layout = SW_PAIR_GPU_PERSISTENT;
    opt.warps = 3;
    check_pass(what, &pass, &want, &opt);
    opt.warps = 0;
    check_overlaps(what, &pass, &want);
    if (want.score <= 0) return;

    uint8_t *ra = malloc(want.a_end), *rb = malloc(want.b_end);
    for (uint64_t i = 0; i < want.a_end; ++i) ra[i] = a[want.a_end - 1 - i];
    for (uint64_t j = 0; j < want.b_end; ++j) rb[j] = b[want.b_end - 1 - j];
    sw_pair_pass back = {ra, want.a_end, rb, want.b_end, *sc, SW_PAIR_ANCHORED, want.score, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
    sw_pair_hit start;
    if (!cpu_hit(what, &back, use_reference, &start)) {
        check_pass(what, &back, &start, &opt);
        opt.prune = 1;
        check_pass(what, &back, &start, &opt);
        opt.warps = 2;
        check_pass(what, &back, &start, &opt);
    }
    free(ra);
    free(rb);
}

static void check_random(uint64_t m, uint64_t n, const sw_pair_scoring *sc)
{
    char what[96];
    snprintf(what, sizeof what, "random %llux%llu", (unsigned long long)m, (unsigned long long)n);
    uint8_t *a = random_seq(m, 1), *b = random_seq(n, 1);
    check_pair(what, a, m, b, n, sc, m * n <= 4000000);
    free(a);
    free(b);
}

static void check_related(uint64_t m, unsigned per_mille, const sw_pair_scoring *sc)
{
    char what[96];
    snprintf(what, sizeof what, "related %llu (%u/1000)", (unsigned long long)m, per_mille);
    uint8_t *a = random_seq(m, 0);
    uint64_t n;
    uint8_t *b = mutate(a, m, per_mille, &n);
    check_pair(what, a, m, b, n, sc, m * n <= 4000000);
    free(a);
    free(b);
}

/* A shared middle with unrelated flanks of the given sizes: the best
 * alignment starts or ends on the matrix's edges when a flank is empty. */
static void check_flanks(uint64_t a_left, uint64_t a_right, uint64_t b_left, uint64_t b_right, uint64_t core,
                         const sw_pair_scoring *sc)
{
    char what[96];
    snprintf(what, sizeof what, "flanks %llu+%llu / %llu+%llu", (unsigned long long)a_left,
             (unsigned long long)a_right, (unsigned long long)b_left, (unsigned long long)b_right);
    uint8_t *mid = random_seq(core, 0);
    const uint64_t m = a_left + core + a_right, n = b_left + core + b_right;
    uint8_t *a = random_seq(m, 0), *b = random_seq(n, 0);
    memcpy(a + a_left, mid, core);
    memcpy(b + b_left, mid, core);
    check_pair(what, a, m, b, n, sc, m * n <= 4000000);
    free(mid);
    free(a);
    free(b);
}

/* A query against a subject `ratio` times longer that holds `copies`
 * mutated copies of it, in both orders of the pair: the overlap engine's
 * shape. Local passes on the overlap and CUDAlign engines. */
static void check_skinny(uint64_t q, uint64_t ratio, int copies, unsigned per_mille, const sw_pair_scoring *sc)
{
    uint8_t *query = random_seq(q, 0);
    const uint64_t n = q * ratio;
    uint8_t *subject = random_seq(n, 1);
    for (int c = 0; c < copies; ++c) {
        uint64_t len;
        uint8_t *copy = mutate(query, q, per_mille, &len);
        const uint64_t at = (uint64_t)(c + 1) * n / (uint64_t)(copies + 1);
        memcpy(subject + at, copy, len < n - at ? len : n - at);
        free(copy);
    }
    for (int order = 0; order < 2; ++order) {
        char what[96];
        snprintf(what, sizeof what, "skinny %llu x %llu, %d copies (%u/1000)%s", (unsigned long long)q,
                 (unsigned long long)n, copies, per_mille, order ? ", subject first" : "");
        sw_pair_pass pass = {order ? subject : query, order ? n : q, order ? query : subject, order ? q : n, *sc,
                             SW_PAIR_LOCAL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
        sw_pair_hit want;
        if (cpu_hit(what, &pass, 0, &want)) continue;
        sw_pair_gpu_options opt = {0, 1, SW_PAIR_GPU_PERSISTENT, 0};
        check_pass(what, &pass, &want, &opt);
        check_overlaps(what, &pass, &want);
    }
    free(query);
    free(subject);
}

/* Forbidden boxes: every GPU variant against the CPU engine on a pair
 * with planted copies, boxes over some of them (local passes in both
 * orders, and anchored ones). */
static void check_forbidden(uint64_t m, uint64_t q, const sw_pair_scoring *sc)
{
    uint8_t *query = random_seq(q, 0), *subject = random_seq(m, 0);
    for (int c = 0; c < 3; ++c) {
        uint64_t len;
        uint8_t *copy = mutate(query, q, 10 + 20 * (unsigned)c, &len);
        const uint64_t at = (uint64_t)(c + 1) * m / 4;
        memcpy(subject + at, copy, len < m - at ? len : m - at);
        free(copy);
    }
    const sw_pair_box sets[3][2] = {
        {{m / 4 - 10, m / 4 + q / 2, 1, q}, {0, 0, 0, 0}},                 /* half of the first copy */
        {{1, m / 2 + q, q / 3, q / 3 + 5}, {3 * m / 4, 3 * m / 4 + 40, 1, q}}, /* a column strip, a row strip */
        {{m / 4 + 1, m / 4 + q + 50, 1, q}, {m / 2 + 1, m / 2 + q + 50, 1, q}}, /* two whole copies */
    };
    const int counts[3] = {1, 2, 2};
    for (int set = 0; set < 3; ++set)
        for (int order = 0; order < 2; ++order) {
            char what[96];
            snprintf(what, sizeof what, "forbidden set %d, %llu x %llu%s", set, (unsigned long long)m,
                     (unsigned long long)q, order ? ", query first" : "");
            sw_pair_box boxes[2];
            for (int k = 0; k < counts[set]; ++k)
                boxes[k] = order ? (sw_pair_box){sets[set][k].b_lo, sets[set][k].b_hi, sets[set][k].a_lo,
                                                 sets[set][k].a_hi}
                                 : sets[set][k];
            sw_pair_pass pass = {order ? query : subject, order ? q : m, order ? subject : query, order ? m : q, *sc,
                                 SW_PAIR_LOCAL, 0, NULL, NULL, NULL, boxes, counts[set], 0, NULL, NULL, 0, 0};
            sw_pair_hit want;
            if (cpu_hit(what, &pass, 0, &want)) continue;
            sw_pair_gpu_options opt = {0, 0, SW_PAIR_GPU_PERSISTENT, 0};
            check_pass(what, &pass, &want, &opt);
            opt.prune = 1;
            check_pass(what, &pass, &want, &opt);
            opt.warps = 3;
            check_pass(what, &pass, &want, &opt);
            check_overlaps(what, &pass, &want);
            if (want.score <= 0) continue;
            /* anchored, from the matrix origin, at half the best score */
            sw_pair_pass anchored = pass;
            anchored.mode = SW_PAIR_ANCHORED;
            anchored.target = want.score / 2 > 0 ? want.score / 2 : 1;
            sw_pair_hit start;
            if (cpu_hit(what, &anchored, 0, &start)) continue;
            opt.warps = 0;
            check_pass(what, &anchored, &start, &opt);
            opt.prune = 0;
            check_pass(what, &anchored, &start, &opt);
        }
    free(query);
    free(subject);
}

/* Best-K on each GPU engine against the CPU engine. */
static void check_best(const char *what, const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n,
                       const sw_pair_scoring *sc, int k)
{
    sw_pair_result want[8], got[8];
    int want_found = 0, got_found = 0;
    sw_error err;
    sw_pair_options opt = {.engine = SW_PAIR_ENGINE_CPU};
    if (sw_pair_align_best(a, m, b, n, sc, &opt, k, want, &want_found, &err)) {
        cr_expect_fail("FAIL %s: CPU best-K: %s", what, err.message);
        return;
    }
    const sw_pair_engine engines[2] = {SW_PAIR_ENGINE_CUDALIGN, SW_PAIR_ENGINE_OVERLAP};
    for (int e = 0; e < 2; ++e) {
        opt.engine = engines[e];
        if (sw_pair_align_best(a, m, b, n, sc, &opt, k, got, &got_found, &err)) {
            cr_expect_fail("FAIL %s: %s best-K: %s", what, sw_pair_engine_name(engines[e]), err.message);
            continue;
        }
        int same = got_found == want_found;
        for (int x = 0; same && x < want_found; ++x)
            same = got[x].score == want[x].score && got[x].a_start == want[x].a_start &&
                   got[x].a_end == want[x].a_end && got[x].b_start == want[x].b_start && got[x].b_end == want[x].b_end;
        if (!same) {
            cr_expect_fail("FAIL %s: %s best-K found %d, CPU %d", what, sw_pair_engine_name(engines[e]), got_found,
                           want_found);
            for (int x = 0; x < want_found || x < got_found; ++x)
                printf("  %d: GPU %d %llu-%llu/%llu-%llu  CPU %d %llu-%llu/%llu-%llu\n", x + 1,
                       x < got_found ? got[x].score : 0, (unsigned long long)(x < got_found ? got[x].a_start : 0),
                       (unsigned long long)(x < got_found ? got[x].a_end : 0),
                       (unsigned long long)(x < got_found ? got[x].b_start : 0),
                       (unsigned long long)(x < got_found ? got[x].b_end : 0), x < want_found ? want[x].score : 0,
                       (unsigned long long)(x < want_found ? want[x].a_start : 0),
                       (unsigned long long)(x < want_found ? want[x].a_end : 0),
                       (unsigned long long)(x < want_found ? want[x].b_start : 0),
                       (unsigned long long)(x < want_found ? want[x].b_end : 0));
        }
    }
}

static void check_best_planted(uint64_t m, uint64_t q, int copies, const sw_pair_scoring *sc)
{
    uint8_t *query = random_seq(q, 0), *subject = random_seq(m, 0);
    for (int c = 0; c < copies; ++c) {
        uint64_t len;
        uint8_t *copy = mutate(query, q, 5 + 15 * (unsigned)c, &len);
        const uint64_t at = (uint64_t)(c + 1) * m / (uint64_t)(copies + 1);
        memcpy(subject + at, copy, len < m - at ? len : m - at);
        free(copy);
    }
    char what[96];
    snprintf(what, sizeof what, "best-K %llu x %llu, %d copies", (unsigned long long)m, (unsigned long long)q, copies);
    check_best(what, subject, m, query, q, sc, copies + 2);
    snprintf(what, sizeof what, "best-K %llu x %llu, %d copies, query first", (unsigned long long)q,
             (unsigned long long)m, copies);
    check_best(what, query, q, subject, m, sc, copies + 2);
    free(query);
    free(subject);
}

/* Whether two boundary rows hand on the same thing: H, and F where it can
 * still matter (F <= 0 acts as 0, sw_pair_split.c). */
static int same_edge(const sw_pair_edge *x, const sw_pair_edge *y, uint64_t n, uint64_t *where)
{
    for (uint64_t j = 0; j < n; ++j)
        if (x[j].h != y[j].h || (x[j].f > 0 ? x[j].f : 0) != (y[j].f > 0 ? y[j].f : 0)) {
            *where = j;
            return 0;
        }
    return 1;
}

/* One GPU engine (0: CUDAlign, 1: overlap) on `pass`: its best cell and,
 * with `last_row`, the last row it hands on, against the CPU's. */
static void check_edge_pass(const char *what, int engine, const sw_pair_pass *pass, int last_row)
{
    sw_pair_pass cpu = *pass, gpu = *pass;
    sw_pair_edge *want_row = NULL, *got_row = NULL;
    if (last_row) {
        want_row = malloc(pass->b_len * sizeof *want_row);
        got_row = malloc(pass->b_len * sizeof *got_row);
        cpu.bottom = want_row;
        gpu.bottom = got_row;
    }
    sw_pair_hit want, got;
    sw_error err;
    sw_error_clear(&err);
    if (cpu_hit(what, &cpu, 0, &want)) goto done;
    int rc;
    if (engine == 0) {
        const sw_pair_gpu_options opt = {.device = 0, .prune = 1, .layout = SW_PAIR_GPU_PERSISTENT};
        rc = sw_pair_gpu_run(&gpu, &opt, &got, NULL, &err);
    } else {
        const sw_pair_overlap_options opt = {0, 1, 1}; /* chunks of one band: the most boundaries */
        rc = sw_pair_overlap_run(&gpu, &opt, &got, NULL, &err);
    }
    const char *name = engine == 0 ? "cudalign" : "overlap";
    if (rc) {
        cr_expect_fail("FAIL %s: %s: %s", what, name, err.message);
        goto done;
    }
    if (got.score != want.score || got.a_end != want.a_end || got.b_end != want.b_end) {
        cr_expect_fail("FAIL %s (%llu x %llu): %s %d at %llu/%llu, CPU %d at %llu/%llu", what,
                       (unsigned long long)pass->a_len, (unsigned long long)pass->b_len, name, got.score,
                       (unsigned long long)got.a_end, (unsigned long long)got.b_end, want.score,
                       (unsigned long long)want.a_end, (unsigned long long)want.b_end);
    }
    uint64_t j = 0;
    if (last_row && !same_edge(got_row, want_row, pass->b_len, &j)) {
        cr_expect_fail("FAIL %s (%llu x %llu): %s last row column %llu: H %d F %d, CPU H %d F %d", what,
                       (unsigned long long)pass->a_len, (unsigned long long)pass->b_len, name,
                       (unsigned long long)j + 1, got_row[j].h, got_row[j].f, want_row[j].h, want_row[j].f);
    }
done:
    free(want_row);
    free(got_row);
}

/* A pass cut at row `cut`: the rows above handing their last row on (any
 * row count, so the GPU's last band may be short), the rows below starting
 * from it; each engine against the CPU. */
static void check_cut(const char *what, const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n, uint64_t cut,
                      const sw_pair_scoring *sc)
{
    sw_pair_edge *row = malloc(n * sizeof *row);
    sw_pair_pass upper = {a, cut, b, n, *sc, SW_PAIR_LOCAL, 0, NULL, NULL, row, NULL, 0, 0, NULL, NULL, 0, 0};
    sw_pair_hit ignored;
    sw_error err;
    if (sw_pair_cpu_run(&upper, 0, &ignored, &err)) {
        cr_expect_fail("FAIL %s: CPU: %s", what, err.message);
        free(row);
        return;
    }
    char line[128];
    upper.bottom = NULL;
    const sw_pair_pass lower = {a + cut, m - cut, b, n, *sc, SW_PAIR_LOCAL, 0, NULL, row, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
    for (int engine = 0; engine < 2; ++engine) {
        /* The overlap engine takes boundary rows where the rows are the longer. */
        if (engine == 1 && (cut < n || m - cut < n)) continue;
        snprintf(line, sizeof line, "%s, rows 1-%llu", what, (unsigned long long)cut);
        check_edge_pass(line, engine, &upper, 1);
        snprintf(line, sizeof line, "%s, rows %llu-%llu from the row above", what, (unsigned long long)cut + 1,
                 (unsigned long long)m);
        check_edge_pass(line, engine, &lower, 0); /* pruning on */
        check_edge_pass(line, engine, &lower, 1);
    }
    free(row);
}

static void check_cuts(uint64_t m, uint64_t n, const sw_pair_scoring *sc)
{
    uint64_t len;
    uint8_t *a = random_seq(m, 0);
    uint8_t *b = mutate(a, n < m ? n : m, 30, &len); /* a related prefix: alignments cross every cut */
    char what[64];
    snprintf(what, sizeof what, "cut %llu x %llu", (unsigned long long)m, (unsigned long long)len);
    const uint64_t cuts[] = {1, 255, 256, 257, 511, 512, 513, m / 3, m / 2 - m / 2 % 512, m - 200, m - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; ++k)
        if (cuts[k] > 0 && cuts[k] < m) check_cut(what, a, m, b, len, cuts[k], sc);
    free(a);
    free(b);
}

/* Several GPUs in one process (--gpus), here all device 0, whole
 * alignments against the CPU engine's: the CUDAlign engine in column
 * strips (as many as the pass is long enough for) and in row slices, the
 * overlap engine in row slices (the exchange of boundary rows between
 * threads and the recomputation of slices). */
static void check_team(const char *what, const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n,
                       const sw_pair_scoring *sc)
{
    static const int devices[4] = {0, 0, 0, 0};
    sw_pair_result want, got;
    sw_error err;
    sw_pair_options opt = {.engine = SW_PAIR_ENGINE_CPU};
    if (sw_pair_align(a, m, b, n, sc, &opt, &want, &err)) {
        cr_expect_fail("FAIL %s: CPU: %s", what, err.message);
        return;
    }
    const sw_pair_engine engines[3] = {SW_PAIR_ENGINE_CUDALIGN, SW_PAIR_ENGINE_CUDALIGN, SW_PAIR_ENGINE_OVERLAP};
    for (int e = 0; e < 3; ++e)
        for (int members = 2; members <= 4; members += 2) {
            opt.engine = engines[e];
            opt.row_slices = e == 1;
            opt.gpus = members;
            opt.devices = devices;
            if (sw_pair_align(a, m, b, n, sc, &opt, &got, &err)) {
                cr_expect_fail("FAIL %s: %s in %d slices: %s", what, sw_pair_engine_name(engines[e]), members,
                               err.message);
                continue;
            }
            if (got.score != want.score || got.a_start != want.a_start || got.a_end != want.a_end ||
                got.b_start != want.b_start || got.b_end != want.b_end) {
                cr_expect_fail("FAIL %s: %s in %d slices: %d %llu-%llu/%llu-%llu, CPU %d %llu-%llu/%llu-%llu", what,
                               sw_pair_engine_name(engines[e]), members, got.score, (unsigned long long)got.a_start,
                               (unsigned long long)got.a_end, (unsigned long long)got.b_start,
                               (unsigned long long)got.b_end, want.score, (unsigned long long)want.a_start,
                               (unsigned long long)want.a_end, (unsigned long long)want.b_start,
                               (unsigned long long)want.b_end);
            }
        }
}

static void check_teams(uint64_t m, uint64_t q, const sw_pair_scoring *sc)
{
    uint64_t len;
    uint8_t *subject = random_seq(m, 0), *query = random_seq(q, 0);
    uint8_t *related = mutate(subject, m, 20, &len);
    char what[96];
    snprintf(what, sizeof what, "slices: related %llu", (unsigned long long)m);
    check_team(what, subject, m, related, len, sc);
    snprintf(what, sizeof what, "slices: identical %llu", (unsigned long long)m);
    check_team(what, subject, m, subject, m, sc); /* every slice waits for the one above */
    uint8_t *copy = mutate(query, q, 30, &len);
    memcpy(subject + m / 3, copy, len < m - m / 3 ? len : m - m / 3);
    snprintf(what, sizeof what, "slices: %llu x %llu", (unsigned long long)m, (unsigned long long)q);
    check_team(what, subject, m, query, q, sc);
    snprintf(what, sizeof what, "slices: random %llu x %llu", (unsigned long long)q, (unsigned long long)m);
    check_team(what, query, q, related, m / 2, sc);
    free(copy);
    free(related);
    free(query);
    free(subject);
}

/* Column strips on device 0 (sw_pair_gpu_strips_run), strips sharing it,
 * against the CPU engine: widths of `count` strips cutting the shorter
 * sequence, with and without pruning. */
static void check_strips_widths(const char *what, const sw_pair_pass *pass, const sw_pair_hit *want,
                                const uint64_t *widths, int count)
{
    static const int devices[SW_PAIR_GPU_MAX_STRIPS] = {0};
    for (int prune = 0; prune <= 1; ++prune) {
        sw_pair_gpu_strips s = {count, devices, widths, prune};
        sw_pair_hit got;
        sw_pair_gpu_strip_stats st[SW_PAIR_GPU_MAX_STRIPS];
        sw_error err;
        sw_error_clear(&err);
        if (sw_pair_gpu_strips_run(pass, &s, &got, st, &err)) {
            cr_expect_fail("FAIL %s: %d strips (%llu, ...), prune %d: %s", what, count,
                           (unsigned long long)widths[0], prune, err.message);
            continue;
        }
        /* A local pass sweeps every cell; an anchored one stops early. */
        uint64_t cells = 0;
        for (int k = 0; k < count; ++k) cells += st[k].cells + st[k].pruned;
        const uint64_t all = pass->a_len * pass->b_len;
        if (got.score != want->score || got.a_end != want->a_end || got.b_end != want->b_end ||
            (pass->mode == SW_PAIR_LOCAL ? cells != all : cells > all))
            cr_expect_fail("FAIL %s (%llu x %llu): %d strips (%llu, %llu, ...), prune %d: GPU %d at %llu/%llu, CPU %d "
                           "at %llu/%llu; %llu cells swept",
                           what, (unsigned long long)pass->a_len, (unsigned long long)pass->b_len, count,
                           (unsigned long long)widths[0], (unsigned long long)(count > 1 ? widths[1] : 0), prune,
                           got.score, (unsigned long long)got.a_end, (unsigned long long)got.b_end, want->score,
                           (unsigned long long)want->a_end, (unsigned long long)want->b_end,
                           (unsigned long long)cells);
    }
}

/* Strip borders of every kind for `pass` (cut by `cols` columns): a strip
 * of 1, 255, 256 and 257 columns, uneven widths, and 2 to 4 equal strips. */
static void check_strip_cuts(const char *what, const sw_pair_pass *pass, const sw_pair_hit *want, uint64_t cols)
{
    if (cols < 800) return;
    const uint64_t widths[][4] = {
        {1, cols - 1},
        {cols - 1, 1},
        {255, 256, 257, cols - 768},
        {cols / 7, cols / 2, cols - cols / 7 - cols / 2},
        {cols / 2, cols - cols / 2},
        {cols / 3, cols / 3, cols - 2 * (cols / 3)},
        {cols / 4, cols / 4, cols / 4, cols - 3 * (cols / 4)},
    };
    const int counts[] = {2, 2, 4, 3, 2, 3, 4};
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; ++t)
        check_strips_widths(what, pass, want, widths[t], counts[t]);
}

/* The pass as strips of a larger matrix, as ranks under mpirun run it
 * (sw_pair_pass.left, .right in mapped host memory): cut at `cut`, the
 * left strip run to its end, then the right one from its column, each as
 * two GPU strips of its own; the first hit of the two, in the matrix's
 * columns, is the whole pass's. */
static void check_external_columns(const char *what, const sw_pair_pass *whole, const sw_pair_hit *want, uint64_t cut)
{
    static const int devices[2] = {0, 0};
    sw_pair_column *col = NULL;
    sw_error err;
    if (sw_pair_gpu_column_alloc(whole->a_len, &col, &err)) {
        cr_expect_fail("FAIL %s: %s", what, err.message);
        return;
    }
    sw_pair_hit hits[2];
    for (int k = 0; k < 2; ++k) {
        sw_pair_pass p = *whole;
        const uint64_t lo = k ? cut : 0, hi = k ? whole->b_len : cut;
        p.b = whole->b + lo;
        p.b_len = hi - lo;
        p.col_base = lo;
        p.cols_after = whole->b_len - hi;
        p.left = k ? col : NULL;
        p.right = k ? NULL : col;
        const uint64_t widths[2] = {p.b_len / 2 ? p.b_len / 2 : p.b_len, p.b_len - (p.b_len / 2 ? p.b_len / 2 : p.b_len)};
        sw_pair_gpu_strips s = {widths[1] ? 2 : 1, devices, widths, 1};
        if (sw_pair_gpu_strips_run(&p, &s, &hits[k], NULL, &err)) {
            cr_expect_fail("FAIL %s: strip %d of a larger matrix: %s", what, k, err.message);
            sw_pair_gpu_column_free(col);
            return;
        }
        if (hits[k].score) hits[k].b_end += lo;
    }
    const sw_pair_hit *got = &hits[0];
    if (whole->mode == SW_PAIR_ANCHORED) {
        if (!hits[0].score) got = &hits[1];
    } else if (hits[1].score > hits[0].score ||
               (hits[1].score == hits[0].score && hits[1].score > 0 &&
                (hits[1].b_end < hits[0].b_end || (hits[1].b_end == hits[0].b_end && hits[1].a_end < hits[0].a_end)))) {
        got = &hits[1];
    }
    if (got->score != want->score || got->a_end != want->a_end || got->b_end != want->b_end)
        cr_expect_fail("FAIL %s: strips of a larger matrix cut at %llu: GPU %d at %llu/%llu, CPU %d at %llu/%llu", what,
                       (unsigned long long)cut, got->score, (unsigned long long)got->a_end,
                       (unsigned long long)got->b_end, want->score, (unsigned long long)want->a_end,
                       (unsigned long long)want->b_end);
    cr_expect_eq(col->rows, whole->a_len, "%s: the column holds %llu rows", what, (unsigned long long)col->rows);
    sw_pair_gpu_column_free(col);
}

/* The local pass in strips, then the start pass (anchored, over the
 * reversed prefixes, as sw_pair_align runs it) in strips of b. */
static void check_strips(const char *what, const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n,
                         const sw_pair_scoring *sc)
{
    sw_pair_pass pass = {a, m, b, n, *sc, SW_PAIR_LOCAL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
    sw_pair_hit want;
    if (cpu_hit(what, &pass, 0, &want)) return;
    check_strip_cuts(what, &pass, &want, m < n ? m : n);
    if (n > 600) {
        check_external_columns(what, &pass, &want, 1);
        check_external_columns(what, &pass, &want, 257);
        check_external_columns(what, &pass, &want, n / 2);
    }
    if (want.score <= 0) return;
    uint8_t *ra = malloc(want.a_end), *rb = malloc(want.b_end);
    for (uint64_t i = 0; i < want.a_end; ++i) ra[i] = a[want.a_end - 1 - i];
    for (uint64_t j = 0; j < want.b_end; ++j) rb[j] = b[want.b_end - 1 - j];
    sw_pair_pass back = {ra, want.a_end, rb, want.b_end, *sc, SW_PAIR_ANCHORED, want.score, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
    sw_pair_hit start;
    char anchored[128];
    snprintf(anchored, sizeof anchored, "%s, start pass", what);
    if (!cpu_hit(anchored, &back, 0, &start)) {
        check_strip_cuts(anchored, &back, &start, want.b_end);
        if (want.b_end > 600) check_external_columns(anchored, &back, &start, want.b_end / 3);
    }
    free(ra);
    free(rb);
}

static void check_strip_pairs(uint64_t m, uint64_t q, const sw_pair_scoring *sc)
{
    uint64_t len;
    uint8_t *subject = random_seq(m, 0), *query = random_seq(q, 1);
    uint8_t *related = mutate(subject, m, 20, &len);
    char what[96];
    snprintf(what, sizeof what, "strips: related %llu", (unsigned long long)m);
    check_strips(what, subject, m, related, len, sc); /* the alignment crosses every border */
    check_strips(what, related, len, subject, m, sc);
    snprintf(what, sizeof what, "strips: identical %llu", (unsigned long long)m);
    check_strips(what, subject, m, subject, m, sc);
    uint8_t *copy = mutate(query, q, 30, &len);
    memcpy(subject + m / 3, copy, len < m - m / 3 ? len : m - m / 3);
    snprintf(what, sizeof what, "strips: %llu x %llu", (unsigned long long)m, (unsigned long long)q);
    check_strips(what, subject, m, query, q, sc); /* the query's columns cut */
    check_strips(what, query, q, subject, m, sc); /* transposed: the same, rows first in ties */
    snprintf(what, sizeof what, "strips: random %llu x %llu", (unsigned long long)q, (unsigned long long)m);
    check_strips(what, query, q, related, m / 2, sc);
    free(copy);
    free(related);
    free(query);
    free(subject);
}

/* ---- the tests ---- */

static const sw_pair_scoring paper = {1, -3, 3, 2}, blastn = {2, -3, 5, 2}, cheap_gaps = {3, -2, 0, 1};

static void require_gpu(void)
{
    sw_error err;
    sw_error_clear(&err);
    if (!sw_pair_gpu_usable(0, &err)) cr_skip_test("%s", err.message[0] ? err.message : "no GPU");
}

TestSuite(pair_gpu, .init = require_gpu);
TestSuite(pair_gpu_large, .init = require_gpu);

Test(pair_gpu, random_pairs_of_every_shape)
{
    const uint64_t sizes[] = {1,   2,   7,   8,   9,   15,  16,   17,   31,   32,   33,  63,
                              65,  255, 256, 257, 511, 512, 513, 1000, 1023, 1025, 2049};
    const size_t count = sizeof sizes / sizeof sizes[0];
    for (size_t i = 0; i < count; ++i)
        for (size_t j = 0; j < count; j += 3) check_random(sizes[i], sizes[j], &paper);
    for (size_t i = 0; i < count; i += 4)
        for (size_t j = 1; j < count; j += 4) {
            check_random(sizes[i], sizes[j], &blastn);
            check_random(sizes[i], sizes[j], &cheap_gaps);
        }
    check_random(3001, 2999, &paper);
    check_random(4097, 777, &cheap_gaps);
}

/* The overlap engine's recomputation is exercised here: related pairs cut
 * in chunks of one band leave chunks inexact after the first round. */
Test(pair_gpu, related_pairs)
{
    check_related(5000, 30, &paper);
    check_related(9999, 10, &blastn);
    check_related(20000, 50, &cheap_gaps);
    cr_expect_gt(recomputed_total, 0, "FAIL the overlap engine never recomputed a chunk");
    printf("overlap engine recomputed %lld chunks\n", (long long)recomputed_total);
}

Test(pair_gpu, alignments_touching_the_edges)
{
    check_flanks(0, 0, 0, 0, 3000, &paper);     /* identical */
    check_flanks(0, 500, 0, 700, 2000, &paper); /* starts at the origin */
    check_flanks(900, 0, 300, 0, 2000, &paper); /* ends at the last cell */
    check_flanks(0, 800, 1200, 0, 1500, &paper);
    check_flanks(1300, 0, 0, 200, 1500, &paper);
}

Test(pair_gpu, all_mismatches_score_zero)
{
    /* A against C scores 0 everywhere. */
    uint8_t *a = malloc(3000), *b = malloc(2000);
    cr_assert(a && b);
    memset(a, 0, 3000);
    memset(b, 1, 2000);
    check_pair("all mismatch", a, 3000, b, 2000, &paper, 1);
    free(a);
    free(b);
}

Test(pair_gpu, ties_end_on_the_first_best_cell)
{
    /* The best score ends on many cells, and the engines that run the pair
     * transposed must still report the first in column-major order. */
    uint8_t *a = malloc(3000), *b = malloc(3000);
    cr_assert(a && b);
    for (int i = 0; i < 3000; ++i) a[i] = b[i] = (uint8_t)(i % 4);
    check_pair("period 4, second longer", a, 500, b, 3000, &paper, 1);
    check_pair("period 4, first longer", a, 3000, b, 700, &paper, 1);
    memset(a, 2, 3000);
    check_pair("one base, second longer", a, 300, a, 2600, &cheap_gaps, 1);
    free(a);
    free(b);
}

Test(pair_gpu, forbidden_boxes)
{
    check_forbidden(5000, 400, &paper);
    check_forbidden(3000, 700, &cheap_gaps);
}

Test(pair_gpu, best_k_equals_the_cpu_engine) { check_best_planted(6000, 500, 3, &paper); }

/* The second sequence holds a mutated copy of part of the first, then a
 * mutated copy of the whole: the start passes of the later alignments bar
 * each state where its own cell is forbidden (sw_pair_pass.reversed), on
 * the GPU as on the CPU. */
Test(pair_gpu, best_k_after_a_partial_copy_equals_the_cpu_engine)
{
    static const sw_pair_scoring *const scorings[3] = {&paper, &blastn, &cheap_gaps};
    test_rng local = test_rng_seed(77);
    for (int trial = 0; trial < 12; ++trial) {
        uint8_t *a, *b;
        uint64_t na, nb;
        partial_copy_pair(&local, &a, &na, &b, &nb);
        char what[64];
        snprintf(what, sizeof what, "partial copy, trial %d", trial);
        check_best(what, a, na, b, nb, scorings[trial % 3], 3);
        free(a);
        free(b);
    }
}

Test(pair_gpu, cut_passes_hand_on_their_last_row)
{
    check_cuts(3000, 3000, &paper);
    check_cuts(9000, 700, &paper);
    check_cuts(5000, 1000, &cheap_gaps);
}

Test(pair_gpu, row_slices_on_threads) { check_teams(4000, 300, &paper); }

Test(pair_gpu, column_strips_equal_the_cpu)
{
    check_strip_pairs(5000, 1200, &paper);
    check_strip_pairs(3000, 900, &blastn);
    check_strip_pairs(2500, 1000, &cheap_gaps);
}

Test(pair_gpu, short_against_long_pairs)
{
    check_skinny(128, 300, 1, 20, &paper);
    check_skinny(1000, 100, 3, 30, &paper);
    check_skinny(700, 50, 2, 10, &cheap_gaps); /* cheap gaps: scores reach far past an alignment */
    check_skinny(3000, 20, 1, 5, &blastn);
    check_skinny(300, 200, 0, 0, &paper); /* nothing related */
}

/* Large pairs against the multi-threaded CPU engine. */
Test(pair_gpu_large, related_and_random_pairs)
{
    check_related(100000, 20, &paper);
    check_random(100000, 100000, &paper);
}

Test(pair_gpu_large, alignments_touching_the_edges)
{
    check_flanks(20000, 0, 0, 30000, 70000, &paper);
    check_flanks(0, 0, 0, 0, 200000, &paper); /* identical: the best alignment spans every chunk */
}

Test(pair_gpu_large, forbidden_boxes) { check_forbidden(200000, 3000, &paper); }

Test(pair_gpu_large, best_k_equals_the_cpu_engine) { check_best_planted(300000, 4000, 4, &paper); }

Test(pair_gpu_large, row_slices_on_threads) { check_teams(200000, 5000, &paper); }

Test(pair_gpu_large, column_strips_equal_the_cpu) { check_strip_pairs(120000, 3000, &paper); }

Test(pair_gpu_large, short_against_long_pairs)
{
    check_skinny(10240, 100, 2, 20, &paper);
    check_skinny(50000, 8, 1, 20, &paper);
}
