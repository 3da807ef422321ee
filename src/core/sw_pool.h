/* The one way to run work on threads: a group of workers started together
 * and joined together (fork-join), the caller free to work or report in between. */
#ifndef SW_POOL_H
#define SW_POOL_H

#include <stddef.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_pool sw_pool;

/* A worker's body: `index` runs from 0 to the number started - 1, in the
 * order the threads were started. */
typedef void (*sw_pool_fn)(void *ctx, int index);

/* Starts up to `workers` threads, each running fn(ctx, index), and returns
 * at once. Threads start in index order and starting stops at the first
 * that cannot start, so *started (always set) is how many run: indexes
 * 0 .. *started - 1. Returns 0 when all started, else an errno value
 * (pthread_create's, or ENOMEM) saying why the next could not; what to do
 * with fewer workers than asked is the caller's choice. *pool is set in
 * every case (NULL when nothing started) and must go to sw_pool_join. */
int sw_pool_start(int workers, sw_pool_fn fn, void *ctx, sw_pool **pool, int *started);

/* Waits for every started worker to return and frees the group. NULL is a no-op. */
void sw_pool_join(sw_pool *pool);

/* sw_pool_start followed by sw_pool_join: runs the workers to the end. */
int sw_pool_run(int workers, sw_pool_fn fn, void *ctx, int *started);

/* A list of independent tasks for sw_pool_each. Functions get the caller's
 * ctx and the worker's index (0 .. workers - 1: per-worker state lives in
 * the caller's arrays of `workers` entries). A failure returns an SW_E*
 * code with `err` set. */
typedef struct sw_pool_tasks {
    size_t count; /* tasks 0 .. count - 1 */
    int (*run)(void *ctx, int worker, size_t task, sw_error *err);
    /* Optional, on the worker's thread: before its first task (a failure
     * stops that worker and counts as the run's failure) and after its
     * last (always, when begin was called). */
    int (*worker_begin)(void *ctx, int worker, sw_error *err);
    void (*worker_end)(void *ctx, int worker);
} sw_pool_tasks;

/* Hands the tasks out in order, one at a time, to up to `workers` threads
 * (at most one a task) until all are done or one fails; no task starts
 * after a failure. Where no thread can start, the caller runs them all as
 * worker 0. *used (may be NULL): the workers that ran. SW_OK, or the first
 * failure's code with its message in err. */
int sw_pool_each(int workers, const sw_pool_tasks *tasks, void *ctx, int *used, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
