/* The thread pool runs each index once, on threads of its own, and joins
 * them all; the caller may work in between. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>

#include <stdint.h>

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

/* ---- sw_pool_each ---- */

typedef struct each_log {
    atomic_int done[1000];
    atomic_int begun[64], ended[64];
    atomic_int bad_worker;
    int workers;
    size_t fail_at; /* SIZE_MAX: none */
    atomic_int after_failure;
    atomic_int failed_seen;
} each_log;

static int log_begin(void *ctx, int worker, sw_error *err)
{
    (void)err;
    each_log *l = ctx;
    if (worker < 0 || worker >= l->workers) atomic_store(&l->bad_worker, 1);
    else atomic_fetch_add(&l->begun[worker], 1);
    return SW_OK;
}

static void log_end(void *ctx, int worker)
{
    each_log *l = ctx;
    if (worker >= 0 && worker < l->workers) atomic_fetch_add(&l->ended[worker], 1);
}

static int log_task(void *ctx, int worker, size_t task, sw_error *err)
{
    each_log *l = ctx;
    if (worker < 0 || worker >= l->workers || !atomic_load(&l->begun[worker])) atomic_store(&l->bad_worker, 1);
    if (atomic_load(&l->failed_seen)) atomic_fetch_add(&l->after_failure, 1);
    atomic_fetch_add(&l->done[task], 1);
    if (task == l->fail_at) {
        atomic_store(&l->failed_seen, 1);
        return sw_error_set(err, SW_EFORMAT, "task %zu is bad", task);
    }
    return SW_OK;
}

Test(pool, each_runs_every_task_once_with_its_workers_state)
{
    static each_log l;
    l.workers = 4;
    l.fail_at = SIZE_MAX;
    const sw_pool_tasks tasks = {1000, log_task, log_begin, log_end};
    int used = -1;
    sw_error err = {0};
    cr_assert_eq(sw_pool_each(4, &tasks, &l, &used, &err), SW_OK);
    cr_expect(used >= 1 && used <= 4, "used %d", used);
    for (int t = 0; t < 1000; t++) cr_expect_eq(atomic_load(&l.done[t]), 1, "task %d", t);
    for (int w = 0; w < used; w++) {
        cr_expect_eq(atomic_load(&l.begun[w]), 1, "worker %d begun", w);
        cr_expect_eq(atomic_load(&l.ended[w]), 1, "worker %d ended", w);
    }
    cr_expect_eq(atomic_load(&l.bad_worker), 0);
}

Test(pool, each_stops_handing_out_tasks_after_a_failure)
{
    static each_log l;
    l.workers = 1;
    l.fail_at = 10;
    const sw_pool_tasks tasks = {1000, log_task, log_begin, log_end};
    sw_error err = {0};
    int used = 0;
    cr_assert_eq(sw_pool_each(1, &tasks, &l, &used, &err), SW_EFORMAT);
    cr_expect_str_eq(err.message, "task 10 is bad");
    cr_expect_eq(used, 1);
    /* One worker: tasks 0 to 10 ran, in order, and nothing after. */
    for (int t = 0; t <= 10; t++) cr_expect_eq(atomic_load(&l.done[t]), 1, "task %d", t);
    for (int t = 11; t < 1000; t++) cr_expect_eq(atomic_load(&l.done[t]), 0, "task %d", t);
    cr_expect_eq(atomic_load(&l.ended[0]), 1);
}

Test(pool, each_with_more_workers_than_tasks_or_none)
{
    static each_log l;
    l.workers = 3;
    l.fail_at = SIZE_MAX;
    const sw_pool_tasks three = {3, log_task, NULL, NULL};
    int used = -1;
    cr_assert_eq(sw_pool_each(64, &three, &l, &used, NULL), SW_OK);
    cr_expect(used >= 1 && used <= 3, "used %d", used);
    for (int t = 0; t < 3; t++) cr_expect_eq(atomic_load(&l.done[t]), 1);
    const sw_pool_tasks none = {0, log_task, NULL, NULL};
    cr_assert_eq(sw_pool_each(4, &none, &l, &used, NULL), SW_OK);
    cr_expect_eq(used, 0);
}

static int refuse_begin(void *ctx, int worker, sw_error *err)
{
    (void)ctx;
    return sw_error_set(err, SW_ENOMEM, "worker %d has no memory", worker);
}

Test(pool, each_fails_when_a_worker_cannot_begin)
{
    static each_log l;
    l.workers = 1;
    l.fail_at = SIZE_MAX;
    const sw_pool_tasks tasks = {50, log_task, refuse_begin, log_end};
    sw_error err = {0};
    cr_assert_eq(sw_pool_each(1, &tasks, &l, NULL, &err), SW_ENOMEM);
    cr_expect_str_eq(err.message, "worker 0 has no memory");
    /* Nothing ran, and a worker that did not begin does not end. */
    for (int t = 0; t < 50; t++) cr_expect_eq(atomic_load(&l.done[t]), 0, "task %d", t);
    cr_expect_eq(atomic_load(&l.ended[0]), 0);
}
