/* The CPU search with each engine forced (striped, inter-sequence, the
 * timed choice between them, the scalar reference): the same hits and the
 * same scores, on a database of every tenth SCOPe domain and queries from
 * 6 to about 600 residues (peptides, whole domains that find themselves
 * with scores past 8 bits, domains joined); on a part of the database in
 * several chunks; each engine named in the statistics, and cancelled. And
 * the timed choice itself (sw_cpu_choice.h): classes of query length,
 * forced engines, and a timing for every class that has queries. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_alphabet.h"
#include "sw_cpu_choice.h"
#include "sw_db.h"
#include "sw_db_writer.h"
#include "sw_fasta.h"
#include "sw_matrix.h"
#include "sw_queries.h"
#include "sw_search.h"
#include "test_tmpdir.h"

static char dir[64], db_prefix[128], queries_path[128];

/* Writes `len` codes as one FASTA record. */
static void write_record(FILE *f, const char *name, const uint8_t *codes, size_t len)
{
    fprintf(f, ">%s\n", name);
    for (size_t i = 0; i < len; i++) fputc(sw_alphabet_decode(sw_alphabet_protein(), codes[i]), f);
    fputc('\n', f);
}

/* The database, and queries cut from its records: peptides of 6 to 33
 * residues (both classes of the shortest queries), three whole domains,
 * and two domains joined. */
static void setup(void)
{
    strcpy(dir, "/tmp/test_cpu_engines.XXXXXX");
    temp_dir_make(dir);
    snprintf(db_prefix, sizeof db_prefix, "%s/db", dir);
    snprintf(queries_path, sizeof queries_path, "%s/queries.fa", dir);
    sw_db_writer *w;
    sw_fasta *f;
    sw_fasta_record rec;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(db_prefix, NULL, &w, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_fasta_open(SW_TEST_DATA "/scope40_every10th.fa.zst", NULL, &f, &err), SW_OK, "%s",
                 err.message);
    FILE *q = fopen(queries_path, "w");
    cr_assert_not_null(q);
    static const size_t peptide_at[] = {200, 300, 400, 500, 600, 650}, peptide_len[] = {6, 11, 16, 17, 29, 33};
    static const size_t whole_at[] = {5, 100, 700};
    uint8_t joined[2048];
    size_t joined_len = 0;
    for (size_t k = 0; sw_fasta_next(f, &rec, &err) == 1; k++) {
        cr_assert_eq(sw_db_writer_add(w, rec.header, rec.header_len, rec.residues, rec.length, &err), SW_OK, "%s",
                     err.message);
        char name[32];
        for (size_t i = 0; i < sizeof peptide_at / sizeof *peptide_at; i++)
            if (k == peptide_at[i] && rec.length >= peptide_len[i] + 3) {
                snprintf(name, sizeof name, "peptide%zu", i);
                write_record(q, name, rec.residues + 3, peptide_len[i]);
            }
        for (size_t i = 0; i < sizeof whole_at / sizeof *whole_at; i++)
            if (k == whole_at[i]) {
                snprintf(name, sizeof name, "domain%zu", i);
                write_record(q, name, rec.residues, rec.length);
            }
        if ((k == 800 || k == 801) && joined_len + rec.length <= sizeof joined) {
            memcpy(joined + joined_len, rec.residues, rec.length);
            joined_len += rec.length;
        }
    }
    write_record(q, "joined", joined, joined_len);
    cr_assert_eq(fclose(q), 0);
    sw_fasta_close(f);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);
}

static void teardown(void)
{
    if (dir[0]) temp_dir_remove(dir);
}

TestSuite(cpu_engines, .init = setup, .fini = teardown);

typedef struct fixture {
    sw_db *db;
    sw_query_set *queries;
    sw_matrix *matrix;
    sw_scoring scoring;
} fixture;

static fixture open_fixture(void)
{
    fixture x;
    memset(&x, 0, sizeof x);
    sw_error err;
    cr_assert_eq(sw_db_open(db_prefix, &x.db, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_queries_load(queries_path, sw_alphabet_protein(), NULL, NULL, &x.queries, &err), SW_OK, "%s",
                 err.message);
    cr_assert_eq(sw_matrix_load_name("BLOSUM62", &x.matrix, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_scoring_init(&x.scoring, x.matrix, 11, 1, &err), SW_OK, "%s", err.message);
    return x;
}

static void close_fixture(fixture *x)
{
    sw_db_close(x->db);
    sw_queries_free(x->queries);
    sw_matrix_free(x->matrix);
}

static sw_search_results *search(const sw_db *db, const fixture *x, sw_cpu_engine engine, size_t top_n,
                                 int threads, int keep_all_scores)
{
    sw_search_options o;
    memset(&o, 0, sizeof o);
    o.top_n = top_n;
    o.threads = threads;
    o.cpu_engine = engine;
    o.device = SW_DEVICE_CPU;
    o.keep_all_scores = keep_all_scores;
    sw_search_results *r = NULL;
    sw_error err;
    int rc = sw_search_cpu(db, x->queries, &x->scoring, &o, &r, &err);
    cr_assert_eq(rc, SW_OK, "engine %d: %s", (int)engine, err.message);
    return r;
}

static const sw_cpu_engine fast_engines[] = {SW_CPU_ENGINE_STRIPED, SW_CPU_ENGINE_INTER, SW_CPU_ENGINE_AUTO};
static const char *const fast_names[] = {"striped", "inter", "auto"};

static void expect_same_hits(const sw_search_results *a, const sw_search_results *ref, size_t nq, const char *what)
{
    for (size_t q = 0; q < nq; q++) {
        size_t n = sw_results_count(ref, q);
        cr_assert_eq(sw_results_count(a, q), n, "%s: query %zu: %zu hits, reference %zu", what, q,
                     sw_results_count(a, q), n);
        const sw_hit *h = sw_results_hits(a, q), *r = sw_results_hits(ref, q);
        for (size_t i = 0; i < n; i++)
            cr_assert(h[i].score == r[i].score && h[i].seq == r[i].seq && h[i].original == r[i].original,
                      "%s: query %zu, hit %zu: score %d of sequence %llu, reference %d of %llu", what, q, i,
                      h[i].score, (unsigned long long)h[i].seq, r[i].score, (unsigned long long)r[i].seq);
    }
}

static void expect_same_scores(const sw_search_results *a, const sw_search_results *ref, size_t nq,
                               uint64_t nseqs, const char *what)
{
    for (size_t q = 0; q < nq; q++) {
        const int32_t *s = sw_results_all_scores(a, q), *r = sw_results_all_scores(ref, q);
        cr_assert(s && r, "%s: no scores kept", what);
        for (uint64_t i = 0; i < nseqs; i++)
            cr_assert_eq(s[i], r[i], "%s: query %zu, sequence %llu: %d, reference %d", what, q,
                         (unsigned long long)i, s[i], r[i]);
    }
}

Test(cpu_engines, every_engine_finds_the_reference_hits)
{
    fixture x = open_fixture();
    const size_t nq = sw_queries_count(x.queries);
    sw_search_results *ref = search(x.db, &x, SW_CPU_ENGINE_REFERENCE, 40, 2, 0);
    for (size_t e = 0; e < sizeof fast_engines / sizeof *fast_engines; e++) {
        sw_search_results *r = search(x.db, &x, fast_engines[e], 40, 2, 0);
        expect_same_hits(r, ref, nq, fast_names[e]);
        sw_results_free(r);
    }
    sw_results_free(ref);
    close_fixture(&x);
}

Test(cpu_engines, every_engine_keeps_the_reference_scores)
{
    fixture x = open_fixture();
    const size_t nq = sw_queries_count(x.queries);
    sw_search_results *ref = search(x.db, &x, SW_CPU_ENGINE_REFERENCE, 5, 3, 1);
    for (size_t e = 0; e < sizeof fast_engines / sizeof *fast_engines; e++) {
        sw_search_results *r = search(x.db, &x, fast_engines[e], 5, 3, 1);
        expect_same_hits(r, ref, nq, fast_names[e]);
        expect_same_scores(r, ref, nq, sw_db_num_seqs(x.db), fast_names[e]);
        sw_results_free(r);
    }
    sw_results_free(ref);
    close_fixture(&x);
}

/* A part of three ranges reads as a database of three chunks: blocks and
 * the timing's sample end at chunk ends. */
Test(cpu_engines, a_database_of_several_chunks_gives_the_reference_scores)
{
    fixture x = open_fixture();
    const size_t nq = sw_queries_count(x.queries);
    const sw_db_range ranges[] = {{10, 101}, {400, 300}, {1100, 250}};
    sw_db *part;
    sw_error err;
    cr_assert_eq(sw_db_part_open(x.db, ranges, 3, &part, &err), SW_OK, "%s", err.message);
    cr_assert_geq(sw_db_num_chunks(part), 3);
    sw_search_results *ref = search(part, &x, SW_CPU_ENGINE_REFERENCE, 10, 2, 1);
    for (size_t e = 0; e < sizeof fast_engines / sizeof *fast_engines; e++) {
        sw_search_results *r = search(part, &x, fast_engines[e], 10, 2, 1);
        expect_same_hits(r, ref, nq, fast_names[e]);
        expect_same_scores(r, ref, nq, sw_db_num_seqs(part), fast_names[e]);
        sw_results_free(r);
    }
    sw_results_free(ref);
    sw_db_close(part);
    close_fixture(&x);
}

static void engine_name(const fixture *x, sw_cpu_engine engine, char *out, size_t size)
{
    sw_search_results *r = search(x->db, x, engine, 1, 1, 0);
    sw_search_stats st;
    sw_results_stats(r, &st);
    snprintf(out, size, "%s", st.engine);
    sw_results_free(r);
}

Test(cpu_engines, statistics_name_the_engines_that_ran)
{
    fixture x = open_fixture();
    char name[160];
    engine_name(&x, SW_CPU_ENGINE_STRIPED, name, sizeof name);
    cr_expect_eq(strncmp(name, "CPU striped (", 13), 0, "%s", name);
    engine_name(&x, SW_CPU_ENGINE_INTER, name, sizeof name);
    cr_expect_eq(strncmp(name, "CPU inter (", 11), 0, "%s", name);
    engine_name(&x, SW_CPU_ENGINE_AUTO, name, sizeof name);
    cr_expect(!strncmp(name, "CPU striped (", 13) || !strncmp(name, "CPU inter (", 11), "%s", name);
    close_fixture(&x);
}

static int always(void *user)
{
    (void)user;
    return 1;
}

Test(cpu_engines, a_cancelled_search_stops_on_every_engine)
{
    fixture x = open_fixture();
    for (size_t e = 0; e < sizeof fast_engines / sizeof *fast_engines; e++) {
        sw_search_options o;
        memset(&o, 0, sizeof o);
        o.top_n = 5;
        o.threads = 2;
        o.cpu_engine = fast_engines[e];
        o.cancelled = always;
        sw_search_results *r = NULL;
        sw_error err;
        cr_expect_eq(sw_search_cpu(x.db, x.queries, &x.scoring, &o, &r, &err), SW_ECANCELED, "%s",
                     fast_names[e]);
        cr_expect_null(r, "%s", fast_names[e]);
    }
    close_fixture(&x);
}

Test(cpu_choice, classes_of_query_length_double_from_16)
{
    cr_expect_eq(sw_cpu_choice_class(1), 0);
    cr_expect_eq(sw_cpu_choice_class(16), 0);
    cr_expect_eq(sw_cpu_choice_class(17), 1);
    cr_expect_eq(sw_cpu_choice_class(32), 1);
    cr_expect_eq(sw_cpu_choice_class(33), 2);
    cr_expect_eq(sw_cpu_choice_class(375), 5);
    cr_expect_eq(sw_cpu_choice_class((size_t)16 << 10), SW_CPU_CHOICE_CLASSES - 2);
    cr_expect_eq(sw_cpu_choice_class((size_t)1 << 30), SW_CPU_CHOICE_CLASSES - 1);
}

/* The sample as sw_search_cpu gives it, from copies read here; each is
 * kept until the choice is made. */
typedef struct reader {
    const sw_db *db;
    uint8_t *copies[16];
    int n;
} reader;

static int read_range(void *user, size_t chunk, uint64_t first, uint64_t count, const uint8_t **residues,
                      sw_error *err)
{
    reader *r = user;
    (void)chunk;
    cr_assert_lt(r->n, 16);
    uint64_t bytes = 0;
    for (uint64_t s = first; s < first + count; s++) bytes += sw_db_lengths(r->db)[s];
    uint8_t *copy = malloc(bytes ? bytes : 1);
    cr_assert_not_null(copy);
    r->copies[r->n++] = copy;
    *residues = copy;
    return sw_db_read_range(r->db, first, count, copy, 1, err);
}

static void free_reader(reader *r)
{
    for (int i = 0; i < r->n; i++) free(r->copies[i]);
}

Test(cpu_engines, forced_choices_give_every_query_one_engine)
{
    fixture x = open_fixture();
    const size_t nq = sw_queries_count(x.queries);
    sw_cpu_choice c;
    sw_error err;
    cr_assert_eq(sw_cpu_choose(x.db, x.queries, &x.scoring, SW_CPU_ENGINE_INTER, 2, NULL, NULL, &c, &err), SW_OK,
                 "%s", err.message);
    cr_expect_eq(c.num_inter, nq);
    sw_cpu_choice_free(&c);
    cr_assert_eq(sw_cpu_choose(x.db, x.queries, &x.scoring, SW_CPU_ENGINE_STRIPED, 2, NULL, NULL, &c, &err), SW_OK,
                 "%s", err.message);
    cr_expect_eq(c.num_inter, 0);
    sw_cpu_choice_free(&c);
    cr_expect_eq(sw_cpu_choose(x.db, x.queries, &x.scoring, SW_CPU_ENGINE_REFERENCE, 2, NULL, NULL, &c, &err),
                 SW_EINVAL);
    close_fixture(&x);
}

Test(cpu_engines, the_timing_covers_every_class_that_has_queries)
{
    fixture x = open_fixture();
    const size_t nq = sw_queries_count(x.queries);
    int has[SW_CPU_CHOICE_CLASSES] = {0};
    for (size_t q = 0; q < nq; q++) {
        size_t len;
        sw_queries_residues(x.queries, q, &len);
        has[sw_cpu_choice_class(len)] = 1;
    }
    reader r = {x.db, {0}, 0};
    sw_cpu_choice c;
    sw_error err;
    cr_assert_eq(sw_cpu_choose(x.db, x.queries, &x.scoring, SW_CPU_ENGINE_AUTO, 2, read_range, &r, &c, &err), SW_OK,
                 "%s", err.message);
    cr_expect_gt(r.n, 0, "the sample was never read");
    for (int k = 0; k < SW_CPU_CHOICE_CLASSES; k++) {
        if (has[k])
            cr_expect(c.striped_seconds[k] > 0 && c.inter_seconds[k] > 0, "class %d: %g s and %g s", k,
                      c.striped_seconds[k], c.inter_seconds[k]);
        else
            cr_expect(c.striped_seconds[k] == 0 && c.inter_seconds[k] == 0, "class %d has no query", k);
    }
    /* A class goes to one engine whole. */
    for (size_t q = 0; q < nq; q++) {
        size_t len;
        sw_queries_residues(x.queries, q, &len);
        int k = sw_cpu_choice_class(len);
        cr_expect_eq(c.inter_of[q], c.inter_seconds[k] < c.striped_seconds[k], "query %zu", q);
    }
    sw_cpu_choice_free(&c);
    free_reader(&r);
    close_fixture(&x);
}
