/* The public API (include/swsearch.h) as a program sees it, through the
 * shared library: versions, errors, databases, searches and their hits. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swsearch.h"
#include "test_tmpdir.h"

static char dir[64], db_path[128];

/* A database of the tests' Swiss-Prot-like sample, made through the API. */
static void make_db(void)
{
    snprintf(dir, sizeof dir, "/tmp/swsearch-api.XXXXXX");
    temp_dir_make(dir);
    snprintf(db_path, sizeof db_path, "%s/db", dir);
    sw_error err;
    uint64_t seqs = 0, residues = 0;
    cr_assert_eq(sw_db_make(SW_TEST_DATA "/swissprot_like_2500.fa.zst", db_path, NULL, &seqs, &residues, &err), SW_OK,
                 "%s", err.message);
    cr_assert_eq(seqs, 2500);
    cr_assert_gt(residues, 2500);
}

static void remove_db(void) { temp_dir_remove(dir); }

TestSuite(api, .init = make_db, .fini = remove_db);

Test(api, version_of_the_library_is_the_headers)
{
    cr_assert_eq(sw_version_number(), SW_VERSION_NUMBER);
    cr_assert_str_eq(sw_version_string(), SW_VERSION_STRING);
}

Test(api, errors_have_texts_and_messages)
{
    cr_assert_str_eq(sw_strerror(SW_OK), sw_strerror(0));
    cr_assert_neq(strlen(sw_strerror(SW_ENOTFOUND)), 0);
    sw_error err;
    sw_db *db = NULL;
    char missing[4300];
    snprintf(missing, sizeof missing, "%s/no-such-db", dir);
    int rc = sw_db_open(missing, &db, &err);
    cr_assert_lt(rc, 0);
    cr_assert_eq(err.code, rc);
    cr_assert_null(db);
    cr_assert_not_null(strstr(err.message, "no-such-db"), "%s", err.message);
}

Test(api, database_counts)
{
    sw_db *db = NULL;
    cr_assert_eq(sw_db_open(db_path, &db, NULL), SW_OK);
    cr_assert_eq(sw_db_num_seqs(db), 2500);
    cr_assert_eq(sw_db_alphabet(db), SW_ALPHABET_PROTEIN);
    cr_assert_gt(sw_db_max_length(db), 0);
    sw_db_close(db);
}

Test(api, settings_out_of_range_are_refused)
{
    sw_search *s = NULL;
    sw_error err;
    cr_assert_eq(sw_search_create(&s, &err), SW_OK);
    cr_assert_eq(sw_search_set_top(s, 0, &err), SW_EINVAL);
    cr_assert_eq(sw_search_set_evalue(s, -1, &err), SW_EINVAL);
    cr_assert_eq(sw_search_set_device(s, (sw_device)7, &err), SW_EINVAL);
    cr_assert_lt(sw_search_set_matrix(s, "NOSUCHMATRIX", &err), 0);
    cr_assert_not_null(strstr(err.message, "NOSUCHMATRIX"), "%s", err.message);
    cr_assert_lt(sw_search_set_gap_costs(s, -3, 1, &err), 0);
    /* A refused setting leaves the one before. */
    cr_assert_eq(sw_search_set_matrix(s, "BLOSUM50", &err), SW_OK);
    sw_search_free(s);
}

Test(api, a_bad_residue_names_the_query)
{
    sw_search *s = NULL;
    sw_db *db = NULL;
    sw_hits *h = NULL;
    sw_error err;
    cr_assert_eq(sw_search_create(&s, &err), SW_OK);
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    sw_sequence q[2] = {{"ok", "MKTAYIAKQR", 0}, {"bad one", "MKT#YIAKQR", 0}};
    cr_assert_eq(sw_search_run(s, db, q, 2, &h, &err), SW_EFORMAT);
    cr_assert_null(h);
    cr_assert_not_null(strstr(err.message, "query 2"), "%s", err.message);
    cr_assert_not_null(strstr(err.message, "'#'"), "%s", err.message);
    sw_db_close(db);
    sw_search_free(s);
}

/* BLOSUM62 read from the shipped file, here and not by the library, so
 * that the rows handed out are re-scored by a second reading. */
static int blosum62[128][128];

static void read_blosum62(void)
{
    FILE *f = fopen(SW_MATRIX_DIR "/BLOSUM62", "r");
    cr_assert_not_null(f);
    char line[1024], cols[64];
    int ncols = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (!ncols) {
            for (char *p = line; *p; p++)
                if (*p > ' ') cols[ncols++] = *p;
            continue;
        }
        char row = line[0], *p = line + 1;
        for (int c = 0; c < ncols; c++) {
            long v = strtol(p, &p, 10);
            blosum62[(unsigned char)row][(unsigned char)cols[c]] = (int)v;
        }
    }
    fclose(f);
}

/* The score of the aligned rows: a gap of k residues costs open + k x extend. */
static int rescore(const char *q, const char *s, int open, int extend)
{
    int score = 0;
    for (size_t i = 0; q[i]; i++) {
        if (q[i] == '-' || s[i] == '-') {
            int starts = i == 0 || (q[i] == '-' ? q[i - 1] != '-' : s[i - 1] != '-');
            score -= extend + (starts ? open : 0);
        } else {
            score += blosum62[(unsigned char)q[i]][(unsigned char)s[i]];
        }
    }
    return score;
}

Test(api, hits_of_sequences_equal_hits_of_the_same_fasta_file)
{
    sw_search *s = NULL;
    sw_db *db = NULL;
    sw_hits *a = NULL, *b = NULL;
    sw_error err;
    read_blosum62();
    cr_assert_eq(sw_search_create(&s, &err), SW_OK);
    cr_assert_eq(sw_search_set_device(s, SW_DEVICE_CPU, &err), SW_OK);
    cr_assert_eq(sw_search_set_top(s, 20, &err), SW_OK);
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    /* The first three of the benchmark queries, read here as a user would. */
    FILE *f = fopen(SW_TEST_DATA "/queries20.fasta", "r");
    cr_assert_not_null(f);
    char line[70000], headers[3][512], *seqs[3] = {0};
    size_t lens[3] = {0};
    int n = -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '>') {
            if (++n == 3) break;
            snprintf(headers[n], sizeof headers[n], "%.500s", line + 1);
            continue;
        }
        size_t k = strlen(line);
        seqs[n] = realloc(seqs[n], lens[n] + k + 1);
        memcpy(seqs[n] + lens[n], line, k + 1);
        lens[n] += k;
    }
    fclose(f);
    char path[4300];
    snprintf(path, sizeof path, "%s/q3.fa", dir);
    f = fopen(path, "w");
    sw_sequence q[3];
    for (int i = 0; i < 3; i++) {
        fprintf(f, ">%s\n%s\n", headers[i], seqs[i]);
        q[i] = (sw_sequence){headers[i], seqs[i], lens[i]};
    }
    fclose(f);

    cr_assert_eq(sw_search_run(s, db, q, 3, &a, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_search_run_fasta(s, db, path, &b, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_hits_num_queries(a), 3);
    cr_assert_eq(sw_hits_num_queries(b), 3);
    size_t total = 0;
    for (size_t qi = 0; qi < 3; qi++) {
        cr_assert_str_eq(sw_hits_query_id(a, qi), sw_hits_query_id(b, qi));
        cr_assert_eq(sw_hits_query_length(a, qi), lens[qi]);
        cr_assert_eq(sw_hits_count(a, qi), sw_hits_count(b, qi));
        double last = 0;
        for (size_t i = 0; i < sw_hits_count(a, qi); i++, total++) {
            sw_hit_info x, y;
            cr_assert_eq(sw_hits_get(a, qi, i, &x, &err), SW_OK);
            cr_assert_eq(sw_hits_get(b, qi, i, &y, &err), SW_OK);
            cr_assert_str_eq(x.sseqid, y.sseqid);
            cr_assert_eq(x.score, y.score);
            cr_assert_eq(x.evalue, y.evalue);
            cr_assert_str_eq(x.cigar, y.cigar);
            cr_assert_geq(x.evalue, last, "hits in BLAST's order, E-value first");
            last = x.evalue;
            cr_assert_leq(x.evalue, 10.0);
            /* The rows agree with the coordinates and the counts. */
            cr_assert_eq(strlen(x.qseq), x.length);
            cr_assert_eq(strlen(x.sseq), x.length);
            size_t ident = 0, gaps = 0;
            for (size_t k = 0; k < x.length; k++) {
                ident += x.qseq[k] == x.sseq[k];
                gaps += x.qseq[k] == '-' || x.sseq[k] == '-';
            }
            cr_assert_eq(ident, x.nident);
            cr_assert_eq(gaps, x.gaps);
            cr_assert_geq(x.qend, x.qstart);
            cr_assert_leq(x.qend, x.qlen);
            cr_assert_leq(x.send, x.slen);
            cr_assert_eq(rescore(x.qseq, x.sseq, 11, 1), x.score, "%s/%s re-scores", x.qseqid, x.sseqid);
            cr_assert_str_eq(x.qseqid, sw_hits_query_id(a, qi));
            cr_assert_eq(strncmp(x.stitle, x.sseqid, strlen(x.sseqid)), 0);
        }
    }
    cr_assert_gt(total, 3, "the queries are planted in the database");
    cr_assert_not_null(strstr(sw_hits_engine(a), "CPU"), "%s", sw_hits_engine(a));
    sw_hit_info none;
    cr_assert_eq(sw_hits_get(a, 3, 0, &none, &err), SW_EINVAL);
    sw_hits_free(a);
    sw_hits_free(b);
    for (int i = 0; i < 3; i++) free(seqs[i]);
    sw_db_close(db);
    sw_search_free(s);
}

Test(api, without_alignments_hits_keep_scores_only)
{
    sw_search *s = NULL;
    sw_db *db = NULL;
    sw_hits *h = NULL;
    sw_error err;
    cr_assert_eq(sw_search_create(&s, &err), SW_OK);
    cr_assert_eq(sw_search_set_device(s, SW_DEVICE_CPU, &err), SW_OK);
    cr_assert_eq(sw_search_set_alignments(s, 0, &err), SW_OK);
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    cr_assert_eq(sw_search_run_fasta(s, db, SW_TEST_DATA "/queries20.fasta", &h, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_hits_num_queries(h), 20);
    sw_hit_info x;
    cr_assert_eq(sw_hits_get(h, 0, 0, &x, &err), SW_OK);
    cr_assert_gt(x.score, 0);
    cr_assert_eq(x.qstart, 0);
    cr_assert_str_eq(x.qseq, "");
    sw_hits_free(h);
    sw_db_close(db);
    sw_search_free(s);
}

Test(api, written_output_is_the_formats)
{
    sw_search *s = NULL;
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_search_create(&s, &err), SW_OK);
    cr_assert_eq(sw_search_set_device(s, SW_DEVICE_CPU, &err), SW_OK);
    cr_assert_eq(sw_search_set_top(s, 5, &err), SW_OK);
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write(s, db, SW_TEST_DATA "/queries20.fasta", "6 qseqid sseqid score", mem, &err), SW_OK,
                 "%s", err.message);
    fclose(mem);
    sw_hits *h = NULL;
    cr_assert_eq(sw_search_run_fasta(s, db, SW_TEST_DATA "/queries20.fasta", &h, &err), SW_OK);
    /* The same hits, line for line. */
    char *at = text;
    for (size_t q = 0; q < sw_hits_num_queries(h); q++)
        for (size_t i = 0; i < sw_hits_count(h, q); i++) {
            sw_hit_info x;
            sw_hits_get(h, q, i, &x, NULL);
            char want[1024];
            snprintf(want, sizeof want, "%s\t%s\t%d\n", x.qseqid, x.sseqid, x.score);
            cr_assert_eq(strncmp(at, want, strlen(want)), 0, "expected %s got %.80s", want, at);
            at += strlen(want);
        }
    cr_assert_eq(*at, '\0');
    cr_assert_lt(sw_search_write(s, db, SW_TEST_DATA "/queries20.fasta", "6 nosuchfield", stdout, &err), 0);
    cr_assert_not_null(strstr(err.message, "nosuchfield"), "%s", err.message);
    sw_hits_free(h);
    free(text);
    sw_db_close(db);
    sw_search_free(s);
}

Test(api, aligner_finds_the_best_local_alignment_and_its_path)
{
    sw_aligner *a = NULL;
    sw_aligned *r = NULL;
    sw_error err;
    cr_assert_eq(sw_aligner_create(&a, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_device(a, SW_DEVICE_CPU, &err), SW_OK);
    /* 10 matches, two bases of x against a gap (3 + 2 x 2 = 7), 10
     * matches: 10 - 7 + 10 = 13 beats either half alone. */
    const char *x = "CCCCACGTTGCAACGGTCAGGATCCACCCC", *y = "TTTTACGTTGCAACTCAGGATCCATTTT";
    cr_assert_eq(sw_aligner_run(a, x, 0, y, 0, &r, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_aligned_count(r), 1);
    sw_aligned_info i;
    cr_assert_eq(sw_aligned_get(r, 0, &i, &err), SW_OK);
    cr_assert_eq(i.score, 13);
    cr_assert_eq(i.x_start, 5);
    cr_assert_eq(i.x_end, 26);
    cr_assert_eq(i.y_start, 5);
    cr_assert_eq(i.y_end, 24);
    cr_assert_str_eq(i.cigar, "10M2I10M");
    cr_assert_eq(i.columns, 22);
    cr_assert_eq(i.matches, 20);
    cr_assert_eq(i.gap_openings, 1);
    cr_assert_eq(i.gap_bases, 2);
    cr_assert_str_eq(i.engine, "cpu");
    cr_assert_eq(sw_aligned_get(r, 1, &i, &err), SW_EINVAL);
    sw_aligned_free(r);
    sw_aligner_free(a);
}

Test(api, aligner_best_k_and_errors)
{
    sw_aligner *a = NULL;
    sw_aligned *r = NULL;
    sw_error err;
    cr_assert_eq(sw_aligner_create(&a, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_device(a, SW_DEVICE_CPU, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_best(a, 2, &err), SW_OK);
    /* Two copies of one motif in x, one in y: the second best is the other copy. */
    const char *x = "GATTACAGATTACAttttttttttttGATTACAGATTACA", *y = "cccGATTACAGATTACAccc";
    cr_assert_eq(sw_aligner_run(a, x, 0, y, 0, &r, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_aligned_count(r), 2);
    sw_aligned_info first, second;
    sw_aligned_get(r, 0, &first, NULL);
    sw_aligned_get(r, 1, &second, NULL);
    cr_assert_eq(first.score, 14);
    cr_assert_eq(second.score, 14);
    cr_assert_eq(first.x_start, 1);
    cr_assert_eq(second.x_start, 27);
    cr_assert_eq(second.y_start, first.y_start);
    cr_assert_str_eq(first.cigar, "14M");
    sw_aligned_free(r);
    cr_assert_eq(sw_aligner_run(a, "ACGT", 0, "AC#T", 0, &r, &err), SW_EFORMAT);
    cr_assert_not_null(strstr(err.message, "position 3"), "%s", err.message);
    cr_assert_lt(sw_aligner_set_scores(a, 0, -1, 1, 1, &err), 0);
    cr_assert_eq(sw_aligner_set_best(a, 0, &err), SW_EINVAL);
    sw_aligner_free(a);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(api, profile_aligner_merges_two_alignments)
{
    char a_path[160], b_path[160];
    snprintf(a_path, sizeof a_path, "%s/a.afa", dir);
    snprintf(b_path, sizeof b_path, "%s/b.afa", dir);
    write_file(a_path, ">a1\nMKTAYIAKQR\n>a2\nMKTA-IAKQR\n");
    write_file(b_path, ">b1\nMKTAYIAKQRW\n>b2\nMKSAYIAKQRW\n>b3\nMKTAYLAKQRW\n");
    sw_profile_aligner *p = NULL;
    sw_merged *m = NULL;
    sw_error err;
    cr_assert_eq(sw_profile_aligner_create(&p, &err), SW_OK);
    cr_assert_eq(sw_profile_aligner_set_device(p, SW_DEVICE_CPU, &err), SW_OK);
    cr_assert_eq(sw_profile_aligner_run(p, a_path, b_path, &m, &err), SW_OK, "%s", err.message);
    sw_merged_info info;
    cr_assert_eq(sw_merged_get_info(m, &info, &err), SW_OK);
    cr_assert_eq(info.a_rows, 2);
    cr_assert_eq(info.b_rows, 3);
    cr_assert_eq(info.a_columns, 10);
    cr_assert_eq(info.b_columns, 11);
    cr_assert_eq(info.columns, 11, "the W of b against a gap");
    cr_assert_gt(info.score, 0);
    cr_assert_float_eq(info.units, (double)info.score / 4096.0, 1e-9);
    cr_assert_not_null(strstr(info.engine, "CPU"), "%s", info.engine);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(sw_merged_write(m, 0, mem, &err), SW_OK);
    fclose(mem);
    /* Every row of both, each as long as the merged alignment. */
    cr_assert_not_null(strstr(text, ">a1\nMKTAYIAKQR-\n"), "%s", text);
    cr_assert_not_null(strstr(text, ">b3\nMKTAYLAKQRW\n"), "%s", text);
    free(text);
    cr_assert_eq(sw_merged_write(m, 7, stdout, &err), SW_EINVAL);
    sw_merged_free(m);
    /* An input that is no alignment names its file and line. */
    write_file(b_path, ">b1\nMKTAYIAKQRW\n>b2\nMKSA\n");
    cr_assert_lt(sw_profile_aligner_run(p, a_path, b_path, &m, &err), 0);
    cr_assert_null(m);
    cr_assert_not_null(strstr(err.message, "b.afa"), "%s", err.message);
    sw_profile_aligner_free(p);
}
