/* The CPU search engine: worker threads take blocks of database sequences in
 * order, load (and check) each residue chunk on first use, align every query
 * against the block and keep their own top-N lists, merged at the end. */
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
#include "sw_cpu_simd.h"
#include "sw_pool.h"

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
    sw_simd_profile **profiles;   /* one per query, SIMD engine only */
    int32_t *all_scores;          /* keep_all_scores: query-major, else NULL */
    work_block *blocks;
    size_t num_blocks;
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

static int align_block(worker *w, const work_block *b, const uint8_t *residues, sw_error *e)
{
    search_ctx *ctx = w->ctx;
    size_t nq = sw_queries_count(ctx->queries);
    for (size_t q = 0; q < nq; q++) {
        size_t qlen;
        const uint8_t *query = sw_queries_residues(ctx->queries, q, &qlen);
        sw_topn *top = w->top[q];
        const uint8_t *subject = residues;
        for (uint64_t s = b->first_seq; s < b->first_seq + b->num_seqs; s++) {
            size_t slen = ctx->lengths[s];
            int score;
            if (ctx->profiles) {
                score = sw_simd_align(ctx->profiles[q], w->workspace, subject, slen);
            } else {
                sw_ref_result r;
                score = sw_ref_align(query, qlen, subject, slen, ctx->scoring, &r);
                if (score == SW_OK) score = r.score;
            }
            if (score < 0)
                return sw_error_set(e, score, "aligning query %s: %s",
                                    sw_queries_id(ctx->queries, q), sw_strerror(score));
            /* Each sequence is in exactly one block, so threads never
             * write the same entry. */
            if (ctx->all_scores) ctx->all_scores[q * sw_db_num_seqs(ctx->db) + s] = score;
            if (score > 0 && score >= sw_topn_threshold(top)) {
                sw_hit hit = {score, s, sw_db_original_index(ctx->db, s)};
                sw_topn_offer(top, &hit);
            }
            subject += slen;
        }
        atomic_fetch_add(&ctx->cells_done, (uint64_t)qlen * b->residues);
    }
    return SW_OK;
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
 * share even a database of one chunk. */
static int plan_blocks(search_ctx *ctx, uint64_t target, sw_error *err)
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
            /* A block also ends after 4096 sequences so that very short
             * sequences do not make one block the whole chunk. */
            while (s < end && (b->residues < target || s == b->first_seq) &&
                   s - b->first_seq < 4096) {
                b->residues += ctx->lengths[s];
                s++;
            }
            b->num_seqs = s - b->first_seq;
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

    uint64_t total = sw_db_num_residues(db);
    uint64_t target = total / ((uint64_t)nthreads * 16 + 1);
    target = target < 4096 ? 4096 : target > 262144 ? 262144 : target;
    if ((rc = plan_blocks(&ctx, target, err)) != SW_OK) goto done;
    if ((size_t)nthreads > ctx.num_blocks) nthreads = ctx.num_blocks ? (int)ctx.num_blocks : 1;

    /* The SIMD variant is chosen once for the whole search. */
    const sw_simd_variant variant = sw_simd_variant_default();
    if (options->cpu_engine == SW_CPU_ENGINE_SIMD) {
        ctx.profiles = calloc(nq, sizeof *ctx.profiles);
        if (!ctx.profiles) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory building query profiles");
            goto done;
        }
        for (size_t q = 0; q < nq; q++) {
            size_t qlen;
            const uint8_t *query = sw_queries_residues(queries, q, &qlen);
            if ((rc = sw_simd_profile_create_variant(query, qlen, scoring, &variant, &ctx.profiles[q])) !=
                SW_OK) {
                sw_error_set(err, rc, "query %s: %s", sw_queries_id(queries, q), sw_strerror(rc));
                goto done;
            }
        }
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
        snprintf(st.engine, sizeof st.engine, "CPU %s (%s)",
                 ctx.profiles ? "simd" : "reference",
                 ctx.profiles ? sw_simd_variant_name(&variant) : "scalar");
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
        }
        free(workers);
    }
    if (ctx.profiles) {
        for (size_t q = 0; q < nq; q++) sw_simd_profile_free(ctx.profiles[q]);
        free(ctx.profiles);
    }
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
