/* The alignment behind a megabase result by Myers and Miller's divide and
 * conquer (Myers & Miller 1988, "Optimal alignments in linear space"), as
 * CUDAlign 2.0 uses it for its last stages: the rectangle between the
 * alignment's start and end is cut at its middle row; one pass from the top
 * and one from the bottom give, for every column, the best score of each
 * half, and the best sum is a point of an optimal alignment; both halves are
 * then solved the same way. Memory: four rows of the rectangle's width.
 * docs/PAIR_PATH.md explains the boundary rules and the ties. */
#include "sw_pair_path.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sw_clock.h"
#include "sw_pair_gpu.h"
#include "sw_pool.h"

/* Scores stay in 32 bits: a cell is never set below this. No part of an
 * optimal alignment scores below -SW_PAIR_MAX_SCORE relative to any other
 * part, and a path that was raised to the floor gains at most
 * SW_PAIR_MAX_SCORE afterwards, so it can neither win nor tie a split. */
#define FLOOR SW_PAIR_FLOOR

/* Splits of at least this many cells run their two halves side by side. */
#define PARALLEL_CELLS ((uint64_t)1 << 22)
/* Cells between progress calls. */
#define PROGRESS_CELLS ((uint64_t)1 << 24)

struct sw_pair_path {
    sw_pair_run *runs;
    size_t n, cap;
    uint64_t a_start, b_start;
    sw_pair_path_summary summary;
    uint64_t cells;
    uint64_t gpu_passes, gpu_cells;
    double gpu_busy_seconds;
};

/* The GPU, shared by every solver of a path (sw_pair_gpu_rows_run lets
 * their passes share it), and the first failure. */
typedef struct gpu_share {
    sw_pair_gpu_rows *rows;
    pthread_mutex_t lock;
    uint64_t min_cells;
    int failed;    /* the first failure, kept in err */
    sw_error err;
    _Atomic uint64_t passes, cells;
    /* Under `lock`: splits on the GPU now, since when some have been, and
     * the seconds with at least one (what the GPU's share of the time is). */
    int in_flight;
    double busy_since, busy_seconds;
} gpu_share;

typedef struct solver {
    const sw_pair_scoring *s;
    int32_t *cc, *dd, *rr, *ss; /* width + 1 each */
    sw_pair_path *path;
    int stopped; /* out of memory for the runs, or the GPU failed (gpu->failed): every piece stops */
    int threads; /* this solver's share of the threads */
    int exhaustive; /* every cell of every piece, no band */
    /* Cells no alignment may use (best-K), in the sequences' 1-based
     * coordinates; a_base and b_base: where the sequences start, so that
     * a piece's pointers give its place. */
    const sw_pair_box *forbidden;
    int forbidden_count;
    const uint8_t *a_base, *b_base;
    _Atomic uint64_t *done; /* cells done, shared by every solver of a path */
    uint64_t total, reported;
    const sw_pair_path_options *options; /* NULL in a solver on another thread: no progress calls */
    gpu_share *gpu;                      /* NULL: every pass on the CPU */
} solver;

static void push(solver *v, char op, uint64_t len)
{
    if (!len || v->stopped) return;
    sw_pair_path *p = v->path;
    if (p->n && p->runs[p->n - 1].op == op) {
        p->runs[p->n - 1].len += len;
        return;
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        sw_pair_run *r = realloc(p->runs, cap * sizeof *r);
        if (!r) {
            v->stopped = 1;
            return;
        }
        p->runs = r;
        p->cap = cap;
    }
    p->runs[p->n++] = (sw_pair_run){op, len};
}

static void report(solver *v)
{
    const sw_pair_path_options *o = v->options;
    const uint64_t done = atomic_load(v->done);
    if (o && o->progress && done - v->reported >= PROGRESS_CELLS) {
        v->reported = done;
        o->progress(o->progress_user, done, v->total);
    }
}

static inline int32_t max32(int32_t x, int32_t y) { return x > y ? x : y; }

/* Global alignment values of rows 1..m of A against columns 0..n of B,
 * row by row from row 0: after it, h[j] is the best score of A[1..m]
 * against B[1..j] and d[j] the best of those that end with A[m] against a
 * gap. A[i] is a[(i - 1) * astep], B[j] is b[(j - 1) * bstep] (a step of
 * -1 runs a sequence backwards). A vertical gap down column 0 from the
 * corner opens at `open0` instead of gap_open (0 when it continues a gap
 * from outside the rectangle). */
typedef struct half_pass {
    const uint8_t *a, *b;
    ptrdiff_t astep, bstep;
    uint64_t m, n;
    int32_t open0;
    int32_t *h, *d;
    solver *v;
    int report; /* this thread may call the progress function */
    /* The band: the piece's rows (both passes' rows together) and a score
     * that every optimal alignment of it reaches; INT64_MIN: no band. */
    uint64_t piece_rows;
    int64_t target;
    /* The matrix cell of the pass's cell (i, j): row row0 + dir * i,
     * column col0 + dir * j (dir -1 for the pass from the bottom). */
    int64_t row0, col0;
    int dir;
} half_pass;

/* The matrix cells behind the three states of pass cell (i, j). From the
 * top they are all that cell; from the bottom (sequences reversed) the pair
 * is that cell, but a gap of the second sequence was taken in the row above
 * it and a gap of the first in the column left of it, in the matrix's
 * order. */
static inline int64_t pass_row(const half_pass *hp, uint64_t i) { return hp->row0 + hp->dir * (int64_t)i; }
static inline int64_t pass_col(const half_pass *hp, uint64_t j) { return hp->col0 + hp->dir * (int64_t)j; }
/* Matrix cells of a piece are never negative: from the bottom the row and
 * column start one past the piece. */
static inline int cell_forbidden(const half_pass *hp, int64_t row, int64_t col)
{
    return sw_pair_boxes_hold(hp->v->forbidden, hp->v->forbidden_count, (uint64_t)row, (uint64_t)col);
}
static inline int pair_forbidden(const half_pass *hp, uint64_t i, uint64_t j)
{
    return cell_forbidden(hp, pass_row(hp, i), pass_col(hp, j));
}
static inline int e_forbidden(const half_pass *hp, uint64_t i, uint64_t j)
{
    return cell_forbidden(hp, pass_row(hp, i) - (hp->dir < 0), pass_col(hp, j));
}
static inline int d_forbidden(const half_pass *hp, uint64_t i, uint64_t j)
{
    return cell_forbidden(hp, pass_row(hp, i), pass_col(hp, j) - (hp->dir < 0));
}

/* Whether a forbidden box meets the matrix rows that pass row i uses. */
static int row_touched(const half_pass *hp, uint64_t i)
{
    const int64_t r1 = pass_row(hp, i), r0 = r1 - (hp->dir < 0);
    for (int k = 0; k < hp->v->forbidden_count; ++k) {
        const sw_pair_box *x = &hp->v->forbidden[k];
        if (r1 >= (int64_t)x->a_lo && r0 <= (int64_t)x->a_hi) return 1;
    }
    return 0;
}

/* Sets h and d to the floor over columns lo..hi of 0..n (nothing when lo > hi). */
static void clear_span(int32_t *h, int32_t *d, uint64_t lo, uint64_t hi, uint64_t n)
{
    if (hi > n) hi = n;
    for (uint64_t j = lo; j <= hi; ++j) h[j] = d[j] = FLOOR;
}

static void run_half(const half_pass *hp)
{
    const sw_pair_scoring *s = hp->v->s;
    const int32_t go = s->gap_open, ge = s->gap_extend, match = s->match, mis = s->mismatch;
    int32_t *const h = hp->h, *const d = hp->d;
    const uint64_t n = hp->n;
    const int banded = hp->target != INT64_MIN;
    h[0] = 0;
    d[0] = FLOOR;
    for (uint64_t j = 1; j <= n; ++j) {
        const int64_t t = -(int64_t)go - (int64_t)j * ge;
        h[j] = t < FLOOR ? FLOOR : (int32_t)t;
        d[j] = FLOOR;
    }
    /* Outside the band every value is the floor, so a cell reads its
     * neighbours as they are; the band of the row above is cleared where
     * this row's leaves it. */
    uint64_t plo = 0, phi = n;
    if (banded) {
        sw_pair_band_of(s, hp->piece_rows, n, hp->target, 0, &plo, &phi);
        if (plo > phi) clear_span(h, d, 0, n, n);
        else {
            if (plo > 0) clear_span(h, d, 0, plo - 1, n);
            if (phi < n) clear_span(h, d, phi + 1, n, n);
        }
    }
    /* Forbidden cells: no gap runs through them, so the gap along row 0
     * stops at the first, and so does the one down column 0. */
    const int boxes = hp->v->forbidden_count > 0;
    int column0_open = 1;
    if (boxes)
        for (uint64_t j = 1; j <= n; ++j)
            if (e_forbidden(hp, 0, j)) {
                clear_span(h, d, j, n, n);
                break;
            }
    /* Substitution scores by the pair of codes, a row per base of A. */
    int32_t table[SW_PAIR_CODES][SW_PAIR_CODES];
    for (int p = 0; p < SW_PAIR_CODES; ++p)
        for (int q = 0; q < SW_PAIR_CODES; ++q) table[p][q] = p == q && p < 4 ? match : mis;
    uint64_t pending = 0;
    for (uint64_t i = 1; i <= hp->m; ++i) {
        const uint8_t x = hp->a[(ptrdiff_t)(i - 1) * hp->astep];
        const int32_t *const sub = table[x < SW_PAIR_CODES ? x : SW_PAIR_CODES - 1];
        const int64_t t = -(int64_t)hp->open0 - (int64_t)i * ge;
        const int32_t first = t < FLOOR ? FLOOR : (int32_t)t;
        uint64_t lo = 0, hi = n;
        if (banded) sw_pair_band_of(s, hp->piece_rows, n, hp->target, i, &lo, &hi);
        if (lo > hi) {
            if (plo <= phi) clear_span(h, d, plo, phi, n);
            plo = lo;
            phi = hi;
            continue;
        }
        const uint64_t jlo = lo ? lo : 1;
        int32_t diag = h[jlo - 1];
        /* e is E of the cell at hand (a gap along the row). With
         * X = max(diagonal, D, floor), H = max(X, E) and the next E is
         * max(E - extend, X - open - extend): E - open - extend never wins
         * there, so the chain from one E to the next is two operations
         * instead of going through H. */
        int32_t e = FLOOR;
        if (lo == 0) {
            if (boxes && column0_open && d_forbidden(hp, i, 0)) column0_open = 0;
            if (column0_open) {
                h[0] = d[0] = first;
                e = first - go - ge;
            } else {
                h[0] = d[0] = FLOOR;
            }
        }
        const uint8_t *bp = hp->b + (ptrdiff_t)(jlo - 1) * hp->bstep;
        if (!boxes || !row_touched(hp, i)) {
            for (uint64_t j = jlo; j <= hi; ++j, bp += hp->bstep) {
                const uint8_t y = *bp;
                const int32_t up = h[j];
                const int32_t dj = max32(d[j] - ge, up - go - ge);
                const int32_t xj = max32(max32(diag + sub[y < SW_PAIR_CODES ? y : SW_PAIR_CODES - 1], dj), FLOOR);
                h[j] = max32(xj, e);
                e = max32(e - ge, xj - go - ge);
                diag = up;
                d[j] = dj;
            }
        } else {
            /* The same with each state barred where its cell is forbidden. */
            for (uint64_t j = jlo; j <= hi; ++j, bp += hp->bstep) {
                const uint8_t y = *bp;
                const int32_t up = h[j];
                const int32_t dj = d_forbidden(hp, i, j) ? FLOOR : max32(d[j] - ge, up - go - ge);
                const int32_t pair =
                    pair_forbidden(hp, i, j) ? FLOOR : diag + sub[y < SW_PAIR_CODES ? y : SW_PAIR_CODES - 1];
                const int32_t xj = max32(max32(pair, dj), FLOOR);
                const int32_t ej = e_forbidden(hp, i, j) ? FLOOR : e;
                h[j] = max32(xj, ej);
                e = max32(ej - ge, xj - go - ge);
                diag = up;
                d[j] = dj;
            }
        }
        if (banded && plo <= phi) {
            /* The part of the row above's band that this row's leaves. */
            if (plo < lo) clear_span(h, d, plo, lo - 1, n);
            if (phi > hi) clear_span(h, d, hi + 1, phi, n);
        }
        plo = lo;
        phi = hi;
        pending += hi - jlo + 1;
        if (pending >= PROGRESS_CELLS / 16) {
            atomic_fetch_add(hp->v->done, pending);
            pending = 0;
            if (hp->report) report(hp->v);
        }
    }
    atomic_fetch_add(hp->v->done, pending);
}

/* Both half passes of a split on the GPU, side by side; 0 when they ran,
 * else the first failure of any solver is kept in the share and the path
 * gives up. */
static int run_halves_gpu(solver *v, const half_pass *top, const half_pass *bottom)
{
    gpu_share *g = v->gpu;
    const half_pass *halves[2] = {top, bottom};
    sw_pair_rows_job jobs[2];
    int32_t *h[2], *d[2];
    for (int k = 0; k < 2; ++k) {
        const half_pass *hp = halves[k];
        jobs[k] = (sw_pair_rows_job){
            .a_first = (uint64_t)(hp->a - v->a_base),
            .b_first = (uint64_t)(hp->b - v->b_base),
            .backwards = hp->dir < 0,
            .m = hp->m,
            .n = hp->n,
            .open_col0 = hp->open0,
            .goal_rows = hp->piece_rows,
            .threshold = hp->target,
        };
        h[k] = hp->h;
        d[k] = hp->d;
    }
    uint64_t cells = 0;
    sw_error err = {0};
    pthread_mutex_lock(&g->lock);
    if (g->in_flight++ == 0) g->busy_since = sw_clock_seconds();
    pthread_mutex_unlock(&g->lock);
    const int rc = sw_pair_gpu_rows_run(g->rows, jobs, 2, h, d, &cells, &err);
    atomic_fetch_add(v->done, cells);
    atomic_fetch_add(&g->cells, cells);
    atomic_fetch_add(&g->passes, 2);
    pthread_mutex_lock(&g->lock);
    if (--g->in_flight == 0) g->busy_seconds += sw_clock_seconds() - g->busy_since;
    if (rc && !g->failed) {
        g->failed = rc;
        g->err = err;
    }
    const int failed = g->failed;
    pthread_mutex_unlock(&g->lock);
    return failed;
}

static void half_worker(void *ctx, int index)
{
    (void)index;
    run_half((const half_pass *)ctx);
}

/* A piece of the rectangle solved on another thread. */
typedef struct sub_job {
    solver v;
    const uint8_t *a, *b;
    uint64_t m, n;
    int32_t tb, te;
    int64_t target;
} sub_job;

static int sub_start(solver *v, sub_job *j, const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n, int32_t tb,
                     int32_t te, int64_t target, sw_pool **pool);
static void sub_finish(solver *v, sub_job *j, sw_pool *pool);

/* The best alignment of A = a[0..m-1] against B = b[0..n-1], appended to
 * the path. tb and te: the opening cost of a vertical gap (bases of A
 * against gaps) that touches the top-left corner, down column 0, or the
 * bottom-right corner, down column n (gap_open, or 0 when the gap goes on
 * outside the rectangle). */
static void solve(solver *v, const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n, int32_t tb, int32_t te,
                  int64_t target)
{
    if (v->stopped) return;
    const sw_pair_scoring *s = v->s;
    const int64_t go = s->gap_open, ge = s->gap_extend;
    if (n == 0) {
        push(v, 'I', m);
        return;
    }
    if (m == 0) {
        push(v, 'D', n);
        return;
    }
    if (m == 1) {
        /* A[1] against a gap, at column 0 (opening at tb) or at column n
         * (at te), the rest of B against a gap; or A[1] against B[j] with
         * B on both sides against gaps. Ties: the first of these in that
         * order, the smallest j. */
        const int64_t b_gap = n ? go + (int64_t)n * ge : 0;
        int64_t best = -(int64_t)(tb <= te ? tb : te) - ge - b_gap;
        uint64_t best_j = 0;
        for (uint64_t j = 1; j <= n; ++j) {
            const int64_t before = j > 1 ? go + (int64_t)(j - 1) * ge : 0;
            const int64_t after = j < n ? go + (int64_t)(n - j) * ge : 0;
            const int64_t c = sw_pair_substitution(s, a[0], b[j - 1]) - before - after;
            if (c > best) {
                best = c;
                best_j = j;
            }
        }
        if (best_j == 0) {
            if (tb <= te) {
                push(v, 'I', 1);
                push(v, 'D', n);
            } else {
                push(v, 'D', n);
                push(v, 'I', 1);
            }
        } else {
            push(v, 'D', best_j - 1);
            push(v, 'M', 1);
            push(v, 'D', n - best_j);
        }
        return;
    }

    const uint64_t mid = m / 2;
    /* From the top: rows 1..mid. From the bottom: rows m..mid+1 against
     * B backwards, so that rr[k] and ss[k] describe B[n-k+1..n]. */
    /* Both passes skip the cells that no alignment scoring the piece's
     * best (target) can use; lowered by an opening, so that a bound that
     * is off by one gap opening only widens the band. */
    const int64_t band = v->exhaustive || target == INT64_MIN ? INT64_MIN : target - go - s->gap_extend;
    const int64_t a_off = a - v->a_base, b_off = b - v->b_base;
    half_pass top = {a, b, 1, 1, mid, n, tb, v->cc, v->dd, v, 1, m, band, a_off, b_off, 1};
    half_pass bottom = {a + m - 1, b + n - 1, -1, -1, m - mid, n, te, v->rr, v->ss, v, 1, m, band,
                        a_off + (int64_t)m + 1, b_off + (int64_t)n + 1, -1};
    int halves_done = 0;
    if (v->gpu && (uint64_t)m * n >= v->gpu->min_cells) {
        if (run_halves_gpu(v, &top, &bottom)) {
            v->stopped = 1;
            return;
        }
        halves_done = 1;
    } else if (v->threads > 1 && (uint64_t)m * n >= PARALLEL_CELLS) {
        sw_pool *pool = NULL;
        int started = 0;
        bottom.report = 0;
        sw_pool_start(1, half_worker, &bottom, &pool, &started);
        if (started == 1) {
            run_half(&top);
            sw_pool_join(pool);
            halves_done = 1;
        } else {
            sw_pool_join(pool);
            bottom.report = 1;
        }
    }
    if (!halves_done) {
        run_half(&top);
        run_half(&bottom);
    }
    report(v);

    /* The best split: column j with the top half ending anywhere at
     * (mid, j) and the bottom half starting below it (type 1), or a
     * vertical gap crossing from row mid to row mid + 1 in column j, whose
     * opening both halves paid (type 2). Ties: the smallest j, type 1
     * before type 2. */
    int64_t best = INT64_MIN;
    uint64_t best_j = 0;
    int best_type = 1;
    for (uint64_t j = 0; j <= n; ++j) {
        const int64_t t1 = (int64_t)v->cc[j] + v->rr[n - j];
        const int64_t t2 = (int64_t)v->dd[j] + v->ss[n - j] + go;
        if (t1 > best) {
            best = t1;
            best_j = j;
            best_type = 1;
        }
        if (t2 > best) {
            best = t2;
            best_j = j;
            best_type = 2;
        }
    }
    /* The piece below the split, and what the best alignment of each piece
     * scores: the halves' values at the split (type 2: without the two
     * bases of the crossing gap, whose opening each half charged). */
    const uint8_t *const la = best_type == 1 ? a + mid : a + mid + 1;
    const uint64_t lm = best_type == 1 ? m - mid : m - mid - 1;
    const int32_t ltb = best_type == 1 ? (int32_t)go : 0;
    const int64_t up_target = best_type == 1 ? v->cc[best_j] : (int64_t)v->dd[best_j] + go + s->gap_extend;
    const int64_t low_target =
        best_type == 1 ? v->rr[n - best_j] : (int64_t)v->ss[n - best_j] + go + s->gap_extend;
    /* With threads to spare, the piece below runs on a thread of its own
     * with its own rows and runs, appended after the piece above's. */
    sub_job below = {0};
    int beside = 0;
    sw_pool *pool = NULL;
    if (v->threads > 1 && lm * (n - best_j) >= PARALLEL_CELLS &&
        sub_start(v, &below, la, lm, b + best_j, n - best_j, ltb, te, low_target, &pool))
        beside = 1;
    if (best_type == 1) {
        solve(v, a, mid, b, best_j, tb, (int32_t)go, up_target);
    } else {
        solve(v, a, mid - 1, b, best_j, tb, 0, up_target);
        push(v, 'I', 2);
    }
    if (beside) {
        sub_finish(v, &below, pool);
    } else {
        solve(v, la, lm, b + best_j, n - best_j, ltb, te, low_target);
    }
}

static void sub_worker(void *ctx, int index)
{
    (void)index;
    sub_job *j = ctx;
    solve(&j->v, j->a, j->m, j->b, j->n, j->tb, j->te, j->target);
}

/* Starts the piece a x b (its tb, te) on a thread with half of v's threads;
 * 0 when it cannot (the caller then solves it itself). */
static int sub_start(solver *v, sub_job *j, const uint8_t *a, uint64_t m, const uint8_t *b, uint64_t n, int32_t tb,
                     int32_t te, int64_t target, sw_pool **pool)
{
    memset(j, 0, sizeof *j);
    j->target = target;
    j->v.exhaustive = v->exhaustive;
    j->v.forbidden = v->forbidden;
    j->v.forbidden_count = v->forbidden_count;
    j->v.a_base = v->a_base;
    j->v.b_base = v->b_base;
    j->v.gpu = v->gpu;
    j->a = a;
    j->m = m;
    j->b = b;
    j->n = n;
    j->tb = tb;
    j->te = te;
    j->v.s = v->s;
    j->v.done = v->done;
    j->v.total = v->total;
    j->v.threads = v->threads / 2;
    j->v.path = calloc(1, sizeof *j->v.path);
    j->v.cc = malloc(4 * ((size_t)n + 1) * sizeof(int32_t));
    if (!j->v.path || !j->v.cc) {
        free(j->v.path);
        free(j->v.cc);
        return 0;
    }
    j->v.dd = j->v.cc + n + 1;
    j->v.rr = j->v.dd + n + 1;
    j->v.ss = j->v.rr + n + 1;
    int started = 0;
    sw_pool_start(1, sub_worker, j, pool, &started);
    if (started != 1) {
        sw_pool_join(*pool);
        sw_pair_path_free(j->v.path);
        free(j->v.cc);
        return 0;
    }
    v->threads -= j->v.threads;
    return 1;
}

/* Waits for the piece and appends its runs. */
static void sub_finish(solver *v, sub_job *j, sw_pool *pool)
{
    sw_pool_join(pool);
    v->threads += j->v.threads;
    if (j->v.stopped) v->stopped = 1;
    for (size_t k = 0; k < j->v.path->n; ++k) push(v, j->v.path->runs[k].op, j->v.path->runs[k].len);
    sw_pair_path_free(j->v.path);
    free(j->v.cc);
}

int sw_pair_path_rescore(const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                         const sw_pair_scoring *scoring, uint64_t a_start, uint64_t b_start, const sw_pair_run *runs,
                         size_t n, sw_pair_path_summary *out, sw_error *err)
{
    sw_pair_path_summary sum;
    memset(&sum, 0, sizeof sum);
    int64_t score = 0;
    uint64_t i = a_start ? a_start - 1 : 0, j = b_start ? b_start - 1 : 0;
    for (size_t k = 0; k < n; ++k) {
        const uint64_t len = runs[k].len;
        switch (runs[k].op) {
        case 'M':
            if (len > a_len - i || len > b_len - j)
                return sw_error_set(err, SW_EINVAL, "alignment run %zu (%lluM) leaves the sequences", k,
                                    (unsigned long long)len);
            for (uint64_t t = 0; t < len; ++t) {
                const int sub = sw_pair_substitution(scoring, a[i + t], b[j + t]);
                score += sub;
                if (sub == scoring->match) ++sum.matches;
                else ++sum.mismatches;
            }
            i += len;
            j += len;
            break;
        case 'I':
        case 'D':
            if (runs[k].op == 'I' ? len > a_len - i : len > b_len - j)
                return sw_error_set(err, SW_EINVAL, "alignment run %zu (%llu%c) leaves the sequences", k,
                                    (unsigned long long)len, runs[k].op);
            score -= (int64_t)scoring->gap_open + (int64_t)len * scoring->gap_extend;
            ++sum.gap_openings;
            sum.gap_bases += len;
            if (runs[k].op == 'I') i += len;
            else j += len;
            break;
        default:
            return sw_error_set(err, SW_EINVAL, "alignment run %zu has no operation", k);
        }
        sum.columns += len;
    }
    if (score > INT32_MAX || score < INT32_MIN)
        return sw_error_set(err, SW_EINVAL, "alignment score out of range");
    sum.score = (int32_t)score;
    *out = sum;
    return SW_OK;
}

int sw_pair_path_find(const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                      const sw_pair_scoring *scoring, const sw_pair_result *r, const sw_pair_path_options *options,
                      sw_pair_path **out, sw_error *err)
{
    *out = NULL;
    int rc = sw_pair_check_scoring(scoring, a_len, b_len, err);
    if (rc) return rc;
    sw_pair_path *p = calloc(1, sizeof *p);
    if (!p) return sw_error_set(err, SW_ENOMEM, "out of memory");
    if (r->score <= 0) {
        *out = p;
        return SW_OK;
    }
    if (r->a_start < 1 || r->a_start > r->a_end || r->a_end > a_len || r->b_start < 1 || r->b_start > r->b_end ||
        r->b_end > b_len) {
        free(p);
        return sw_error_set(err, SW_EINVAL, "alignment coordinates %llu-%llu, %llu-%llu outside the sequences",
                            (unsigned long long)r->a_start, (unsigned long long)r->a_end,
                            (unsigned long long)r->b_start, (unsigned long long)r->b_end);
    }
    p->a_start = r->a_start;
    p->b_start = r->b_start;
    const uint64_t m = r->a_end - r->a_start + 1, n = r->b_end - r->b_start + 1;
    solver v;
    memset(&v, 0, sizeof v);
    _Atomic uint64_t done;
    atomic_init(&done, 0);
    v.s = scoring;
    v.path = p;
    v.options = options;
    v.threads = options && options->threads > 0 ? options->threads : sw_clock_online_cpus();
    v.done = &done;
    /* Each level of the recursion covers about as many cells as the one
     * above it in half the rows, so the total is about twice the first
     * level's: the rectangle, or its band (counted on every 64th row). */
    v.total = 2 * m * n;
    if (!(options && options->exhaustive)) {
        uint64_t band = 0;
        const uint64_t step = m > 4096 ? 64 : 1;
        for (uint64_t i = 0; i <= m; i += step) {
            uint64_t lo, hi;
            sw_pair_band_of(scoring, m, n, (int64_t)r->score - scoring->gap_open - scoring->gap_extend, i, &lo,
                            &hi);
            if (lo <= hi) band += (hi - lo + 1) * step;
        }
        if (band && 2 * band < v.total) v.total = 2 * band;
    }
    const size_t width = (size_t)n + 1;
    if (n >= SIZE_MAX / 4 / sizeof(int32_t) || !(v.cc = malloc(4 * width * sizeof(int32_t)))) {
        free(p);
        return sw_error_set(err, SW_ENOMEM, "out of memory for 4 rows of %llu cells",
                            (unsigned long long)width);
    }
    v.dd = v.cc + width;
    v.rr = v.dd + width;
    v.ss = v.rr + width;
    v.exhaustive = options && options->exhaustive;
    /* Only the boxes that meet the rectangle, widened by a cell on each
     * side (a pass from the bottom bars a gap by the cell above it or left
     * of it), can bar a cell the passes look at: the others are dropped,
     * which leaves the path as it is and lets the GPU take the splits of
     * an alignment clear of the better ones' boxes. */
    sw_pair_box *near = NULL;
    const int given = options && options->forbidden ? options->forbidden_count : 0;
    if (given > 0) {
        near = malloc((size_t)given * sizeof *near);
        if (!near) {
            free(v.cc);
            free(p);
            return sw_error_set(err, SW_ENOMEM, "out of memory");
        }
        for (int k = 0; k < given; ++k) {
            const sw_pair_box *x = &options->forbidden[k];
            if (x->a_lo <= r->a_end + 1 && x->a_hi + 1 >= r->a_start && x->b_lo <= r->b_end + 1 &&
                x->b_hi + 1 >= r->b_start)
                near[v.forbidden_count++] = *x;
        }
    }
    v.forbidden = near;
    v.a_base = a;
    v.b_base = b;
    /* The GPU for the large splits; forbidden boxes keep every split on
     * the CPU (the GPU's rows passes do not take them). */
    gpu_share gpu;
    memset(&gpu, 0, sizeof gpu);
    if (options && options->gpu && !v.forbidden_count && !v.exhaustive) {
        gpu.min_cells = options->gpu_min_cells ? options->gpu_min_cells : SW_PAIR_PATH_GPU_CELLS;
        if ((uint64_t)m * n >= gpu.min_cells) {
            if ((rc = sw_pair_gpu_rows_open(options->gpu_device, a, a_len, b, b_len, scoring, &gpu.rows, err))) {
                free(v.cc);
                free(near);
                free(p);
                return rc;
            }
            pthread_mutex_init(&gpu.lock, NULL);
            v.gpu = &gpu;
        }
    }
    solve(&v, a + r->a_start - 1, m, b + r->b_start - 1, n, scoring->gap_open, scoring->gap_open, r->score);
    free(v.cc);
    free(near);
    if (v.gpu) {
        p->gpu_passes = atomic_load(&gpu.passes);
        p->gpu_cells = atomic_load(&gpu.cells);
        p->gpu_busy_seconds = gpu.busy_seconds;
        sw_pair_gpu_rows_close(gpu.rows);
        pthread_mutex_destroy(&gpu.lock);
        if (gpu.failed) {
            sw_pair_path_free(p);
            if (err) *err = gpu.err;
            return gpu.failed;
        }
    }
    if (v.stopped) {
        sw_pair_path_free(p);
        return sw_error_set(err, SW_ENOMEM, "out of memory for the alignment's runs");
    }
    if ((rc = sw_pair_path_rescore(a, a_len, b, b_len, scoring, p->a_start, p->b_start, p->runs, p->n, &p->summary,
                                   err))) {
        sw_pair_path_free(p);
        return rc == SW_EINVAL ? sw_error_set(err, SW_ECORRUPT, "the alignment found is not valid: %s", err->message)
                               : rc;
    }
    /* The path must end where the result ends and score what it scored. */
    uint64_t a_used = 0, b_used = 0;
    for (size_t k = 0; k < p->n; ++k) {
        if (p->runs[k].op != 'D') a_used += p->runs[k].len;
        if (p->runs[k].op != 'I') b_used += p->runs[k].len;
    }
    if (p->summary.score != r->score || a_used != m || b_used != n) {
        const int32_t got = p->summary.score;
        sw_pair_path_free(p);
        return sw_error_set(err, SW_ECORRUPT,
                            "the alignment found scores %d over %llu x %llu bases, not %d over %llu x %llu", got,
                            (unsigned long long)a_used, (unsigned long long)b_used, r->score,
                            (unsigned long long)m, (unsigned long long)n);
    }
    if (options && options->progress) options->progress(options->progress_user, v.total, v.total);
    p->cells = atomic_load(&done);
    *out = p;
    return SW_OK;
}

void sw_pair_path_free(sw_pair_path *p)
{
    if (!p) return;
    free(p->runs);
    free(p);
}

size_t sw_pair_path_runs(const sw_pair_path *p) { return p->n; }
sw_pair_run sw_pair_path_run(const sw_pair_path *p, size_t k) { return p->runs[k]; }
uint64_t sw_pair_path_a_start(const sw_pair_path *p) { return p->a_start; }
uint64_t sw_pair_path_b_start(const sw_pair_path *p) { return p->b_start; }
sw_pair_path_summary sw_pair_path_get_summary(const sw_pair_path *p) { return p->summary; }
uint64_t sw_pair_path_cells(const sw_pair_path *p) { return p->cells; }
uint64_t sw_pair_path_gpu_passes(const sw_pair_path *p) { return p->gpu_passes; }
uint64_t sw_pair_path_gpu_cells(const sw_pair_path *p) { return p->gpu_cells; }
double sw_pair_path_gpu_busy_seconds(const sw_pair_path *p) { return p->gpu_busy_seconds; }
