/* The thread pool runs each index once, on threads of its own, and joins
 * them all; the caller may work in between. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>

#include "sw_pool.h"

typedef struct runs {
    atomic_int count[64];
    pthread_t caller;
    atomic_int on_caller;
} runs;

static void mark(void *ctx, int index)
{
    runs *r = ctx;
    atomic_fetch_add(&r->count[index], 1);
    if (pthread_equal(pthread_self(), r->caller)) atomic_fetch_add(&r->on_caller, 1);
}

Test(pool, runs_every_index_once_off_the_calling_thread)
{
    static runs r;
    r.caller = pthread_self();
    int started = -1;
    cr_assert_eq(sw_pool_run(8, mark, &r, &started), 0);
    cr_assert_eq(started, 8);
    for (int i = 0; i < 8; i++) cr_assert_eq(atomic_load(&r.count[i]), 1, "index %d", i);
    cr_assert_eq(atomic_load(&r.count[8]), 0);
    cr_assert_eq(atomic_load(&r.on_caller), 0);
}

Test(pool, no_workers_starts_nothing)
{
    static runs r;
    sw_pool *pool = (sw_pool *)&r;
    int started = -1;
    cr_assert_eq(sw_pool_start(0, mark, &r, &pool, &started), 0);
    cr_assert_eq(started, 0);
    cr_assert_null(pool);
    sw_pool_join(pool);
}

typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t open_cond;
    int open;
    atomic_int finished;
} gate;

static void wait_at_gate(void *ctx, int index)
{
    (void)index;
    gate *g = ctx;
    pthread_mutex_lock(&g->lock);
    while (!g->open) pthread_cond_wait(&g->open_cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
    atomic_fetch_add(&g->finished, 1);
}

/* sw_pool_start returns while the workers run; sw_pool_join waits for them. */
Test(pool, start_returns_before_the_workers_end_and_join_waits)
{
    static gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    sw_pool *pool;
    int started;
    cr_assert_eq(sw_pool_start(3, wait_at_gate, &g, &pool, &started), 0);
    cr_assert_eq(started, 3);
    cr_assert_eq(atomic_load(&g.finished), 0);
    pthread_mutex_lock(&g.lock);
    g.open = 1;
    pthread_cond_broadcast(&g.open_cond);
    pthread_mutex_unlock(&g.lock);
    sw_pool_join(pool);
    cr_assert_eq(atomic_load(&g.finished), 3);
}
