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
#include "sw_traceback.h"

/* A group ends once it holds this many hits (a query is never split). */
#define GROUP_HITS 65536

typedef struct kept_hit {
    size_t query; /* in the batch */
    sw_hit hit;
    double evalue, bits;
    char *header;
    uint8_t *residues; /* the subject, when alignments are needed */
    sw_alignment alignment;
} kept_hit;

/* BLAST's order: E-value, then score, then the database's input order. */
static int by_evalue(const void *pa, const void *pb)
{
    const kept_hit *a = pa, *b = pb;
    if (a->query != b->query) return a->query < b->query ? -1 : 1;
    if (a->evalue != b->evalue) return a->evalue < b->evalue ? -1 : 1;
    if (a->hit.score != b->hit.score) return a->hit.score > b->hit.score ? -1 : 1;
    return a->hit.original < b->hit.original ? -1 : a->hit.original > b->hit.original;
}

typedef struct align_ctx {
    kept_hit *hits;
    const size_t *order; /* largest matrices first, so no thread is left with a big one at the end */
    size_t n;
    const sw_query_set *queries;
    sw_simd_profile **profiles; /* of queries first_query.. of the batch */
    sw_simd_profile **reversed; /* of the same queries reversed */
    size_t first_query;
    const uint32_t *lengths;
    const sw_scoring *scoring;
    atomic_size_t next;
    atomic_int failed;
    pthread_mutex_t lock;
    sw_error err;
} align_ctx;

static void align_fail(align_ctx *c, const sw_error *e)
{
    pthread_mutex_lock(&c->lock);
    if (!atomic_exchange(&c->failed, 1)) c->err = *e;
    pthread_mutex_unlock(&c->lock);
}

/* Aligns hits taken in turn. The striped SIMD engine finds, at full speed,
 * the score and the column where the alignment ends, then, on the reversed
 * query and subject, the leftmost column where a best alignment ending
 * there starts; the traceback fills only the columns between, with a
 * striped pass of its own that keeps each cell's H and source. Each
 * alignment must re-score, column by column, to the score that the search
 * found. */
static void align_worker(void *arg, int index)
{
    (void)index;
    align_ctx *c = arg;
    sw_error e;
    sw_error_clear(&e);
    sw_traceback_workspace *w = NULL;
    sw_simd_workspace *sw = NULL;
    uint8_t *reversed = NULL; /* the subject up to the end, reversed */
    size_t reversed_cap = 0;
    if (sw_traceback_workspace_create(&w) != SW_OK || sw_simd_workspace_create(&sw) != SW_OK) {
        sw_error_set(&e, SW_ENOMEM, "out of memory aligning hits");
        align_fail(c, &e);
        sw_traceback_workspace_free(w);
        return;
    }
    while (!atomic_load(&c->failed)) {
        size_t i = atomic_fetch_add(&c->next, 1);
        if (i >= c->n) break;
        kept_hit *k = &c->hits[c->order[i]];
        size_t qlen;
        const uint8_t *query = sw_queries_residues(c->queries, k->query, &qlen);
        size_t slen = c->lengths[k->hit.seq];
        size_t end_column = 0;
        int score = sw_simd_align_end(c->profiles[k->query - c->first_query], sw, k->residues, slen,
                                      &end_column);
        int rc;
        if (score == SW_EINVAL) /* a build without the SIMD engine: the whole matrix */
            rc = sw_traceback_align(w, query, qlen, k->residues, slen, c->scoring, &k->alignment, &e);
        else if (score < 0)
            rc = sw_error_set(&e, score, "aligning query %s: %s", sw_queries_id(c->queries, k->query),
                              sw_strerror(score));
        else if (score != k->hit.score)
            rc = sw_error_set(&e, SW_ECORRUPT,
                              "query %s, database sequence %llu: the search scored %d, the alignment "
                              "engine %d",
                              sw_queries_id(c->queries, k->query), (unsigned long long)k->hit.seq,
                              k->hit.score, score);
        else {
            size_t first_column = 1, last = 0;
            if (end_column > reversed_cap) {
                uint8_t *bigger = realloc(reversed, end_column);
                if (!bigger) {
                    rc = sw_error_set(&e, SW_ENOMEM, "out of memory aligning hits");
                    align_fail(c, &e);
                    break;
                }
                reversed = bigger;
                reversed_cap = end_column;
            }
            for (size_t j = 0; j < end_column; j++) reversed[j] = k->residues[end_column - 1 - j];
            rc = sw_simd_align_last(c->reversed[k->query - c->first_query], sw, reversed, end_column, score,
                                    &last);
            if (rc == score && last >= 1 && last <= end_column) {
                first_column = end_column - last + 1;
                rc = SW_OK;
            } else {
                rc = sw_error_set(&e, SW_ECORRUPT,
                                  "query %s, database sequence %llu: the reversed pass scored %d, not %d",
                                  sw_queries_id(c->queries, k->query), (unsigned long long)k->hit.seq, rc,
                                  score);
            }
            if (rc == SW_OK)
                rc = sw_traceback_align_simd(w, c->profiles[k->query - c->first_query], query, qlen,
                                             k->residues, slen, c->scoring, score, first_column,
                                             end_column, 0, &k->alignment, &e);
        }
        int rescored = 0;
        if (rc == SW_OK)
            rc = sw_alignment_rescore(&k->alignment, query, qlen, k->residues, slen, c->scoring,
                                      &rescored);
        if (rc == SW_OK && (k->alignment.score != k->hit.score || rescored != k->hit.score))
            rc = sw_error_set(&e, SW_ECORRUPT,
                              "query %s, database sequence %llu: the search scored %d, the "
                              "alignment %d, its columns %d",
                              sw_queries_id(c->queries, k->query), (unsigned long long)k->hit.seq,
                              k->hit.score, k->alignment.score, rescored);
        else if (rc != SW_OK && !e.message[0])
            sw_error_set(&e, rc, "aligning query %s: %s", sw_queries_id(c->queries, k->query),
                         sw_strerror(rc));
        if (rc != SW_OK) {
            align_fail(c, &e);
            break;
        }
    }
    sw_traceback_workspace_free(w);
    sw_simd_workspace_free(sw);
    free(reversed);
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

static int align_hits(kept_hit *hits, size_t n, const sw_query_set *queries, size_t first_query,
                      size_t end_query, const sw_db *db, const sw_scoring *scoring, int threads,
                      sw_error *err)
{
    size_t nq = end_query - first_query;
    sw_simd_profile **profiles = calloc(2 * (nq ? nq : 1), sizeof *profiles);
    if (!profiles) return sw_error_set(err, SW_ENOMEM, "out of memory aligning hits");
    sw_simd_profile **reversed = profiles + (nq ? nq : 1);
    for (size_t q = 0; q < nq; q++) {
        size_t qlen;
        const uint8_t *query = sw_queries_residues(queries, first_query + q, &qlen);
        uint8_t *backwards = malloc(qlen ? qlen : 1);
        int rc = backwards ? SW_OK : SW_ENOMEM;
        for (size_t i = 0; rc == SW_OK && i < qlen; i++) backwards[i] = query[qlen - 1 - i];
        if (rc == SW_OK) rc = sw_simd_profile_create(query, qlen, scoring, &profiles[q]);
        if (rc == SW_OK) rc = sw_simd_profile_create(backwards, qlen, scoring, &reversed[q]);
        free(backwards);
        if (rc) {
            for (size_t k = 0; k <= q; k++) {
                sw_simd_profile_free(profiles[k]);
                sw_simd_profile_free(reversed[k]);
            }
            free(profiles);
            return sw_error_set(err, rc, "query %s: %s", sw_queries_id(queries, first_query + q),
                                sw_strerror(rc));
        }
    }
    area_index *areas = malloc((n ? n : 1) * sizeof *areas);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!areas || !order) {
        free(areas);
        free(order);
        for (size_t q = 0; q < nq; q++) {
            sw_simd_profile_free(profiles[q]);
            sw_simd_profile_free(reversed[q]);
        }
        free(profiles);
        return sw_error_set(err, SW_ENOMEM, "out of memory aligning hits");
    }
    for (size_t i = 0; i < n; i++) {
        size_t qlen;
        sw_queries_residues(queries, hits[i].query, &qlen);
        areas[i] = (area_index){(uint64_t)qlen * sw_db_lengths(db)[hits[i].hit.seq], i};
    }
    qsort(areas, n, sizeof *areas, by_area_desc);
    for (size_t i = 0; i < n; i++) order[i] = areas[i].index;
    free(areas);
    align_ctx c;
    memset(&c, 0, sizeof c);
    c.hits = hits;
    c.order = order;
    c.profiles = profiles;
    c.reversed = reversed;
    c.first_query = first_query;
    c.n = n;
    c.queries = queries;
    c.lengths = sw_db_lengths(db);
    c.scoring = scoring;
    atomic_init(&c.next, 0);
    atomic_init(&c.failed, 0);
    pthread_mutex_init(&c.lock, NULL);
    if (threads <= 0) threads = sw_clock_online_cpus();
    if ((size_t)threads > n) threads = n ? (int)n : 1;
    int started = 0;
    sw_pool_run(threads, align_worker, &c, &started);
    if (started == 0) align_worker(&c, 0); /* no thread could start: align here */
    pthread_mutex_destroy(&c.lock);
    free(order);
    for (size_t q = 0; q < nq; q++) {
        sw_simd_profile_free(profiles[q]);
        sw_simd_profile_free(reversed[q]);
    }
    free(profiles);
    if (atomic_load(&c.failed)) {
        if (err) *err = c.err;
        return c.err.code ? c.err.code : SW_EINVAL;
    }
    return SW_OK;
}

/* Everything one batch's report needs besides its queries and results. */
typedef struct report_ctx {
    FILE *out;
    const sw_db *db;
    const sw_scoring *scoring;
    const sw_search_options *options;
    const sw_report_options *report;
    int with_stats, with_alignment, with_sequences;
    const sw_stats_params *params; /* published parameters, or NULL: fit */
    sw_report_summary *summary;
} report_ctx;

static int query_stats(const report_ctx *r, const sw_query_set *batch, const sw_search_results *res,
                       size_t q, sw_stats **out, sw_error *err)
{
    size_t qlen;
    sw_queries_residues(batch, q, &qlen);
    int rc;
    if (r->params) {
        rc = sw_stats_from_params(r->params, qlen, sw_db_num_residues(r->db), sw_db_num_seqs(r->db),
                                  out, err);
    } else {
        const int32_t *scores = sw_results_all_scores(res, q);
        if (!scores) return sw_error_set(err, SW_EINVAL, "fitted statistics need every score");
        rc = sw_stats_fit(scores, sw_db_lengths(r->db), sw_db_num_seqs(r->db), qlen,
                          sw_db_num_residues(r->db), out, err);
    }
    if (rc == SW_OK && !r->summary->statistics[0])
        snprintf(r->summary->statistics, sizeof r->summary->statistics, "%s", sw_stats_describe(*out));
    return rc;
}

/* Reports queries [first, end) of a batch. */
static int report_group(const report_ctx *r, const sw_query_set *batch, const sw_search_results *res,
                        size_t first, size_t end, sw_error *err)
{
    size_t total = 0;
    for (size_t q = first; q < end; q++) total += sw_results_count(res, q);
    size_t nq = end - first;
    kept_hit *kept = calloc(total ? total : 1, sizeof *kept);
    sw_stats **stats = calloc(nq, sizeof *stats);
    size_t *begin = calloc(nq + 1, sizeof *begin);
    uint64_t *seqs = NULL;
    char **headers = NULL;
    uint8_t **subjects = NULL;
    sw_outfmt_hit *lines = NULL;
    size_t n = 0;
    int rc = SW_OK;
    if (!kept || !stats || !begin) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory reporting hits");
        goto done;
    }
    const uint32_t *lengths = sw_db_lengths(r->db);
    for (size_t q = first; q < end; q++) {
        begin[q - first] = n;
        const sw_hit *hits = sw_results_hits(res, q);
        size_t count = sw_results_count(res, q);
        if (r->with_stats && (rc = query_stats(r, batch, res, q, &stats[q - first], err))) goto done;
        for (size_t i = 0; i < count; i++) {
            kept_hit *k = &kept[n];
            k->query = q;
            k->hit = hits[i];
            if (r->with_stats) {
                sw_stats *s = stats[q - first];
                k->evalue = sw_stats_evalue(s, hits[i].score, lengths[hits[i].seq]);
                k->bits = sw_stats_bit_score(s, hits[i].score);
                if (!(k->evalue <= r->report->max_evalue)) continue;
            }
            n++;
        }
        if (r->with_stats) qsort(kept + begin[q - first], n - begin[q - first], sizeof *kept, by_evalue);
    }
    begin[nq] = n;

    seqs = malloc((n ? n : 1) * sizeof *seqs);
    headers = calloc(n ? n : 1, sizeof *headers);
    lines = calloc(n ? n : 1, sizeof *lines);
    if (!seqs || !headers || !lines) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory reporting hits");
        goto done;
    }
    for (size_t i = 0; i < n; i++) seqs[i] = kept[i].hit.seq;
    if ((rc = sw_db_read_headers(r->db, seqs, n, headers, err))) goto done;
    for (size_t i = 0; i < n; i++) kept[i].header = headers[i];

    if (r->with_alignment) {
        double t0 = sw_clock_seconds();
        subjects = calloc(n ? n : 1, sizeof *subjects);
        if (!subjects) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory reading subjects");
            goto done;
        }
        if ((rc = sw_db_read_sequences(r->db, seqs, n, r->options->threads, subjects, err))) goto done;
        r->summary->read_seconds += sw_clock_seconds() - t0;
        for (size_t i = 0; i < n; i++) kept[i].residues = subjects[i];
        if ((rc = align_hits(kept, n, batch, first, end, r->db, r->scoring, r->options->threads, err)))
            goto done;
        r->summary->align_seconds += sw_clock_seconds() - t0;
        r->summary->alignments += n;
    }

    for (size_t q = first; q < end; q++) {
        size_t from = begin[q - first], to = begin[q - first + 1];
        for (size_t i = from; i < to; i++) {
            const kept_hit *k = &kept[i];
            lines[i] = (sw_outfmt_hit){
                .score = k->hit.score,
                .bits = k->bits,
                .evalue = k->evalue,
                .header = k->header,
                .length = lengths[k->hit.seq],
                .residues = r->with_sequences ? k->residues : NULL,
                .alignment = r->with_alignment ? &k->alignment : NULL,
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
            .stats = r->with_stats ? sw_stats_describe(stats[q - first]) : "",
        };
        rc = sw_outfmt_write_query(r->out, r->report->format, &r->report->run, &query, lines + from,
                                   to - from, err);
        free(header);
        if (rc) goto done;
    }
    r->summary->hits += n;
    if (ferror(r->out)) rc = sw_error_set(err, SW_EIO, "error writing results");

done:
    for (size_t i = 0; i < n; i++) {
        free(kept[i].header);
        free(kept[i].residues);
        sw_alignment_clear(&kept[i].alignment);
    }
    if (stats)
        for (size_t i = 0; i < nq; i++) sw_stats_free(stats[i]);
    free(stats);
    free(kept);
    free(begin);
    free(seqs);
    free(headers);
    free(subjects);
    free(lines);
    return rc;
}

static int report_batch(const report_ctx *r, const sw_query_set *batch, const sw_search_results *res,
                        sw_error *err)
{
    size_t nq = sw_queries_count(batch);
    for (size_t first = 0; first < nq;) {
        size_t end = first, hits = 0;
        while (end < nq && (end == first || hits + sw_results_count(res, end) <= GROUP_HITS))
            hits += sw_results_count(res, end++);
        int rc = report_group(r, batch, res, first, end, err);
        if (rc) return rc;
        first = end;
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

int sw_report_search(FILE *out, const sw_db *db, sw_query_reader *queries,
                     const sw_scoring *scoring, const sw_search_options *options,
                     const sw_report_options *report, const sw_report_batching *batching,
                     sw_report_summary *summary, sw_error *err)
{
    report_ctx r;
    memset(&r, 0, sizeof r);
    r.out = out;
    r.db = db;
    r.scoring = scoring;
    r.options = options;
    r.report = report;
    r.with_stats = sw_outfmt_needs_statistics(report->format);
    r.with_alignment = sw_outfmt_needs_alignment(report->format);
    r.with_sequences = sw_outfmt_needs_sequences(report->format);
    sw_stats_params params;
    int use_table = 0;
    if (r.with_stats) {
        int rc = choose_stats(report, scoring, &params, &use_table, err);
        if (rc) return rc;
        r.params = use_table ? &params : NULL;
    }
    const int keep_all_scores = r.with_stats && !use_table;

    uint64_t max_residues = batching && batching->max_residues ? batching->max_residues
                                                               : SW_REPORT_BATCH_RESIDUES;
    size_t max_queries = batching && batching->max_queries ? batching->max_queries : 0;
    if (!max_queries) {
        size_t by_hits = SW_REPORT_BATCH_HITS / (options->top_n ? options->top_n : 1);
        max_queries = by_hits < 1                         ? 1
                      : by_hits > SW_REPORT_BATCH_QUERIES ? SW_REPORT_BATCH_QUERIES
                                                          : by_hits;
    }
    if (keep_all_scores) {
        uint64_t per_query = 4 * (sw_db_num_seqs(db) ? sw_db_num_seqs(db) : 1);
        uint64_t by_scores = SW_REPORT_BATCH_SCORE_BYTES / per_query;
        if (by_scores < 1) by_scores = 1;
        if (max_queries > by_scores) max_queries = (size_t)by_scores;
    }
    sw_report_summary sum;
    memset(&sum, 0, sizeof sum);
    r.summary = &sum;
    /* Each batch is one sw_search_run call, and the GPU engine loads the
     * database for each. The GPU's larger batches keep that a small share:
     * on an H100, 2^21 query residues against 1.5 M database residues took
     * 8 s to scan and 0.3 s to load. Keeping the database resident on the
     * GPU across batches is separate work. */
    sw_search_options opt = *options;
    opt.keep_all_scores = keep_all_scores;
    batch_progress progress = {options, -1.0, -1.0};
    if (options->progress) {
        opt.progress = draw_batch_progress;
        opt.progress_user = &progress;
    }
    int rc;
    for (;;) {
        double first = sw_queries_fraction_read(queries);
        sw_query_set *batch = NULL;
        rc = sw_queries_next_batch(queries, max_residues, max_queries, &batch, err);
        if (rc <= 0) break;
        progress.first = first;
        progress.last = first < 0 ? -1.0 : sw_queries_fraction_read(queries);
        sw_search_results *results = NULL;
        rc = sw_search_run(db, batch, scoring, &opt, &results, err);
        if (rc == SW_OK) {
            sw_search_stats st;
            sw_results_stats(results, &st);
            add_stats(&sum.stats, &st, sum.batches == 0);
            if (sum.batches == 0) {
                /* The threshold depends on the GPU and the database only. */
                if (st.on_gpu && opt.gpu_threshold == 0) opt.gpu_threshold = st.gpu_threshold;
                if (st.on_gpu && !(batching && batching->max_residues))
                    max_residues = SW_REPORT_BATCH_RESIDUES_GPU;
                if (!st.on_gpu) opt.device = SW_DEVICE_CPU;
                rc = sw_outfmt_begin(out, report->format, &report->run, err);
            }
            sum.batches++;
            sum.queries += sw_queries_count(batch);
            sum.query_residues += sw_queries_total_residues(batch);
            if (rc == SW_OK) rc = report_batch(&r, batch, results, err);
        }
        sw_results_free(results);
        sw_queries_free(batch);
        if (rc) break;
    }
    if (rc == SW_OK) rc = sw_outfmt_end(out, report->format, &report->run, sum.queries, err);
    if (rc == SW_OK && ferror(out)) rc = sw_error_set(err, SW_EIO, "error writing results");
    if (summary) *summary = sum;
    return rc;
}
