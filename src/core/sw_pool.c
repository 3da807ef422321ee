/* The one thread pool: start a group of workers, join them all. Threads are
 * created per group, as every caller runs one group per long job. */
#include "sw_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
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

typedef struct each_run {
    const sw_pool_tasks *tasks;
    void *ctx;
    atomic_size_t next;
    atomic_int failed;
    pthread_mutex_t lock;
    int rc;
    sw_error err;
} each_run;

static void each_worker(void *arg, int worker)
{
    each_run *r = arg;
    const sw_pool_tasks *t = r->tasks;
    sw_error e;
    sw_error_clear(&e);
    int rc = t->worker_begin ? t->worker_begin(r->ctx, worker, &e) : SW_OK;
    const int begun = rc == SW_OK;
    size_t task = 0;
    while (rc == SW_OK && !atomic_load(&r->failed)) {
        task = atomic_fetch_add(&r->next, 1);
        if (task >= t->count) break;
        rc = t->run(r->ctx, worker, task, &e);
    }
    if (begun && t->worker_end) t->worker_end(r->ctx, worker);
    if (rc == SW_OK) return;
    if (!e.code) sw_error_set(&e, rc, "task %zu failed", task);
    pthread_mutex_lock(&r->lock);
    if (!r->rc) {
        r->rc = rc;
        r->err = e;
    }
    pthread_mutex_unlock(&r->lock);
    atomic_store(&r->failed, 1);
}

int sw_pool_each(int workers, const sw_pool_tasks *tasks, void *ctx, int *used, sw_error *err)
{
    if (used) *used = 0;
    if (!tasks->count) return SW_OK;
    if (workers < 1) workers = 1;
    if ((size_t)workers > tasks->count) workers = (int)tasks->count;
    each_run r;
    r.tasks = tasks;
    r.ctx = ctx;
    atomic_init(&r.next, 0);
    atomic_init(&r.failed, 0);
    pthread_mutex_init(&r.lock, NULL);
    r.rc = SW_OK;
    sw_error_clear(&r.err);
    int started = 0;
    sw_pool_run(workers, each_worker, &r, &started);
    if (started == 0) {
        /* No thread could start: the work is done here. */
        each_worker(&r, 0);
        started = 1;
    }
    pthread_mutex_destroy(&r.lock);
    if (used) *used = started;
    if (r.rc) {
        if (err) *err = r.err;
        return r.rc;
    }
    return SW_OK;
}
