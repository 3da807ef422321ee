/* The CPU search engine: worker threads take blocks of database sequences in
 * order, load (and check) each residue chunk on first use, align every query
 * against the block and keep their own top-N lists, merged at the end. Each
 * query runs on the striped or the inter-sequence engine (sw_cpu_choice.h);
 * the inter-sequence engine takes the block once for a batch of queries. */
#include "sw_clock.h"
#include "sw_search.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sw_align_ref.h"
#include "sw_cpu_choice.h"
#include "sw_cpu_inter.h"
#include "sw_cpu_simd.h"
#include "sw_pool.h"

/* Scores a worker holds for one batch of inter-sequence queries against a
 * block: the batch is as many queries as fit (at least one), so that they
 * stay in the core's cache. */
enum { INTER_SCORES = 1 << 18 };

typedef struct work_block {
    size_t chunk;
    uint64_t first_seq, num_seqs;
    uint64_t offset;     /* of the first residue inside the decompressed chunk */
    uint64_t residues;
} work_block;

typedef struct chunk_state {
    pthread_mutex_t lock;
    uint8_t *residues;   /* NULL until loaded, and again once every block is done */
    atomic_size_t blocks_left;
} chunk_state;

typedef struct search_ctx {
    const sw_db *db;
    const sw_query_set *queries;
    const sw_scoring *scoring;
    const sw_search_options *options;
    const uint32_t *lengths;
    int reference;                /* the scalar reference engine for every query */
    sw_cpu_choice choice;         /* else the engine of each query */
    sw_simd_profile **profiles;   /* per query: its striped profile, NULL for the others */
    /* The inter-sequence queries, in query order: their numbers, codes and
     * lengths, taken inter_batch at a time. */
    size_t *inter_index;
    const uint8_t **inter_seqs;
    size_t *inter_lens;
    size_t num_inter, inter_batch;
    int32_t *all_scores;          /* keep_all_scores: query-major, else NULL */
    work_block *blocks;
    size_t num_blocks;
    uint64_t max_block_seqs;
    chunk_state *chunks;
    atomic_size_t next_block;
    atomic_uint_fast64_t cells_done;
    atomic_int failed;
    pthread_mutex_t state_lock;   /* guards err, workers_running */
    pthread_cond_t state_changed;
    int workers_running;
    sw_error err;
} search_ctx;

typedef struct worker {
    search_ctx *ctx;
    sw_topn **top;                /* one per query */
    sw_simd_workspace *workspace;
    /* The inter-sequence engine's: its scratch, a block's subjects, and
     * the scores of a batch (inter_batch x max_block_seqs, query-major). */
    sw_inter_workspace *inter;
    const uint8_t **subjects;
    size_t *subject_lens;
    int32_t *scores;
} worker;

static void fail(search_ctx *ctx, const sw_error *e)
{
    pthread_mutex_lock(&ctx->state_lock);
    if (!atomic_load(&ctx->failed)) {
        ctx->err = *e;
        atomic_store(&ctx->failed, 1);
    }
    pthread_mutex_unlock(&ctx->state_lock);
}

static int load_chunk(search_ctx *ctx, size_t c, sw_error *e)
{
    chunk_state *cs = &ctx->chunks[c];
    int rc = SW_OK;
    pthread_mutex_lock(&cs->lock);
    if (!cs->residues) {
        sw_db_chunk info;
        sw_db_chunk_info(ctx->db, c, &info);
        uint8_t *buf = malloc(info.num_residues ? info.num_residues : 1);
        if (!buf) {
            rc = sw_error_set(e, SW_ENOMEM, "out of memory loading database chunk %zu", c);
        } else if ((rc = sw_db_read_chunk(ctx->db, c, buf, e)) != SW_OK) {
            free(buf);
        } else {
            cs->residues = buf;
        }
    }
    pthread_mutex_unlock(&cs->lock);
    return rc;
}

/* Query q's score against sequence s, into the worker's top-N list and
 * the kept scores. */
static void keep_score(worker *w, size_t q, uint64_t s, int score)
{
    search_ctx *ctx = w->ctx;
    /* Each sequence is in exactly one block, so threads never write the
     * same entry. */
    if (ctx->all_scores) ctx->all_scores[q * sw_db_num_seqs(ctx->db) + s] = score;
    sw_topn *top = w->top[q];
    if (score > 0 && score >= sw_topn_threshold(top)) {
        sw_hit hit = {score, s, sw_db_original_index(ctx->db, s)};
        sw_topn_offer(top, &hit);
    }
}

/* The engines' timing sample (sw_cpu_choice.h), from the search's own
 * chunks: a chunk loaded for it stays for the blocks that follow. */
static int read_sample(void *user, size_t chunk, uint64_t first, uint64_t count, const uint8_t **residues,
                       sw_error *e)
{
    search_ctx *ctx = user;
    (void)count;
    int rc = load_chunk(ctx, chunk, e);
    if (rc != SW_OK) return rc;
    sw_db_chunk info;
    sw_db_chunk_info(ctx->db, chunk, &info);
    uint64_t offset = 0;
    for (uint64_t s = info.first_seq; s < first; s++) offset += ctx->lengths[s];
    *residues = ctx->chunks[chunk].residues + offset;
    return SW_OK;
}

/* The queries of the striped and the reference engines, one at a time. */
static int align_one_by_one(worker *w, const work_block *b, const uint8_t *residues, sw_error *e)
{
    search_ctx *ctx = w->ctx;
    size_t nq = sw_queries_count(ctx->queries);
    for (size_t q = 0; q < nq; q++) {
        if (!ctx->reference && !ctx->profiles[q]) continue; /* an inter-sequence query */
        size_t qlen;
        const uint8_t *query = sw_queries_residues(ctx->queries, q, &qlen);
        const uint8_t *subject = residues;
        for (uint64_t s = b->first_seq; s < b->first_seq + b->num_seqs; s++) {
            size_t slen = ctx->lengths[s];
            int score;
            if (!ctx->reference) {
                score = sw_simd_align(ctx->profiles[q], w->workspace, subject, slen);
            } else {
                sw_ref_result r;
                sw_scoring own = *ctx->scoring;
                own.rows = sw_queries_rows(ctx->queries, q);
                score = sw_ref_align(query, qlen, subject, slen, &own, &r);
                if (score == SW_OK) score = r.score;
            }
            if (score < 0)
                return sw_error_set(e, score, "aligning query %s: %s",
                                    sw_queries_id(ctx->queries, q), sw_strerror(score));
            keep_score(w, q, s, score);
            subject += slen;
        }
        atomic_fetch_add(&ctx->cells_done, (uint64_t)qlen * b->residues);
    }
    return SW_OK;
}

/* The inter-sequence queries, a batch at a time: each batch meets the
 * block's sequences while they are in the engine's lanes. */
static int align_in_batches(worker *w, const work_block *b, const uint8_t *residues, sw_error *e)
{
    search_ctx *ctx = w->ctx;
    const size_t n = (size_t)b->num_seqs;
    const uint8_t *subject = residues;
    for (size_t i = 0; i < n; i++) {
        w->subjects[i] = subject;
        w->subject_lens[i] = ctx->lengths[b->first_seq + i];
        subject += w->subject_lens[i];
    }
    for (size_t first = 0; first < ctx->num_inter; first += ctx->inter_batch) {
        size_t m = ctx->num_inter - first < ctx->inter_batch ? ctx->num_inter - first : ctx->inter_batch;
        int rc = sw_inter_align_batch(&ctx->choice.inter, w->inter, ctx->inter_seqs + first,
                                      ctx->inter_lens + first, m, ctx->scoring, w->subjects,
                                      w->subject_lens, n, w->scores, e);
        if (rc != SW_OK) {
            /* The engine counts queries and subjects from the batch's and
             * the block's first. */
            const sw_error why = *e;
            return sw_error_set(e, rc, "aligning queries %s to %s: %s",
                                sw_queries_id(ctx->queries, ctx->inter_index[first]),
                                sw_queries_id(ctx->queries, ctx->inter_index[first + m - 1]), why.message);
        }
        uint64_t query_residues = 0;
        for (size_t j = 0; j < m; j++) {
            const size_t q = ctx->inter_index[first + j];
            for (size_t i = 0; i < n; i++) keep_score(w, q, b->first_seq + i, w->scores[j * n + i]);
            query_residues += ctx->inter_lens[first + j];
        }
        atomic_fetch_add(&ctx->cells_done, query_residues * b->residues);
    }
    return SW_OK;
}

static int align_block(worker *w, const work_block *b, const uint8_t *residues, sw_error *e)
{
    int rc = align_one_by_one(w, b, residues, e);
    if (rc == SW_OK && w->ctx->num_inter) rc = align_in_batches(w, b, residues, e);
    return rc;
}

/* Worker `index` of the array `arg`. */
static void worker_main(void *arg, int index)
{
    worker *w = (worker *)arg + index;
    search_ctx *ctx = w->ctx;
    sw_error e;
    sw_error_clear(&e);
    while (!atomic_load(&ctx->failed)) {
        if (ctx->options->cancelled && ctx->options->cancelled(ctx->options->cancelled_user)) {
            sw_error_set(&e, SW_ECANCELED, "the search was cancelled");
            fail(ctx, &e);
            break;
        }
        size_t i = atomic_fetch_add(&ctx->next_block, 1);
        if (i >= ctx->num_blocks) break;
        const work_block *b = &ctx->blocks[i];
        chunk_state *cs = &ctx->chunks[b->chunk];
        if (load_chunk(ctx, b->chunk, &e) != SW_OK ||
            align_block(w, b, cs->residues + b->offset, &e) != SW_OK) {
            fail(ctx, &e);
            break;
        }
        if (atomic_fetch_sub(&cs->blocks_left, 1) == 1) {
            free(cs->residues);
            cs->residues = NULL;
        }
    }
    pthread_mutex_lock(&ctx->state_lock);
    ctx->workers_running--;
    pthread_cond_signal(&ctx->state_changed);
    pthread_mutex_unlock(&ctx->state_lock);
}

/* Cuts every chunk into blocks of about `target` residues, so that threads
 * share even a database of one chunk. Every block but a chunk's last holds
 * a multiple of `lanes` sequences, so that the inter-sequence engine, which
 * takes a block's sequences `lanes` at a time, leaves lanes empty only in a
 * chunk's last group. */
static int plan_blocks(search_ctx *ctx, uint64_t target, uint64_t lanes, sw_error *err)
{
    size_t nchunks = sw_db_num_chunks(ctx->db);
    size_t cap = 0;
    for (size_t c = 0; c < nchunks; c++) {
        sw_db_chunk info;
        sw_db_chunk_info(ctx->db, c, &info);
        cap += (size_t)(info.num_residues / target) + 1 + (size_t)info.num_seqs / 4096;
    }
    ctx->blocks = malloc((cap ? cap : 1) * sizeof *ctx->blocks);
    if (!ctx->blocks) return sw_error_set(err, SW_ENOMEM, "out of memory planning the search");
    size_t n = 0;
    for (size_t c = 0; c < nchunks; c++) {
        sw_db_chunk info;
        sw_db_chunk_info(ctx->db, c, &info);
        uint64_t offset = 0, end = info.first_seq + info.num_seqs;
        size_t first_block = n;
        for (uint64_t s = info.first_seq; s < end;) {
            work_block *b = &ctx->blocks[n];
            b->chunk = c;
            b->first_seq = s;
            b->offset = offset;
            b->residues = 0;
            /* A block also ends after 4096 sequences (a multiple of any
             * lane count) so that very short sequences do not make one
             * block the whole chunk. */
            while (s < end && (((b->residues < target || s == b->first_seq) && s - b->first_seq < 4096) ||
                               (s - b->first_seq) % lanes != 0)) {
                b->residues += ctx->lengths[s];
                s++;
            }
            b->num_seqs = s - b->first_seq;
            if (b->num_seqs > ctx->max_block_seqs) ctx->max_block_seqs = b->num_seqs;
            offset += b->residues;
            n++; /* cap bounds this: each block but a chunk's last holds >= target residues or 4096 sequences */
        }
        atomic_init(&ctx->chunks[c].blocks_left, n - first_block);
    }
    ctx->num_blocks = n;
    return SW_OK;
}

static int collect_results(worker *workers, int nthreads, size_t nq, size_t top_n,
                           sw_search_results **out, sw_error *err)
{
    sw_search_results *r;
    if (sw_results_create(nq, &r) != SW_OK)
        return sw_error_set(err, SW_ENOMEM, "out of memory collecting results");
    sw_hit *sorted = malloc((top_n ? top_n : 1) * sizeof *sorted);
    sw_topn *all = sw_topn_create(top_n);
    int rc = sorted && all ? SW_OK : SW_ENOMEM;
    for (size_t q = 0; q < nq && rc == SW_OK; q++) {
        sw_topn_clear(all);
        for (int t = 0; t < nthreads; t++) sw_topn_merge(all, workers[t].top[q]);
        sw_topn_sorted(all, sorted);
        rc = sw_results_set_hits(r, q, sorted, sw_topn_count(all));
    }
    free(sorted);
    sw_topn_free(all);
    if (rc != SW_OK) {
        sw_results_free(r);
        return sw_error_set(err, SW_ENOMEM, "out of memory collecting results");
    }
    *out = r;
    return SW_OK;
}

int sw_search_cpu(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  const sw_search_options *options, sw_search_results **out, sw_error *err)
{
    double start = sw_clock_seconds();
    size_t nq = sw_queries_count(queries);
    size_t nchunks = sw_db_num_chunks(db);
    int nthreads = options->threads > 0 ? options->threads : sw_clock_online_cpus();
    search_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.db = db;
    ctx.queries = queries;
    ctx.scoring = scoring;
    ctx.options = options;
    ctx.lengths = sw_db_lengths(db);
    atomic_init(&ctx.next_block, 0);
    atomic_init(&ctx.cells_done, 0);
    atomic_init(&ctx.failed, 0);
    pthread_mutex_init(&ctx.state_lock, NULL);
    pthread_cond_init(&ctx.state_changed, NULL);

    int rc = SW_OK;
    worker *workers = NULL;
    ctx.chunks = calloc(nchunks ? nchunks : 1, sizeof *ctx.chunks);
    if (!ctx.chunks) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory starting the search");
        goto done;
    }
    for (size_t c = 0; c < nchunks; c++) pthread_mutex_init(&ctx.chunks[c].lock, NULL);

    /* The engines, and their variants, are chosen once for the whole search. */
    ctx.reference = options->cpu_engine == SW_CPU_ENGINE_REFERENCE;
    if (!ctx.reference) {
        if ((rc = sw_cpu_choose(db, queries, scoring, options->cpu_engine, nthreads, read_sample, &ctx, &ctx.choice,
                                err)) != SW_OK)
            goto done;
        ctx.num_inter = ctx.choice.num_inter;
        ctx.profiles = calloc(nq ? nq : 1, sizeof *ctx.profiles);
        ctx.inter_index = malloc((ctx.num_inter ? ctx.num_inter : 1) * sizeof *ctx.inter_index);
        ctx.inter_seqs = malloc((ctx.num_inter ? ctx.num_inter : 1) * sizeof *ctx.inter_seqs);
        ctx.inter_lens = malloc((ctx.num_inter ? ctx.num_inter : 1) * sizeof *ctx.inter_lens);
        if (!ctx.profiles || !ctx.inter_index || !ctx.inter_seqs || !ctx.inter_lens) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory building query profiles");
            goto done;
        }
        size_t k = 0;
        for (size_t q = 0; q < nq; q++) {
            size_t qlen;
            const uint8_t *query = sw_queries_residues(queries, q, &qlen);
            /* A PSSM query's own scores: the striped engine takes them, the
             * inter-sequence engine (one table for every lane) does not. */
            sw_scoring own = *scoring;
            own.rows = sw_queries_rows(queries, q);
            if (own.rows) ctx.choice.inter_of[q] = 0;
            if (ctx.choice.inter_of[q]) {
                ctx.inter_index[k] = q;
                ctx.inter_seqs[k] = query;
                ctx.inter_lens[k++] = qlen;
            } else if ((rc = sw_simd_profile_create_variant(query, qlen, &own, &ctx.choice.striped,
                                                            &ctx.profiles[q])) != SW_OK) {
                sw_error_set(err, rc, "query %s: %s", sw_queries_id(queries, q), sw_strerror(rc));
                goto done;
            }
        }
        ctx.num_inter = k;
    }

    uint64_t total = sw_db_num_residues(db);
    uint64_t target = total / ((uint64_t)nthreads * 16 + 1);
    target = target < 4096 ? 4096 : target > 262144 ? 262144 : target;
    if ((rc = plan_blocks(&ctx, target, ctx.num_inter ? (uint64_t)ctx.choice.inter.lanes : 1, err)) != SW_OK)
        goto done;
    if ((size_t)nthreads > ctx.num_blocks) nthreads = ctx.num_blocks ? (int)ctx.num_blocks : 1;
    if (ctx.num_inter) {
        uint64_t per = INTER_SCORES / (ctx.max_block_seqs ? ctx.max_block_seqs : 1);
        ctx.inter_batch = per < 1 ? 1 : per < ctx.num_inter ? (size_t)per : ctx.num_inter;
    }

    if (options->keep_all_scores) {
        uint64_t n = sw_db_num_seqs(db);
        if (n && nq > SIZE_MAX / sizeof(int32_t) / n) {
            rc = sw_error_set(err, SW_ENOMEM, "too many scores to keep: %zu queries x %llu sequences", nq,
                              (unsigned long long)n);
            goto done;
        }
        ctx.all_scores = malloc(nq * n * sizeof(int32_t) + 1);
        if (!ctx.all_scores) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory keeping every score (%zu queries x %llu sequences)",
                              nq, (unsigned long long)n);
            goto done;
        }
    }

    workers = calloc((size_t)nthreads, sizeof *workers);
    if (!workers) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory starting the search");
        goto done;
    }
    for (int t = 0; t < nthreads; t++) {
        worker *w = &workers[t];
        w->ctx = &ctx;
        w->top = calloc(nq, sizeof *w->top);
        if (!w->top) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory starting the search");
            goto done;
        }
        for (size_t q = 0; q < nq; q++)
            if (!(w->top[q] = sw_topn_create(options->top_n))) {
                rc = sw_error_set(err, SW_ENOMEM, "out of memory starting the search");
                goto done;
            }
        if (ctx.profiles && (rc = sw_simd_workspace_create(&w->workspace)) != SW_OK) {
            sw_error_set(err, rc, "starting the search: %s", sw_strerror(rc));
            goto done;
        }
        if (ctx.num_inter) {
            size_t seqs = ctx.max_block_seqs ? (size_t)ctx.max_block_seqs : 1;
            w->subjects = malloc(seqs * sizeof *w->subjects);
            w->subject_lens = malloc(seqs * sizeof *w->subject_lens);
            w->scores = malloc(ctx.inter_batch * seqs * sizeof *w->scores);
            rc = w->subjects && w->subject_lens && w->scores ? sw_inter_workspace_create(&w->inter) : SW_ENOMEM;
            if (rc != SW_OK) {
                sw_error_set(err, rc, "starting the search: %s", sw_strerror(rc));
                goto done;
            }
        }
    }

    ctx.workers_running = nthreads;
    sw_pool *pool;
    int started;
    const int start_rc = sw_pool_start(nthreads, worker_main, workers, &pool, &started);
    if (start_rc) {
        pthread_mutex_lock(&ctx.state_lock);
        ctx.workers_running -= nthreads - started;
        pthread_mutex_unlock(&ctx.state_lock);
        sw_error se;
        sw_error_set(&se, SW_ENOMEM, "cannot start a search thread: %s", strerror(start_rc));
        fail(&ctx, &se);
    }

    uint64_t cells_total = (uint64_t)sw_queries_total_residues(queries) * total;
    pthread_mutex_lock(&ctx.state_lock);
    while (ctx.workers_running > 0) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += 250000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        int e = pthread_cond_timedwait(&ctx.state_changed, &ctx.state_lock, &deadline);
        if (e == ETIMEDOUT && options->progress) {
            pthread_mutex_unlock(&ctx.state_lock);
            options->progress(options->progress_user, atomic_load(&ctx.cells_done), cells_total);
            pthread_mutex_lock(&ctx.state_lock);
        }
    }
    pthread_mutex_unlock(&ctx.state_lock);
    sw_pool_join(pool);
    if (atomic_load(&ctx.failed)) {
        if (err) *err = ctx.err;
        rc = ctx.err.code ? ctx.err.code : SW_EINVAL;
        goto done;
    }
    if (options->progress) options->progress(options->progress_user, cells_total, cells_total);

    rc = collect_results(workers, nthreads, nq, options->top_n, out, err);
    if (rc == SW_OK) {
        sw_search_stats st;
        memset(&st, 0, sizeof st);
        if (ctx.reference) {
            snprintf(st.engine, sizeof st.engine, "CPU reference (scalar)");
        } else {
            char engines[128];
            sw_cpu_choice_describe(&ctx.choice, nq, engines, sizeof engines);
            snprintf(st.engine, sizeof st.engine, "CPU %s", engines);
        }
        st.scan_seconds = sw_clock_seconds() - start;
        st.cells = cells_total;
        st.threads = nthreads;
        sw_results_set_stats(*out, &st);
        if (ctx.all_scores) {
            sw_results_adopt_all_scores(*out, ctx.all_scores, sw_db_num_seqs(db));
            ctx.all_scores = NULL;
        }
    }

done:
    if (workers) {
        for (int t = 0; t < nthreads; t++) {
            if (workers[t].top)
                for (size_t q = 0; q < nq; q++) sw_topn_free(workers[t].top[q]);
            free(workers[t].top);
            sw_simd_workspace_free(workers[t].workspace);
            sw_inter_workspace_free(workers[t].inter);
            free(workers[t].subjects);
            free(workers[t].subject_lens);
            free(workers[t].scores);
        }
        free(workers);
    }
    if (ctx.profiles) {
        for (size_t q = 0; q < nq; q++) sw_simd_profile_free(ctx.profiles[q]);
        free(ctx.profiles);
    }
    free(ctx.inter_index);
    free(ctx.inter_seqs);
    free(ctx.inter_lens);
    sw_cpu_choice_free(&ctx.choice);
    if (ctx.chunks) {
        for (size_t c = 0; c < nchunks; c++) {
            free(ctx.chunks[c].residues);
            pthread_mutex_destroy(&ctx.chunks[c].lock);
        }
        free(ctx.chunks);
    }
    free(ctx.blocks);
    free(ctx.all_scores);
    pthread_cond_destroy(&ctx.state_changed);
    pthread_mutex_destroy(&ctx.state_lock);
    return rc;
}
