/* The one way to run work on threads: a group of workers started together
 * and joined together (fork-join), the caller free to work or report in between. */
#ifndef SW_POOL_H
#define SW_POOL_H

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

#ifdef __cplusplus
}
#endif

#endif
