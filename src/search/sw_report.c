/* TSV output. Subject headers are fetched together, so each header chunk is
 * decompressed once. */
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

    fputs("query_id\tquery_length\trank\tscore\tsubject_id\tsubject_length\tsubject_description\n",
          out);
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
