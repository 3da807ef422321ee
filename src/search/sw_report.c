/* TSV output and the batched search that produces it. Subject headers are
 * fetched together per batch, so each header chunk is decompressed once a
 * batch. */
#include "sw_report.h"

#include <stdlib.h>
#include <string.h>

#include "sw_fasta.h"

typedef struct header_entry {
    uint64_t seq;
    char *text;
} header_entry;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static const char *find_header(const header_entry *h, size_t n, uint64_t seq)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h[mid].seq < seq) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && h[lo].seq == seq ? h[lo].text : "";
}

/* Tabs and line ends inside a header would break the table. */
static void put_field(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        putc(c == '\t' || c == '\n' || c == '\r' ? ' ' : c, out);
    }
}

void sw_report_write_tsv_header(FILE *out)
{
    fputs("query_id\tquery_length\trank\tscore\tsubject_id\tsubject_length\tsubject_description\n",
          out);
}

int sw_report_write_tsv(FILE *out, const sw_db *db, const sw_query_set *queries,
                        const sw_search_results *results, sw_error *err)
{
    size_t nq = sw_queries_count(queries), total = 0;
    for (size_t q = 0; q < nq; q++) total += sw_results_count(results, q);
    uint64_t *seqs = malloc((total ? total : 1) * sizeof *seqs);
    header_entry *headers = calloc(total ? total : 1, sizeof *headers);
    int rc = SW_OK;
    size_t nh = 0;
    if (!seqs || !headers) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory writing results");
        goto done;
    }
    size_t k = 0;
    for (size_t q = 0; q < nq; q++) {
        const sw_hit *hits = sw_results_hits(results, q);
        for (size_t i = 0; i < sw_results_count(results, q); i++) seqs[k++] = hits[i].seq;
    }
    qsort(seqs, total, sizeof *seqs, cmp_u64);
    for (size_t i = 0; i < total; i++)
        if (!nh || seqs[nh - 1] != seqs[i]) seqs[nh++] = seqs[i];
    char **texts = calloc(nh ? nh : 1, sizeof *texts);
    if (!texts) {
        nh = 0;
        rc = sw_error_set(err, SW_ENOMEM, "out of memory writing results");
        goto done;
    }
    rc = sw_db_read_headers(db, seqs, nh, texts, err);
    for (size_t i = 0; i < nh; i++) {
        headers[i].seq = seqs[i];
        headers[i].text = texts[i];
    }
    free(texts);
    if (rc != SW_OK) goto done;

    const uint32_t *lengths = sw_db_lengths(db);
    for (size_t q = 0; q < nq; q++) {
        size_t qlen;
        sw_queries_residues(queries, q, &qlen);
        const char *qid = sw_queries_id(queries, q);
        const sw_hit *hits = sw_results_hits(results, q);
        for (size_t i = 0; i < sw_results_count(results, q); i++) {
            const char *h = find_header(headers, nh, hits[i].seq);
            size_t id_len, desc_len;
            const char *desc;
            sw_fasta_split_header(h, strlen(h), &id_len, &desc, &desc_len);
            put_field(out, qid, strlen(qid));
            fprintf(out, "\t%zu\t%zu\t%d\t", qlen, i + 1, hits[i].score);
            put_field(out, h, id_len);
            fprintf(out, "\t%u\t", lengths[hits[i].seq]);
            put_field(out, desc, desc_len);
            putc('\n', out);
        }
    }
    if (ferror(out)) rc = sw_error_set(err, SW_EIO, "error writing results");
done:
    for (size_t i = 0; i < nh; i++) free(headers[i].text);
    free(headers);
    free(seqs);
    return rc;
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

int sw_report_search_tsv(FILE *out, const sw_db *db, sw_query_reader *queries,
                         const sw_scoring *scoring, const sw_search_options *options,
                         const sw_report_batching *batching, sw_report_summary *summary,
                         sw_error *err)
{
    uint64_t max_residues = batching && batching->max_residues ? batching->max_residues
                                                               : SW_REPORT_BATCH_RESIDUES;
    size_t max_queries = batching && batching->max_queries ? batching->max_queries : 0;
    if (!max_queries) {
        size_t by_hits = SW_REPORT_BATCH_HITS / (options->top_n ? options->top_n : 1);
        max_queries = by_hits < 1                         ? 1
                      : by_hits > SW_REPORT_BATCH_QUERIES ? SW_REPORT_BATCH_QUERIES
                                                          : by_hits;
    }
    sw_report_summary sum;
    memset(&sum, 0, sizeof sum);
    /* Each batch is one sw_search_run call, and the GPU engine loads the
     * database for each. The GPU's larger batches keep that a small share:
     * on an H100, 2^21 query residues against 1.5 M database residues took
     * 8 s to scan and 0.3 s to load. Keeping the database resident on the
     * GPU across batches is separate work. */
    sw_search_options opt = *options;
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
                sw_report_write_tsv_header(out);
            }
            sum.batches++;
            sum.queries += sw_queries_count(batch);
            sum.query_residues += sw_queries_total_residues(batch);
            rc = sw_report_write_tsv(out, db, batch, results, err);
        }
        sw_results_free(results);
        sw_queries_free(batch);
        if (rc) break;
    }
    if (summary) *summary = sum;
    return rc;
}
