/* The one thread pool: start a group of workers, join them all. Threads are
 * created per group, as every caller runs one group per long job. */
#include "sw_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

typedef struct slot {
    pthread_t thread;
    sw_pool_fn fn;
    void *ctx;
    int index;
} slot;

struct sw_pool {
    int started;
    slot slots[];
};

static void *run_slot(void *arg)
{
    const slot *s = arg;
    s->fn(s->ctx, s->index);
    return NULL;
}

int sw_pool_start(int workers, sw_pool_fn fn, void *ctx, sw_pool **pool, int *started)
{
    *pool = NULL;
    *started = 0;
    if (workers <= 0) return 0;
    sw_pool *p = malloc(sizeof *p + (size_t)workers * sizeof p->slots[0]);
    if (!p) return ENOMEM;
    p->started = 0;
    int rc = 0;
    for (int i = 0; i < workers; i++) {
        slot *s = &p->slots[i];
        s->fn = fn;
        s->ctx = ctx;
        s->index = i;
        rc = pthread_create(&s->thread, NULL, run_slot, s);
        if (rc != 0) break;
        p->started++;
    }
    *started = p->started;
    if (p->started == 0) {
        free(p);
        return rc;
    }
    *pool = p;
    return rc;
}

void sw_pool_join(sw_pool *pool)
{
    if (!pool) return;
    for (int i = 0; i < pool->started; i++) pthread_join(pool->slots[i].thread, NULL);
    free(pool);
}

int sw_pool_run(int workers, sw_pool_fn fn, void *ctx, int *started)
{
    sw_pool *pool;
    const int rc = sw_pool_start(workers, fn, ctx, &pool, started);
    sw_pool_join(pool);
    return rc;
}
