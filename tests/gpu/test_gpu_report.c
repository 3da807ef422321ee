/* The report of a GPU search, whose hits get statistics and alignments on
 * the CPU while the GPU goes on with later queries: byte for byte the CPU
 * engine's report, whatever share of the hits is done ahead and however
 * the queries are batched. Skips without a usable GPU. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_db.h"
#include "sw_db_writer.h"
#include "sw_fasta.h"
#include "sw_gpu.h"
#include "sw_matrix.h"
#include "sw_queries.h"
#include "sw_report.h"
#include "sw_search.h"
#include "gpu_required.h"
#include "test_tmpdir.h"

static char dir[64];

static void setup_suite(void)
{
    gpu_required();
    strcpy(dir, "/tmp/test_gpu_report.XXXXXX");
    temp_dir_make(dir);
}

static void remove_dir(void)
{
    if (dir[0]) temp_dir_remove(dir);
}

TestSuite(gpu_report, .init = setup_suite, .fini = remove_dir);

/* A database of the 20 benchmark queries, each also mutated twice, so that
 * every query has homologs of its own length. */
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
    unsigned seed = 7;
    int k = 0;
    while (sw_fasta_next(f, &rec, &err) == 1) {
        cr_assert_eq(sw_db_writer_add(w, rec.header, rec.header_len, rec.residues, rec.length, &err), SW_OK,
                     "%s", err.message);
        for (int copy = 0; copy < 2; copy++) {
            uint8_t *res = malloc(rec.length + 1);
            char header[64];
            size_t n = 0;
            for (size_t i = 0; i < rec.length; i++) {
                seed = seed * 1103515245u + 12345u;
                unsigned roll = (seed >> 16) % 100;
                if (roll < 3) continue; /* deletion */
                res[n++] = roll < 30 ? (uint8_t)((seed >> 8) % 20) : rec.residues[i]; /* codes */
            }
            int hl = snprintf(header, sizeof header, "copy%d_%d mutated", k, copy);
            cr_assert_eq(sw_db_writer_add(w, header, (size_t)hl, res, n ? n : 1, &err), SW_OK, "%s", err.message);
            free(res);
        }
        k++;
    }
    sw_fasta_close(f);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);
    sw_db *db;
    cr_assert_eq(sw_db_open(prefix, &db, &err), SW_OK, "%s", err.message);
    return db;
}

static char *report(sw_db *db, const sw_scoring *scoring, sw_device device, const char *format,
                    size_t max_queries, size_t ahead_hits, size_t *len, sw_report_summary *sum)
{
    sw_query_reader *r = NULL;
    sw_error err;
    cr_assert_eq(sw_queries_open(SW_TEST_DATA "/queries20.fasta", sw_alphabet_protein(), NULL, NULL, &r, &err),
                 SW_OK, "%s", err.message);
    sw_search_options options;
    memset(&options, 0, sizeof options);
    options.top_n = 25;
    options.threads = 4;
    options.device = device;
    sw_report_batching batching = {0, max_queries, ahead_hits};
    sw_outfmt *f = NULL;
    cr_assert_eq(sw_outfmt_parse(format, &f, &err), SW_OK, "%s", err.message);
    sw_report_options opts = {
        .format = f,
        .stats = SW_STATS_AUTO,
        .matrix_name = "BLOSUM62",
        .max_evalue = 1e9,
        .run = {.version = "test", .db_path = "db", .matrix = "BLOSUM62", .gap_open = 11, .gap_extend = 1,
                .evalue_cutoff = 1e9},
    };
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    int rc = sw_report_search(out, db, r, scoring, &options, &opts, &batching, sum, &err);
    cr_assert_eq(rc, SW_OK, "%s", err.message);
    fclose(out);
    sw_outfmt_free(f);
    sw_queries_close(r);
    return text;
}

Test(gpu_report, equals_the_cpu_report_whatever_is_done_ahead)
{
    sw_db *db = make_db();
    sw_matrix *m;
    sw_scoring scoring;
    sw_error err;
    cr_assert_eq(sw_matrix_load(SW_MATRIX_DIR "/BLOSUM62", &m, &err), SW_OK);
    cr_assert_eq(sw_scoring_init(&scoring, m, 11, 1, &err), SW_OK);
    const char *formats[] = {"6", "0", "6 qseqid sseqid score evalue qstart qend sstart send qseq sseq cigar"};
    for (size_t fi = 0; fi < 3; fi++) {
        size_t cpu_len;
        sw_report_summary cpu_sum;
        char *cpu = report(db, &scoring, SW_DEVICE_CPU, formats[fi], 0, 0, &cpu_len, &cpu_sum);
        cr_assert_eq(cpu_sum.aligned_ahead, 0);
        cr_assert_eq(cpu_sum.alignments, 500);
        /* Everything ahead; about a third ahead (some queries' hits would
         * pass the bound); one query a batch; five queries a batch with a
         * bound that one query's hits fill. */
        const struct {
            size_t max_queries, ahead_hits;
        } cases[] = {{0, 0}, {0, 160}, {1, 0}, {5, 25}};
        for (size_t c = 0; c < 4; c++) {
            size_t len;
            sw_report_summary sum;
            char *gpu = report(db, &scoring, SW_DEVICE_GPU, formats[fi], cases[c].max_queries, cases[c].ahead_hits,
                               &len, &sum);
            cr_assert_eq(sum.alignments, 500);
            if (c == 0) cr_assert_gt(sum.aligned_ahead, 400, "%llu ahead", (unsigned long long)sum.aligned_ahead);
            if (c == 1) cr_assert(sum.aligned_ahead > 0 && sum.aligned_ahead <= 160, "%llu ahead",
                                  (unsigned long long)sum.aligned_ahead);
            if (c == 3) cr_assert_leq(sum.aligned_ahead, 100);
            printf("format %s, case %zu: %llu of %llu alignments ahead\n", formats[fi], c,
                   (unsigned long long)sum.aligned_ahead, (unsigned long long)sum.alignments);
            cr_assert_eq(len, cpu_len, "format %s, case %zu", formats[fi], c);
            cr_assert(memcmp(gpu, cpu, len) == 0, "format %s, case %zu: GPU and CPU reports differ", formats[fi], c);
            free(gpu);
        }
        free(cpu);
    }
    sw_matrix_free(m);
    sw_db_close(db);
}

/* Requests sharing GPU scans (sw_report_round) each write the report of
 * a search alone, whatever their formats and tops. */
static sw_report_request *open_request(sw_db *db, const sw_scoring *scoring, sw_query_reader **r, sw_outfmt **f,
                                       const char *format, size_t top, FILE *out)
{
    sw_error err;
    cr_assert_eq(sw_queries_open(SW_TEST_DATA "/queries20.fasta", sw_alphabet_protein(), NULL, NULL, r, &err),
                 SW_OK, "%s", err.message);
    cr_assert_eq(sw_outfmt_parse(format, f, &err), SW_OK, "%s", err.message);
    const sw_report_request_config c = {
        .out = out,
        .queries = *r,
        .report =
            {
                .format = *f,
                .stats = SW_STATS_AUTO,
                .matrix_name = "BLOSUM62",
                .max_evalue = 1e9,
                .run = {.version = "test", .db_path = "db", .matrix = "BLOSUM62", .gap_open = 11, .gap_extend = 1,
                        .evalue_cutoff = 1e9},
            },
        .top_n = top,
    };
    sw_report_request *q = NULL;
    cr_assert_eq(sw_report_request_create(&c, db, scoring, &q, &err), SW_OK, "%s", err.message);
    return q;
}

static int cancel_after(void *user)
{
    int *left = user;
    return __atomic_sub_fetch(left, 1, __ATOMIC_SEQ_CST) < 0;
}

Test(gpu_report, shared_scans_equal_the_cpu_report_and_a_cancel_stops_the_scan)
{
    sw_db *db = make_db();
    sw_matrix *m;
    sw_scoring scoring;
    sw_error err;
    cr_assert_eq(sw_matrix_load(SW_MATRIX_DIR "/BLOSUM62", &m, &err), SW_OK);
    cr_assert_eq(sw_scoring_init(&scoring, m, 11, 1, &err), SW_OK);
    size_t want_len[2];
    sw_report_summary sum;
    char *want[2] = {report(db, &scoring, SW_DEVICE_CPU, "6", 0, 0, &want_len[0], &sum),
                     report(db, &scoring, SW_DEVICE_CPU, "0", 0, 0, &want_len[1], &sum)};
    /* Two slices on GPU 0: the team's path. */
    const int gpus[2] = {0, 0};
    for (int slices = 1; slices <= 2; slices++) {
        sw_search_options options;
        memset(&options, 0, sizeof options);
        options.threads = 4;
        options.device = SW_DEVICE_GPU;
        options.gpus = gpus;
        options.num_gpus = slices;
        sw_report_scanner *sc = NULL;
        cr_assert_eq(sw_report_scanner_create(db, &scoring, &options, 1, &sc, &err), SW_OK, "%s", err.message);
        char *text[2] = {NULL, NULL};
        size_t len[2];
        FILE *out[2];
        sw_query_reader *r[2];
        sw_outfmt *f[2];
        sw_report_request *q[2];
        for (int i = 0; i < 2; i++) {
            out[i] = open_memstream(&text[i], &len[i]);
            q[i] = open_request(db, &scoring, &r[i], &f[i], i ? "0" : "6", 25, out[i]);
        }
        int done[2] = {0, 0}, scans = 0;
        while (!done[0] || !done[1]) {
            cr_assert_eq(sw_report_round(sc, q, 2, 6, &err), SW_OK, "%s", err.message);
            for (int i = 0; i < 2; i++)
                cr_assert_eq(sw_report_request_status(q[i], &done[i], &err), SW_OK, "%s", err.message);
            cr_assert_leq(++scans, 8);
        }
        cr_assert_eq(scans, 7, "20 queries each, 3 a scan: %d scans", scans);
        for (int i = 0; i < 2; i++) {
            fclose(out[i]);
            cr_assert_eq(len[i], want_len[i], "%d slices, request %d", slices, i);
            cr_assert(memcmp(text[i], want[i], len[i]) == 0, "%d slices, request %d: reports differ", slices, i);
            free(text[i]);
            sw_report_request_free(q[i]);
            sw_outfmt_free(f[i]);
            sw_queries_close(r[i]);
        }
        sw_report_scanner_free(sc);

        /* A cancel asked after a few queries stops the GPU scan. */
        int left = 3;
        options.cancelled = cancel_after;
        options.cancelled_user = &left;
        sw_query_reader *reader = NULL;
        cr_assert_eq(sw_queries_open(SW_TEST_DATA "/queries20.fasta", sw_alphabet_protein(), NULL, NULL, &reader, &err),
                     SW_OK);
        sw_query_set *set = NULL;
        cr_assert_eq(sw_queries_next_batch(reader, 0, 0, &set, &err), 1);
        options.top_n = 5;
        sw_search_results *res = NULL;
        cr_assert_eq(sw_search_dispatch(db, set, &scoring, &options, &res, &err), SW_ECANCELED, "%s", err.message);
        cr_assert_null(res);
        cr_assert_lt(left, 0);
        cr_assert_geq(left, -2 * slices, "asked %d times: the scan went on", 3 - left);
        sw_queries_free(set);
        sw_queries_close(reader);
    }
    free(want[0]);
    free(want[1]);
    sw_matrix_free(m);
    sw_db_close(db);
}
