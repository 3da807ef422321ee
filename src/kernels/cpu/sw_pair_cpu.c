/* Multi-threaded CPU engine of megabase pairwise alignment, and the
 * one-thread reference beside it.
 *
 * Thread t owns the columns [begin_t, end_t) and keeps H and F of its
 * columns for the row above (linear memory). It sweeps its columns in blocks
 * of BLOCK_ROWS rows; for each block it needs H and E of the column to its
 * left for those rows, which its left neighbour publishes into a ring of
 * RING slots when it finishes the same block. The threads thus advance as a
 * wavefront, thread t one block behind thread t - 1. */
#include "sw_pair_cpu.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sw_pool.h"

#define BLOCK_ROWS 256
#define RING 16
/* Columns a thread sweeps row by row before moving right: the row above
 * (H and F, 8 bytes a column) stays in the first-level cache. */
#define TILE_COLUMNS 2048
/* Fewer columns per thread than this and the hand-overs cost more than
 * the threads gain. */
#define MIN_COLUMNS 2048
#define MAX_THREADS 256

#define FLOOR SW_PAIR_FLOOR /* sw_pair_pass.h */

static inline int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

/* H of the first row or column: 0 in a local pass; in an anchored pass the
 * cost of a gap from the origin, clamped at FLOOR. */
static int32_t edge_value(const sw_pair_pass *p, uint64_t k)
{
    if (p->mode == SW_PAIR_LOCAL || k == 0) return 0;
    const int64_t v = -((int64_t)p->scoring.gap_open + (int64_t)k * p->scoring.gap_extend);
    return v < FLOOR ? FLOOR : (int32_t)v;
}

int sw_pair_cpu_reference(const sw_pair_pass *p, sw_pair_hit *out, sw_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = sw_pair_check_pass(p, err);
    if (rc) return rc;
    if (p->left || p->right || p->col_base || p->cols_after)
        return sw_error_set(err, SW_EINVAL, "the reference engine runs whole matrices, not strips of columns");
    const uint64_t n = p->b_len;
    int32_t *h = malloc((n + 1) * sizeof *h), *f = malloc((n + 1) * sizeof *f);
    if (!h || !f) {
        free(h);
        free(f);
        return sw_error_set(err, SW_ENOMEM, "out of memory for a row of %llu cells", (unsigned long long)n);
    }
    const int32_t ext = p->scoring.gap_extend, oe = p->scoring.gap_open + ext;
    const int32_t floor = p->mode == SW_PAIR_LOCAL ? 0 : FLOOR;
    for (uint64_t j = 0; j <= n; ++j) {
        h[j] = p->top && j ? p->top[j - 1].h : edge_value(p, j);
        f[j] = p->top && j ? p->top[j - 1].f : FLOOR;
    }
    for (uint64_t i = 1; i <= p->a_len; ++i) {
        int32_t diag = h[0];
        h[0] = edge_value(p, i);
        int32_t e = FLOOR;
        for (uint64_t j = 1; j <= n; ++j) {
            f[j] = max32(f[j] - ext, h[j] - oe);
            e = max32(e - ext, h[j - 1] - oe);
            int32_t v = diag + sw_pair_substitution(&p->scoring, p->a[i - 1], p->b[j - 1]);
            v = max32(max32(v, e), max32(f[j], floor));
            if (p->forbidden_count && !p->reversed && sw_pair_forbidden(p, i, j)) {
                v = floor;
                e = f[j] = FLOOR;
            } else if (p->forbidden_count && p->reversed) {
                /* Each state where its own cell is (sw_pair_pass.h). */
                const int pair_bad = sw_pair_forbidden(p, i, j), e_bad = sw_pair_forbidden(p, i + 1, j),
                          f_bad = sw_pair_forbidden(p, i, j + 1);
                if (e_bad) e = FLOOR;
                if (f_bad) f[j] = FLOOR;
                if (pair_bad || e_bad || f_bad)
                    v = max32(max32(pair_bad ? FLOOR : diag + sw_pair_substitution(&p->scoring, p->a[i - 1], p->b[j - 1]), e),
                              max32(f[j], floor));
            }
            diag = h[j];
            h[j] = v;
            /* Rows come in order: in one column the first row wins. */
            const int hit = p->mode == SW_PAIR_LOCAL ? v > out->score || (v == out->score && v > 0 && j < out->b_end)
                                                     : v == p->target && (!out->score || j < out->b_end);
            if (hit) {
                out->score = v;
                out->a_end = i;
                out->b_end = j;
            }
        }
    }
    out->cells = p->a_len * n;
    if (p->bottom)
        for (uint64_t j = 1; j <= n; ++j) p->bottom[j - 1] = (sw_pair_edge){h[j], f[j]};
    free(h);
    free(f);
    return SW_OK;
}

/* ---- the multi-threaded engine ---- */

typedef struct engine engine;

typedef struct worker {
    engine *e;
    int index;
    uint64_t begin, end; /* columns (0-based) of this thread */
    int32_t *h, *f;      /* the row above, for this thread's columns */
    int32_t tile_h[2][BLOCK_ROWS], tile_e[2][BLOCK_ROWS]; /* last column of a tile, for the next */
    int32_t best;        /* local: best score; anchored: target when hit */
    uint64_t best_i, best_j; /* its first cell, column-major */
    uint64_t cells;
} worker;

struct engine {
    const sw_pair_pass *p;
    int32_t subst[SW_PAIR_CODES][SW_PAIR_CODES];
    int threads;
    uint64_t row_blocks;
    worker *workers;
    int32_t *ring_h, *ring_e; /* [thread][RING][BLOCK_ROWS]: the last column of thread t */
    _Atomic uint64_t *produced; /* blocks thread t has published */
    _Atomic uint64_t *consumed; /* blocks of thread t that thread t + 1 has read */
    _Atomic int *stopped;
    _Atomic uint64_t found_col; /* anchored: the first column with a hit so far */
    /* A strip of a larger matrix (sw_pair_pass.left, .right): what has
     * been published of the right column, for the last thread. */
    _Atomic int gave_up; /* the strip on the left gave up (its column's abort) */
};

/* The k-th round of a wait: short waits spin, long ones sleep, so that
 * more threads than cores still make progress. */
static void back_off(unsigned k)
{
    if (k < 256) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    } else if (k < 4096) {
        sched_yield();
    } else {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

/* Waits until the strip on the left has published `rows` rows of its
 * column, or gave up; 0 when they are there. */
static int wait_column(const sw_pair_column *c, uint64_t rows)
{
    for (unsigned k = 0; __atomic_load_n(&c->rows, __ATOMIC_ACQUIRE) < rows; ++k) {
        if (__atomic_load_n(&c->abort, __ATOMIC_ACQUIRE)) return -1;
        back_off(k);
    }
    return 0;
}

/* Rows i0..i1 of the pass's last column (H and E) into `right`. */
static void publish_column(const sw_pair_pass *p, uint64_t i0, uint64_t i1, const int32_t *h, const int32_t *e)
{
    const int32_t oe = p->scoring.gap_open + p->scoring.gap_extend;
    int32_t *cells = sw_pair_column_cells(p->right);
    for (uint64_t i = i0; i <= i1; ++i) {
        cells[2 * (i - 1)] = h[i - i0] - oe;
        cells[2 * (i - 1) + 1] = e[i - i0];
    }
    __atomic_store_n(&p->right->rows, i1, __ATOMIC_RELEASE);
}

/* Waits until *value > floor_value or *stop is set (back_off). */
static void wait_above(_Atomic uint64_t *value, uint64_t floor_value, _Atomic int *stop)
{
    for (unsigned k = 0; atomic_load_explicit(value, memory_order_acquire) <= floor_value; ++k) {
        if (stop && atomic_load_explicit(stop, memory_order_acquire)) return;
        back_off(k);
    }
}

/* The compiler turns the maxima into vector-unit instructions only where
 * SSE4.1 or AVX2 exists (twice the speed of the baseline x86-64 code on the
 * development machine): one copy per instruction set, chosen when loaded. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define SW_PAIR_CLONES __attribute__((target_clones("avx2", "sse4.1", "default")))
#endif
#endif
#ifndef SW_PAIR_CLONES
#define SW_PAIR_CLONES
#endif

/* Rows i0..i1 over columns [j0, j1) of this thread (0-based within it).
 * lh/le: H and E of the column to the left; corner: H of the cell above
 * lh[0]. Writes the last column's H and E to rh/re. */
SW_PAIR_CLONES static void sweep_tile(engine *e, worker *w, uint64_t i0, uint64_t i1, uint64_t j0, uint64_t j1, const int32_t *lh,
                       const int32_t *le, int32_t corner, int32_t *rh, int32_t *re)
{
    const sw_pair_pass *p = e->p;
    const int32_t ext = p->scoring.gap_extend, oe = p->scoring.gap_open + ext;
    const int local = p->mode == SW_PAIR_LOCAL;
    const int32_t floor = local ? 0 : FLOOR;
    const uint8_t *cols = p->b + w->begin;
    int32_t *restrict h = w->h, *restrict f = w->f;
    /* Reversed passes bar gaps by the cell below or to the right too. */
    const uint64_t more = p->reversed ? 1 : 0;
    const int masked =
        p->forbidden_count && sw_pair_forbidden_meets(p, i0, i1 + more, w->begin + j0 + 1, w->begin + j1 + more);
    for (uint64_t i = i0; i <= i1; ++i) {
        const uint64_t k = i - i0;
        const int32_t *srow = e->subst[p->a[i - 1]];
        int32_t diag = k ? lh[k - 1] : corner;
        int32_t left = lh[k], ev = le[k], row_max = FLOOR;
        if (masked) {
            for (uint64_t j = j0; j < j1; ++j) {
                int32_t fv = max32(f[j] - ext, h[j] - oe);
                ev = max32(ev - ext, left - oe);
                int32_t v = max32(diag + srow[cols[j]], ev);
                v = max32(max32(v, fv), floor);
                const uint64_t jc = w->begin + j + 1;
                if (!p->reversed) {
                    if (sw_pair_forbidden(p, i, jc)) {
                        v = floor;
                        ev = fv = FLOOR;
                    }
                } else {
                    /* Each state where its own cell is (sw_pair_pass.h). */
                    const int pair_bad = sw_pair_forbidden(p, i, jc), e_bad = sw_pair_forbidden(p, i + 1, jc),
                              f_bad = sw_pair_forbidden(p, i, jc + 1);
                    if (e_bad) ev = FLOOR;
                    if (f_bad) fv = FLOOR;
                    if (pair_bad || e_bad || f_bad)
                        v = max32(max32(pair_bad ? FLOOR : diag + srow[cols[j]], ev), max32(fv, floor));
                }
                diag = h[j];
                h[j] = v;
                f[j] = fv;
                left = v;
                row_max = max32(row_max, v);
            }
        } else {
            for (uint64_t j = j0; j < j1; ++j) {
                const int32_t fv = max32(f[j] - ext, h[j] - oe);
                ev = max32(ev - ext, left - oe);
                int32_t v = max32(diag + srow[cols[j]], ev);
                v = max32(max32(v, fv), floor);
                diag = h[j];
                h[j] = v;
                f[j] = fv;
                left = v;
                row_max = max32(row_max, v);
            }
        }
        rh[k] = left;
        re[k] = ev;
        /* The first cell of this stretch with its best. Rows come in order,
         * so with an equal score a later row wins only in an earlier column. */
        if (local ? row_max >= w->best && row_max > 0 : row_max == p->target) {
            uint64_t j = j0;
            while (h[j] != row_max) ++j;
            const uint64_t col = w->begin + j + 1;
            if (row_max > w->best || col < w->best_j) {
                w->best = row_max;
                w->best_i = i;
                w->best_j = col;
            }
        }
    }
}

/* Rows i0..i1 over all of this thread's columns, in tiles of TILE_COLUMNS
 * so that the row above stays in the first-level cache; each tile hands its
 * last column to the next through tile_h/tile_e. rh/re as in sweep_tile, or
 * NULL. */
static void sweep_block(engine *e, worker *w, uint64_t i0, uint64_t i1, const int32_t *lh, const int32_t *le,
                        int32_t corner, int32_t *rh, int32_t *re)
{
    const uint64_t width = w->end - w->begin;
    const int32_t *in_h = lh, *in_e = le;
    for (uint64_t j0 = 0; j0 < width; j0 += TILE_COLUMNS) {
        const uint64_t j1 = j0 + TILE_COLUMNS < width ? j0 + TILE_COLUMNS : width;
        int32_t *out_h = w->tile_h[(j0 / TILE_COLUMNS) & 1], *out_e = w->tile_e[(j0 / TILE_COLUMNS) & 1];
        if (j1 == width && rh) {
            out_h = rh;
            out_e = re;
        }
        /* H of the row above the block at this tile's last column, before
         * the tile overwrites it: the next tile's corner. */
        const int32_t next_corner = w->h[j1 - 1];
        sweep_tile(e, w, i0, i1, j0, j1, in_h, in_e, corner, out_h, out_e);
        corner = next_corner;
        in_h = out_h;
        in_e = out_e;
    }
    const uint64_t cells = (i1 - i0 + 1) * width;
    w->cells += cells;
    if (e->p->cells_done) __atomic_fetch_add(e->p->cells_done, cells, __ATOMIC_RELAXED);
}

static void lower_found_col(engine *e, uint64_t col)
{
    uint64_t cur = atomic_load(&e->found_col);
    while (col < cur && !atomic_compare_exchange_weak(&e->found_col, &cur, col)) {
    }
}

static void *run_worker(void *arg)
{
    worker *w = arg;
    engine *e = w->e;
    const sw_pair_pass *p = e->p;
    const int t = w->index, last = t == e->threads - 1;
    int32_t edge_h[BLOCK_ROWS], edge_e[BLOCK_ROWS], out_h[BLOCK_ROWS], out_e[BLOCK_ROWS];
    const int32_t oe = p->scoring.gap_open + p->scoring.gap_extend;
    /* Row 0's gap costs count the columns left of a strip (col_base). */
    for (uint64_t j = w->begin; j < w->end; ++j) {
        w->h[j - w->begin] = p->top ? p->top[j].h : edge_value(p, p->col_base + j + 1);
        w->f[j - w->begin] = p->top ? p->top[j].f : FLOOR;
    }
    /* H(0, begin): the row above the first block */
    int32_t corner = p->top && w->begin ? p->top[w->begin - 1].h : edge_value(p, p->col_base + w->begin);
    int gave_up = 0;
    for (uint64_t r = 0; r < e->row_blocks; ++r) {
        const uint64_t i0 = r * BLOCK_ROWS + 1;
        const uint64_t i1 = i0 + BLOCK_ROWS - 1 < p->a_len ? i0 + BLOCK_ROWS - 1 : p->a_len;
        /* A hit left of all this thread's columns comes first. */
        if (w->begin + 1 > atomic_load(&e->found_col)) break;
        const size_t slot = (size_t)(r % RING) * BLOCK_ROWS;
        const int32_t *lh = edge_h, *le = edge_e;
        if (t == 0 && p->left) {
            /* The strip on the left's last column, as it arrives. */
            if (wait_column(p->left, i1)) {
                gave_up = 1;
                break;
            }
            const int32_t *cells = sw_pair_column_cells((sw_pair_column *)p->left);
            for (uint64_t i = i0; i <= i1; ++i) {
                edge_h[i - i0] = cells[2 * (i - 1)] + oe;
                edge_e[i - i0] = cells[2 * (i - 1) + 1];
            }
        } else if (t == 0) {
            for (uint64_t i = i0; i <= i1; ++i) {
                edge_h[i - i0] = edge_value(p, i);
                edge_e[i - i0] = FLOOR;
            }
        } else {
            wait_above(&e->produced[t - 1], r, &e->stopped[t - 1]);
            /* A neighbour stops only right of the first hit: so are we. */
            if (atomic_load_explicit(&e->produced[t - 1], memory_order_acquire) <= r) break;
            const size_t base = (size_t)(t - 1) * RING * BLOCK_ROWS + slot;
            lh = e->ring_h + base;
            le = e->ring_e + base;
        }
        int32_t *rh = NULL, *re = NULL;
        if (!last && !atomic_load(&e->stopped[t + 1])) {
            if (r >= RING) wait_above(&e->consumed[t], r - RING, &e->stopped[t + 1]);
            const size_t base = (size_t)t * RING * BLOCK_ROWS + slot;
            rh = e->ring_h + base;
            re = e->ring_e + base;
        } else if (last && p->right) {
            rh = out_h;
            re = out_e;
        }
        sweep_block(e, w, i0, i1, lh, le, corner, rh, re);
        if (last && p->right) publish_column(p, i0, i1, out_h, out_e);
        corner = lh[i1 - i0];
        if (t > 0) atomic_store_explicit(&e->consumed[t - 1], r + 1, memory_order_release);
        atomic_store_explicit(&e->produced[t], r + 1, memory_order_release);
        if (p->mode == SW_PAIR_ANCHORED && w->best) lower_found_col(e, w->best_j);
    }
    if (p->bottom)
        for (uint64_t j = w->begin; j < w->end; ++j)
            p->bottom[j] = (sw_pair_edge){w->h[j - w->begin], w->f[j - w->begin]};
    /* A strip that stopped early (an anchored pass right of its first
     * hit, or the left strip gave up) still lets the strip on its right
     * finish: the rest of the column is what was there, and every cell it
     * reaches lies right of the hit, which comes first. */
    if (last && p->right && __atomic_load_n(&p->right->rows, __ATOMIC_RELAXED) < p->a_len) {
        if (gave_up) __atomic_store_n(&p->right->abort, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&p->right->rows, p->a_len, __ATOMIC_RELEASE);
    }
    if (gave_up) {
        atomic_store(&e->gave_up, 1);
        atomic_store(&e->found_col, 0); /* every other thread stops too */
    }
    atomic_store_explicit(&e->stopped[t], 1, memory_order_release);
    return NULL;
}

static void run_helper(void *ctx, int index)
{
    engine *e = ctx;
    run_worker(&e->workers[index + 1]);
}

static void free_engine(engine *e)
{
    if (e->workers)
        for (int t = 0; t < e->threads; ++t) {
            free(e->workers[t].h);
            free(e->workers[t].f);
        }
    free(e->workers);
    free(e->ring_h);
    free(e->ring_e);
    free((void *)e->produced);
    free((void *)e->consumed);
    free((void *)e->stopped);
}

uint64_t sw_pair_cpu_rows_in_flight(int threads)
{
    if (threads <= 0) {
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        threads = online > 0 ? (int)online : 1;
    }
    return (uint64_t)BLOCK_ROWS * (uint64_t)threads;
}

int sw_pair_cpu_run(const sw_pair_pass *p, int threads, sw_pair_hit *out, sw_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = sw_pair_check_pass(p, err);
    if (rc) return rc;
    if (!p->a_len || !p->b_len) {
        sw_pair_pass_no_rows(p);
        return SW_OK;
    }
    if (threads <= 0) {
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        threads = online > 0 ? (int)online : 1;
    }
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    const uint64_t useful = p->b_len / MIN_COLUMNS > 0 ? p->b_len / MIN_COLUMNS : 1;
    if ((uint64_t)threads > useful) threads = (int)useful;

    engine e;
    memset(&e, 0, sizeof e);
    e.p = p;
    e.threads = threads;
    e.row_blocks = (p->a_len + BLOCK_ROWS - 1) / BLOCK_ROWS;
    atomic_init(&e.found_col, UINT64_MAX);
    atomic_init(&e.gave_up, 0);
    for (int x = 0; x < SW_PAIR_CODES; ++x)
        for (int y = 0; y < SW_PAIR_CODES; ++y) e.subst[x][y] = sw_pair_substitution(&p->scoring, (uint8_t)x, (uint8_t)y);
    const size_t ring = (size_t)threads * RING * BLOCK_ROWS;
    e.workers = calloc((size_t)threads, sizeof *e.workers);
    e.ring_h = malloc(ring * sizeof *e.ring_h);
    e.ring_e = malloc(ring * sizeof *e.ring_e);
    e.produced = calloc((size_t)threads, sizeof *e.produced);
    e.consumed = calloc((size_t)threads, sizeof *e.consumed);
    e.stopped = calloc((size_t)threads, sizeof *e.stopped);
    if (!e.workers || !e.ring_h || !e.ring_e || !e.produced || !e.consumed || !e.stopped) {
        free_engine(&e);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    for (int t = 0; t < threads; ++t) {
        worker *w = &e.workers[t];
        w->e = &e;
        w->index = t;
        w->begin = p->b_len * (uint64_t)t / (uint64_t)threads;
        w->end = p->b_len * (uint64_t)(t + 1) / (uint64_t)threads;
        w->h = malloc((w->end - w->begin) * sizeof *w->h);
        w->f = malloc((w->end - w->begin) * sizeof *w->f);
        if (!w->h || !w->f) {
            free_engine(&e);
            return sw_error_set(err, SW_ENOMEM, "out of memory for %llu columns",
                                (unsigned long long)(w->end - w->begin));
        }
    }
    /* Workers 1 .. threads - 1 on threads of their own, worker 0 here. */
    sw_pool *pool;
    int started;
    if (sw_pool_start(threads - 1, run_helper, &e, &pool, &started) != 0) {
        const int t = started + 1;
        rc = sw_error_set(err, SW_ENOMEM, "cannot start thread %d of %d", t + 1, threads);
        /* Threads already started wait for their neighbours: let them go. */
        for (int s = t; s < threads; ++s) atomic_store(&e.stopped[s], 1);
        atomic_store(&e.found_col, 0);
    }
    if (rc == SW_OK) run_worker(&e.workers[0]);
    sw_pool_join(pool);
    if (rc == SW_OK && atomic_load(&e.gave_up))
        rc = sw_error_set(err, SW_EIO, "pairwise pass: the strip of columns on the left gave up");
    if (rc == SW_OK) {
        /* The first cell, column-major, among the threads' best. */
        for (int t = 0; t < threads; ++t) {
            const worker *w = &e.workers[t];
            out->cells += w->cells;
            if (!w->best) continue;
            const int better = w->best > out->score ||
                               (w->best == out->score &&
                                (w->best_j < out->b_end || (w->best_j == out->b_end && w->best_i < out->a_end)));
            if (better) {
                out->score = w->best;
                out->a_end = w->best_i;
                out->b_end = w->best_j;
            }
        }
    }
    free_engine(&e);
    return rc;
}
