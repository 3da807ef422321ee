/* A slice kept on the GPU as far as it fits and streamed beyond, in parts
 * through two engines that take turns (sw_gpu_parts.h). */
#include "sw_gpu_parts.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sw_clock.h"
#include "sw_pool.h"

/* Slice sequences first .. first + count - 1 (the slice's numbering). */
typedef struct part {
    uint64_t first, count, residues;
} part;

struct sw_gpu_parts {
    sw_gpu_parts_config c;
    uint64_t kept;                /* the slice's first sequences, on the GPU */
    sw_gpu_engine *resident;      /* holds them; NULL when none fit */
    sw_gpu_engine *turn[2];       /* the streamed parts, taking turns */
    part *parts;
    size_t num_parts;
    const uint8_t *residues; /* the decoded database, or NULL: read the file */
    sw_gpu_stop_fn stop;     /* sw_gpu_parts_set_stop */
    void *stop_user;
};

/* A plan: the kept part, then the streamed parts, for streaming engines of
 * `turn` bytes each and the kept part in what they leave. */
typedef struct plan {
    size_t turn;
    uint64_t kept, kept_residues;
    part *parts;
    size_t num_parts;
    uint64_t max_seqs, max_residues;
    uint32_t longest;
} plan;

static int make_plan(const uint32_t *len, uint64_t n, size_t budget, size_t turn, plan *out)
{
    memset(out, 0, sizeof *out);
    out->turn = turn;
    /* The kept part: the longest run of first sequences that fits beside
     * the streaming engines. */
    while (out->kept < n && sw_gpu_engine_fits(out->kept + 1, out->kept_residues + len[out->kept], budget - 2 * turn))
        out->kept_residues += len[out->kept++];
    /* The streamed parts: as many sequences as fit a streaming engine, at
     * least one. */
    size_t cap = 16;
    if (!(out->parts = malloc(cap * sizeof *out->parts))) return SW_ENOMEM;
    for (uint64_t s = out->kept; s < n;) {
        part q = {s, 0, 0};
        while (s < n && (q.count == 0 || sw_gpu_engine_fits(q.count + 1, q.residues + len[s], turn))) {
            q.residues += len[s++];
            q.count++;
        }
        if (out->num_parts == cap) {
            part *more = realloc(out->parts, 2 * cap * sizeof *more);
            if (!more) return SW_ENOMEM;
            out->parts = more;
            cap *= 2;
        }
        out->parts[out->num_parts++] = q;
        if (q.count > out->max_seqs) out->max_seqs = q.count;
        if (q.residues > out->max_residues) out->max_residues = q.residues;
        if (len[s - 1] > out->longest) out->longest = len[s - 1];
    }
    return SW_OK;
}

int sw_gpu_parts_create(const sw_gpu_parts_config *c, sw_gpu_parts **out, sw_error *err)
{
    *out = NULL;
    const size_t budget = c->engine.max_device_bytes;
    if (!budget) return sw_error_set(err, SW_EINVAL, "a streamed slice needs its share of GPU memory");
    sw_gpu_parts *p = calloc(1, sizeof *p);
    if (!p) return sw_error_set(err, SW_ENOMEM, "out of memory");
    p->c = *c;
    const uint64_t n = sw_slice_num_seqs(c->slicing, c->slice);
    const uint32_t *len = c->lengths;
    uint64_t total = 0;
    for (uint64_t s = 0; s < n; s++) total += len[s];
    int rc = SW_OK;
    plan best;
    memset(&best, 0, sizeof best);
    if (sw_gpu_engine_fits(n, total, budget)) {
        /* The whole slice fits: it is all kept (a team that streams
         * elsewhere reads it from the file all the same). */
        best.kept = n;
        best.kept_residues = total;
    } else {
        /* Every search of a part costs the same besides its cells
         * (launches, top-N selection, the pipeline's fill and drain), so
         * the plan with the fewest searches wins; on a tie the larger kept
         * part (less to read and upload for every batch). */
        const size_t turns[3] = {budget / 4, budget * 3 / 8, budget / 2};
        for (int t = 0; t < 3 && rc == SW_OK; t++) {
            plan candidate;
            if ((rc = make_plan(len, n, budget, turns[t], &candidate))) {
                free(candidate.parts);
                break;
            }
            const size_t searches = candidate.num_parts + (candidate.kept > 0);
            if (t == 0 || searches < best.num_parts + (best.kept > 0)) {
                free(best.parts);
                best = candidate;
            } else {
                free(candidate.parts);
            }
        }
    }
    p->kept = best.kept;
    p->parts = best.parts;
    p->num_parts = best.num_parts;
    if (rc == SW_ENOMEM) sw_error_set(err, SW_ENOMEM, "out of memory planning the streamed parts");
    sw_gpu_engine_options opt = c->engine;
    opt.device_share = 0;
    if (rc == SW_OK && p->kept) {
        opt.max_device_bytes = p->num_parts ? budget - 2 * best.turn : budget;
        rc = sw_gpu_engine_create(c->device, c->scoring, c->top_n, &opt, &p->resident, err);
    }
    for (int k = 0; k < 2 && rc == SW_OK && p->num_parts; k++) {
        opt.max_device_bytes = best.turn;
        rc = sw_gpu_engine_create(c->device, c->scoring, c->top_n, &opt, &p->turn[k], err);
        if (rc == SW_OK)
            rc = sw_gpu_engine_reserve_parts(p->turn[k], best.max_seqs, best.max_residues, best.longest, err);
    }
    if (rc) {
        sw_gpu_parts_free(p);
        return rc;
    }
    *out = p;
    return SW_OK;
}

void sw_gpu_parts_set_stop(sw_gpu_parts *p, sw_gpu_stop_fn fn, void *user)
{
    p->stop = fn;
    p->stop_user = user;
}

void sw_gpu_parts_free(sw_gpu_parts *p)
{
    if (!p) return;
    sw_gpu_engine_free(p->resident);
    sw_gpu_engine_free(p->turn[0]);
    sw_gpu_engine_free(p->turn[1]);
    free(p->parts);
    free(p);
}

void sw_gpu_parts_add_stats(sw_gpu_stats *sum, const sw_gpu_stats *s, int first)
{
    if (first) {
        *sum = *s;
        return;
    }
    sum->kernel_seconds += s->kernel_seconds;
    sum->transfer_seconds += s->transfer_seconds;
    sum->cells += s->cells;
    sum->recomputed += s->recomputed;
    if (s->batches > sum->batches) sum->batches = s->batches;
    for (size_t b = 0; b < sum->num_buckets && b < s->num_buckets; b++) {
        if (s->buckets[b].max_length != sum->buckets[b].max_length) continue;
        sum->buckets[b].seqs += s->buckets[b].seqs;
        sum->buckets[b].residues += s->buckets[b].residues;
        sum->buckets[b].padded_residues += s->buckets[b].padded_residues;
        sum->buckets[b].seconds += s->buckets[b].seconds;
    }
}

/* The runs of database sequences that hold slice sequences first ..
 * first + count - 1 come one after another from the run that holds
 * `first`: these walk them. */
typedef struct segment {
    uint64_t local, global, count; /* slice sequences local .. are database sequences global .. */
    const sw_slice_run *run;
} segment;

static const sw_slice_run *first_run(const sw_gpu_parts *p, uint64_t first)
{
    size_t nr;
    const sw_slice_run *runs = sw_slice_runs(p->c.slicing, p->c.slice, &nr);
    return runs + sw_slice_run_of(p->c.slicing, p->c.slice, first);
}

/* The next segment of [*at, end) from run *r on: 0 at the end. */
static int next_segment(const sw_slice_run **r, uint64_t *at, uint64_t end, segment *seg)
{
    if (*at >= end) return 0;
    while ((*r)->local + (*r)->count <= *at) ++*r;
    const uint64_t stop = (*r)->local + (*r)->count < end ? (*r)->local + (*r)->count : end;
    *seg = (segment){*at, (*r)->first + (*at - (*r)->local), stop - *at, *r};
    *at = stop;
    return 1;
}

/* The residues of slice sequences first .. first + count - 1 into dst, a
 * run of the database at a time: from the decoded database, or decoded
 * from the file's chunks. */
static int read_range(const sw_gpu_parts *p, uint64_t first, uint64_t count, uint8_t *dst, sw_error *err)
{
    const uint32_t *all = sw_db_lengths(p->c.db);
    const sw_slice_run *r = first_run(p, first);
    uint64_t at = first, out = 0;
    segment g;
    while (next_segment(&r, &at, first + count, &g)) {
        uint64_t bytes = 0;
        for (uint64_t s = g.global; s < g.global + g.count; s++) bytes += all[s];
        if (p->residues) {
            uint64_t from = g.run->residue;
            for (uint64_t s = g.run->first; s < g.global; s++) from += all[s];
            memcpy(dst + out, p->residues + from, bytes);
        } else {
            int rc = sw_db_read_range(p->c.db, g.global, g.count, dst + out, p->c.threads, err);
            if (rc) return rc;
        }
        out += bytes;
    }
    return SW_OK;
}

/* The FASTA positions (the order of ties) of slice sequences first ..
 * first + count - 1 into tiebreak. */
static void read_tiebreak(const sw_gpu_parts *p, uint64_t first, uint64_t count, uint32_t *tiebreak)
{
    const sw_slice_run *r = first_run(p, first);
    uint64_t at = first;
    segment g;
    while (next_segment(&r, &at, first + count, &g))
        for (uint64_t s = 0; s < g.count; s++)
            tiebreak[g.local - first + s] = (uint32_t)sw_db_original_index(p->c.db, g.global + s);
}

/* Slice sequence `local`'s number in the database. */
static uint64_t global_seq(const sw_gpu_parts *p, uint64_t local)
{
    return sw_slice_seq(p->c.slicing, p->c.slice, local);
}

/* sw_gpu_engine_set_db_from's source for the kept part: slice sequences
 * read a piece of at most `cap` residues at a time. */
typedef struct kept_source {
    const sw_gpu_parts *p;
    uint64_t next, end;
    uint8_t *buf;
    uint64_t cap;
} kept_source;

static int next_kept_piece(void *user, const uint8_t **piece, uint64_t *bytes, sw_error *err)
{
    kept_source *k = user;
    *piece = NULL;
    *bytes = 0;
    if (k->next == k->end) return SW_OK;
    const uint32_t *len = k->p->c.lengths;
    uint64_t s = k->next, b = 0;
    while (s < k->end && (s == k->next || b + len[s] <= k->cap)) b += len[s++];
    if (b > k->cap) {
        uint8_t *bigger = realloc(k->buf, b);
        if (!bigger) return sw_error_set(err, SW_ENOMEM, "out of memory reading the database");
        k->buf = bigger;
        k->cap = b;
    }
    int rc = read_range(k->p, k->next, s - k->next, k->buf, err);
    if (rc) return rc;
    k->next = s;
    *piece = k->buf;
    *bytes = b;
    return SW_OK;
}

int sw_gpu_parts_load(sw_gpu_parts *p, const uint8_t *residues, sw_error *err)
{
    p->residues = residues;
    if (!p->resident) return SW_OK;
    /* Pieces of 256 MB: host memory for the load stays small. */
    kept_source k = {p, 0, p->kept, NULL, (uint64_t)1 << 28};
    k.buf = malloc(k.cap);
    uint32_t *tiebreak = malloc((p->kept ? p->kept : 1) * sizeof *tiebreak);
    int rc = k.buf && tiebreak ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory reading the database");
    if (rc == SW_OK) read_tiebreak(p, 0, p->kept, tiebreak);
    if (rc == SW_OK)
        rc = sw_gpu_engine_set_db_from(p->resident, next_kept_piece, &k, p->c.lengths, tiebreak, p->kept, err);
    free(k.buf);
    free(tiebreak);
    return rc;
}

/* A search: the kept engine's search and each streaming engine's parts
 * (engine k takes parts k, k + 2, ...) run on workers of their own at the
 * same time, so that one search's pipeline fill and drain overlap another's
 * scan; a reader worker fills the parts into the engines' buffers in order,
 * part i once part i - 2, which the same buffer held, has been loaded (its
 * upload is then under way, and sw_gpu_engine_part_buffer waits for it).
 * Each searching worker merges its hits into lists of its own, which merge
 * at the end; the scores of every part go straight to their places. */
typedef struct lists {
    sw_hit *hits; /* num_queries x top_n, counts[q] each */
    size_t *counts;
    sw_gpu_hit *ghits;
    size_t *gcounts;
    int32_t *sink; /* num_queries x the most sequences of a search, or NULL */
    sw_hit *merged, *part_hits;
    sw_gpu_stats stats;
    int searches;
} lists;

enum { READER, KEPT, TURN0, TURN1, WORKERS };

typedef struct search_state {
    sw_gpu_parts *p;
    const uint8_t *const *queries;
    const int8_t *const *rows;
    const size_t *lengths;
    size_t num_queries;
    int32_t *scores;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t filled;   /* parts filled, in order */
    uint8_t *loaded; /* of each part */
    int failed;      /* the first failure stops every worker */
    int rc;
    sw_error err;
    lists l[WORKERS]; /* of KEPT, TURN0 and TURN1 */
} search_state;

static void fail(search_state *x, int rc, const sw_error *err)
{
    pthread_mutex_lock(&x->lock);
    if (!x->failed) {
        x->failed = 1;
        x->rc = rc;
        x->err = *err;
    }
    pthread_cond_broadcast(&x->changed);
    pthread_mutex_unlock(&x->lock);
}

static void read_parts(search_state *x)
{
    sw_gpu_parts *p = x->p;
    for (size_t i = 0; i < p->num_parts; i++) {
        pthread_mutex_lock(&x->lock);
        while (!x->failed && i >= 2 && !x->loaded[i - 2]) pthread_cond_wait(&x->changed, &x->lock);
        const int stop = x->failed;
        pthread_mutex_unlock(&x->lock);
        if (stop) return;
        const part *q = &p->parts[i];
        uint8_t *res;
        uint32_t *len, *tb;
        sw_error err;
        sw_error_clear(&err);
        int rc = sw_gpu_engine_part_buffer(p->turn[i & 1], &res, &len, &tb, &err);
        if (rc == SW_OK) {
            memcpy(len, p->c.lengths + q->first, q->count * sizeof *len);
            read_tiebreak(p, q->first, q->count, tb);
            rc = read_range(p, q->first, q->count, res, &err);
        }
        if (rc) {
            fail(x, rc, &err);
            return;
        }
        pthread_mutex_lock(&x->lock);
        x->filled = i + 1;
        pthread_cond_broadcast(&x->changed);
        pthread_mutex_unlock(&x->lock);
    }
}

/* One engine's search of slice sequences first .. first + count - 1,
 * merged into the worker's lists. */
static int search_one(search_state *x, sw_gpu_engine *e, uint64_t first, uint64_t count, lists *r, sw_error *err)
{
    const sw_gpu_parts *p = x->p;
    const size_t top_n = p->c.top_n;
    int rc = SW_OK;
    if (r->sink && (rc = sw_gpu_engine_set_score_sink(e, r->sink, err))) return rc;
    if (p->stop && p->stop(p->stop_user)) return sw_error_set(err, SW_ECANCELED, "the search was cancelled");
    sw_gpu_engine_set_stop(e, p->stop, p->stop_user, NULL);
    sw_gpu_stats st;
    rc = sw_gpu_engine_search_rows(e, x->queries, x->rows, x->lengths, x->num_queries, r->ghits, r->gcounts, &st, err);
    sw_gpu_engine_set_stop(e, NULL, NULL, NULL);
    if (r->sink) sw_gpu_engine_set_score_sink(e, NULL, NULL);
    if (rc) return rc;
    sw_gpu_parts_add_stats(&r->stats, &st, !r->searches++);
    const uint64_t total = sw_db_num_seqs(p->c.db);
    for (size_t q = 0; q < x->num_queries; q++) {
        const sw_gpu_hit *g = r->ghits + q * top_n;
        for (size_t i = 0; i < r->gcounts[q]; i++) {
            const uint64_t seq = global_seq(p, first + g[i].seq);
            r->part_hits[i] = (sw_hit){g[i].score, seq, sw_db_original_index(p->c.db, seq)};
        }
        const sw_hit *heads[2] = {r->hits + q * top_n, r->part_hits};
        const size_t sizes[2] = {r->counts[q], r->gcounts[q]};
        r->counts[q] = sw_topn_merge_sorted(heads, sizes, 2, top_n, r->merged);
        memcpy(r->hits + q * top_n, r->merged, r->counts[q] * sizeof *r->merged);
        if (r->sink) {
            const sw_slice_run *run = first_run(p, first);
            uint64_t at = first;
            segment g;
            while (next_segment(&run, &at, first + count, &g))
                memcpy(x->scores + q * total + g.global, r->sink + q * count + (g.local - first),
                       g.count * sizeof *r->sink);
        }
    }
    return SW_OK;
}

/* Streaming engine k: its parts, each loaded once filled and searched. */
static void search_turns(search_state *x, int k)
{
    sw_gpu_parts *p = x->p;
    for (size_t i = (size_t)k; i < p->num_parts; i += 2) {
        pthread_mutex_lock(&x->lock);
        while (!x->failed && x->filled <= i) pthread_cond_wait(&x->changed, &x->lock);
        const int stop = x->failed;
        pthread_mutex_unlock(&x->lock);
        if (stop) return;
        sw_error err;
        sw_error_clear(&err);
        int rc = sw_gpu_engine_load_part(p->turn[k], p->parts[i].count, &err);
        if (rc == SW_OK) {
            pthread_mutex_lock(&x->lock);
            x->loaded[i] = 1;
            pthread_cond_broadcast(&x->changed);
            pthread_mutex_unlock(&x->lock);
            rc = search_one(x, p->turn[k], p->parts[i].first, p->parts[i].count, &x->l[TURN0 + k], &err);
        }
        if (rc) {
            fail(x, rc, &err);
            return;
        }
    }
}

static void search_worker(void *arg, int index)
{
    search_state *x = arg;
    if (index == READER) {
        read_parts(x);
    } else if (index == KEPT) {
        if (!x->p->resident) return;
        sw_error err;
        sw_error_clear(&err);
        const int rc = search_one(x, x->p->resident, 0, x->p->kept, &x->l[KEPT], &err);
        if (rc) fail(x, rc, &err);
    } else {
        search_turns(x, index - TURN0);
    }
}

static int lists_alloc(lists *l, size_t num_queries, size_t top_n, uint64_t most, int scores)
{
    memset(l, 0, sizeof *l);
    const size_t room = num_queries * top_n, every = num_queries * most;
    l->hits = malloc((room ? room : 1) * sizeof *l->hits);
    l->counts = calloc(num_queries ? num_queries : 1, sizeof *l->counts);
    l->ghits = malloc((room ? room : 1) * sizeof *l->ghits);
    l->gcounts = malloc((num_queries ? num_queries : 1) * sizeof *l->gcounts);
    l->merged = malloc((top_n ? top_n : 1) * sizeof *l->merged);
    l->part_hits = malloc((top_n ? top_n : 1) * sizeof *l->part_hits);
    if (scores) l->sink = malloc((every ? every : 1) * sizeof *l->sink);
    return l->hits && l->counts && l->ghits && l->gcounts && l->merged && l->part_hits && (!scores || l->sink)
               ? SW_OK
               : SW_ENOMEM;
}

static void lists_free(lists *l)
{
    free(l->hits);
    free(l->counts);
    free(l->ghits);
    free(l->gcounts);
    free(l->merged);
    free(l->part_hits);
    free(l->sink);
}

int sw_gpu_parts_search(sw_gpu_parts *p, const uint8_t *const *queries, const int8_t *const *rows,
                        const size_t *lengths, size_t num_queries, sw_hit *hits, size_t *counts, int32_t *scores,
                        sw_gpu_stats *stats, sw_error *err)
{
    const double t0 = sw_clock_seconds();
    const size_t top_n = p->c.top_n;
    search_state x;
    memset(&x, 0, sizeof x);
    x.p = p;
    x.queries = queries;
    x.rows = rows;
    x.lengths = lengths;
    x.num_queries = num_queries;
    x.scores = scores;
    x.loaded = calloc(p->num_parts ? p->num_parts : 1, 1);
    int rc = x.loaded ? SW_OK : SW_ENOMEM;
    uint64_t most = p->kept;
    for (size_t i = 0; i < p->num_parts; i++) most = p->parts[i].count > most ? p->parts[i].count : most;
    for (int w = KEPT; w < WORKERS && rc == SW_OK; w++) rc = lists_alloc(&x.l[w], num_queries, top_n, most, scores != NULL);
    if (rc) sw_error_set(err, SW_ENOMEM, "out of memory searching a streamed database");
    pthread_mutex_init(&x.lock, NULL);
    pthread_cond_init(&x.changed, NULL);
    if (rc == SW_OK) {
        sw_pool *pool = NULL;
        int started = 0;
        sw_pool_start(WORKERS, search_worker, &x, &pool, &started);
        if (started < WORKERS && p->num_parts) {
            /* The workers wait for one another: all or none. */
            sw_error e;
            sw_error_set(&e, SW_ENOMEM, "no threads to search the parts of the database");
            fail(&x, SW_ENOMEM, &e);
        } else {
            for (int w = started; w < WORKERS; w++) search_worker(&x, w);
        }
        sw_pool_join(pool);
        if (x.failed) {
            rc = x.rc;
            *err = x.err;
        }
    }
    if (rc == SW_OK) {
        for (size_t q = 0; q < num_queries; q++) {
            const sw_hit *heads[3];
            size_t sizes[3];
            for (int w = KEPT; w < WORKERS; w++) {
                heads[w - KEPT] = x.l[w].hits + q * top_n;
                sizes[w - KEPT] = x.l[w].counts[q];
            }
            counts[q] = sw_topn_merge_sorted(heads, sizes, 3, top_n, hits + q * top_n);
        }
        if (stats) {
            memset(stats, 0, sizeof *stats);
            int first = 1;
            for (int w = KEPT; w < WORKERS; w++)
                if (x.l[w].searches) {
                    sw_gpu_parts_add_stats(stats, &x.l[w].stats, first);
                    first = 0;
                }
            stats->total_seconds = sw_clock_seconds() - t0;
        }
    }
    pthread_mutex_destroy(&x.lock);
    pthread_cond_destroy(&x.changed);
    for (int w = KEPT; w < WORKERS; w++) lists_free(&x.l[w]);
    free(x.loaded);
    return rc;
}
