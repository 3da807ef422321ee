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
    uint64_t kept, kept_residues; /* the slice's first sequences, on the GPU */
    sw_gpu_engine *resident;      /* holds them; NULL when none fit */
    sw_gpu_engine *turn[2];       /* the streamed parts, taking turns */
    part *parts;
    size_t num_parts;
    const uint8_t *residues; /* the decoded database, or NULL: read the file */
};

/* The shares of the slice's memory: a quarter for each streaming engine
 * (its part, its per-sequence arrays and its working reserve), the rest
 * for the kept part. */
static size_t turn_budget(size_t budget) { return budget / 4; }

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
    const size_t tb = turn_budget(budget), rb = budget - 2 * tb;
    /* The kept part: the whole slice where it fits, else the longest run of
     * first sequences that fits beside the streaming engines. */
    uint64_t kept = 0, kept_res = 0;
    for (uint64_t s = 0; s < n; s++) kept_res += len[s];
    const int whole = sw_gpu_engine_fits(n, kept_res, budget);
    if (whole) kept = n;
    else kept_res = 0;
    while (!whole && kept < n && sw_gpu_engine_fits(kept + 1, kept_res + len[kept], rb)) kept_res += len[kept++];
    p->kept = kept;
    p->kept_residues = kept_res;
    /* The streamed parts: as many sequences as fit a streaming engine, at
     * least one. */
    size_t cap = 16;
    p->parts = malloc(cap * sizeof *p->parts);
    uint64_t max_seqs = 0, max_res = 0;
    uint32_t longest = 0;
    int rc = p->parts ? SW_OK : SW_ENOMEM;
    for (uint64_t s = kept; s < n && rc == SW_OK;) {
        part q = {s, 0, 0};
        while (s < n && (q.count == 0 || sw_gpu_engine_fits(q.count + 1, q.residues + len[s], tb))) {
            q.residues += len[s++];
            q.count++;
        }
        if (p->num_parts == cap) {
            part *more = realloc(p->parts, 2 * cap * sizeof *more);
            if (!more) {
                rc = SW_ENOMEM;
                break;
            }
            p->parts = more;
            cap *= 2;
        }
        p->parts[p->num_parts++] = q;
        if (q.count > max_seqs) max_seqs = q.count;
        if (q.residues > max_res) max_res = q.residues;
        if (len[s - 1] > longest) longest = len[s - 1];
    }
    if (rc == SW_ENOMEM) sw_error_set(err, SW_ENOMEM, "out of memory planning the streamed parts");
    sw_gpu_engine_options opt = c->engine;
    opt.device_share = 0;
    if (rc == SW_OK && kept) {
        opt.max_device_bytes = whole ? budget : rb;
        rc = sw_gpu_engine_create(c->device, c->scoring, c->top_n, &opt, &p->resident, err);
    }
    for (int k = 0; k < 2 && rc == SW_OK && p->num_parts; k++) {
        opt.max_device_bytes = tb;
        rc = sw_gpu_engine_create(c->device, c->scoring, c->top_n, &opt, &p->turn[k], err);
        if (rc == SW_OK) rc = sw_gpu_engine_reserve_parts(p->turn[k], max_seqs, max_res, longest, err);
    }
    if (rc) {
        sw_gpu_parts_free(p);
        return rc;
    }
    *out = p;
    return SW_OK;
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

uint64_t sw_gpu_parts_kept(const sw_gpu_parts *p) { return p->kept; }
size_t sw_gpu_parts_count(const sw_gpu_parts *p) { return p->num_parts; }

/* The residues of slice sequences first .. first + count - 1 into dst, a
 * run of the database at a time: from the decoded database, or decoded
 * from the file's chunks. */
static int read_range(const sw_gpu_parts *p, uint64_t first, uint64_t count, uint8_t *dst, sw_error *err)
{
    size_t nr;
    const sw_slice_run *runs = sw_slice_runs(p->c.slicing, p->c.slice, &nr);
    const uint32_t *all = sw_db_lengths(p->c.db);
    const uint64_t end = first + count;
    uint64_t at = 0;
    for (size_t r = 0; r < nr; r++) {
        const uint64_t lo = runs[r].local > first ? runs[r].local : first;
        const uint64_t hi = runs[r].local + runs[r].count < end ? runs[r].local + runs[r].count : end;
        if (lo >= hi) continue;
        const uint64_t g = runs[r].first + (lo - runs[r].local);
        uint64_t bytes = 0;
        for (uint64_t s = g; s < g + (hi - lo); s++) bytes += all[s];
        if (p->residues) {
            uint64_t from = runs[r].residue;
            for (uint64_t s = runs[r].first; s < g; s++) from += all[s];
            memcpy(dst + at, p->residues + from, bytes);
        } else {
            int rc = sw_db_read_range(p->c.db, g, hi - lo, dst + at, p->c.threads, err);
            if (rc) return rc;
        }
        at += bytes;
    }
    return SW_OK;
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
    for (uint64_t s = 0; rc == SW_OK && s < p->kept; s++)
        tiebreak[s] = (uint32_t)sw_db_original_index(p->c.db, global_seq(p, s));
    if (rc == SW_OK)
        rc = sw_gpu_engine_set_db_from(p->resident, next_kept_piece, &k, p->c.lengths, tiebreak, p->kept, err);
    free(k.buf);
    free(tiebreak);
    return rc;
}

/* The reader of a search: fills the streamed parts into the engines'
 * buffers in turn, part i once part i - 2, which the same buffer held, has
 * been loaded (its upload then done, sw_gpu_engine_part_buffer waits). */
typedef struct reader {
    sw_gpu_parts *p;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t filled, loaded; /* parts filled, parts loaded */
    int stop;              /* the search gave up */
    int rc;
    sw_error err;
} reader;

static void read_parts(void *arg, int index)
{
    (void)index;
    reader *x = arg;
    sw_gpu_parts *p = x->p;
    for (size_t i = 0; i < p->num_parts; i++) {
        pthread_mutex_lock(&x->lock);
        while (!x->stop && i >= 2 && x->loaded < i - 1) pthread_cond_wait(&x->changed, &x->lock);
        const int stop = x->stop;
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
            for (uint64_t s = 0; s < q->count; s++)
                tb[s] = (uint32_t)sw_db_original_index(p->c.db, global_seq(p, q->first + s));
            rc = read_range(p, q->first, q->count, res, &err);
        }
        pthread_mutex_lock(&x->lock);
        if (rc) {
            x->rc = rc;
            x->err = err;
        } else {
            x->filled = i + 1;
        }
        pthread_cond_broadcast(&x->changed);
        pthread_mutex_unlock(&x->lock);
        if (rc) return;
    }
}

/* Waits until part i is filled; SW_OK, or the reader's failure. */
static int wait_filled(reader *x, size_t i, sw_error *err)
{
    pthread_mutex_lock(&x->lock);
    while (!x->rc && x->filled <= i) pthread_cond_wait(&x->changed, &x->lock);
    const int rc = x->rc;
    if (rc) *err = x->err;
    pthread_mutex_unlock(&x->lock);
    return rc;
}

static void set_loaded(reader *x, size_t loaded)
{
    pthread_mutex_lock(&x->lock);
    x->loaded = loaded;
    pthread_cond_broadcast(&x->changed);
    pthread_mutex_unlock(&x->lock);
}

/* One engine's search of slice sequences first .. first + count - 1,
 * merged into the running lists. */
typedef struct running {
    const uint8_t *const *queries;
    const size_t *lengths;
    size_t num_queries;
    sw_hit *hits;
    size_t *counts;
    int32_t *scores;
    sw_gpu_hit *ghits;
    size_t *gcounts;
    int32_t *sink; /* num_queries x the most sequences of a search, or NULL */
    sw_hit *merged, *part_hits;
    sw_gpu_stats stats;
    int searches;
} running;

static int search_one(sw_gpu_parts *p, sw_gpu_engine *e, uint64_t first, uint64_t count, running *r,
                      sw_error *err)
{
    const size_t top_n = p->c.top_n;
    int rc = SW_OK;
    if (r->sink && (rc = sw_gpu_engine_set_score_sink(e, r->sink, err))) return rc;
    sw_gpu_stats st;
    rc = sw_gpu_engine_search(e, r->queries, r->lengths, r->num_queries, r->ghits, r->gcounts, &st, err);
    if (r->sink) sw_gpu_engine_set_score_sink(e, NULL, NULL);
    if (rc) return rc;
    if (!r->searches++) {
        r->stats = st;
    } else {
        r->stats.kernel_seconds += st.kernel_seconds;
        r->stats.transfer_seconds += st.transfer_seconds;
        r->stats.cells += st.cells;
        r->stats.recomputed += st.recomputed;
        r->stats.batches += st.batches;
    }
    const uint64_t total = sw_db_num_seqs(p->c.db);
    for (size_t q = 0; q < r->num_queries; q++) {
        const sw_gpu_hit *g = r->ghits + q * top_n;
        for (size_t i = 0; i < r->gcounts[q]; i++) {
            const uint64_t seq = global_seq(p, first + g[i].seq);
            r->part_hits[i] = (sw_hit){g[i].score, seq, sw_db_original_index(p->c.db, seq)};
        }
        const sw_hit *lists[2] = {r->hits + q * top_n, r->part_hits};
        const size_t sizes[2] = {r->counts[q], r->gcounts[q]};
        r->counts[q] = sw_topn_merge_sorted(lists, sizes, 2, top_n, r->merged);
        memcpy(r->hits + q * top_n, r->merged, r->counts[q] * sizeof *r->merged);
        if (r->sink)
            for (uint64_t s = 0; s < count; s++) r->scores[q * total + global_seq(p, first + s)] = r->sink[q * count + s];
    }
    return SW_OK;
}

int sw_gpu_parts_search(sw_gpu_parts *p, const uint8_t *const *queries, const size_t *lengths, size_t num_queries,
                        sw_hit *hits, size_t *counts, int32_t *scores, sw_gpu_stats *stats, sw_error *err)
{
    const double t0 = sw_clock_seconds();
    const size_t top_n = p->c.top_n;
    running r;
    memset(&r, 0, sizeof r);
    r.queries = queries;
    r.lengths = lengths;
    r.num_queries = num_queries;
    r.hits = hits;
    r.counts = counts;
    r.scores = scores;
    for (size_t q = 0; q < num_queries; q++) counts[q] = 0;
    uint64_t most = p->kept;
    for (size_t i = 0; i < p->num_parts; i++) most = p->parts[i].count > most ? p->parts[i].count : most;
    const size_t room = num_queries * top_n;
    r.ghits = malloc((room ? room : 1) * sizeof *r.ghits);
    r.gcounts = malloc((num_queries ? num_queries : 1) * sizeof *r.gcounts);
    r.merged = malloc((top_n ? top_n : 1) * sizeof *r.merged);
    r.part_hits = malloc((top_n ? top_n : 1) * sizeof *r.part_hits);
    const size_t every = num_queries * most;
    if (scores) r.sink = malloc((every ? every : 1) * sizeof *r.sink);
    int rc = r.ghits && r.gcounts && r.merged && r.part_hits && (!scores || r.sink)
                 ? SW_OK
                 : sw_error_set(err, SW_ENOMEM, "out of memory searching a streamed database");
    reader x;
    memset(&x, 0, sizeof x);
    x.p = p;
    pthread_mutex_init(&x.lock, NULL);
    pthread_cond_init(&x.changed, NULL);
    sw_pool *pool = NULL;
    int started = 0;
    if (rc == SW_OK && p->num_parts) {
        sw_pool_start(1, read_parts, &x, &pool, &started);
        if (!started) rc = sw_error_set(err, SW_ENOMEM, "no thread to read the parts of the database");
    }
    /* The kept part while the first parts are read. */
    if (rc == SW_OK && p->resident) rc = search_one(p, p->resident, 0, p->kept, &r, err);
    for (size_t i = 0; rc == SW_OK && i < p->num_parts; i++) {
        /* Part i + 1 is uploaded while part i is searched. */
        for (size_t k = i ? i + 1 : 0; rc == SW_OK && k <= i + 1 && k < p->num_parts; k++) {
            if ((rc = wait_filled(&x, k, err))) break;
            if ((rc = sw_gpu_engine_load_part(p->turn[k & 1], p->parts[k].count, err))) break;
            set_loaded(&x, k + 1);
        }
        if (rc == SW_OK) rc = search_one(p, p->turn[i & 1], p->parts[i].first, p->parts[i].count, &r, err);
    }
    pthread_mutex_lock(&x.lock);
    x.stop = 1;
    pthread_cond_broadcast(&x.changed);
    pthread_mutex_unlock(&x.lock);
    sw_pool_join(pool);
    pthread_mutex_destroy(&x.lock);
    pthread_cond_destroy(&x.changed);
    free(r.ghits);
    free(r.gcounts);
    free(r.merged);
    free(r.part_hits);
    free(r.sink);
    if (rc == SW_OK && stats) {
        *stats = r.stats;
        stats->total_seconds = sw_clock_seconds() - t0;
    }
    return rc;
}
