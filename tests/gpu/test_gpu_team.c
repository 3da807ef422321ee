/* A search on several GPUs, the database cut into slices (sw_gpu_team):
 * its report is byte for byte the report of one GPU, in every format, with
 * statistics from NCBI's table or fitted to every score, for slices on one
 * GPU and for the GPUs of the machine, kept resident between searches, and
 * streamed in parts when it is larger than the GPU memory given
 * (sw_gpu_parts). Skips without a usable GPU; the test of several GPUs
 * skips with one. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_db.h"
#include "sw_db_writer.h"
#include "sw_fasta.h"
#include "sw_gpu.h"
#include "sw_matrix.h"
#include "sw_pssm.h"
#include "sw_queries.h"
#include "sw_report.h"
#include "sw_resident.h"
#include "sw_search.h"
#include "gpu_required.h"
#include "test_tmpdir.h"

static char dir[64];
static sw_db *db;
static sw_matrix *matrix;
static sw_scoring scoring;

static void add_file(sw_db_writer *w, const char *path, int mutants)
{
    sw_fasta *f;
    sw_fasta_record rec;
    sw_error err;
    cr_assert_eq(sw_fasta_open(path, NULL, &f, &err), SW_OK, "%s", err.message);
    unsigned seed = 11;
    int k = 0;
    while (sw_fasta_next(f, &rec, &err) == 1) {
        cr_assert_eq(sw_db_writer_add(w, rec.header, rec.header_len, rec.residues, rec.length, &err), SW_OK, "%s",
                     err.message);
        for (int copy = 0; copy < mutants; copy++) {
            uint8_t *res = malloc(rec.length + 1);
            char header[64];
            size_t n = 0;
            for (size_t i = 0; i < rec.length; i++) {
                seed = seed * 1103515245u + 12345u;
                unsigned roll = (seed >> 16) % 100;
                if (roll < 3) continue; /* deletion */
                res[n++] = roll < 20u + 15u * (unsigned)copy ? (uint8_t)((seed >> 8) % 20) : rec.residues[i];
            }
            int hl = snprintf(header, sizeof header, "mutant%d_%d of a query", k, copy);
            cr_assert_eq(sw_db_writer_add(w, header, (size_t)hl, res, n ? n : 1, &err), SW_OK, "%s", err.message);
            free(res);
        }
        k++;
    }
    sw_fasta_close(f);
}

/* The Swiss-Prot-like sample (lengths from 2 to over 10,000) with the 20
 * benchmark queries and three mutants of each, so that queries have hits
 * of many scores (ties among the exact copies too). */
static void setup_suite(void)
{
    gpu_required();
    strcpy(dir, "/tmp/test_gpu_team.XXXXXX");
    temp_dir_make(dir);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s/db", dir);
    sw_db_writer *w;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w, &err), SW_OK, "%s", err.message);
    add_file(w, SW_TEST_DATA "/swissprot_like_2500.fa.zst", 0);
    add_file(w, SW_TEST_DATA "/queries20.fasta", 3);
    add_file(w, SW_TEST_DATA "/queries20.fasta", 0);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);
    cr_assert_eq(sw_db_open(prefix, &db, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_matrix_load(SW_MATRIX_DIR "/BLOSUM62", &matrix, &err), SW_OK);
    cr_assert_eq(sw_scoring_init(&scoring, matrix, 11, 1, &err), SW_OK);
}

static void teardown_suite(void)
{
    sw_db_close(db);
    sw_matrix_free(matrix);
    if (dir[0]) temp_dir_remove(dir);
}

TestSuite(gpu_team, .init = setup_suite, .fini = teardown_suite);

typedef struct run {
    const int *gpus; /* NULL: the first num_gpus (0: all) */
    int num_gpus;
    const char *format;
    sw_stats_method stats;
    size_t max_queries; /* per batch; 0: the default */
    sw_resident *resident;
    uint64_t gpu_memory; /* 0: the GPU's */
    int pssm;            /* the queries as PSSMs (pssm_queries) */
    int cpu;             /* on the CPU engine */
} run;

/* The 20 benchmark queries as PSSMs: each position the matrix's row of its
 * residue, the 20 amino acids moved by -3..+3 (a hash of position and
 * code), B, Z and the rest completed as for a read PSSM; and PSI-BLAST's
 * PSSM of an SH3 domain. */
static sw_query_reader *pssm_queries(void)
{
    sw_query_set *all = NULL, *set = NULL;
    sw_query_reader *r = NULL;
    sw_error err;
    cr_assert_eq(sw_queries_load(SW_TEST_DATA "/queries20.fasta", sw_alphabet_protein(), NULL, NULL, &all, &err),
                 SW_OK, "%s", err.message);
    cr_assert_eq(sw_queries_create(&set, &err), SW_OK);
    for (size_t q = 0; q < sw_queries_count(all); q++) {
        size_t len = 0;
        const uint8_t *res = sw_queries_residues(all, q, &len);
        sw_pssm *p = NULL;
        cr_assert_eq(sw_pssm_from_query(res, len, matrix, NULL, &p, &err), SW_OK, "%s", err.message);
        for (size_t i = 0; i < len; i++) {
            int8_t *row = p->scores + i * SW_CODE_LIMIT;
            for (int c = 0; c < 20; c++) row[c] = (int8_t)(row[c] + (int)((i * 31 + (size_t)c * 7 + q) % 7) - 3);
            sw_pssm_complete_row(p, i, matrix);
        }
        cr_assert_eq(sw_queries_add_profile(set, sw_queries_id(all, q), "a moved profile", res, len, p->scores, &err),
                     SW_OK, "%s", err.message);
        sw_pssm_free(p);
    }
    sw_pssm *sh3 = NULL;
    cr_assert_eq(sw_pssm_read(SW_TEST_DATA "/pssm_sh3_d1ckaa.pssm", matrix, &sh3, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_queries_add_profile(set, "sh3", "PSI-BLAST", sh3->query, sh3->length, sh3->scores, &err), SW_OK,
                 "%s", err.message);
    sw_pssm_free(sh3);
    sw_queries_free(all);
    cr_assert_eq(sw_queries_open_set(set, "pssm", &r, &err), SW_OK, "%s", err.message);
    return r;
}

static char *report(const run *u, size_t *len, sw_report_summary *sum)
{
    sw_query_reader *r = NULL;
    sw_error err;
    if (u->pssm) r = pssm_queries();
    else
        cr_assert_eq(sw_queries_open(SW_TEST_DATA "/queries20.fasta", sw_alphabet_protein(), NULL, NULL, &r, &err),
                     SW_OK, "%s", err.message);
    sw_search_options options;
    memset(&options, 0, sizeof options);
    options.top_n = 40;
    options.threads = 4;
    options.device = u->cpu ? SW_DEVICE_CPU : SW_DEVICE_GPU;
    options.gpus = u->gpus;
    options.num_gpus = u->num_gpus;
    options.resident = u->resident;
    options.gpu_memory = u->gpu_memory;
    sw_report_batching batching = {0, u->max_queries, 0};
    sw_outfmt *f = NULL;
    cr_assert_eq(sw_outfmt_parse(u->format, &f, &err), SW_OK, "%s", err.message);
    sw_report_options opts = {
        .format = f,
        .stats = u->stats,
        .matrix_name = "BLOSUM62",
        .max_evalue = 1e6,
        .run = {.version = "test", .db_path = "db", .db_seqs = sw_db_num_seqs(db),
                .db_residues = sw_db_num_residues(db), .matrix = "BLOSUM62", .gap_open = 11, .gap_extend = 1,
                .evalue_cutoff = 1e6},
    };
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    int rc = sw_report_search(out, db, r, &scoring, &options, &opts, &batching, sum, &err);
    cr_assert_eq(rc, SW_OK, "%s", err.message);
    fclose(out);
    sw_outfmt_free(f);
    sw_queries_close(r);
    return text;
}

/* The first place where two reports differ, for the message. */
static size_t first_difference(const char *a, size_t la, const char *b, size_t lb)
{
    size_t i = 0;
    while (i < la && i < lb && a[i] == b[i]) i++;
    return i;
}

static void expect_same(const run *base, const run *other, const char *what)
{
    size_t la, lb;
    sw_report_summary sa, sb;
    char *a = report(base, &la, &sa);
    char *b = report(other, &lb, &sb);
    size_t at = first_difference(a, la, b, lb);
    cr_assert(la == lb && at == la, "%s, format %s: the reports differ at byte %zu of %zu/%zu: ...%.80s... against ...%.80s...",
              what, base->format, at, la, lb, a + (at > 40 ? at - 40 : 0), b + (at > 40 ? at - 40 : 0));
    cr_assert_gt(sa.hits, 200, "%s: only %llu hits", what, (unsigned long long)sa.hits);
    cr_assert_eq(sb.stats.gpu_streamed, other->gpu_memory != 0, "%s: streamed %d", what, sb.stats.gpu_streamed);
    printf("%s, format %s, stats %d: %zu bytes equal (%s against %s)\n", what, base->format, (int)base->stats, la,
           sa.stats.engine, sb.stats.engine);
    free(a);
    free(b);
}

static const char *formats[] = {"6", "7", "0", "json",
                                "6 qseqid sseqid score evalue bitscore qstart qend sstart send qseq sseq cigar"};

/* Every format with each kind of statistics; the reports with alignments
 * (formats 0 and the one with qseq and sseq) cost the most, so they
 * compare with fewer teams. */
Test(gpu_team, slices_on_one_gpu_equal_one_slice)
{
    static const int one[] = {0}, two[] = {0, 0}, three[] = {0, 0, 0}, seven[] = {0, 0, 0, 0, 0, 0, 0};
    const struct {
        const int *gpus;
        int n;
    } teams[] = {{three, 3}, {seven, 7}, {two, 2}};
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++)
        for (int fit = 0; fit < 2; fit++) {
            const int aligned = f == 2 || f == 4;
            if (aligned && fit != (f == 2)) continue;
            run base = {one, 1, formats[f], fit ? SW_STATS_FIT : SW_STATS_TABLE, 0, NULL, 0, 0, 0};
            for (size_t t = 0; t < (aligned ? 2 : 3); t++) {
                run other = base;
                other.gpus = teams[t].gpus;
                other.num_gpus = teams[t].n;
                char what[64];
                snprintf(what, sizeof what, "%d slices on GPU 0", teams[t].n);
                expect_same(&base, &other, what);
            }
        }
}

/* One query a batch: each query's hits are aligned as soon as every slice
 * has finished it, and batches after the first keep the database resident. */
Test(gpu_team, slices_equal_one_slice_in_batches_of_one_query)
{
    static const int one[] = {0}, three[] = {0, 0, 0};
    run base = {one, 1, "0", SW_STATS_FIT, 1, NULL, 0, 0, 0};
    run other = {three, 3, "0", SW_STATS_FIT, 1, NULL, 0, 0, 0};
    expect_same(&base, &other, "3 slices, a query a batch");
}

/* The GPU report equals the CPU engine's, which equals ssearch36. */
Test(gpu_team, slices_equal_the_cpu)
{
    static const int three[] = {0, 0, 0};
    size_t lc, lg;
    sw_report_summary sc, sg;
    run gpu = {three, 3, "6", SW_STATS_TABLE, 0, NULL, 0, 0, 0};
    char *g = report(&gpu, &lg, &sg);
    sw_query_reader *r = NULL;
    sw_error err;
    cr_assert_eq(sw_queries_open(SW_TEST_DATA "/queries20.fasta", sw_alphabet_protein(), NULL, NULL, &r, &err), SW_OK);
    sw_search_options options;
    memset(&options, 0, sizeof options);
    options.top_n = 40;
    options.threads = 4;
    options.device = SW_DEVICE_CPU;
    sw_outfmt *f = NULL;
    cr_assert_eq(sw_outfmt_parse("6", &f, &err), SW_OK);
    sw_report_options opts = {
        .format = f, .stats = SW_STATS_TABLE, .matrix_name = "BLOSUM62", .max_evalue = 1e6,
        .run = {.version = "test", .db_path = "db", .db_seqs = sw_db_num_seqs(db),
                .db_residues = sw_db_num_residues(db), .matrix = "BLOSUM62", .gap_open = 11, .gap_extend = 1,
                .evalue_cutoff = 1e6},
    };
    char *c = NULL;
    FILE *out = open_memstream(&c, &lc);
    cr_assert_eq(sw_report_search(out, db, r, &scoring, &options, &opts, NULL, &sc, &err), SW_OK, "%s", err.message);
    fclose(out);
    cr_assert(lc == lg && !memcmp(c, g, lc), "3 slices on GPU 0 and the CPU engine differ");
    printf("3 slices on GPU 0 equal the CPU engine: %zu bytes, %llu hits\n", lc, (unsigned long long)sc.hits);
    sw_outfmt_free(f);
    sw_queries_close(r);
    free(c);
    free(g);
}

Test(gpu_team, every_gpu_of_the_machine_equals_one)
{
    sw_gpu_info info[16];
    int count = 0;
    sw_error err;
    cr_assert_eq(sw_gpu_list(info, 16, &count, &err), SW_OK);
    if (count < 2) cr_skip_test("one GPU: the slices on it are tested above");
    static const int one[] = {0}, pair[] = {0, 1}, swapped[] = {1, 0}, four[] = {0, 1, 2, 3},
                     doubled[] = {0, 1, 0, 1};
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++)
        for (int fit = 0; fit < 2; fit++) {
            if ((f == 2 || f == 4) && fit != (f == 2)) continue;
            run base = {one, 1, formats[f], fit ? SW_STATS_FIT : SW_STATS_TABLE, 0, NULL, 0, 0, 0};
            run other = base;
            other.gpus = pair;
            other.num_gpus = 2;
            expect_same(&base, &other, "GPUs 0,1");
            other.gpus = NULL;
            other.num_gpus = 0;
            expect_same(&base, &other, "every GPU");
            if (f > 0) continue;
            other.gpus = swapped;
            other.num_gpus = 2;
            expect_same(&base, &other, "GPUs 1,0");
            other.gpus = doubled;
            other.num_gpus = 4;
            expect_same(&base, &other, "GPUs 0,1,0,1");
            if (count >= 4) {
                other.gpus = four;
                other.num_gpus = 4;
                expect_same(&base, &other, "GPUs 0,1,2,3");
            }
        }
}

/* PSSM queries on the GPU: the CPU engine's report, on one slice, three,
 * streamed, and on every GPU of the machine. */
Test(gpu_team, pssm_queries_equal_the_cpu)
{
    static const int one[] = {0}, three[] = {0, 0, 0};
    for (int f = 0; f < 2; f++) {
        run cpu = {one, 1, f ? "0" : "6", f ? SW_STATS_FIT : SW_STATS_TABLE, 0, NULL, 0, 1, 1};
        run gpu = cpu;
        gpu.cpu = 0;
        expect_same(&cpu, &gpu, "PSSM queries, 1 slice against the CPU");
        gpu.gpus = three;
        gpu.num_gpus = 3;
        gpu.gpu_memory = 1 << 20;
        expect_same(&cpu, &gpu, "PSSM queries, 3 slices streamed against the CPU");
        /* Alignments cost the CPU report most: format 0 once more only. */
        if (f) continue;
        gpu.gpu_memory = 0;
        expect_same(&cpu, &gpu, "PSSM queries, 3 slices against the CPU");
        gpu.gpus = NULL;
        gpu.num_gpus = 0;
        gpu.gpu_memory = 0;
        expect_same(&cpu, &gpu, "PSSM queries, every GPU against the CPU");
    }
}

/* A resident database keeps its team while searches ask for the same GPUs,
 * and makes a new one when they ask for others: the same output throughout. */
Test(gpu_team, resident_team_answers_as_a_direct_search)
{
    static const int one[] = {0}, three[] = {0, 0, 0};
    sw_resident *res = NULL;
    sw_error err;
    cr_assert_eq(sw_resident_create(db, 4, 1, &res, &err), SW_OK, "%s", err.message);
    run direct = {one, 1, "0", SW_STATS_TABLE, 0, NULL, 0, 0, 0};
    run kept = {three, 3, "0", SW_STATS_TABLE, 0, res, 0, 0, 0};
    expect_same(&direct, &kept, "3 slices resident, first search");
    expect_same(&direct, &kept, "3 slices resident, kept");
    kept.gpus = one;
    kept.num_gpus = 1;
    expect_same(&direct, &kept, "1 slice resident after 3");
    sw_resident_free(res);
}

/* A database several times the GPU memory given is streamed in parts (a
 * part kept on the GPU, the rest through two engines taking turns, read
 * from the database file): the report of the resident database, in
 * batches of every query and of one, with both kinds of statistics, on one
 * slice and on three. */
Test(gpu_team, streamed_parts_equal_the_resident_database)
{
    static const int one[] = {0}, three[] = {0, 0, 0};
    const struct {
        const int *gpus;
        int n;
        uint64_t memory;
    } teams[] = {{one, 1, 1 << 20}, {three, 3, 1 << 20}, {one, 1, 600 << 10}};
    for (size_t t = 0; t < sizeof teams / sizeof *teams; t++)
        for (int f = 0; f < 2; f++) {
            run base = {one, 1, f ? "0" : "6", f ? SW_STATS_FIT : SW_STATS_TABLE, 0, NULL, 0, 0, 0};
            run other = base;
            other.gpus = teams[t].gpus;
            other.num_gpus = teams[t].n;
            other.gpu_memory = teams[t].memory;
            char what[96];
            snprintf(what, sizeof what, "%d slices streamed in %llu KiB", teams[t].n,
                     (unsigned long long)(teams[t].memory >> 10));
            expect_same(&base, &other, what);
            if (t == 0) {
                base.max_queries = other.max_queries = 1;
                expect_same(&base, &other, "streamed, a query a batch");
            }
        }
}

/* A resident database streams from its decoded copy. */
Test(gpu_team, resident_streamed_parts_equal_a_direct_search)
{
    static const int one[] = {0}, two[] = {0, 0};
    sw_resident *res = NULL;
    sw_error err;
    cr_assert_eq(sw_resident_create(db, 4, 1, &res, &err), SW_OK, "%s", err.message);
    run direct = {one, 1, "6", SW_STATS_TABLE, 0, NULL, 0, 0, 0};
    run kept = {two, 2, "6", SW_STATS_TABLE, 0, res, 2 << 20, 0, 0};
    expect_same(&direct, &kept, "2 slices resident and streamed, first search");
    expect_same(&direct, &kept, "2 slices resident and streamed, kept");
    sw_resident_free(res);
}
