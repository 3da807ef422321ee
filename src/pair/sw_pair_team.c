/* The slice operations between threads: a mailbox per member for the row
 * from the member above, and a barrier-style exchange for the collective
 * operations (every member posts its value, the last to arrive releases
 * the others). */
#include "sw_pair_team.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sw_pool.h"

typedef struct team team;

typedef struct member {
    team *t;
    sw_pair_slice_ops ops;
    void *engine_user;
    /* mailbox: the row from the member above */
    sw_pair_edge *row;
    int full, changed;
    /* results */
    sw_pair_hit hit;
    sw_pair_split_stats stats;
    sw_error err;
    int rc;
} member;

struct team {
    const sw_pair_pass *pass;
    uint64_t overlap;
    sw_pair_slice_engine engine;
    int count;
    member *members;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* collective exchange */
    int64_t *posted;
    int arrived;
    unsigned long generation;
    int broken; /* a member could not start: every wait gives up */
};

static int broken(team *t, sw_error *err)
{
    pthread_mutex_unlock(&t->lock);
    return sw_error_set(err, SW_EIO, "a thread of the run could not start");
}

static int send_next(void *user, const sw_pair_edge *row, uint64_t n, int changed, sw_error *err)
{
    member *me = user;
    team *t = me->t;
    member *next = &t->members[me->ops.rank + 1];
    pthread_mutex_lock(&t->lock);
    while (next->full && !t->broken) pthread_cond_wait(&t->cond, &t->lock);
    if (t->broken) return broken(t, err);
    if (changed) memcpy(next->row, row, n * sizeof *row);
    next->changed = changed;
    next->full = 1;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    return SW_OK;
}

static int recv_prev(void *user, sw_pair_edge *row, uint64_t n, int *changed, sw_error *err)
{
    member *me = user;
    team *t = me->t;
    pthread_mutex_lock(&t->lock);
    while (!me->full && !t->broken) pthread_cond_wait(&t->cond, &t->lock);
    if (t->broken) return broken(t, err);
    if (me->changed) memcpy(row, me->row, n * sizeof *row);
    *changed = me->changed;
    me->full = 0;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    return SW_OK;
}

/* Waits, the lock held, until every member has arrived here. */
static int meet(team *t)
{
    const unsigned long gen = t->generation;
    if (++t->arrived == t->count) {
        t->arrived = 0;
        t->generation++;
        pthread_cond_broadcast(&t->cond);
        return SW_OK;
    }
    while (gen == t->generation && !t->broken) pthread_cond_wait(&t->cond, &t->lock);
    return t->broken ? SW_EIO : SW_OK;
}

/* Posts `count` values at the member's place; returns every member's. */
static int exchange(member *me, const int64_t *values, int count, int64_t *all, sw_error *err)
{
    team *t = me->t;
    pthread_mutex_lock(&t->lock);
    memcpy(t->posted + (size_t)me->ops.rank * (size_t)count, values, (size_t)count * sizeof *values);
    if (meet(t)) return broken(t, err);
    memcpy(all, t->posted, (size_t)t->count * (size_t)count * sizeof *all);
    /* Nobody may post again until everyone has read. */
    if (meet(t)) return broken(t, err);
    pthread_mutex_unlock(&t->lock);
    return SW_OK;
}

static int max_all(void *user, int64_t value, int64_t *out, sw_error *err)
{
    member *me = user;
    int64_t *all = malloc((size_t)me->t->count * sizeof *all);
    if (!all) return sw_error_set(err, SW_ENOMEM, "out of memory");
    if (exchange(me, &value, 1, all, err)) {
        free(all);
        return SW_EIO;
    }
    *out = all[0];
    for (int k = 1; k < me->t->count; ++k)
        if (all[k] > *out) *out = all[k];
    free(all);
    return SW_OK;
}

static int gather_all(void *user, const int64_t *mine, int64_t *all, sw_error *err)
{
    return exchange(user, mine, SW_PAIR_SPLIT_FIELDS, all, err);
}

static void run_member(void *arg, int index)
{
    team *t = arg;
    member *me = &t->members[index];
    me->rc = sw_pair_split_run(t->pass, t->overlap, &me->ops, t->engine, me->engine_user, &me->hit, &me->stats,
                               &me->err);
}

int sw_pair_team_run(const sw_pair_pass *pass, int members, uint64_t overlap, sw_pair_slice_engine engine,
                     void *const *engine_users, sw_pair_hit *out, sw_pair_split_stats *stats, sw_error *err)
{
    memset(out, 0, sizeof *out);
    if (stats) memset(stats, 0, sizeof *stats);
    if (!pass || members < 1 || !engine) return sw_error_set(err, SW_EINVAL, "team pass: invalid arguments");
    team t;
    memset(&t, 0, sizeof t);
    t.pass = pass;
    t.overlap = overlap;
    t.engine = engine;
    t.count = members;
    t.members = calloc((size_t)members, sizeof *t.members);
    t.posted = calloc((size_t)members * SW_PAIR_SPLIT_FIELDS, sizeof *t.posted);
    int rc = SW_OK;
    if (!t.members || !t.posted) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    for (int k = 0; k < members && !rc; ++k) {
        member *me = &t.members[k];
        me->t = &t;
        me->engine_user = engine_users ? engine_users[k] : NULL;
        me->ops = (sw_pair_slice_ops){me, k, members, send_next, recv_prev, max_all, gather_all, NULL, NULL};
        me->row = malloc((pass->b_len ? pass->b_len : 1) * sizeof *me->row);
        if (!me->row) rc = sw_error_set(err, SW_ENOMEM, "out of memory for a row of %llu columns",
                                         (unsigned long long)pass->b_len);
    }
    if (!rc) {
        pthread_mutex_init(&t.lock, NULL);
        pthread_cond_init(&t.cond, NULL);
        sw_pool *pool;
        int started;
        if (sw_pool_start(members, run_member, &t, &pool, &started) != 0) {
            /* The started ones would wait for the rest forever. */
            rc = sw_error_set(err, SW_ENOMEM, "cannot start %d threads", members);
            pthread_mutex_lock(&t.lock);
            t.broken = 1;
            pthread_cond_broadcast(&t.cond);
            pthread_mutex_unlock(&t.lock);
        }
        sw_pool_join(pool);
        pthread_mutex_destroy(&t.lock);
        pthread_cond_destroy(&t.cond);
        for (int k = 0; k < members && !rc; ++k)
            if (t.members[k].rc) {
                rc = t.members[k].rc;
                if (err) *err = t.members[k].err;
            }
        if (!rc) {
            *out = t.members[0].hit;
            if (stats) *stats = t.members[0].stats;
        }
    }
    if (t.members)
        for (int k = 0; k < members; ++k) free(t.members[k].row);
    free(t.members);
    free(t.posted);
    return rc;
}
