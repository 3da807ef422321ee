/* A pass in column strips across ranks (sw_pair_ranks.h). */
#include "sw_pair_ranks.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sw_clock.h"
#include "sw_pool.h"

/* Rows a piece of a column carries at most (8 MB), and at least while the
 * engine goes on: a piece costs a message, and the next rank waits for a
 * block of rows (the CPU engine's 256, a GPU band's 512) at a time. */
#define PIECE_MAX (1u << 20)
#define PIECE_MIN 2048

typedef struct strip_job {
    const sw_pair_pass *pass;
    sw_pair_slice_engine engine;
    void *user;
    sw_pair_hit hit;
    sw_error err;
    int rc;
    atomic_int done;
} strip_job;

static void run_strip(void *arg, int index)
{
    (void)index;
    strip_job *j = arg;
    sw_error_clear(&j->err);
    j->rc = j->engine(j->user, j->pass, &j->hit, &j->err);
    atomic_store(&j->done, 1);
}

/* Whether hit x comes before hit y: local, higher score, then smaller
 * column, then smaller row; anchored, the first cell (column, then row)
 * of those that reach the target. */
static int comes_first(const sw_pair_pass *p, const int64_t *x, const int64_t *y)
{
    if (!x[0]) return 0;
    if (!y[0]) return 1;
    if (p->mode == SW_PAIR_LOCAL && x[0] != y[0]) return x[0] > y[0];
    return x[2] < y[2] || (x[2] == y[2] && x[1] < y[1]);
}

int sw_pair_ranks_run(const sw_pair_pass *strip, const sw_pair_slice_ops *ops, sw_pair_slice_engine engine,
                      void *engine_user, void (*progress)(void *user, uint64_t done), void *progress_user,
                      double interval, sw_pair_hit *out, sw_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ops->send_column || !ops->poll_column)
        return sw_error_set(err, SW_EINVAL, "pairwise pass: this transport hands over no columns");
    const uint64_t rows = strip->a_len;
    strip_job job = {.pass = strip, .engine = engine, .user = engine_user};
    atomic_init(&job.done, 0);
    int rc = SW_OK;
    sw_pool *pool = NULL;
    int started = 0;
    if (strip->b_len) {
        sw_pool_start(1, run_strip, &job, &pool, &started);
        if (!started) rc = sw_error_set(err, SW_ENOMEM, "cannot start the thread of a strip");
    } else {
        atomic_store(&job.done, 1); /* no columns here: nothing to run or relay */
    }
    sw_pair_column *left = (sw_pair_column *)strip->left, *right = strip->right;
    uint64_t sent = 0;
    int sent_abort = 0;
    double next = sw_clock_seconds() + (interval > 0 ? interval : 1.0);
    long idle_ns = 20000;
    /* Relays until this rank's engine is done, every row of its column has
     * gone right and every row of the left one has come (the left rank
     * sends them all even where this one stopped early). */
    for (;;) {
        int moved = 0;
        const int done = atomic_load(&job.done);
        if (left && !rc && __atomic_load_n(&left->rows, __ATOMIC_ACQUIRE) < rows &&
            !__atomic_load_n(&left->abort, __ATOMIC_ACQUIRE)) {
            int got = 0;
            if ((rc = ops->poll_column(ops->user, left, &got, err))) __atomic_store_n(&left->abort, 1, __ATOMIC_RELEASE);
            moved |= got;
        }
        if (right && !sent_abort && sent < rows) {
            const uint64_t have = __atomic_load_n(&right->rows, __ATOMIC_ACQUIRE);
            const int failed = done && job.rc;
            if (failed || rc || __atomic_load_n(&right->abort, __ATOMIC_ACQUIRE)) {
                /* Failing here lets the ranks on the right give up too. */
                const int r2 = ops->send_column(ops->user, sent, 0, NULL, 0, 1, err);
                if (!rc) rc = r2;
                sent_abort = 1;
            } else if (have > sent && (have - sent >= PIECE_MIN || have == rows || done)) {
                const uint64_t count = have - sent < PIECE_MAX ? have - sent : PIECE_MAX;
                const int r2 = ops->send_column(ops->user, sent, count, sw_pair_column_cells(right),
                                                __atomic_load_n(&right->best, __ATOMIC_RELAXED), 0, err);
                if (r2 && !rc) rc = r2;
                if (r2) __atomic_store_n(&right->abort, 1, __ATOMIC_RELEASE);
                sent += count;
                moved = 1;
            }
        }
        const int left_over = left && __atomic_load_n(&left->rows, __ATOMIC_ACQUIRE) < rows &&
                              !__atomic_load_n(&left->abort, __ATOMIC_ACQUIRE) && !rc;
        const int right_over = right && sent < rows && !sent_abort;
        if (done && !left_over && !right_over) break;
        if (progress && sw_clock_seconds() >= next) {
            progress(progress_user, strip->cells_done ? __atomic_load_n(strip->cells_done, __ATOMIC_RELAXED) : 0);
            next += interval > 0 ? interval : 1.0;
        }
        if (moved) {
            idle_ns = 20000;
        } else {
            struct timespec ts = {0, idle_ns};
            nanosleep(&ts, NULL);
            if (idle_ns < 1000000) idle_ns *= 2;
        }
    }
    sw_pool_join(pool);
    if (!rc && job.rc) {
        rc = job.rc;
        if (err) *err = job.err;
    }

    /* Every rank's hit, in the whole matrix's columns; the first of them. */
    int64_t mine[SW_PAIR_SPLIT_FIELDS] = {rc ? -1 : job.hit.score, (int64_t)job.hit.a_end,
                                          job.hit.score ? (int64_t)(job.hit.b_end + strip->col_base) : 0,
                                          (int64_t)job.hit.cells, (int64_t)job.hit.pruned};
    int64_t *all = malloc((size_t)ops->ranks * SW_PAIR_SPLIT_FIELDS * sizeof *all);
    if (!all) return sw_error_set(err, SW_ENOMEM, "out of memory");
    sw_error gerr;
    const int grc = ops->gather_all(ops->user, mine, all, &gerr);
    if (grc && !rc) {
        rc = grc;
        if (err) *err = gerr;
    }
    int failed_rank = -1;
    for (int k = 0; !grc && k < ops->ranks; ++k) {
        const int64_t *x = all + (size_t)k * SW_PAIR_SPLIT_FIELDS;
        if (x[0] < 0) {
            if (failed_rank < 0) failed_rank = k;
            continue;
        }
        out->cells += (uint64_t)x[3];
        out->pruned += (uint64_t)x[4];
        const int64_t cur[3] = {out->score, (int64_t)out->a_end, (int64_t)out->b_end};
        if (comes_first(strip, x, cur)) {
            out->score = (int32_t)x[0];
            out->a_end = (uint64_t)x[1];
            out->b_end = (uint64_t)x[2];
        }
    }
    free(all);
    if (!rc && failed_rank >= 0)
        rc = sw_error_set(err, SW_EIO, "rank %d of %d failed its strip of the pass", failed_rank, ops->ranks);
    if (rc) memset(out, 0, sizeof *out);
    return rc;
}
