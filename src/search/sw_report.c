/* The batched search and its report. A batch of queries is searched; then
 * its queries are taken in groups small enough that their hits' headers,
 * subjects and alignments fit in memory, and each group's hits get
 * statistics, are filtered by E-value, aligned on all cores and written. */
#include "sw_report.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sw_clock.h"
#include "sw_cpu_simd.h"
#include "sw_pool.h"
#include "sw_resident.h"
#include "sw_traceback.h"

/* A group ends once it holds this many hits (a query is never split). */
#define GROUP_HITS 65536

typedef struct kept_hit {
    sw_hit hit;
    double evalue, bits;
    char *header;
    uint8_t *residues; /* the subject, when alignments are needed */
    int borrowed;      /* residues point into the decoded database */
    sw_alignment alignment;
} kept_hit;

/* BLAST's order: E-value, then score, then the database's input order. */
static int by_evalue(const void *pa, const void *pb)
{
    const kept_hit *a = pa, *b = pb;
    if (a->evalue != b->evalue) return a->evalue < b->evalue ? -1 : 1;
    if (a->hit.score != b->hit.score) return a->hit.score > b->hit.score ? -1 : 1;
    return a->hit.original < b->hit.original ? -1 : a->hit.original > b->hit.original;
}

/* Where alignments find their subjects, shared by the requests of a scan:
 * where each sequence starts in the decoded database, and the decoded
 * database when the GPU engine handed it over or a resident copy holds it
 * (else NULL: subjects are read from the database files). */
typedef struct subjects {
    uint64_t *offsets;
    uint8_t *residues;
} subjects;

/* Everything one request's report needs besides its queries and results. */
typedef struct report_ctx {
    FILE *out;
    const sw_db *db;
    const sw_scoring *scoring;
    const sw_search_options *options; /* the scan's: threads */
    const sw_report_options *report;
    size_t top_n; /* the request's own (a shared scan keeps the most of all) */
    int with_stats, with_alignment, with_sequences;
    const sw_stats_params *params; /* published parameters, or NULL: fit */
    sw_report_summary *summary;
    const subjects *subj; /* with alignments */
} report_ctx;

/* One query's hits on their way out: statistics, filtered and sorted
 * (`ready`), then subjects read and aligned (`aligned`). */
typedef struct query_report {
    const report_ctx *r; /* its request's */
    int ready, aligned;
    kept_hit *kept;
    size_t n;
    sw_stats *stats;
    /* Done ahead, while the search went on (see `ahead` below). */
    int ahead;       /* queued */
    int ahead_done;  /* nothing of it left to run (check ahead_rc) */
    int ahead_rc;
    sw_error ahead_err;
    size_t pending;  /* alignments not yet done */
    sw_simd_profile *profile, *reversed;
} query_report;

/* Statistics, E-value filter and BLAST's order for query q's hits. */
static int prepare_query(const report_ctx *r, const sw_query_set *batch, size_t q, const sw_hit *hits,
                         size_t count, const int32_t *scores, query_report *qr, sw_error *err)
{
    size_t qlen;
    sw_queries_residues(batch, q, &qlen);
    if (count > r->top_n) count = r->top_n; /* a shared scan kept the most that any request asked for */
    qr->kept = calloc(count ? count : 1, sizeof *qr->kept);
    if (!qr->kept) return sw_error_set(err, SW_ENOMEM, "out of memory reporting hits");
    int rc = SW_OK;
    if (r->with_stats) {
        if (r->params) {
            rc = sw_stats_from_params(r->params, qlen, sw_db_num_residues(r->db), sw_db_num_seqs(r->db),
                                      &qr->stats, err);
        } else if (!scores) {
            rc = sw_error_set(err, SW_EINVAL, "fitted statistics need every score");
        } else {
            rc = sw_stats_fit(scores, sw_db_lengths(r->db), sw_db_num_seqs(r->db), qlen,
                              sw_db_num_residues(r->db), &qr->stats, err);
        }
        if (rc) return rc;
    }
    const uint32_t *lengths = sw_db_lengths(r->db);
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        kept_hit *k = &qr->kept[n];
        k->hit = hits[i];
        if (r->with_stats) {
            k->evalue = sw_stats_evalue(qr->stats, hits[i].score, lengths[hits[i].seq]);
            k->bits = sw_stats_bit_score(qr->stats, hits[i].score);
            if (!(k->evalue <= r->report->max_evalue)) continue;
        }
        n++;
    }
    if (r->with_stats) qsort(qr->kept, n, sizeof *qr->kept, by_evalue);
    if (n < count) { /* the filtered-out hits' room goes back */
        kept_hit *fewer = realloc(qr->kept, (n ? n : 1) * sizeof *qr->kept);
        if (fewer) qr->kept = fewer;
    }
    qr->n = n;
    qr->ready = 1;
    return SW_OK;
}

/* The scoring of query q: the search's, with the query's own rows when it
 * is a PSSM. */
static sw_scoring query_scoring(const sw_scoring *scoring, const sw_query_set *batch, size_t q)
{
    sw_scoring own = *scoring;
    own.rows = sw_queries_rows(batch, q);
    return own;
}

/* Profiles of query q and of its reverse, for the alignment passes. */
static int query_profiles(const sw_query_set *batch, size_t q, const sw_scoring *scoring, query_report *qr,
                          sw_error *err)
{
    size_t qlen;
    const uint8_t *query = sw_queries_residues(batch, q, &qlen);
    uint8_t *backwards = malloc(qlen ? qlen : 1);
    int rc = backwards ? SW_OK : SW_ENOMEM;
    for (size_t i = 0; rc == SW_OK && i < qlen; i++) backwards[i] = query[qlen - 1 - i];
    /* A PSSM query's rows, and reversed for the reversed pass. */
    const sw_scoring own = query_scoring(scoring, batch, q);
    sw_scoring reversed = own;
    int8_t *rows_back = NULL;
    if (rc == SW_OK && own.rows) {
        rows_back = malloc(qlen ? qlen * SW_CODE_LIMIT : 1);
        if (!rows_back) rc = SW_ENOMEM;
        for (size_t i = 0; rows_back && i < qlen; i++)
            memcpy(rows_back + i * SW_CODE_LIMIT, own.rows + (qlen - 1 - i) * SW_CODE_LIMIT, SW_CODE_LIMIT);
        reversed.rows = rows_back;
    }
    if (rc == SW_OK) rc = sw_simd_profile_create(query, qlen, &own, &qr->profile);
    if (rc == SW_OK) rc = sw_simd_profile_create(backwards, qlen, &reversed, &qr->reversed);
    free(backwards);
    free(rows_back);
    if (rc) return sw_error_set(err, rc, "query %s: %s", sw_queries_id(batch, q), sw_strerror(rc));
    return SW_OK;
}

static void free_profiles(query_report *qr)
{
    sw_simd_profile_free(qr->profile);
    sw_simd_profile_free(qr->reversed);
    qr->profile = qr->reversed = NULL;
}

/* What one thread keeps from one alignment to the next. */
typedef struct align_scratch {
    sw_traceback_workspace *traceback;
    sw_simd_workspace *simd;
    uint8_t *reversed; /* the subject up to the end, reversed */
    size_t reversed_cap;
} align_scratch;

static int scratch_create(align_scratch *a)
{
    memset(a, 0, sizeof *a);
    if (sw_traceback_workspace_create(&a->traceback) != SW_OK || sw_simd_workspace_create(&a->simd) != SW_OK)
        return SW_ENOMEM;
    return SW_OK;
}

static void scratch_free(align_scratch *a)
{
    sw_traceback_workspace_free(a->traceback);
    sw_simd_workspace_free(a->simd);
    free(a->reversed);
}

/* Aligns one hit of query q. The striped SIMD engine finds, at full speed,
 * the score and the column where the alignment ends, then, on the reversed
 * query and subject, the leftmost column where a best alignment ending
 * there starts; the traceback fills only the columns between, with a
 * striped pass of its own that keeps each cell's H and source. The
 * alignment must re-score, column by column, to the score that the search
 * found. */
static int align_one(const sw_query_set *batch, size_t q, const query_report *qr, kept_hit *k,
                     const sw_db *db, const sw_scoring *search_scoring, align_scratch *a, sw_error *e)
{
    const sw_scoring own = query_scoring(search_scoring, batch, q);
    const sw_scoring *scoring = &own;
    size_t qlen;
    const uint8_t *query = sw_queries_residues(batch, q, &qlen);
    const char *id = sw_queries_id(batch, q);
    size_t slen = sw_db_lengths(db)[k->hit.seq];
    size_t end_column = 0;
    int score = sw_simd_align_end(qr->profile, a->simd, k->residues, slen, &end_column);
    int rc;
    if (score == SW_EINVAL) { /* a build without the SIMD engine: the whole matrix */
        rc = sw_traceback_align(a->traceback, query, qlen, k->residues, slen, scoring, &k->alignment, e);
    } else if (score < 0) {
        rc = sw_error_set(e, score, "aligning query %s: %s", id, sw_strerror(score));
    } else if (score != k->hit.score) {
        rc = sw_error_set(e, SW_ECORRUPT,
                          "query %s, database sequence %llu: the search scored %d, the alignment engine %d",
                          id, (unsigned long long)k->hit.seq, k->hit.score, score);
    } else {
        if (end_column > a->reversed_cap) {
            uint8_t *bigger = realloc(a->reversed, end_column);
            if (!bigger) return sw_error_set(e, SW_ENOMEM, "out of memory aligning hits");
            a->reversed = bigger;
            a->reversed_cap = end_column;
        }
        for (size_t j = 0; j < end_column; j++) a->reversed[j] = k->residues[end_column - 1 - j];
        size_t last = 0;
        rc = sw_simd_align_last(qr->reversed, a->simd, a->reversed, end_column, score, &last);
        if (rc != score || last < 1 || last > end_column)
            return sw_error_set(e, SW_ECORRUPT,
                                "query %s, database sequence %llu: the reversed pass scored %d, not %d", id,
                                (unsigned long long)k->hit.seq, rc, score);
        rc = sw_traceback_align_simd(a->traceback, qr->profile, query, qlen, k->residues, slen, scoring, score,
                                     end_column - last + 1, end_column, 0, &k->alignment, e);
    }
    int rescored = 0;
    if (rc == SW_OK)
        rc = sw_alignment_rescore(&k->alignment, query, qlen, k->residues, slen, scoring, &rescored);
    if (rc == SW_OK && (k->alignment.score != k->hit.score || rescored != k->hit.score))
        return sw_error_set(e, SW_ECORRUPT,
                            "query %s, database sequence %llu: the search scored %d, the alignment %d, its "
                            "columns %d",
                            id, (unsigned long long)k->hit.seq, k->hit.score, k->alignment.score, rescored);
    if (rc != SW_OK && !e->message[0])
        sw_error_set(e, rc, "aligning query %s: %s", id, sw_strerror(rc));
    return rc;
}

typedef struct area_index {
    uint64_t area;
    size_t index;
} area_index;

static int by_area_desc(const void *pa, const void *pb)
{
    const area_index *a = pa, *b = pb;
    if (a->area != b->area) return a->area > b->area ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The order in which to align hits: largest matrices first, so that no
 * thread is left with a big one at the end. */
static size_t *largest_first(const size_t *query_lengths, const kept_hit *const *hits, size_t n,
                             const sw_db *db)
{
    area_index *areas = malloc((n ? n : 1) * sizeof *areas);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!areas || !order) {
        free(areas);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        areas[i] = (area_index){(uint64_t)query_lengths[i] * sw_db_lengths(db)[hits[i]->hit.seq], i};
    qsort(areas, n, sizeof *areas, by_area_desc);
    for (size_t i = 0; i < n; i++) order[i] = areas[i].index;
    free(areas);
    return order;
}

/* The hits of a group left to align after the search, on all cores. */
typedef struct align_ctx {
    kept_hit **hits;
    size_t *queries; /* of each hit, in the batch */
    const size_t *order;
    const sw_query_set *batch;
    const query_report *qr; /* indexed by query */
    const sw_db *db;
    const sw_scoring *scoring;
    align_scratch *scratch; /* one a worker */
} align_ctx;

static int align_begin(void *arg, int worker, sw_error *err)
{
    align_ctx *c = arg;
    const int rc = scratch_create(&c->scratch[worker]);
    if (!rc) return SW_OK;
    scratch_free(&c->scratch[worker]);
    return sw_error_set(err, rc, "out of memory aligning hits");
}

static void align_end(void *arg, int worker)
{
    align_ctx *c = arg;
    scratch_free(&c->scratch[worker]);
}

static int align_task(void *arg, int worker, size_t i, sw_error *err)
{
    align_ctx *c = arg;
    const size_t h = c->order[i];
    return align_one(c->batch, c->queries[h], &c->qr[c->queries[h]], c->hits[h], c->db, c->scoring,
                     &c->scratch[worker], err);
}

static int align_hits(kept_hit **hits, size_t *queries, size_t n, const sw_query_set *batch, query_report *qr,
                      const sw_db *db, const sw_scoring *scoring, int threads, sw_error *err)
{
    size_t *lengths = malloc((n ? n : 1) * sizeof *lengths);
    if (!lengths) return sw_error_set(err, SW_ENOMEM, "out of memory aligning hits");
    for (size_t i = 0; i < n; i++) sw_queries_residues(batch, queries[i], &lengths[i]);
    size_t *order = largest_first(lengths, (const kept_hit *const *)hits, n, db);
    free(lengths);
    if (threads <= 0) threads = sw_clock_online_cpus();
    align_scratch *scratch = calloc((size_t)threads, sizeof *scratch);
    if (!order || !scratch) {
        free(order);
        free(scratch);
        return sw_error_set(err, SW_ENOMEM, "out of memory aligning hits");
    }
    align_ctx c = {hits, queries, order, batch, qr, db, scoring, scratch};
    const sw_pool_tasks tasks = {n, align_task, align_begin, align_end};
    const int rc = sw_pool_each(threads, &tasks, &c, NULL, err);
    free(scratch);
    free(order);
    return rc;
}

/* Work done ahead: while the GPU engine goes on with later queries, the
 * hits of each query it has finished get their statistics, subjects and
 * alignments on the other cores, so that little is left once the scan
 * ends. Tasks run first in, first out: a query's preparation, which then
 * queues one task per hit to align, largest first. */
typedef struct ahead_task {
    size_t query;
    size_t hit; /* SIZE_MAX: prepare the query */
    sw_hit *hits;
    size_t count;
    int32_t *scores;
} ahead_task;

typedef struct ahead {
    const sw_query_set *batch;
    query_report *qr;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    ahead_task *tasks;
    size_t head, tail, cap;
    int closed, cancelled;
    size_t accepted_hits, max_hits;
    sw_pool *pool;
    int running;
} ahead;

static int ahead_push(ahead *a, ahead_task t)
{
    if (a->tail == a->cap) {
        if (a->head > 0) {
            memmove(a->tasks, a->tasks + a->head, (a->tail - a->head) * sizeof *a->tasks);
            a->tail -= a->head;
            a->head = 0;
        } else {
            size_t cap = a->cap ? 2 * a->cap : 256;
            ahead_task *bigger = realloc(a->tasks, cap * sizeof *bigger);
            if (!bigger) return SW_ENOMEM;
            a->tasks = bigger;
            a->cap = cap;
        }
    }
    a->tasks[a->tail++] = t;
    return SW_OK;
}

/* The search's thread: queue query q's preparation, if within bounds. */
static void ahead_query_done(void *user, size_t q, const sw_hit *hits, size_t count, const int32_t *scores)
{
    ahead *a = user;
    const report_ctx *r = a->qr[q].r;
    if (count > r->top_n) count = r->top_n;
    pthread_mutex_lock(&a->lock);
    int take = !a->closed && !a->qr[q].ahead && a->accepted_hits + count <= a->max_hits;
    pthread_mutex_unlock(&a->lock);
    if (!take) return;
    ahead_task t = {q, SIZE_MAX, malloc((count ? count : 1) * sizeof *hits), count, NULL};
    uint64_t nseqs = sw_db_num_seqs(r->db);
    if (scores && r->with_stats && !r->params) t.scores = malloc((nseqs ? nseqs : 1) * sizeof *scores);
    if (!t.hits || (scores && r->with_stats && !r->params && !t.scores)) {
        free(t.hits);
        free(t.scores); /* left for after the search */
        return;
    }
    memcpy(t.hits, hits, count * sizeof *hits);
    if (t.scores) memcpy(t.scores, scores, nseqs * sizeof *scores);
    pthread_mutex_lock(&a->lock);
    if (ahead_push(a, t) == SW_OK) {
        a->qr[q].ahead = 1;
        a->accepted_hits += count;
        pthread_cond_signal(&a->work);
        t.hits = NULL;
        t.scores = NULL;
    }
    pthread_mutex_unlock(&a->lock);
    free(t.hits);
    free(t.scores);
}

/* Prepares query t.query: statistics, filter, order, subjects, profiles. */
static int ahead_prepare(ahead *a, const ahead_task *t, sw_error *e)
{
    query_report *qr = &a->qr[t->query];
    const report_ctx *r = qr->r;
    int rc = prepare_query(r, a->batch, t->query, t->hits, t->count, t->scores, qr, e);
    if (rc || !r->with_alignment || qr->n == 0) return rc;
    if (r->subj->residues) {
        for (size_t i = 0; i < qr->n; i++) {
            qr->kept[i].residues = r->subj->residues + r->subj->offsets[qr->kept[i].hit.seq];
            qr->kept[i].borrowed = 1;
        }
        return query_profiles(a->batch, t->query, r->scoring, qr, e);
    }
    uint64_t *seqs = malloc(qr->n * sizeof *seqs);
    uint8_t **subjects = malloc(qr->n * sizeof *subjects);
    if (!seqs || !subjects) rc = sw_error_set(e, SW_ENOMEM, "out of memory reading subjects");
    for (size_t i = 0; rc == SW_OK && i < qr->n; i++) seqs[i] = qr->kept[i].hit.seq;
    if (rc == SW_OK) rc = sw_db_read_sequences(r->db, seqs, qr->n, 1, subjects, e);
    for (size_t i = 0; rc == SW_OK && i < qr->n; i++) qr->kept[i].residues = subjects[i];
    free(seqs);
    free(subjects);
    if (rc == SW_OK) rc = query_profiles(a->batch, t->query, r->scoring, qr, e);
    return rc;
}

static void ahead_fail(query_report *qr, int rc, const sw_error *e)
{
    if (qr->ahead_rc) return;
    qr->ahead_rc = rc;
    qr->ahead_err = *e;
}

static void ahead_worker(void *arg, int index)
{
    (void)index;
    ahead *a = arg;
    align_scratch scratch;
    int scratch_rc = scratch_create(&scratch);
    pthread_mutex_lock(&a->lock);
    for (;;) {
        while (a->head == a->tail && !a->closed) pthread_cond_wait(&a->work, &a->lock);
        if (a->head == a->tail) break;
        ahead_task t = a->tasks[a->head++];
        query_report *qr = &a->qr[t.query];
        int skip = a->cancelled || qr->ahead_rc;
        pthread_mutex_unlock(&a->lock);
        sw_error e;
        sw_error_clear(&e);
        int rc = SW_OK;
        if (t.hit == SIZE_MAX) {
            if (!skip) rc = ahead_prepare(a, &t, &e);
            free(t.hits);
            free(t.scores);
            pthread_mutex_lock(&a->lock);
            /* The bound is on hits held until written: once the E-value
             * filter has run, only the kept ones count. */
            if (!skip && !rc && qr->n < t.count) a->accepted_hits -= t.count - qr->n;
            if (skip || rc) {
                if (rc) ahead_fail(qr, rc, &e);
                else ahead_fail(qr, SW_EINVAL, &(sw_error){.code = SW_EINVAL, .message = "cancelled"});
                qr->ahead_done = 1;
                pthread_cond_broadcast(&a->done);
            } else if (!qr->r->with_alignment || qr->n == 0) {
                qr->aligned = 1;
                qr->ahead_done = 1;
                pthread_cond_broadcast(&a->done);
            } else {
                size_t qlen;
                sw_queries_residues(a->batch, t.query, &qlen);
                const kept_hit **hits = malloc(qr->n * sizeof *hits);
                size_t *lengths = malloc(qr->n * sizeof *lengths);
                size_t *order = NULL;
                if (hits && lengths) {
                    for (size_t i = 0; i < qr->n; i++) {
                        hits[i] = &qr->kept[i];
                        lengths[i] = qlen;
                    }
                    order = largest_first(lengths, hits, qr->n, qr->r->db);
                }
                for (size_t i = 0; order && i < qr->n; i++) {
                    if (ahead_push(a, (ahead_task){t.query, order[i], NULL, 0, NULL})) break;
                    qr->pending++;
                }
                if (!order || qr->pending < qr->n) {
                    /* Out of memory: what was queued runs; the query fails. */
                    ahead_fail(qr, SW_ENOMEM, &(sw_error){.code = SW_ENOMEM, .message = "out of memory aligning hits"});
                    if (qr->pending == 0) {
                        qr->ahead_done = 1;
                        pthread_cond_broadcast(&a->done);
                    }
                }
                free(hits);
                free(lengths);
                free(order);
                pthread_cond_broadcast(&a->work);
            }
        } else {
            if (!skip) {
                rc = scratch_rc ? sw_error_set(&e, SW_ENOMEM, "out of memory aligning hits")
                                : align_one(a->batch, t.query, qr, &qr->kept[t.hit], qr->r->db, qr->r->scoring,
                                            &scratch, &e);
            }
            pthread_mutex_lock(&a->lock);
            if (rc) ahead_fail(qr, rc, &e);
            if (--qr->pending == 0) {
                if (!qr->ahead_rc) qr->aligned = 1;
                free_profiles(qr);
                qr->ahead_done = 1;
                pthread_cond_broadcast(&a->done);
            }
        }
        /* Locked again, as the loop expects. */
    }
    pthread_mutex_unlock(&a->lock);
    scratch_free(&scratch);
}

static int ahead_start(ahead *a, const sw_query_set *batch, query_report *qr, int threads, size_t max_hits)
{
    memset(a, 0, sizeof *a);
    a->max_hits = max_hits;
    a->batch = batch;
    a->qr = qr;
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->work, NULL);
    pthread_cond_init(&a->done, NULL);
    /* One core is left to the thread that drives the GPU. */
    if (threads <= 0) threads = sw_clock_online_cpus();
    int workers = threads > 1 ? threads - 1 : 1;
    int started = 0;
    sw_pool_start(workers, ahead_worker, a, &a->pool, &started);
    a->running = started > 0;
    return a->running ? SW_OK : SW_ENOMEM;
}

/* Waits until query q's work ahead, if any, is done. */
static void ahead_wait(ahead *a, size_t q)
{
    if (!a || !a->running) return;
    pthread_mutex_lock(&a->lock);
    while (a->qr[q].ahead && !a->qr[q].ahead_done) pthread_cond_wait(&a->done, &a->lock);
    pthread_mutex_unlock(&a->lock);
}

/* Stops taking work, lets the queue drain (skipping it when cancelled)
 * and joins the workers. */
static void ahead_stop(ahead *a, int cancel)
{
    pthread_mutex_lock(&a->lock);
    a->closed = 1;
    if (cancel) a->cancelled = 1;
    pthread_cond_broadcast(&a->work);
    pthread_mutex_unlock(&a->lock);
    sw_pool_join(a->pool);
    a->pool = NULL;
    a->running = 0;
    for (size_t i = a->head; i < a->tail; i++) { /* none are left once joined; for safety */
        free(a->tasks[i].hits);
        free(a->tasks[i].scores);
    }
    free(a->tasks);
    a->tasks = NULL;
    pthread_mutex_destroy(&a->lock);
    pthread_cond_destroy(&a->work);
    pthread_cond_destroy(&a->done);
}

static void query_report_clear(query_report *qr)
{
    for (size_t i = 0; i < qr->n; i++) {
        free(qr->kept[i].header);
        if (!qr->kept[i].borrowed) free(qr->kept[i].residues);
        sw_alignment_clear(&qr->kept[i].alignment);
    }
    free(qr->kept);
    sw_stats_free(qr->stats);
    free_profiles(qr);
    const report_ctx *r = qr->r;
    memset(qr, 0, sizeof *qr);
    qr->r = r;
}

/* Reports queries [first, end) of a batch: whatever was not done ahead is
 * prepared and aligned here, on all cores; then headers are read and the
 * hits written. */
static int report_group(const report_ctx *r, const sw_query_set *batch, const sw_search_results *res,
                        query_report *qr, ahead *a, size_t first, size_t end, sw_error *err)
{
    int rc = SW_OK;
    size_t total = 0, todo = 0;
    double t0 = sw_clock_seconds();
    for (size_t q = first; q < end; q++) {
        ahead_wait(a, q);
        if (qr[q].ahead && qr[q].ahead_rc) {
            if (err) *err = qr[q].ahead_err;
            return qr[q].ahead_rc;
        }
        if (!qr[q].ready &&
            (rc = prepare_query(r, batch, q, sw_results_hits(res, q), sw_results_count(res, q),
                                sw_results_all_scores(res, q), &qr[q], err)))
            return rc;
        total += qr[q].n;
        if (r->with_alignment && !qr[q].aligned) todo += qr[q].n;
    }
    if (r->with_stats && !r->summary->statistics[0] && end > first)
        snprintf(r->summary->statistics, sizeof r->summary->statistics, "%s", sw_stats_describe(qr[first].stats));

    uint64_t *seqs = malloc((total ? total : 1) * sizeof *seqs);
    char **headers = calloc(total ? total : 1, sizeof *headers);
    kept_hit **hits = malloc((todo ? todo : 1) * sizeof *hits);
    size_t *queries = malloc((todo ? todo : 1) * sizeof *queries);
    uint8_t **subjects = calloc(todo ? todo : 1, sizeof *subjects);
    sw_outfmt_hit *lines = NULL;
    if (!seqs || !headers || !hits || !queries || !subjects) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory reporting hits");
        goto done;
    }
    if (todo) {
        double tr = sw_clock_seconds();
        size_t k = 0;
        for (size_t q = first; q < end; q++) {
            if (qr[q].aligned) continue;
            for (size_t i = 0; i < qr[q].n; i++) {
                hits[k] = &qr[q].kept[i];
                queries[k] = q;
                seqs[k++] = qr[q].kept[i].hit.seq;
            }
        }
        if (r->subj->residues) {
            for (size_t i = 0; i < todo; i++) {
                hits[i]->residues = r->subj->residues + r->subj->offsets[seqs[i]];
                hits[i]->borrowed = 1;
            }
        } else {
            if ((rc = sw_db_read_sequences(r->db, seqs, todo, r->options->threads, subjects, err))) goto done;
            for (size_t i = 0; i < todo; i++) hits[i]->residues = subjects[i];
        }
        r->summary->read_seconds += sw_clock_seconds() - tr;
        for (size_t q = first; q < end && rc == SW_OK; q++)
            if (!qr[q].aligned && qr[q].n) rc = query_profiles(batch, q, r->scoring, &qr[q], err);
        if (rc == SW_OK)
            rc = align_hits(hits, queries, todo, batch, qr, r->db, r->scoring, r->options->threads, err);
        for (size_t q = first; q < end; q++) {
            free_profiles(&qr[q]);
            if (rc == SW_OK) qr[q].aligned = 1;
        }
        if (rc) goto done;
    }
    if (r->with_alignment) {
        r->summary->align_seconds += sw_clock_seconds() - t0;
        r->summary->alignments += total;
        r->summary->aligned_ahead += total - todo;
    }

    size_t k = 0;
    for (size_t q = first; q < end; q++)
        for (size_t i = 0; i < qr[q].n; i++) seqs[k++] = qr[q].kept[i].hit.seq;
    if ((rc = sw_db_read_headers(r->db, seqs, total, headers, err))) goto done;
    k = 0;
    for (size_t q = first; q < end; q++)
        for (size_t i = 0; i < qr[q].n; i++) qr[q].kept[i].header = headers[k++];

    size_t most = 0;
    for (size_t q = first; q < end; q++) most = qr[q].n > most ? qr[q].n : most;
    lines = calloc(most ? most : 1, sizeof *lines);
    if (!lines) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory reporting hits");
        goto done;
    }
    const uint32_t *lengths = sw_db_lengths(r->db);
    for (size_t q = first; q < end; q++) {
        for (size_t i = 0; i < qr[q].n; i++) {
            const kept_hit *h = &qr[q].kept[i];
            lines[i] = (sw_outfmt_hit){
                .score = h->hit.score,
                .bits = h->bits,
                .evalue = h->evalue,
                .header = h->header,
                .length = lengths[h->hit.seq],
                .residues = r->with_sequences ? h->residues : NULL,
                .alignment = r->with_alignment ? &h->alignment : NULL,
                .seq = h->hit.seq,
            };
        }
        size_t qlen;
        const uint8_t *residues = sw_queries_residues(batch, q, &qlen);
        const char *id = sw_queries_id(batch, q), *desc = sw_queries_description(batch, q);
        size_t hl = strlen(id) + strlen(desc) + 2;
        char *header = malloc(hl);
        if (!header) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory reporting hits");
            goto done;
        }
        snprintf(header, hl, desc[0] ? "%s %s" : "%s%s", id, desc);
        sw_outfmt_query query = {
            .header = header,
            .length = qlen,
            .residues = residues,
            .stats = r->with_stats ? sw_stats_describe(qr[q].stats) : "",
            .rows = sw_queries_rows(batch, q),
        };
        rc = r->report->sink ? r->report->sink(r->report->sink_user, &query, lines, qr[q].n, err)
                             : sw_outfmt_write_query(r->out, r->report->format, &r->report->run, &query, lines,
                                                     qr[q].n, err);
        if (rc == SW_OK && r->report->tap) rc = r->report->tap(r->report->tap_user, &query, lines, qr[q].n, err);
        free(header);
        if (rc) goto done;
        r->summary->hits += qr[q].n;
    }
    if (r->out && ferror(r->out)) rc = sw_error_set(err, SW_EIO, "error writing results");

done:
    for (size_t q = first; q < end; q++) query_report_clear(&qr[q]);
    free(seqs);
    free(headers);
    free(hits);
    free(queries);
    free(subjects);
    free(lines);
    return rc;
}


/* The hits of query q that its request reports: a shared scan keeps the
 * most that any request asked for. */
static size_t own_count(const query_report *qr, const sw_search_results *res, size_t q)
{
    const size_t n = sw_results_count(res, q);
    return n < qr[q].r->top_n ? n : qr[q].r->top_n;
}

/* Reports queries [first, end) of a batch, all of one request, in groups
 * whose hits fit in memory. */
static int report_range(const report_ctx *r, const sw_query_set *batch, const sw_search_results *res,
                        query_report *qr, ahead *a, size_t first, size_t end, sw_error *err)
{
    for (size_t at = first; at < end;) {
        size_t stop = at, hits = 0;
        while (stop < end && (stop == at || hits + own_count(qr, res, stop) <= GROUP_HITS))
            hits += own_count(qr, res, stop++);
        int rc = report_group(r, batch, res, qr, a, at, stop, err);
        if (rc) return rc;
        at = stop;
    }
    return SW_OK;
}

/* Progress over the whole query file: a batch covers the part of the file
 * read for it, so the fraction grows across batches instead of restarting. */
typedef struct batch_progress {
    const sw_search_options *user;
    double first, last; /* fraction of the file read before and after the batch; -1: unknown */
} batch_progress;

static void draw_batch_progress(void *arg, uint64_t done, uint64_t total)
{
    const batch_progress *p = arg;
    if (p->first < 0) {
        p->user->progress(p->user->progress_user, done, total);
        return;
    }
    const double scale = 1e9;
    double frac = p->first + (p->last - p->first) * (total ? (double)done / (double)total : 1.0);
    p->user->progress(p->user->progress_user, (uint64_t)(frac * scale), (uint64_t)scale);
}

static void add_stats(sw_search_stats *sum, const sw_search_stats *batch, int first)
{
    if (first) {
        *sum = *batch;
        return;
    }
    sum->load_seconds += batch->load_seconds;
    sum->gpu_plan_seconds += batch->gpu_plan_seconds;
    sum->gpu_start_seconds += batch->gpu_start_seconds;
    sum->decode_seconds += batch->decode_seconds;
    sum->decode_wait_seconds += batch->decode_wait_seconds;
    sum->upload_seconds += batch->upload_seconds;
    sum->scan_seconds += batch->scan_seconds;
    sum->transfer_seconds += batch->transfer_seconds;
    sum->cells += batch->cells;
    sum->recomputed += batch->recomputed;
}

/* Which statistics apply: published parameters (*params filled, *use_table
 * set) or a fit; an error where the user asked for a table that NCBI does
 * not publish. */
static int choose_stats(const sw_report_options *report, const sw_scoring *scoring,
                        sw_stats_params *params, int *use_table, sw_error *err)
{
    *use_table = 0;
    if (report->stats == SW_STATS_FIT) return SW_OK;
    int found = report->matrix_name &&
                sw_stats_lookup(report->matrix_name, scoring->gap_open, scoring->gap_extend, params) ==
                    SW_OK;
    if (found) {
        *use_table = 1;
        return SW_OK;
    }
    if (report->stats == SW_STATS_TABLE) {
        if (!report->matrix_name)
            return sw_error_set(err, SW_ENOTFOUND,
                                "--stats table: published statistics exist only for a shipped "
                                "matrix given by name (for example BLOSUM62), not for the file %s; "
                                "use --stats fit",
                                report->run.matrix ? report->run.matrix : "given");
        return sw_error_set(err, SW_ENOTFOUND,
                            "--stats table: NCBI publishes no statistics for %s with gap open %d "
                            "and extend %d; use --stats fit",
                            report->matrix_name, scoring->gap_open, scoring->gap_extend);
    }
    return SW_OK;
}

/* ---- Scanners and requests ---- */

struct sw_report_scanner {
    const sw_db *db;
    int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
    sw_scoring scoring; /* its table is `table` */
    sw_search_options opt; /* as the first scan left them: the kept threshold, the device */
    sw_search_options user; /* as given: its progress function */
    int peek;
    size_t scans;
    int on_gpu, streamed;
    sw_resident *own_resident;
    subjects subj;
    int offsets_owned;     /* subj.offsets computed here, not the resident copy's */
    int residues_borrowed; /* subj.residues belong to a resident copy */
};

struct sw_report_request {
    FILE *out;
    sw_query_reader *queries;
    sw_report_options report;
    size_t top_n;
    uint64_t max_residues;
    size_t max_queries, ahead_hits;
    void (*note)(void *user, const char *message);
    void *note_user;
    int (*cancelled)(void *user);
    void *cancelled_user;
    report_ctx r;
    sw_stats_params params;
    int keep_all_scores;
    sw_report_summary sum;
    int begun, done, rc;
    sw_error err;
    /* A failure found reading ahead of the batch under way (peeking at
     * the end), told once that batch is written. */
    int later_rc;
    sw_error later_err;
};

int sw_report_scanner_create(const sw_db *db, const sw_scoring *scoring, const sw_search_options *options, int peek,
                             sw_report_scanner **out, sw_error *err)
{
    *out = NULL;
    sw_report_scanner *sc = calloc(1, sizeof *sc);
    if (!sc) return sw_error_set(err, SW_ENOMEM, "out of memory");
    sc->db = db;
    memcpy(sc->table, scoring->table, sizeof sc->table);
    sc->scoring = *scoring;
    sc->scoring.table = sc->table;
    sc->opt = *options;
    sc->user = *options;
    sc->peek = peek;
    /* Subjects from the resident copy when there is one. */
    if (options->resident) {
        sc->subj.residues = (uint8_t *)sw_resident_residues(options->resident);
        sc->subj.offsets = (uint64_t *)sw_resident_offsets(options->resident);
        sc->residues_borrowed = 1;
    }
    *out = sc;
    return SW_OK;
}

void sw_report_scanner_free(sw_report_scanner *sc)
{
    if (!sc) return;
    if (sc->offsets_owned) free(sc->subj.offsets);
    if (!sc->residues_borrowed) free(sc->subj.residues);
    sw_resident_free(sc->own_resident);
    free(sc);
}

int sw_report_request_create(const sw_report_request_config *c, const sw_db *db, const sw_scoring *scoring,
                             sw_report_request **out, sw_error *err)
{
    *out = NULL;
    sw_report_request *q = calloc(1, sizeof *q);
    if (!q) return sw_error_set(err, SW_ENOMEM, "out of memory");
    q->out = c->out;
    q->queries = c->queries;
    q->report = c->report;
    q->top_n = c->top_n;
    q->note = c->note;
    q->note_user = c->note_user;
    q->cancelled = c->cancelled;
    q->cancelled_user = c->cancelled_user;
    report_ctx *r = &q->r;
    r->out = c->out;
    r->db = db;
    r->report = &q->report;
    r->top_n = c->top_n;
    r->summary = &q->sum;
    r->with_stats = sw_outfmt_needs_statistics(c->report.format);
    /* A tap gets every alignment and subject. */
    r->with_alignment = sw_outfmt_needs_alignment(c->report.format) || c->report.tap;
    r->with_sequences = sw_outfmt_needs_sequences(c->report.format) || c->report.tap;
    int use_table = 0;
    if (r->with_stats) {
        int rc = choose_stats(&q->report, scoring, &q->params, &use_table, err);
        if (rc) {
            free(q);
            return rc;
        }
        r->params = use_table ? &q->params : NULL;
    }
    q->keep_all_scores = r->with_stats && !use_table;

    const sw_report_batching *b = c->batching;
    q->max_residues = b && b->max_residues ? b->max_residues : SW_REPORT_BATCH_RESIDUES;
    size_t max_queries = b && b->max_queries ? b->max_queries : 0;
    if (!max_queries) {
        size_t by_hits = SW_REPORT_BATCH_HITS / (c->top_n ? c->top_n : 1);
        max_queries = by_hits < 1                         ? 1
                      : by_hits > SW_REPORT_BATCH_QUERIES ? SW_REPORT_BATCH_QUERIES
                                                          : by_hits;
    }
    if (q->keep_all_scores) {
        uint64_t per_query = 4 * (sw_db_num_seqs(db) ? sw_db_num_seqs(db) : 1);
        uint64_t by_scores = SW_REPORT_BATCH_SCORE_BYTES / per_query;
        if (by_scores < 1) by_scores = 1;
        if (max_queries > by_scores) max_queries = (size_t)by_scores;
    }
    q->max_queries = max_queries;
    q->ahead_hits = b && b->ahead_hits ? b->ahead_hits : SW_REPORT_AHEAD_HITS;
    *out = q;
    return SW_OK;
}

void sw_report_request_free(sw_report_request *q) { free(q); }

int sw_report_request_status(const sw_report_request *q, int *done, sw_error *err)
{
    if (done) *done = q->done;
    if (q->rc && err) *err = q->err;
    return q->rc;
}

const sw_report_summary *sw_report_request_summary(const sw_report_request *q) { return &q->sum; }

static void request_fail(sw_report_request *q, int rc, const sw_error *e)
{
    if (q->done) return;
    q->rc = rc;
    if (e && e->code) q->err = *e;
    else sw_error_set(&q->err, rc, "%s", sw_strerror(rc));
    q->done = 1;
}

/* Every query answered: the format's end. */
static void request_finish(sw_report_request *q)
{
    sw_error e;
    sw_error_clear(&e);
    int rc = SW_OK;
    if (!q->report.sink) {
        if (!q->begun) rc = sw_outfmt_begin(q->out, q->report.format, &q->report.run, &e);
        q->begun = 1;
        if (rc == SW_OK) rc = sw_outfmt_end(q->out, q->report.format, &q->report.run, q->sum.queries, &e);
    }
    if (rc == SW_OK && q->out && ferror(q->out)) rc = sw_error_set(&e, SW_EIO, "error writing results");
    if (rc) request_fail(q, rc, &e);
    q->done = 1;
}

static int request_cancelled(const sw_report_request *q)
{
    return q->cancelled && q->cancelled(q->cancelled_user);
}

/* What the engine calls during a shared scan: notes to every request of
 * it; a stop only once every request of it is cancelled. */
typedef struct round_ctx {
    sw_report_request **part;
    size_t n;
} round_ctx;

static void round_note(void *user, const char *message)
{
    const round_ctx *x = user;
    for (size_t k = 0; k < x->n; k++)
        if (x->part[k]->note) x->part[k]->note(x->part[k]->note_user, message);
}

static int round_cancelled(void *user)
{
    const round_ctx *x = user;
    for (size_t k = 0; k < x->n; k++)
        if (!request_cancelled(x->part[k])) return 0;
    return 1;
}

int sw_report_round(sw_report_scanner *sc, sw_report_request *const *reqs, size_t n, size_t max_queries,
                    sw_error *err)
{
    sw_report_request **part = malloc((n ? n : 1) * sizeof *part);
    sw_query_set **sets = calloc(n ? n : 1, sizeof *sets);
    if (!part || !sets) {
        free(part);
        free(sets);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    /* Each unfinished request's share of a batch: at least one query. */
    size_t active = 0;
    uint64_t residues = UINT64_MAX;
    size_t queries = max_queries ? max_queries : SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        sw_report_request *q = reqs[i];
        if (q->done) continue;
        if (request_cancelled(q)) {
            sw_error e;
            sw_error_set(&e, SW_ECANCELED, "the search was cancelled");
            request_fail(q, SW_ECANCELED, &e);
            continue;
        }
        residues = q->max_residues < residues ? q->max_residues : residues;
        queries = q->max_queries < queries ? q->max_queries : queries;
        part[active++] = q;
    }
    const uint64_t share_residues = active ? (residues / active ? residues / active : 1) : 1;
    const size_t share_queries = active ? (queries / active ? queries / active : 1) : 1;
    batch_progress progress = {&sc->user, -1.0, -1.0};
    size_t np = 0;
    for (size_t k = 0; k < active; k++) {
        sw_report_request *q = part[k];
        sw_error e;
        sw_error_clear(&e);
        const double before = sw_queries_fraction_read(q->queries);
        int got = sw_queries_next_batch(q->queries, share_residues, share_queries, &sets[np], &e);
        if (got < 0) {
            request_fail(q, got, &e);
            continue;
        }
        if (got == 0) {
            request_finish(q);
            continue;
        }
        if (active == 1) {
            progress.first = before;
            progress.last = before < 0 ? -1.0 : sw_queries_fraction_read(q->queries);
        }
        /* Whether this batch is the request's last, so that its answer
         * ends with this scan rather than the next. */
        if (sc->peek && (got = sw_queries_peek(q->queries, &q->later_err)) < 0) q->later_rc = got;
        part[np++] = q;
    }
    /* Where each request's queries start in the scan's. */
    size_t *first = np ? malloc((np + 1) * sizeof *first) : NULL;
    if (!first) {
        for (size_t k = 0; k < np; k++) sw_queries_free(sets[k]);
        free(part);
        free(sets);
        return np ? sw_error_set(err, SW_ENOMEM, "out of memory") : SW_OK;
    }
    int rc = SW_OK;
    sw_query_set *joined = NULL;
    first[0] = 0;
    for (size_t k = 0; k < np; k++) first[k + 1] = first[k] + sw_queries_count(sets[k]);
    const sw_query_set *batch = sets[0];
    if (np > 1) {
        rc = sw_queries_join((const sw_query_set *const *)sets, np, &joined, err);
        batch = joined;
    }
    const size_t nq = first[np];
    query_report *qr = rc == SW_OK ? calloc(nq ? nq : 1, sizeof *qr) : NULL;
    if (rc == SW_OK && !qr) rc = sw_error_set(err, SW_ENOMEM, "out of memory reporting hits");

    /* What the requests of this scan need of it. */
    int any_alignment = 0, any_work = 0, keep_all_scores = 0;
    size_t top_n = 0, ahead_hits = SIZE_MAX;
    for (size_t k = 0; k < np; k++) {
        const sw_report_request *q = part[k];
        any_alignment |= q->r.with_alignment;
        any_work |= q->r.with_stats || q->r.with_alignment;
        keep_all_scores |= q->keep_all_scores;
        top_n = q->top_n > top_n ? q->top_n : top_n;
        ahead_hits = q->ahead_hits < ahead_hits ? q->ahead_hits : ahead_hits;
    }
    /* Ranks of an MPI job keep their own shares (sw_search_ranks.h). */
    if (rc == SW_OK && sc->scans > 0 && sc->on_gpu && sc->opt.device != SW_DEVICE_CPU && !sc->opt.resident &&
        !sc->opt.ranks) {
        sw_error ignored;
        /* Without the memory for it, each batch loads the database. A
         * database streamed to the GPUs is not decoded whole: only the
         * GPUs' team is kept, which reads its parts from the file. */
        if (sw_resident_create(sc->db, sc->opt.threads, !sc->streamed, &sc->own_resident, &ignored) == SW_OK) {
            sc->opt.resident = sc->own_resident;
            if (!sc->residues_borrowed) free(sc->subj.residues);
            sc->subj.residues = (uint8_t *)sw_resident_residues(sc->own_resident);
            sc->residues_borrowed = 1;
        }
    }
    if (rc == SW_OK && any_alignment && !sc->subj.offsets) {
        /* Without room for them, subjects come from the files. */
        uint64_t nseqs = sw_db_num_seqs(sc->db);
        uint64_t *offsets =
            nseqs <= SIZE_MAX / sizeof *offsets ? malloc((nseqs ? nseqs : 1) * sizeof *offsets) : NULL;
        uint64_t at = 0;
        for (uint64_t i = 0; offsets && i < nseqs; i++) {
            offsets[i] = at;
            at += sw_db_lengths(sc->db)[i];
        }
        sc->subj.offsets = offsets;
        sc->offsets_owned = offsets != NULL;
    }
    round_ctx x = {part, np};
    sw_search_options run_opt = sc->opt;
    run_opt.top_n = top_n;
    run_opt.keep_all_scores = keep_all_scores;
    run_opt.note = round_note;
    run_opt.note_user = &x;
    run_opt.cancelled = round_cancelled;
    run_opt.cancelled_user = &x;
    run_opt.progress = NULL;
    if (sc->user.progress && np == 1) {
        run_opt.progress = draw_batch_progress;
        run_opt.progress_user = &progress;
    }
    for (size_t k = 0; k < np; k++) {
        report_ctx *r = &part[k]->r;
        r->scoring = &sc->scoring;
        r->options = &run_opt;
        r->subj = &sc->subj;
        for (size_t q = first[k]; qr && q < first[k + 1]; q++) qr[q].r = r;
    }
    /* Work ahead only where there is some, and while a GPU scans. */
    ahead a;
    ahead *pa = NULL;
    if (rc == SW_OK && any_work && sc->opt.device != SW_DEVICE_CPU && sc->opt.cpu_engine != SW_CPU_ENGINE_REFERENCE) {
        if (ahead_start(&a, batch, qr, sc->opt.threads, ahead_hits) == SW_OK) {
            pa = &a;
            run_opt.query_done = ahead_query_done;
            run_opt.query_done_user = pa;
            /* Reading each query's subjects from the files would decode
             * most chunks once per query: take the GPU's copy. */
            if (any_alignment && sc->subj.offsets && !sc->residues_borrowed && !sc->opt.ranks)
                run_opt.residues_out = &sc->subj.residues;
        } else {
            ahead_stop(&a, 1); /* no thread could start: everything after the search */
        }
    }
    sw_search_results *results = NULL;
    if (rc == SW_OK) rc = sw_search_dispatch(sc->db, batch, &sc->scoring, &run_opt, &results, err);
    if (rc == SW_OK) {
        sw_search_stats st;
        sw_results_stats(results, &st);
        if (sc->scans == 0) {
            /* The threshold depends on the GPU and the database only;
             * GPUs whose calibrations differ keep theirs each. */
            if (st.on_gpu && sc->opt.gpu_threshold == 0 && !st.gpu_thresholds_differ) {
                sc->opt.gpu_threshold = st.gpu_threshold;
                sc->opt.gpu_threshold_kept = 1;
            }
            if (!st.on_gpu) sc->opt.device = SW_DEVICE_CPU;
            sc->on_gpu = st.on_gpu;
            sc->streamed = st.gpu_streamed;
        }
        sc->scans++;
        for (size_t k = 0; k < np; k++) {
            sw_report_request *q = part[k];
            sw_error e;
            sw_error_clear(&e);
            add_stats(&q->sum.stats, &st, q->sum.batches == 0);
            q->sum.batches++;
            q->sum.queries += first[k + 1] - first[k];
            q->sum.query_residues += sw_queries_total_residues(sets[k]);
            int qrc = SW_OK;
            if (request_cancelled(q)) qrc = sw_error_set(&e, SW_ECANCELED, "the search was cancelled");
            if (qrc == SW_OK && !q->begun && !q->report.sink)
                qrc = sw_outfmt_begin(q->out, q->report.format, &q->report.run, &e);
            q->begun = 1;
            if (qrc == SW_OK) qrc = report_range(&q->r, batch, results, qr, pa, first[k], first[k + 1], &e);
            if (qrc == SW_OK && q->out && ferror(q->out)) qrc = sw_error_set(&e, SW_EIO, "error writing results");
            if (qrc) request_fail(q, qrc, &e);
            else if (q->later_rc) request_fail(q, q->later_rc, &q->later_err);
            else if (sc->peek && sw_queries_at_end(q->queries)) request_finish(q);
        }
    } else {
        for (size_t k = 0; k < np; k++) request_fail(part[k], rc, err);
    }
    if (pa) ahead_stop(pa, rc != SW_OK);
    for (size_t q = 0; qr && q < nq; q++) query_report_clear(&qr[q]);
    free(qr);
    if (!sc->residues_borrowed) {
        free(sc->subj.residues);
        sc->subj.residues = NULL;
    }
    sw_results_free(results);
    sw_queries_free(joined);
    for (size_t k = 0; k < np; k++) sw_queries_free(sets[k]);
    free(sets);
    free(part);
    free(first);
    return rc;
}

int sw_report_search(FILE *out, const sw_db *db, sw_query_reader *queries,
                     const sw_scoring *scoring, const sw_search_options *options,
                     const sw_report_options *report, const sw_report_batching *batching,
                     sw_report_summary *summary, sw_error *err)
{
    sw_report_scanner *sc = NULL;
    sw_report_request *q = NULL;
    const sw_report_request_config c = {
        .out = out,
        .queries = queries,
        .report = *report,
        .top_n = options->top_n,
        .batching = batching,
        .note = options->note,
        .note_user = options->note_user,
        .cancelled = options->cancelled,
        .cancelled_user = options->cancelled_user,
    };
    int rc = sw_report_scanner_create(db, scoring, options, 0, &sc, err);
    if (rc == SW_OK) rc = sw_report_request_create(&c, db, scoring, &q, err);
    while (rc == SW_OK && !q->done) rc = sw_report_round(sc, &q, 1, 0, err);
    if (rc == SW_OK) rc = sw_report_request_status(q, NULL, err);
    if (summary) {
        if (q) *summary = q->sum;
        else memset(summary, 0, sizeof *summary);
    }
    sw_report_request_free(q);
    sw_report_scanner_free(sc);
    return rc;
}
