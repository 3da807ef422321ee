/* The database search over MPI ranks (sw_search_ranks.h). A batch is one
 * broadcast from rank 0 (a head, then the packed queries) and one gather
 * to it (each rank's head, its hits per query, and with fitted statistics
 * every score of its share). Every rank takes part in both whatever went
 * wrong, so no rank waits for one that gave up; failures travel in the
 * heads. */
#include "sw_search_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_alphabet.h"
#include "sw_resident.h"
#include "sw_search.h"
#include "sw_slices.h"

enum { COMMAND_END = 0, COMMAND_BATCH = 1 };

/* What rank 0 broadcasts before each batch, and at the end. */
typedef struct batch_head {
    int32_t command;
    int32_t status; /* with COMMAND_END: rank 0's outcome */
    uint64_t packed_bytes;
    uint64_t top_n, num_queries;
    int32_t keep_all_scores, gap_open, gap_extend;
    /* 1: every rank sends each query's hits as soon as it has them
     * (TAG_HITS), so that rank 0 can tell its report of each query while
     * the search goes on (sw_search_options.query_done). */
    int32_t stream;
    uint64_t table_hash;
} batch_head;

/* A query's hits sent as it finishes: the query, the count, the hits. */
enum { TAG_HITS = 11 };
typedef struct hits_head {
    uint64_t query, count;
} hits_head;

/* What each rank sends back for a batch; then counts (uint64_t, a query
 * each), hits (sw_hit, numbered in the whole database) and scores (int32_t,
 * num_queries x the share's sequences, query by query). */
typedef struct reply_head {
    int32_t status, on_gpu, streamed, threads, thresholds_differ;
    uint32_t qp_length, threshold;
    uint64_t num_queries, num_hits, num_scores;
    double load, plan, start, decode, decode_wait, upload, scan, transfer;
    uint64_t cells, recomputed;
    char engine[160];
    char message[sizeof(((sw_error *)0)->message)];
} reply_head;

struct sw_search_ranks {
    sw_mpi *job;
    const sw_db *db;
    int rank, size;
    /* The shares, made at the first batch (rank 0 needs every rank's to
     * place their scores); this rank's share as a database of its own,
     * NULL when it is empty (fewer sequences than ranks). */
    sw_slicing *slicing;
    sw_db *share;
    int opened, open_rc;
    sw_error open_err;
    /* This rank's own course over the batches of a run, as a search in
     * one process keeps it (sw_report.c): the device it fell back to, the
     * GPU threshold its first batch chose, and its share kept decoded and
     * on its GPUs between batches. */
    int batches, on_gpu, streamed, kept_device, threshold_kept;
    sw_device device;
    uint32_t gpu_threshold;
    sw_resident *resident;
    /* The batch under way when its hits stream (batch_head.stream). The
     * other ranks: the messages posted, a query each, sent in query order
     * (sent of them). Rank 0: the queries received from each rank, the
     * options whose query_done hears of the merged hits, room to merge,
     * and the first failure. */
    int stream;
    size_t stream_queries, top_n;
    sw_mpi_request **posts;
    uint8_t **post_bytes;
    size_t sent;
    size_t *received;
    const sw_search_options *forward;
    sw_hit *merged;
    uint8_t *inbox;
    int stream_rc;
    sw_error stream_err;
};

static uint64_t table_hash(const sw_scoring *s)
{
    /* FNV-1a over the score table: equal tables, equal scores. */
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < SW_CODE_LIMIT * SW_CODE_LIMIT; i++) {
        h ^= (uint8_t)s->table[i];
        h *= 1099511628211ull;
    }
    return h;
}

int sw_search_ranks_create(sw_mpi *job, const sw_db *db, sw_search_ranks **out, sw_error *err)
{
    *out = NULL;
    sw_search_ranks *r = calloc(1, sizeof *r);
    if (!r) return sw_error_set(err, SW_ENOMEM, "out of memory");
    r->job = job;
    r->db = db;
    r->rank = sw_mpi_rank(job);
    r->size = sw_mpi_size(job);
    *out = r;
    return SW_OK;
}

void sw_search_ranks_free(sw_search_ranks *r)
{
    if (!r) return;
    sw_resident_free(r->resident);
    sw_db_close(r->share);
    sw_slicing_free(r->slicing);
    free(r);
}

const sw_db *sw_search_ranks_db(const sw_search_ranks *r) { return r->db; }

/* This rank's share: slice `rank` of the database cut into as many slices
 * as there are ranks. */
static int open_share(sw_search_ranks *r, sw_error *err)
{
    if (r->opened) {
        if (r->open_rc && err) *err = r->open_err;
        return r->open_rc;
    }
    r->opened = 1;
    sw_error_clear(&r->open_err);
    int rc = sw_slicing_make(sw_db_lengths(r->db), sw_db_num_seqs(r->db), r->size, &r->slicing, &r->open_err);
    if (rc == SW_OK) {
        size_t n = 0;
        const sw_slice_run *runs = sw_slice_runs(r->slicing, r->rank, &n);
        sw_db_range *ranges = malloc((n ? n : 1) * sizeof *ranges);
        if (!ranges) rc = sw_error_set(&r->open_err, SW_ENOMEM, "out of memory");
        for (size_t i = 0; ranges && i < n; i++) ranges[i] = (sw_db_range){runs[i].first, runs[i].count};
        if (rc == SW_OK && n) rc = sw_db_part_open(r->db, ranges, n, &r->share, &r->open_err);
        free(ranges);
    }
    r->open_rc = rc;
    if (rc && err) *err = r->open_err;
    return rc;
}

/* The other ranks: query q's hits (numbered in the whole database) to
 * rank 0, without waiting. */
static void post_hits(sw_search_ranks *r, size_t q, const sw_hit *hits, size_t count, const sw_db *share)
{
    if (q != r->sent || q >= r->stream_queries) return; /* in query order, once each */
    const size_t n = sizeof(hits_head) + count * sizeof(sw_hit);
    uint8_t *msg = malloc(n);
    sw_error e;
    if (!msg) {
        /* Without room for the hits, an empty message keeps the order; the
         * failure reaches rank 0 with the batch's results. */
        r->stream_rc = sw_error_set(&r->stream_err, SW_ENOMEM, "out of memory sending hits");
        msg = malloc(sizeof(hits_head));
        count = 0;
        if (!msg) return;
    }
    hits_head head = {q, count};
    memcpy(msg, &head, sizeof head);
    sw_hit *out = (sw_hit *)(msg + sizeof head);
    for (size_t i = 0; i < count; i++) {
        out[i] = hits[i];
        out[i].seq = sw_db_whole_seq(share, hits[i].seq);
    }
    if (sw_mpi_post(r->job, 0, TAG_HITS, msg, sizeof head + count * sizeof(sw_hit), &r->posts[q], &e)) {
        free(msg);
        if (!r->stream_rc) {
            r->stream_rc = e.code ? e.code : SW_EIO;
            r->stream_err = e;
        }
        return;
    }
    r->post_bytes[q] = msg;
    r->sent = q + 1;
}

static void worker_query_done(void *user, size_t q, const sw_hit *hits, size_t count, const int32_t *scores)
{
    (void)scores;
    sw_search_ranks *r = user;
    post_hits(r, q, hits, count, r->share);
}

/* Rank 0: query q's hits from rank k, appended to r->merged at *n (n
 * NULL: dropped). */
static int take_hits(sw_search_ranks *r, int k, size_t q, size_t *n, sw_error *err)
{
    uint64_t got = 0;
    const uint64_t cap = sizeof(hits_head) + r->top_n * sizeof(sw_hit);
    int rc = sw_mpi_recv_upto(r->job, k, TAG_HITS, r->inbox, cap, &got, err);
    if (rc) return rc;
    hits_head head;
    memcpy(&head, r->inbox, sizeof head);
    if (got < sizeof head || head.query != q || head.count > r->top_n || got != sizeof head + head.count * sizeof(sw_hit))
        return sw_error_set(err, SW_EIO, "rank %d of %d sent the hits of another query", k, r->size);
    if (n) {
        memcpy(r->merged + *n, r->inbox + sizeof head, head.count * sizeof(sw_hit));
        *n += head.count;
    }
    r->received[k] = q + 1;
    return SW_OK;
}

static int best_first(const void *pa, const void *pb);

/* Rank 0, as its own search finishes query q: every rank's hits of q
 * merged, told to the report while the search goes on. */
static void root_query_done(void *user, size_t q, const sw_hit *hits, size_t count, const int32_t *scores)
{
    (void)scores;
    sw_search_ranks *r = user;
    if (r->stream_rc || q >= r->stream_queries) return;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        r->merged[n] = hits[i];
        r->merged[n++].seq = sw_db_whole_seq(r->share, hits[i].seq);
    }
    for (int k = 1; k < r->size && !r->stream_rc; k++) {
        /* Queries rank 0's engine did not tell (none should be skipped)
         * are received and dropped, keeping the order. */
        while (r->received[k] < q && !r->stream_rc)
            r->stream_rc = take_hits(r, k, r->received[k], NULL, &r->stream_err);
        if (!r->stream_rc && r->received[k] == q) r->stream_rc = take_hits(r, k, q, &n, &r->stream_err);
    }
    if (r->stream_rc) return;
    qsort(r->merged, n, sizeof *r->merged, best_first);
    if (n > r->top_n) n = r->top_n;
    r->forward->query_done(r->forward->query_done_user, q, r->merged, n, NULL);
}

/* Prepares the streaming of a batch of nq queries (head->stream). */
static int stream_begin(sw_search_ranks *r, const batch_head *head, const sw_search_options *forward, sw_error *err)
{
    r->stream = head->stream != 0;
    r->stream_queries = (size_t)head->num_queries;
    r->top_n = (size_t)head->top_n;
    r->sent = 0;
    r->stream_rc = SW_OK;
    r->forward = forward;
    if (!r->stream) return SW_OK;
    if (r->rank == 0) {
        r->received = calloc((size_t)r->size, sizeof *r->received);
        r->merged = malloc(((size_t)r->size * r->top_n + 1) * sizeof *r->merged);
        r->inbox = malloc(sizeof(hits_head) + r->top_n * sizeof(sw_hit));
        if (!r->received || !r->merged || !r->inbox) return sw_error_set(err, SW_ENOMEM, "out of memory");
    } else {
        /* Without these, stream_end() still sends every query's message. */
        r->posts = calloc(r->stream_queries + 1, sizeof *r->posts);
        r->post_bytes = calloc(r->stream_queries + 1, sizeof *r->post_bytes);
        if (!r->posts || !r->post_bytes) return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    return SW_OK;
}

/* Ends the streaming of a batch, whatever happened: the other ranks send
 * what they did not (the hits of `res`, or none after a failure) and wait
 * for their messages to leave; rank 0 receives what it did not. */
static int stream_end(sw_search_ranks *r, const sw_search_results *res, sw_error *err)
{
    int rc = SW_OK;
    if (r->stream && r->rank != 0) {
        for (size_t q = r->sent; q < r->stream_queries; q++) {
            const size_t before = r->sent;
            if (r->posts && r->post_bytes) {
                if (res) post_hits(r, q, sw_results_hits(res, q), sw_results_count(res, q), r->share);
                else post_hits(r, q, NULL, 0, r->share);
            }
            if (r->sent == before) {
                /* No room to post: an empty message, sent and waited for,
                 * keeps rank 0 going (it hears of the failure with the
                 * batch's results). */
                const hits_head none = {q, 0};
                sw_error e;
                if (!r->stream_rc) r->stream_rc = sw_error_set(&r->stream_err, SW_ENOMEM, "out of memory sending hits");
                if (sw_mpi_send(r->job, 0, TAG_HITS, &none, sizeof none, &e)) break;
                r->sent = q + 1;
            }
        }
        for (size_t q = 0; r->posts && q < r->stream_queries; q++) {
            sw_error e;
            if (sw_mpi_finish(r->posts[q], &e) && !rc) rc = sw_error_set(err, e.code, "%s", e.message);
            free(r->post_bytes[q]);
        }
        if (!rc && r->stream_rc) {
            rc = r->stream_rc;
            if (err) *err = r->stream_err;
        }
    } else if (r->stream) {
        for (int k = 1; k < r->size && r->received && r->inbox && r->merged; k++) {
            while (r->received[k] < r->stream_queries) {
                size_t dropped = 0;
                sw_error e;
                if (take_hits(r, k, r->received[k], &dropped, &e)) {
                    if (!r->stream_rc) {
                        r->stream_rc = e.code ? e.code : SW_EIO;
                        r->stream_err = e;
                    }
                    break;
                }
            }
        }
        if (r->stream_rc) {
            rc = r->stream_rc;
            if (err) *err = r->stream_err;
        }
    }
    free(r->posts);
    free(r->post_bytes);
    free(r->received);
    free(r->merged);
    free(r->inbox);
    r->posts = NULL;
    r->post_bytes = NULL;
    r->received = NULL;
    r->merged = NULL;
    r->inbox = NULL;
    r->stream = 0;
    return rc;
}

/* Searches this rank's share with the rank's own course of options. */
static int search_share(sw_search_ranks *r, const sw_query_set *batch, const sw_scoring *scoring,
                        const sw_search_options *options, const batch_head *head, sw_search_results **out,
                        sw_error *err)
{
    *out = NULL;
    int rc = open_share(r, err);
    if (rc) return rc;
    if (!r->share) return sw_results_create(sw_queries_count(batch), out) ? sw_error_set(err, SW_ENOMEM, "out of memory") : SW_OK;
    sw_search_options opt = *options;
    opt.ranks = NULL;
    opt.query_done = NULL;
    opt.query_done_user = NULL;
    opt.residues_out = NULL;
    opt.top_n = (size_t)head->top_n;
    opt.keep_all_scores = head->keep_all_scores;
    if (r->kept_device) opt.device = r->device;
    if (r->threshold_kept) {
        opt.gpu_threshold = r->gpu_threshold;
        opt.gpu_threshold_kept = 1;
    }
    if (r->batches > 0 && r->on_gpu && opt.device != SW_DEVICE_CPU && !r->resident) {
        sw_error ignored;
        /* As in one process: the batches after the first find the share
         * decoded and on the GPUs. */
        sw_resident_create(r->share, opt.threads, !r->streamed, &r->resident, &ignored);
    }
    opt.resident = r->resident;
    if (r->stream) {
        opt.query_done = r->rank == 0 ? root_query_done : worker_query_done;
        opt.query_done_user = r;
    }
    rc = sw_search_dispatch(r->share, batch, scoring, &opt, out, err);
    if (rc) return rc;
    sw_search_stats st;
    sw_results_stats(*out, &st);
    if (r->batches++ == 0) {
        r->on_gpu = st.on_gpu;
        r->streamed = st.gpu_streamed;
        if (st.on_gpu && opt.gpu_threshold == 0 && !st.gpu_thresholds_differ) {
            r->gpu_threshold = st.gpu_threshold;
            r->threshold_kept = 1;
        }
        if (!st.on_gpu) {
            r->device = SW_DEVICE_CPU;
            r->kept_device = 1;
        }
    }
    return SW_OK;
}

/* This rank's reply for a batch: its hits numbered in the whole database. */
static int make_reply(const sw_search_ranks *r, size_t nq, const sw_search_results *res, int status,
                      const sw_error *status_err, uint8_t **out, size_t *bytes)
{
    reply_head head;
    memset(&head, 0, sizeof head);
    head.status = status;
    head.num_queries = nq;
    if (status) {
        snprintf(head.message, sizeof head.message, "%s",
                 status_err && status_err->message[0] ? status_err->message : sw_strerror(status));
    } else {
        for (size_t q = 0; q < nq; q++) head.num_hits += sw_results_count(res, q);
        if (r->share && sw_results_all_scores(res, 0)) head.num_scores = nq * sw_db_num_seqs(r->share);
        sw_search_stats st;
        sw_results_stats(res, &st);
        head.on_gpu = st.on_gpu;
        head.streamed = st.gpu_streamed;
        head.threads = st.threads;
        head.thresholds_differ = st.gpu_thresholds_differ;
        head.qp_length = st.gpu_qp_length;
        head.threshold = st.gpu_threshold;
        head.load = st.load_seconds;
        head.plan = st.gpu_plan_seconds;
        head.start = st.gpu_start_seconds;
        head.decode = st.decode_seconds;
        head.decode_wait = st.decode_wait_seconds;
        head.upload = st.upload_seconds;
        head.scan = st.scan_seconds;
        head.transfer = st.transfer_seconds;
        head.cells = st.cells;
        head.recomputed = st.recomputed;
        snprintf(head.engine, sizeof head.engine, "%s", st.engine);
    }
    const size_t n = sizeof head + (status ? 0 : nq * sizeof(uint64_t) + head.num_hits * sizeof(sw_hit) +
                                                      head.num_scores * sizeof(int32_t));
    uint8_t *p = malloc(n);
    if (!p) return SW_ENOMEM;
    memcpy(p, &head, sizeof head);
    if (!status) {
        uint64_t *counts = (uint64_t *)(p + sizeof head);
        sw_hit *hits = (sw_hit *)(counts + nq);
        for (size_t q = 0; q < nq; q++) {
            const sw_hit *h = sw_results_hits(res, q);
            counts[q] = sw_results_count(res, q);
            for (size_t i = 0; i < counts[q]; i++) {
                *hits = h[i];
                hits->seq = sw_db_whole_seq(r->share, h[i].seq);
                hits++;
            }
        }
        if (head.num_scores) {
            const uint64_t per = sw_db_num_seqs(r->share);
            int32_t *scores = (int32_t *)hits;
            for (size_t q = 0; q < nq; q++) memcpy(scores + q * per, sw_results_all_scores(res, q), per * sizeof *scores);
        }
    }
    *out = p;
    *bytes = n;
    return SW_OK;
}

/* A reply that says only that this rank is out of memory. */
static void small_reply(int status, const char *message, reply_head *head)
{
    memset(head, 0, sizeof *head);
    head->status = status;
    snprintf(head->message, sizeof head->message, "%s", message);
}

static int best_first(const void *pa, const void *pb)
{
    const sw_hit *a = pa, *b = pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return (a->original > b->original) - (a->original < b->original);
}

/* Rank 0: every rank's reply merged into one process's results. */
static int merge(sw_search_ranks *r, size_t nq, const sw_search_options *options, const uint8_t *all,
                 const uint64_t *sizes, sw_search_results **out, sw_error *err)
{
    const reply_head **heads = calloc((size_t)r->size, sizeof *heads);
    if (!heads) return sw_error_set(err, SW_ENOMEM, "out of memory merging the ranks' hits");
    uint64_t at = 0, total_hits = 0;
    int rc = SW_OK;
    for (int k = 0; k < r->size; k++) {
        heads[k] = (const reply_head *)(all + at);
        at += sizes[k];
        if (sizes[k] < sizeof(reply_head)) {
            rc = sw_error_set(err, SW_EIO, "rank %d of %d sent a reply cut short", k, r->size);
            goto done;
        }
    }
    for (int k = 0; k < r->size; k++) {
        if (heads[k]->status) {
            /* Rank 0's own failure reads as one process's would. */
            rc = k ? sw_error_set(err, heads[k]->status, "rank %d of %d: %s", k, r->size, heads[k]->message)
                   : sw_error_set(err, heads[k]->status, "%s", heads[k]->message);
            goto done;
        }
        total_hits += heads[k]->num_hits;
        if (heads[k]->num_queries != nq) {
            rc = sw_error_set(err, SW_EIO, "rank %d of %d answered another batch", k, r->size);
            goto done;
        }
    }
    const uint64_t nseqs = sw_db_num_seqs(r->db);
    sw_hit *pool = malloc((total_hits ? total_hits : 1) * sizeof *pool);
    int32_t *scores = NULL;
    if (options->keep_all_scores && nq && nseqs) scores = malloc(nq * nseqs * sizeof *scores);
    sw_search_results *res = NULL;
    if (!pool || (options->keep_all_scores && nq && nseqs && !scores) || sw_results_create(nq, &res)) {
        free(pool);
        free(scores);
        rc = sw_error_set(err, SW_ENOMEM, "out of memory merging the ranks' hits");
        goto done;
    }
    /* Each rank's hits of query q, then the best top_n of them all. */
    for (size_t q = 0; q < nq && rc == SW_OK; q++) {
        size_t n = 0;
        for (int k = 0; k < r->size; k++) {
            const uint64_t *counts = (const uint64_t *)(heads[k] + 1);
            const sw_hit *hits = (const sw_hit *)(counts + nq);
            for (size_t p = 0; p < q; p++) hits += counts[p];
            memcpy(pool + n, hits, counts[q] * sizeof *pool);
            n += counts[q];
        }
        qsort(pool, n, sizeof *pool, best_first);
        if (n > options->top_n) n = options->top_n;
        if (sw_results_set_hits(res, q, pool, n)) rc = sw_error_set(err, SW_ENOMEM, "out of memory merging the ranks' hits");
    }
    /* Every rank's scores to their place in the whole database. */
    for (int k = 0; k < r->size && scores && rc == SW_OK; k++) {
        size_t nruns = 0;
        const sw_slice_run *runs = sw_slice_runs(r->slicing, k, &nruns);
        const uint64_t per = sw_slice_num_seqs(r->slicing, k);
        if (heads[k]->num_scores != nq * per) {
            rc = sw_error_set(err, SW_EIO, "rank %d of %d sent %llu scores, not %llu", k, r->size,
                              (unsigned long long)heads[k]->num_scores, (unsigned long long)(nq * per));
            break;
        }
        const uint64_t *counts = (const uint64_t *)(heads[k] + 1);
        const int32_t *theirs = (const int32_t *)((const sw_hit *)(counts + nq) + heads[k]->num_hits);
        for (size_t q = 0; q < nq; q++)
            for (size_t i = 0; i < nruns; i++)
                memcpy(scores + q * nseqs + runs[i].first, theirs + q * per + runs[i].local,
                       runs[i].count * sizeof *scores);
    }
    if (rc == SW_OK) {
        /* Times are the slowest rank's (the ranks run side by side); cells,
         * threads and recomputed scores are summed. */
        sw_search_stats st;
        memset(&st, 0, sizeof st);
        int same = 1;
        for (int k = 0; k < r->size; k++) {
            const reply_head *h = heads[k];
            same &= !strcmp(h->engine, heads[0]->engine);
            if (h->load > st.load_seconds) {
                st.load_seconds = h->load;
                st.gpu_plan_seconds = h->plan;
                st.gpu_start_seconds = h->start;
                st.decode_seconds = h->decode;
                st.decode_wait_seconds = h->decode_wait;
                st.upload_seconds = h->upload;
            }
            if (h->scan > st.scan_seconds) st.scan_seconds = h->scan;
            if (h->transfer > st.transfer_seconds) st.transfer_seconds = h->transfer;
            st.cells += h->cells;
            st.recomputed += h->recomputed;
            st.threads += h->threads;
            st.gpu_streamed |= h->streamed;
            st.gpu_thresholds_differ |= h->thresholds_differ || h->threshold != heads[0]->threshold;
        }
        st.on_gpu = heads[0]->on_gpu;
        st.gpu_qp_length = heads[0]->qp_length;
        st.gpu_threshold = heads[0]->threshold;
        if (same)
            snprintf(st.engine, sizeof st.engine, "%d MPI ranks, each %.120s", r->size, heads[0]->engine);
        else
            snprintf(st.engine, sizeof st.engine, "%d MPI ranks (rank 0 %.50s, rank 1 %.50s, ...)", r->size, heads[0]->engine,
                     heads[1]->engine);
        st.gpu_threshold_source = NULL;
        sw_results_set_stats(res, &st);
        if (scores) {
            sw_results_adopt_all_scores(res, scores, nseqs);
            scores = NULL;
        }
        *out = res;
        res = NULL;
    }
    sw_results_free(res);
    free(scores);
    free(pool);
done:
    free(heads);
    return rc;
}

int sw_search_ranks_search(sw_search_ranks *r, const sw_query_set *queries, const sw_scoring *scoring,
                           const sw_search_options *options, sw_search_results **out, sw_error *err)
{
    *out = NULL;
    uint8_t *packed = NULL;
    size_t packed_bytes = 0;
    int rc = sw_queries_pack(queries, &packed, &packed_bytes, err);
    if (rc) return rc; /* nothing sent yet: the others still wait for a head */
    batch_head head = {
        .command = COMMAND_BATCH,
        .packed_bytes = packed_bytes,
        .top_n = options->top_n,
        .num_queries = sw_queries_count(queries),
        .stream = options->query_done && !options->keep_all_scores,
        .keep_all_scores = options->keep_all_scores,
        .gap_open = scoring->gap_open,
        .gap_extend = scoring->gap_extend,
        .table_hash = table_hash(scoring),
    };
    /* Rank 0's room to merge streamed hits comes first: without it, the
     * batch does not stream. */
    if (head.stream) {
        sw_error ignored;
        if (stream_begin(r, &head, options, &ignored)) {
            stream_end(r, NULL, &ignored);
            head.stream = 0;
        }
    }
    if ((rc = sw_mpi_broadcast(r->job, &head, sizeof head, err)) ||
        (rc = sw_mpi_broadcast(r->job, packed, packed_bytes, err))) {
        free(packed);
        return rc;
    }
    free(packed);
    const size_t nq = sw_queries_count(queries);
    sw_error mine_err;
    sw_error_clear(&mine_err);
    sw_search_results *mine = NULL;
    if (!head.stream) stream_begin(r, &head, options, &mine_err); /* nothing to allocate */
    int status = search_share(r, queries, scoring, options, &head, &mine, &mine_err);
    sw_error stream_err;
    const int stream_rc = stream_end(r, status ? NULL : mine, &stream_err);
    if (status == SW_OK && stream_rc) {
        status = stream_rc;
        mine_err = stream_err;
    }
    /* The source of the threshold is a constant string, which does not
     * travel: rank 0's own is kept. */
    const char *source = NULL;
    if (status == SW_OK) {
        sw_search_stats st;
        sw_results_stats(mine, &st);
        source = st.gpu_threshold_source;
    }
    uint8_t *reply = NULL;
    size_t reply_bytes = 0;
    reply_head small;
    if (make_reply(r, nq, mine, status, &mine_err, &reply, &reply_bytes)) {
        small_reply(SW_ENOMEM, "out of memory sending the hits", &small);
        reply = NULL;
    }
    sw_results_free(mine);
    void *all = NULL;
    uint64_t *sizes = calloc((size_t)r->size, sizeof *sizes);
    if (!sizes) {
        free(reply);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    rc = reply ? sw_mpi_gather(r->job, reply, reply_bytes, &all, sizes, err)
               : sw_mpi_gather(r->job, &small, sizeof small, &all, sizes, err);
    free(reply);
    if (rc == SW_OK) rc = merge(r, nq, options, all, sizes, out, err);
    if (rc == SW_OK) {
        sw_search_stats st;
        sw_results_stats(*out, &st);
        st.gpu_threshold_source = source;
        sw_results_set_stats(*out, &st);
    }
    free(all);
    free(sizes);
    return rc;
}

int sw_search_ranks_end(sw_search_ranks *r, int status, sw_error *err)
{
    batch_head head = {.command = COMMAND_END, .status = status};
    return sw_mpi_broadcast(r->job, &head, sizeof head, err);
}

int sw_search_ranks_serve(sw_search_ranks *r, const sw_scoring *scoring, const sw_search_options *options,
                          int status, const sw_error *status_err, sw_error *err)
{
    /* This rank's first failure: every later batch is answered with it. */
    sw_error failed;
    sw_error_clear(&failed);
    if (status && status_err) failed = *status_err;
    if (status && !failed.message[0]) snprintf(failed.message, sizeof failed.message, "%s", sw_strerror(status));
    for (;;) {
        batch_head head;
        int rc = sw_mpi_broadcast(r->job, &head, sizeof head, err);
        if (rc) return rc;
        if (head.command == COMMAND_END) {
            if (status) {
                if (err) *err = failed;
                return status;
            }
            return head.status == SW_OK ? SW_OK
                                        : sw_error_set(err, SW_EIO, "rank 0 of %d stopped the search", r->size);
        }
        uint8_t *packed = malloc(head.packed_bytes ? head.packed_bytes : 1);
        /* The batch must be received, room or not: without it, this rank
         * cannot take part in the broadcast, and the job ends. */
        if (!packed) {
            sw_error_set(err, SW_ENOMEM, "out of memory receiving queries");
            return SW_ENOMEM;
        }
        if ((rc = sw_mpi_broadcast(r->job, packed, head.packed_bytes, err))) {
            free(packed);
            return rc;
        }
        sw_error e;
        sw_error_clear(&e);
        sw_query_set *batch = NULL;
        sw_search_results *res = NULL;
        int st = status;
        if (st) e = failed;
        sw_error stream_err;
        const int begun = stream_begin(r, &head, NULL, &stream_err);
        if (!st && begun) {
            st = begun;
            e = stream_err;
        }
        if (!st && (head.gap_open != scoring->gap_open || head.gap_extend != scoring->gap_extend ||
                    head.table_hash != table_hash(scoring)))
            st = sw_error_set(&e, SW_EINVAL, "rank %d scores with another matrix or other gap costs than rank 0",
                              r->rank);
        if (!st) st = sw_queries_unpack(packed, (size_t)head.packed_bytes, &batch, &e);
        free(packed);
        if (!st) st = search_share(r, batch, scoring, options, &head, &res, &e);
        const int ended = stream_end(r, st ? NULL : res, &stream_err);
        if (!st && ended) {
            st = ended;
            e = stream_err;
        }
        const size_t nq = batch ? sw_queries_count(batch) : 0;
        uint8_t *reply = NULL;
        size_t reply_bytes = 0;
        reply_head small;
        if (make_reply(r, nq, res, st, &e, &reply, &reply_bytes)) small_reply(SW_ENOMEM, "out of memory sending the hits", &small);
        sw_results_free(res);
        sw_queries_free(batch);
        rc = reply ? sw_mpi_gather(r->job, reply, reply_bytes, NULL, NULL, err)
                   : sw_mpi_gather(r->job, &small, sizeof small, NULL, NULL, err);
        free(reply);
        if (rc) return rc;
        if (st && !status) {
            /* Rank 0 reports it and ends the run; this rank answers until then. */
            status = st;
            failed = e;
        }
    }
}
