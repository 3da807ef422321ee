/* Query batches and the batched search: bounds, names of bare headers, and
 * output that does not depend on the batching. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sw_db.h"
#include "sw_db_writer.h"
#include "sw_fasta.h"
#include "sw_matrix.h"
#include "sw_queries.h"
#include "sw_report.h"
#include "sw_search.h"
#include "test_tmpdir.h"

static char dir[64];

static void make_dir(void)
{
    strcpy(dir, "/tmp/test_queries.XXXXXX");
    temp_dir_make(dir);
}

static void remove_dir(void) { temp_dir_remove(dir); }

TestSuite(queries, .init = make_dir, .fini = remove_dir);
TestSuite(report, .init = make_dir, .fini = remove_dir);

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
    return path;
}

static sw_query_reader *open_queries(const char *path)
{
    sw_query_reader *r = NULL;
    sw_error err;
    cr_assert_eq(sw_queries_open(path, sw_alphabet_protein(), NULL, NULL, &r, &err), SW_OK, "%s",
                 err.message);
    return r;
}

Test(queries, batches_keep_to_the_residue_bound_and_a_long_query_goes_alone)
{
    const char *path = write_file("q.fa", ">a\nAAAAA\n>b\nCCCCC\n>c\nDDDDD\n>d\n"
                                          "EEEEEEEEEEEEEEEEEEEE\n>e\nFFFFF\n");
    sw_query_reader *r = open_queries(path);
    const size_t expected[][2] = {{2, 10}, {1, 5}, {1, 20}, {1, 5}};
    sw_error err;
    for (size_t b = 0; b < 4; b++) {
        sw_query_set *q = NULL;
        cr_assert_eq(sw_queries_next_batch(r, 12, 0, &q, &err), 1, "batch %zu", b);
        cr_assert_eq(sw_queries_count(q), expected[b][0], "batch %zu", b);
        cr_assert_eq(sw_queries_total_residues(q), expected[b][1], "batch %zu", b);
        sw_queries_free(q);
    }
    sw_query_set *q = NULL;
    cr_assert_eq(sw_queries_next_batch(r, 12, 0, &q, &err), 0);
    cr_assert_null(q);
    sw_queries_close(r);
}

Test(queries, batches_keep_to_the_count_bound)
{
    const char *path = write_file("q.fa", ">a\nA\n>b\nC\n>c\nD\n>d\nE\n>e\nF\n");
    sw_query_reader *r = open_queries(path);
    sw_error err;
    size_t counts[4] = {0}, n = 0;
    sw_query_set *q;
    while (n < 4 && sw_queries_next_batch(r, 0, 2, &q, &err) == 1) {
        counts[n++] = sw_queries_count(q);
        sw_queries_free(q);
    }
    sw_queries_close(r);
    cr_assert_eq(n, 3);
    cr_assert(counts[0] == 2 && counts[1] == 2 && counts[2] == 1);
}

Test(queries, a_bare_header_is_named_by_its_number_in_the_file)
{
    const char *path = write_file("q.fa", ">\nAC\n>x desc\nAC\n> \t\nAC\n>y\nAC\n>\nAC\n");
    sw_query_reader *r = open_queries(path);
    const char *expected[] = {"query1", "x", "query3", "y", "query5"};
    size_t n = 0;
    sw_error err;
    sw_query_set *q;
    /* Batches of two: the number counts from the start of the file. */
    while (sw_queries_next_batch(r, 0, 2, &q, &err) == 1) {
        for (size_t i = 0; i < sw_queries_count(q); i++, n++) {
            cr_assert_lt(n, 5);
            cr_assert_str_eq(sw_queries_id(q, i), expected[n]);
        }
        sw_queries_free(q);
    }
    sw_queries_close(r);
    cr_assert_eq(n, 5);
}

Test(queries, an_input_without_sequences_is_an_error)
{
    const char *path = write_file("q.fa", ">empty\n\n");
    sw_query_reader *r = open_queries(path);
    sw_query_set *q = NULL;
    sw_error err;
    cr_assert_eq(sw_queries_next_batch(r, 0, 0, &q, &err), SW_EFORMAT);
    cr_assert(strstr(err.message, "no sequences"), "%s", err.message);
    sw_queries_close(r);
}

Test(queries, an_error_in_a_later_batch_names_file_and_line)
{
    const char *path = write_file("q.fa", ">a\nAC\n>b\nAC\n>c\nA#C\n");
    sw_query_reader *r = open_queries(path);
    sw_query_set *q = NULL;
    sw_error err;
    cr_assert_eq(sw_queries_next_batch(r, 0, 1, &q, &err), 1);
    sw_queries_free(q);
    cr_assert_eq(sw_queries_next_batch(r, 0, 1, &q, &err), 1);
    sw_queries_free(q);
    cr_assert_eq(sw_queries_next_batch(r, 0, 1, &q, &err), SW_EFORMAT);
    cr_assert(strstr(err.message, "q.fa:6: invalid residue '#'"), "%s", err.message);
    sw_queries_close(r);
}

/* A database of the 20 benchmark queries, searched with the same queries. */
static sw_db *make_db(void)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s/db", dir);
    sw_db_writer *w;
    sw_fasta *f;
    sw_fasta_record rec;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_fasta_open(SW_TEST_DATA "/queries20.fasta", NULL, &f, &err), SW_OK);
    while (sw_fasta_next(f, &rec, &err) == 1)
        cr_assert_eq(
            sw_db_writer_add(w, rec.header, rec.header_len, rec.residues, rec.length, &err), SW_OK,
            "%s", err.message);
    sw_fasta_close(f);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);
    sw_db *db;
    cr_assert_eq(sw_db_open(prefix, &db, &err), SW_OK, "%s", err.message);
    return db;
}

typedef struct search_setup {
    sw_db *db;
    sw_matrix *matrix;
    sw_scoring scoring;
    sw_search_options options;
} search_setup;

static void setup(search_setup *s)
{
    sw_error err;
    s->db = make_db();
    cr_assert_eq(sw_matrix_load(SW_MATRIX_DIR "/BLOSUM62", &s->matrix, &err), SW_OK);
    cr_assert_eq(sw_scoring_init(&s->scoring, s->matrix, 11, 1, &err), SW_OK);
    memset(&s->options, 0, sizeof s->options);
    s->options.top_n = 7;
    s->options.threads = 2;
    s->options.device = SW_DEVICE_CPU;
}

static char *batched_report(const search_setup *s, const char *path, const char *format,
                            uint64_t max_residues, size_t max_queries, size_t *len,
                            sw_report_summary *sum)
{
    sw_query_reader *r = open_queries(path);
    sw_report_batching batching = {max_residues, max_queries, 0};
    sw_error err;
    sw_outfmt *f = NULL;
    cr_assert_eq(sw_outfmt_parse(format, &f, &err), SW_OK, "%s", err.message);
    sw_report_options report = {
        .format = f,
        .stats = SW_STATS_AUTO,
        .matrix_name = "BLOSUM62",
        .max_evalue = 1e9,
        .run = {.version = "test", .db_path = "db", .matrix = "BLOSUM62", .gap_open = 11,
                .gap_extend = 1, .evalue_cutoff = 1e9},
    };
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    int rc = sw_report_search(out, s->db, r, &s->scoring, &s->options, &report, &batching, sum, &err);
    cr_assert_eq(rc, SW_OK, "%s", err.message);
    fclose(out);
    sw_outfmt_free(f);
    sw_queries_close(r);
    return text;
}

Test(report, the_output_does_not_depend_on_the_batching)
{
    search_setup s;
    setup(&s);
    const char *path = SW_TEST_DATA "/queries20.fasta";
    const char *formats[] = {"tsv", "6", "0"};
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
        size_t whole_len;
        sw_report_summary whole_sum;
        char *whole = batched_report(&s, path, formats[f], (uint64_t)1 << 40, 1000, &whole_len, &whole_sum);
        cr_assert_eq(whole_sum.batches, 1);
        cr_assert_gt(whole_len, 1000);
        /* 41,752 residues in 20 queries: by residues, by count, one query a
         * batch, and the default bounds (one batch). 5,000 residues hold at
         * most a few queries of these lengths: 9 batches or more. */
        const struct {
            uint64_t residues;
            size_t queries, batches;
        } cases[] = {{5000, 0, 9}, {0, 3, 7}, {1, 0, 20}, {0, 0, 1}};
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            size_t len;
            sw_report_summary sum;
            char *batched = batched_report(&s, path, formats[f], cases[c].residues, cases[c].queries,
                                           &len, &sum);
            cr_assert_eq(sum.queries, 20);
            cr_assert_eq(sum.query_residues, 41752);
            if (cases[c].residues == 5000)
                cr_assert_geq(sum.batches, cases[c].batches, "case %zu: %zu batches", c, sum.batches);
            else
                cr_assert_eq(sum.batches, cases[c].batches, "case %zu: %zu batches", c, sum.batches);
            cr_assert_eq(len, whole_len, "format %s, case %zu", formats[f], c);
            cr_assert(memcmp(batched, whole, len) == 0, "format %s, case %zu: outputs differ", formats[f], c);
            free(batched);
        }
        free(whole);
    }
    sw_matrix_free(s.matrix);
    sw_db_close(s.db);
}
