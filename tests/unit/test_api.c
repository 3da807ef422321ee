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
    cr_assert_eq(sw_aligner_set_gpu_split(a, SW_ALIGN_SPLIT_ROWS, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_gpu_split(a, (sw_align_split)2, &err), SW_EINVAL);
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

/* Builds a database at dir/name from FASTA text, through the API. */
static void make_small_db(const char *name, const char *fasta, char *path, size_t cap)
{
    char fa[160];
    snprintf(fa, sizeof fa, "%s/%s.fa", dir, name);
    write_file(fa, fasta);
    snprintf(path, cap, "%s/%s", dir, name);
    sw_error err;
    cr_assert_eq(sw_db_make(fa, path, NULL, NULL, NULL, &err), SW_OK, "%s", err.message);
}

Test(api, database_info_gives_counts_lengths_and_files)
{
    /* Lengths 1, 2, 3, 5, 8 and 200: the median is the fourth. */
    char fasta[512] = ">a\nM\n>b\nMK\n>c\nMKT\n>d\nMKTAY\n>e\nMKTAYIAK\n>f\n", path[160];
    for (int i = 0; i < 200; i++) strncat(fasta, &"ACDEFGHIKLMNPQRSTVWY"[i % 20], 1);
    strcat(fasta, "\n");
    make_small_db("six", fasta, path, sizeof path);
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(path, &db, &err), SW_OK, "%s", err.message);
    sw_db_info info;
    cr_assert_eq(sw_db_get_info(db, &info, &err), SW_OK, "%s", err.message);
    cr_assert_geq(info.format_version, 1);
    cr_assert_eq(info.alphabet, SW_ALPHABET_PROTEIN);
    cr_assert_eq(info.sequences, 6);
    cr_assert_eq(info.residues, 1 + 2 + 3 + 5 + 8 + 200);
    cr_assert_eq(info.min_length, 1);
    cr_assert_eq(info.median_length, 5);
    cr_assert_eq(info.max_length, 200);
    /* 1 | 2, 3 | 5 | 8 | 200 in 128-255. */
    static const uint64_t want[32] = {[0] = 1, [1] = 2, [2] = 1, [3] = 1, [7] = 1};
    for (int k = 0; k < 32; k++) cr_assert_eq(info.length_histogram[k], want[k], "bin %d", k);
    cr_assert_geq(info.residue_chunks, 1);
    cr_assert_geq(info.header_chunks, 1);
    cr_assert_eq(info.header_text_bytes, 6);
    /* The files are the prefix's, with their sizes on disk. */
    const char *paths[3] = {info.index_path, info.residue_path, info.header_path};
    const uint64_t sizes[3] = {info.index_bytes, info.residue_bytes, info.header_bytes};
    for (int i = 0; i < 3; i++) {
        cr_assert_not_null(paths[i]);
        cr_assert_eq(strncmp(paths[i], path, strlen(path)), 0, "%s", paths[i]);
        struct stat st;
        cr_assert_eq(stat(paths[i], &st), 0, "%s", paths[i]);
        cr_assert_eq((uint64_t)st.st_size, sizes[i], "%s", paths[i]);
    }
    cr_assert_str_eq(info.index_path + strlen(path), ".swi");
    sw_db_close(db);
}

Test(api, database_info_needs_a_database_and_a_place_for_it)
{
    sw_db *db = NULL;
    sw_db_info info;
    sw_error err;
    cr_assert_eq(sw_db_get_info(NULL, &info, &err), SW_EINVAL);
    cr_assert_eq(err.code, SW_EINVAL);
    cr_assert_neq(err.message[0], '\0');
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_get_info(db, NULL, &err), SW_EINVAL);
    sw_db_close(db);
}

typedef struct progress_log {
    int calls;
    uint64_t first_done, last_done, last_total;
} progress_log;

static void log_progress(void *user, uint64_t done, uint64_t total)
{
    progress_log *p = user;
    if (!p->calls++) p->first_done = done;
    cr_assert_leq(done, total);
    p->last_done = done;
    p->last_total = total;
}

Test(api, verify_checks_every_chunk_of_a_sound_database)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK, "%s", err.message);
    sw_db_info info;
    cr_assert_eq(sw_db_get_info(db, &info, &err), SW_OK, "%s", err.message);
    progress_log log = {0};
    cr_assert_eq(sw_db_verify(db, log_progress, &log, &err), SW_OK, "%s", err.message);
    cr_assert_eq(log.first_done, 0);
    cr_assert_eq(log.last_total, info.residue_chunks + info.header_chunks);
    cr_assert_eq(log.last_done, log.last_total);
    cr_assert_eq(sw_db_verify(db, NULL, NULL, &err), SW_OK, "%s", err.message);
    sw_db_close(db);
}

Test(api, verify_names_the_damaged_chunk_of_a_flipped_byte)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK, "%s", err.message);
    sw_db_info info;
    cr_assert_eq(sw_db_get_info(db, &info, &err), SW_OK, "%s", err.message);
    /* The paths live as long as the database. */
    char residues[512];
    snprintf(residues, sizeof residues, "%s", info.residue_path);
    sw_db_close(db);
    /* A byte in the middle of the residue file lies in a chunk's
     * compressed bytes, which only that chunk's checksum covers. */
    FILE *f = fopen(residues, "r+b");
    cr_assert_not_null(f);
    long at = (long)(info.residue_bytes / 2);
    cr_assert_eq(fseek(f, at, SEEK_SET), 0);
    int c = fgetc(f);
    cr_assert_eq(fseek(f, at, SEEK_SET), 0);
    fputc(c ^ 0xFF, f);
    fclose(f);

    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK, "%s", err.message);
    progress_log log = {0};
    cr_assert_eq(sw_db_verify(db, log_progress, &log, &err), SW_ECORRUPT);
    cr_assert_eq(err.code, SW_ECORRUPT);
    cr_assert_not_null(strstr(err.message, residues), "%s", err.message);
    cr_assert_not_null(strstr(err.message, "is corrupt"), "%s", err.message);
    cr_assert_lt(log.last_done, log.last_total, "verify stops at the damaged chunk");
    sw_db_close(db);
}

#define MAX_PHASES 16

typedef struct phase_log {
    int n;
    char phase[MAX_PHASES][32];
    uint64_t done[MAX_PHASES], total[MAX_PHASES]; /* the phase's last call */
} phase_log;

static void log_phase(void *user, const char *phase, uint64_t done, uint64_t total)
{
    phase_log *p = user;
    if (!p->n || strcmp(p->phase[p->n - 1], phase)) {
        cr_assert_lt(p->n, MAX_PHASES);
        snprintf(p->phase[p->n++], sizeof p->phase[0], "%s", phase);
    }
    p->done[p->n - 1] = done;
    p->total[p->n - 1] = total;
}

Test(api, make_reports_its_phases_in_order)
{
    char path[160];
    snprintf(path, sizeof path, "%s/phases", dir);
    phase_log log = {0};
    sw_db_make_options opt = {.progress = log_phase, .progress_user = &log};
    sw_error err;
    const char *fasta = SW_TEST_DATA "/swissprot_like_2500.fa.zst";
    cr_assert_eq(sw_db_make(fasta, path, &opt, NULL, NULL, &err), SW_OK, "%s", err.message);
    static const char *want[] = {"reading", "sorting", "compressing residues", "compressing headers",
                                 "writing index"};
    cr_assert_eq(log.n, 5);
    for (int i = 0; i < 5; i++) cr_assert_str_eq(log.phase[i], want[i]);
    /* Reading counts bytes of the file's size; every later phase ends done. */
    struct stat st;
    cr_assert_eq(stat(fasta, &st), 0);
    cr_assert_eq(log.total[0], (uint64_t)st.st_size);
    cr_assert_gt(log.done[0], 0);
    cr_assert_leq(log.done[0], log.total[0]);
    for (int i = 1; i < 5; i++) {
        cr_assert_gt(log.total[i], 0, "%s", log.phase[i]);
        cr_assert_eq(log.done[i], log.total[i], "%s", log.phase[i]);
    }
}

Test(api, make_of_a_file_without_sequences_fails_before_building)
{
    char fa[160], path[160];
    snprintf(fa, sizeof fa, "%s/empty.fa", dir);
    snprintf(path, sizeof path, "%s/empty", dir);
    write_file(fa, "");
    phase_log log = {0};
    sw_db_make_options opt = {.progress = log_phase, .progress_user = &log};
    sw_error err;
    cr_assert_eq(sw_db_make(fa, path, &opt, NULL, NULL, &err), SW_EFORMAT);
    cr_assert_not_null(strstr(err.message, "no sequences"), "%s", err.message);
    cr_assert_eq(log.n, 0, "no phase of a build that did not start");
    sw_db *db = NULL;
    cr_assert_lt(sw_db_open(path, &db, NULL), 0, "no database left behind");
}

/* The text a writer of an sw_aligned gives. */
static char *aligned_text(const sw_aligned *r, int (*write)(const sw_aligned *, FILE *, void *), void *arg, int *rc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_not_null(mem);
    *rc = write(r, mem, arg);
    fclose(mem);
    return text;
}

static int write_format(const sw_aligned *r, FILE *f, void *arg)
{
    return sw_aligned_write(r, *(sw_align_format *)arg, f, NULL);
}

/* The program's hand-checked pair: ACGTACG is the only common run, score 7,
 * a 5..11, b 3..9. */
static void align_pair_files(char *ab, size_t cap)
{
    snprintf(ab, cap, "%s/ab.fa", dir);
    write_file(ab, ">a first sequence\nTTTTACGTACGTTTTT\n>b\nGGACGTACGGG\n");
}

Test(api, aligner_reads_fasta_files_and_writes_the_programs_formats)
{
    char ab[160];
    align_pair_files(ab, sizeof ab);
    sw_aligner *a = NULL;
    sw_aligned *r = NULL;
    sw_error err;
    cr_assert_eq(sw_aligner_create(&a, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_engine(a, SW_ALIGN_ENGINE_CPU, &err), SW_OK);
    cr_assert_eq(sw_aligner_run_files(a, ab, NULL, &r, &err), SW_OK, "%s", err.message);
    sw_aligned_stats st;
    cr_assert_eq(sw_aligned_get_stats(r, &st, &err), SW_OK);
    cr_assert_str_eq(st.x_id, "a");
    cr_assert_str_eq(st.y_id, "b");
    cr_assert_eq(st.x_length, 16);
    cr_assert_eq(st.y_length, 11);
    int rc;
    sw_align_format f = SW_ALIGN_FORMAT_TSV;
    char *text = aligned_text(r, write_format, &f, &rc);
    cr_assert_eq(rc, SW_OK);
    cr_assert_str_eq(text,
                     "#a_id\tb_id\tscore\ta_start\ta_end\tb_start\tb_end\tmatches\tmismatches\tgap_openings\tgap_bases\t"
                     "identity\tcigar\na\tb\t7\t5\t11\t3\t9\t7\t0\t0\t0\t100.000\t7M\n");
    free(text);
    f = SW_ALIGN_FORMAT_PAF;
    text = aligned_text(r, write_format, &f, &rc);
    cr_assert_str_eq(text, "a\t16\t4\t11\t+\tb\t11\t2\t9\t7\t7\t255\ttp:A:P\tAS:i:7\tNM:i:0\tcg:Z:7M\n");
    free(text);
    f = SW_ALIGN_FORMAT_MAF;
    text = aligned_text(r, write_format, &f, &rc);
    cr_assert_not_null(strstr(text, "s a 4 7 + 16 ACGTACG\n"), "%s", text);
    cr_assert_not_null(strstr(text, "s b 2 7 + 11 ACGTACG\n"), "%s", text);
    free(text);
    f = SW_ALIGN_FORMAT_JSON;
    text = aligned_text(r, write_format, &f, &rc);
    cr_assert_not_null(strstr(text, "\"a_id\": \"a\""), "%s", text);
    cr_assert_not_null(strstr(text, "\"engine\": \"cpu\""), "%s", text);
    free(text);
    f = (sw_align_format)9;
    free(aligned_text(r, write_format, &f, &rc));
    cr_assert_eq(rc, SW_EINVAL);
    sw_aligned_free(r);
    sw_aligner_free(a);
}

Test(api, aligner_read_files_errors_name_the_file)
{
    char ab[160], one[160];
    align_pair_files(ab, sizeof ab);
    snprintf(one, sizeof one, "%s/one.fa", dir);
    write_file(one, ">s1 bad\nACGT\nACXT\n");
    sw_aligner *a = NULL;
    sw_aligned *r = NULL;
    sw_error err;
    cr_assert_eq(sw_aligner_create(&a, &err), SW_OK);
    cr_assert_eq(sw_aligner_align(a, &r, &err), SW_EINVAL, "nothing read yet");
    cr_assert_lt(sw_aligner_read_files(a, one, ab, &err), 0);
    cr_assert_not_null(strstr(err.message, "one.fa:3: invalid residue 'X' in sequence s1"), "%s", err.message);
    cr_assert_lt(sw_aligner_run_files(a, ab, ab, &r, &err), 0, "two records in each");
    cr_assert_not_null(strstr(err.message, "ab.fa: holds 2 sequences"), "%s", err.message);
    cr_assert_null(r);
    cr_assert_eq(sw_aligner_get_sequence(a, 0, NULL, NULL, &err), SW_EINVAL, "a failed read keeps nothing");
    sw_aligner_free(a);
}

Test(api, aligner_keeps_the_sequences_read_and_checks_scores_against_them)
{
    char ab[160];
    align_pair_files(ab, sizeof ab);
    sw_aligner *a = NULL;
    sw_aligned *r = NULL;
    sw_error err;
    cr_assert_eq(sw_aligner_create(&a, &err), SW_OK);
    /* Each penalty alone is within its range, together they are not. */
    cr_assert_eq(sw_aligner_set_scores(a, 1, -3, 65535, 2, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_aligner_read_files(a, ab, NULL, &err), SW_ELIMIT);
    cr_assert_not_null(strstr(err.message, "penalties above"), "%s", err.message);
    cr_assert_eq(sw_aligner_set_scores(a, 1, -3, SW_ALIGN_MAX_GAP, 1, &err), SW_EINVAL);
    cr_assert_eq(sw_aligner_set_scores(a, 1, 1, 3, 2, &err), SW_EINVAL);
    cr_assert_eq(sw_aligner_set_scores(a, 1, -3, 3, 2, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_device(a, SW_DEVICE_CPU, &err), SW_OK);
    cr_assert_eq(sw_aligner_read_files(a, ab, NULL, &err), SW_OK, "%s", err.message);
    const char *id = NULL;
    uint64_t len = 0;
    cr_assert_eq(sw_aligner_get_sequence(a, 1, &id, &len, &err), SW_OK);
    cr_assert_str_eq(id, "b");
    cr_assert_eq(len, 11);
    cr_assert_eq(sw_aligner_get_sequence(a, 2, &id, &len, &err), SW_EINVAL);
    /* Twice on the same sequences; a result outlives its aligner. */
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(sw_aligner_align(a, &r, &err), SW_OK, "%s", err.message);
        if (k == 0) sw_aligned_free(r);
    }
    sw_aligner_free(a);
    sw_aligned_info i;
    cr_assert_eq(sw_aligned_get(r, 0, &i, &err), SW_OK);
    cr_assert_eq(i.score, 7);
    cr_assert_eq(i.x_start, 5);
    sw_align_format f = SW_ALIGN_FORMAT_TSV;
    int rc;
    char *text = aligned_text(r, write_format, &f, &rc);
    cr_assert_not_null(strstr(text, "\na\tb\t7\t5\t11\t3\t9\t"), "%s", text);
    free(text);
    sw_aligned_free(r);
}

Test(api, aligner_engines_by_name)
{
    cr_assert_str_eq(sw_align_engine_name(SW_ALIGN_ENGINE_AUTO), "auto");
    cr_assert_str_eq(sw_align_engine_name(SW_ALIGN_ENGINE_CPU), "cpu");
    cr_assert_str_eq(sw_align_engine_name(SW_ALIGN_ENGINE_CUDALIGN), "cudalign");
    cr_assert_str_eq(sw_align_engine_name(SW_ALIGN_ENGINE_OVERLAP), "overlap");
    cr_assert_str_eq(sw_align_engine_name((sw_align_engine)9), "?");
    sw_aligner *a = NULL;
    sw_aligned *r = NULL;
    sw_error err;
    cr_assert_eq(sw_aligner_create(&a, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_engine(a, (sw_align_engine)9, &err), SW_EINVAL);
    /* A GPU engine asked for by name runs on a GPU or fails naming it. */
    cr_assert_eq(sw_aligner_set_engine(a, SW_ALIGN_ENGINE_CUDALIGN, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_pruning(a, 0, &err), SW_OK);
    int rc = sw_aligner_run(a, "GATTACAGATTACA", 0, "CCGATTACAGATTACACC", 0, &r, &err);
    if (rc == SW_OK) {
        sw_aligned_stats st;
        sw_aligned_get_stats(r, &st, NULL);
        cr_assert_eq(st.engine, SW_ALIGN_ENGINE_CUDALIGN);
        cr_assert_eq(st.forward_pruned, 0, "no pruning");
        sw_aligned_free(r);
    } else {
        cr_assert_null(r);
        cr_assert_not_null(strstr(err.message, "GPU"), "%s", err.message);
    }
    /* Several GPUs need a GPU engine. */
    cr_assert_eq(sw_aligner_set_engine(a, SW_ALIGN_ENGINE_CPU, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_gpus(a, NULL, 2, &err), SW_OK);
    cr_assert_eq(sw_aligner_run(a, "GATTACA", 0, "GATTACA", 0, &r, &err), SW_EINVAL);
    cr_assert_not_null(strstr(err.message, "several GPUs need a GPU engine"), "%s", err.message);
    sw_aligner_free(a);
}

typedef struct align_calls {
    int n, passes_ended[4], paths_opened, bad;
    int last_pass;
    char message[256];
} align_calls;

static void count_progress(void *user, int pass, uint64_t done, uint64_t total)
{
    align_calls *c = user;
    if (pass < 1 || pass > 3 || done > total || pass < c->last_pass) c->bad++;
    if (pass == 3 && c->last_pass != 3) c->paths_opened += done == 0 && total == 0;
    if (pass < 3 && done == total) c->passes_ended[pass]++;
    c->last_pass = pass;
    c->n++;
}

static void keep_message(void *user, const char *message)
{
    align_calls *c = user;
    snprintf(c->message, sizeof c->message, "%s", message);
}

Test(api, aligner_reports_progress_messages_and_figures)
{
    char x[160], y[160];
    snprintf(x, sizeof x, "%s/x.fa", dir);
    snprintf(y, sizeof y, "%s/y.fa", dir);
    write_file(x, ">e\n\n>x\nCCCCACGTTGCAACGGTCAGGATCCACCCC\n");
    write_file(y, ">y\nTTTTACGTTGCAACTCAGGATCCATTTT\n");
    sw_aligner *a = NULL;
    sw_aligned *r = NULL;
    sw_error err;
    align_calls calls = {0};
    cr_assert_eq(sw_aligner_create(&a, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_progress(a, count_progress, &calls, -1, &err), SW_EINVAL);
    cr_assert_eq(sw_aligner_set_progress(a, count_progress, &calls, 0.5, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_messages(a, keep_message, &calls, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_engine(a, SW_ALIGN_ENGINE_CPU, &err), SW_OK);
    cr_assert_eq(sw_aligner_run_files(a, x, y, &r, &err), SW_OK, "%s", err.message);
    cr_assert_not_null(strstr(calls.message, "empty sequence 'e' skipped"), "%s", calls.message);
    cr_assert_eq(calls.bad, 0);
    cr_assert_eq(calls.passes_ended[1], 1);
    cr_assert_eq(calls.passes_ended[2], 1);
    cr_assert_eq(calls.paths_opened, 1);
    sw_aligned_stats st;
    cr_assert_eq(sw_aligned_get_stats(r, &st, &err), SW_OK);
    cr_assert_str_eq(st.x_id, "x");
    cr_assert_eq(st.engine, SW_ALIGN_ENGINE_CPU);
    cr_assert_eq(st.found, 1);
    cr_assert_eq(st.passes, 1);
    cr_assert_eq(st.processes, 1);
    cr_assert_eq(st.gpus, 1);
    cr_assert_eq(st.forward_cells, 30 * 28);
    cr_assert_gt(st.start_cells, 0);
    cr_assert_gt(st.path_cells, 0);
    cr_assert_eq(st.path_gpu_passes, 0);
    cr_assert_eq(sw_aligned_get_stats(r, NULL, &err), SW_EINVAL);
    sw_aligned_free(r);
    /* Without paths: no pass 3, and PAF, MAF, the view and the plot refused. */
    calls = (align_calls){0};
    cr_assert_eq(sw_aligner_set_path(a, 0, &err), SW_OK);
    cr_assert_eq(sw_aligner_run_files(a, x, y, &r, &err), SW_OK, "%s", err.message);
    cr_assert_eq(calls.paths_opened, 0);
    cr_assert_eq(sw_aligned_get_stats(r, &st, &err), SW_OK);
    cr_assert_eq(st.path_cells, 0);
    cr_assert_eq(sw_aligned_write(r, SW_ALIGN_FORMAT_PAF, stdout, &err), SW_EINVAL);
    cr_assert_eq(sw_aligned_write_view(r, 1, 10, stdout, &err), SW_EINVAL);
    cr_assert_eq(sw_aligned_write_plot(r, SW_ALIGN_PLOT_SVG, stdout, &err), SW_EINVAL);
    sw_aligned_free(r);
    sw_aligner_free(a);
}

static int write_view(const sw_aligned *r, FILE *f, void *arg)
{
    const uint64_t *range = arg;
    return sw_aligned_write_view(r, range[0], range[1], f, NULL);
}

static int write_svg(const sw_aligned *r, FILE *f, void *arg)
{
    (void)arg;
    return sw_aligned_write_plot(r, SW_ALIGN_PLOT_SVG, f, NULL);
}

Test(api, aligned_view_and_plot)
{
    char ab[160];
    align_pair_files(ab, sizeof ab);
    sw_aligner *a = NULL;
    sw_aligned *r = NULL;
    sw_error err;
    cr_assert_eq(sw_aligner_create(&a, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_device(a, SW_DEVICE_CPU, &err), SW_OK);
    cr_assert_eq(sw_aligner_run_files(a, ab, NULL, &r, &err), SW_OK, "%s", err.message);
    int rc;
    uint64_t range[2] = {6, 9};
    char *text = aligned_text(r, write_view, range, &rc);
    cr_assert_eq(rc, SW_OK);
    cr_assert_not_null(strstr(text, " 6 CGTA 9\n"), "%s", text);
    cr_assert_not_null(strstr(text, " 4 CGTA 7\n"), "%s", text);
    free(text);
    range[0] = 9;
    range[1] = 6;
    free(aligned_text(r, write_view, range, &rc));
    cr_assert_eq(rc, SW_EINVAL, "backwards");
    text = aligned_text(r, write_svg, NULL, &rc);
    cr_assert_eq(rc, SW_OK);
    cr_assert_not_null(strstr(text, "<svg"), "%s", text);
    cr_assert_not_null(strstr(text, "<polyline"), "%s", text);
    free(text);
    cr_assert_eq(sw_align_plot_format_of("p.PNG"), SW_ALIGN_PLOT_PNG);
    cr_assert_eq(sw_align_plot_format_of("p.svg"), SW_ALIGN_PLOT_SVG);
    cr_assert_eq(sw_align_plot_format_of("png"), SW_ALIGN_PLOT_SVG);
    if (!sw_align_png_supported()) {
        FILE *null = fopen("/dev/null", "w");
        cr_assert_eq(sw_aligned_write_plot(r, SW_ALIGN_PLOT_PNG, null, &err), SW_EINVAL);
        fclose(null);
    }
    sw_aligned_free(r);
    /* Nothing aligns: the view says so. */
    cr_assert_eq(sw_aligner_run(a, "AAAA", 0, "CCCC", 0, &r, &err), SW_OK);
    range[0] = 1;
    range[1] = 4;
    text = aligned_text(r, write_view, range, &rc);
    cr_assert_str_eq(text, "Nothing aligns: no pair of bases scores above zero.\n");
    free(text);
    sw_aligned_free(r);
    sw_aligner_free(a);
}

Test(api, aligner_alone_is_rank_0_of_1)
{
    sw_aligner *a = NULL;
    sw_error err;
    cr_assert_eq(sw_aligner_create(&a, &err), SW_OK);
    cr_assert_eq(sw_aligner_set_mpi(NULL, 1, &err), SW_EINVAL);
    /* Not started by an MPI launcher: nothing to join. */
    cr_assert_eq(sw_aligner_set_mpi(a, 1, &err), SW_OK, "%s", err.message);
    int rank = -1, ranks = -1, local = -1;
    cr_assert_eq(sw_aligner_get_rank(a, &rank, &ranks, &local, &err), SW_OK);
    cr_assert_eq(rank, 0);
    cr_assert_eq(ranks, 1);
    cr_assert_eq(local, 0);
    /* Alone, agreeing gives back the status and leaves its message. */
    cr_assert_eq(sw_aligner_agree(a, SW_OK, &err), SW_OK);
    snprintf(err.message, sizeof err.message, "out.tsv: no such directory");
    cr_assert_eq(sw_aligner_agree(a, SW_ENOTFOUND, &err), SW_ENOTFOUND);
    cr_assert_str_eq(err.message, "out.tsv: no such directory");
    sw_aligner_free(a);
}

/* ---- Database search: engines, inputs, held databases, summaries ---- */

/* The hits of `fasta` written as "6 qseqid sseqid score evalue" by `s`. */
static char *written(sw_search *s, const sw_db *db, const char *fasta)
{
    char *text = NULL;
    size_t len = 0;
    sw_error err;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_not_null(mem);
    cr_assert_eq(sw_search_write(s, db, fasta, "6 qseqid sseqid score evalue", mem, &err), SW_OK, "%s", err.message);
    fclose(mem);
    return text;
}

static sw_search *cpu_search(size_t top)
{
    sw_search *s = NULL;
    sw_error err;
    cr_assert_eq(sw_search_create(&s, &err), SW_OK);
    cr_assert_eq(sw_search_set_device(s, SW_DEVICE_CPU, &err), SW_OK);
    cr_assert_eq(sw_search_set_top(s, top, &err), SW_OK);
    return s;
}

Test(api, cpu_engines_by_name_agree)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    char fasta[256];
    snprintf(fasta, sizeof fasta, "%s/two.fa", dir);
    FILE *f = fopen(fasta, "w");
    cr_assert_not_null(f);
    fputs(">a\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n>b\nGDVEKGKKIFVQKCAQCHTVEKGGKHKTGPNLHGLFGRKTGQA\n", f);
    fclose(f);
    sw_search *simd = cpu_search(10), *ref = cpu_search(10);
    cr_assert_eq(sw_search_set_cpu_engine(simd, "simd", &err), SW_OK);
    cr_assert_eq(sw_search_set_cpu_engine(ref, "reference", &err), SW_OK);
    char *a = written(simd, db, fasta), *b = written(ref, db, fasta);
    cr_assert_str_eq(a, b);
    cr_assert_gt(strlen(a), 0);
    sw_search_summary sum;
    cr_assert_eq(sw_search_get_summary(ref, &sum, &err), SW_OK);
    cr_assert_not_null(strstr(sum.engine, "reference"), "%s", sum.engine);
    /* An unknown engine is refused and the one before kept. */
    cr_assert_eq(sw_search_set_cpu_engine(ref, "avx9", &err), SW_EINVAL);
    cr_assert_not_null(strstr(err.message, "avx9"), "%s", err.message);
    cr_assert_eq(sw_search_set_cpu_engine(ref, NULL, &err), SW_EINVAL);
    free(a);
    free(b);
    sw_search_free(simd);
    sw_search_free(ref);
    sw_db_close(db);
}

typedef struct heard {
    int messages, warnings, progress;
    uint64_t last_done, last_total;
    char warning[1024];
} heard;

static void hear_message(void *user, const char *m)
{
    (void)m;
    ((heard *)user)->messages++;
}

static void hear_warning(void *user, const char *m)
{
    heard *h = user;
    h->warnings++;
    snprintf(h->warning, sizeof h->warning, "%s", m);
}

static void hear_progress(void *user, uint64_t done, uint64_t total)
{
    heard *h = user;
    cr_assert_leq(done, total);
    h->progress++;
    h->last_done = done;
    h->last_total = total;
}

Test(api, warnings_progress_and_summary_reach_their_own_functions)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    char fasta[256];
    snprintf(fasta, sizeof fasta, "%s/empty-record.fa", dir);
    FILE *f = fopen(fasta, "w");
    cr_assert_not_null(f);
    fputs(">nothing\n>q1\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n", f);
    fclose(f);
    sw_search *s = cpu_search(5);
    heard h = {0};
    cr_assert_eq(sw_search_set_messages(s, hear_message, &h, &err), SW_OK);
    cr_assert_eq(sw_search_set_warnings(s, hear_warning, &h, &err), SW_OK);
    cr_assert_eq(sw_search_set_progress(s, hear_progress, &h, &err), SW_OK);
    cr_assert_eq(sw_search_set_gpu_threshold(s, SW_GPU_THRESHOLD_NONE, &err), SW_OK);
    free(written(s, db, fasta));
    cr_assert_eq(h.warnings, 1);
    cr_assert_eq(h.messages, 0);
    cr_assert_not_null(strstr(h.warning, "empty sequence 'nothing' skipped"), "%s", h.warning);
    cr_assert_gt(h.progress, 0);
    cr_assert_eq(h.last_done, h.last_total);
    sw_search_summary sum;
    cr_assert_eq(sw_search_get_summary(s, &sum, &err), SW_OK);
    cr_assert_eq(sum.queries, 1);
    cr_assert_eq(sum.batches, 1);
    cr_assert_eq(sum.query_residues, 33);
    cr_assert_eq(sum.cells, 33 * sw_db_num_residues(db));
    cr_assert_eq(sum.on_gpu, 0);
    cr_assert_gt(sum.threads, 0);
    cr_assert_gt(sum.hits, 0);
    cr_assert_leq(sum.hits, 5);
    cr_assert_str_eq(sum.gpu_threshold_source, "");
    cr_assert_neq(sum.statistics[0], '\0');
    /* Without a warnings function they go to the messages. */
    cr_assert_eq(sw_search_set_warnings(s, NULL, NULL, &err), SW_OK);
    free(written(s, db, fasta));
    cr_assert_eq(h.warnings, 1);
    cr_assert_eq(h.messages, 1);
    /* A failed run leaves the summary of what it did. */
    cr_assert_lt(sw_search_write(s, db, SW_TEST_DATA "/no-such-queries.fa", "6", stdout, &err), 0);
    cr_assert_eq(sw_search_get_summary(NULL, &sum, &err), SW_EINVAL);
    cr_assert_eq(sw_search_set_progress(NULL, hear_progress, &h, &err), SW_EINVAL);
    cr_assert_eq(sw_search_set_gpu_threshold(NULL, 0, &err), SW_EINVAL);
    sw_search_free(s);
    sw_db_close(db);
}

Test(api, formats_are_checked_before_a_run)
{
    sw_error err;
    cr_assert_eq(sw_search_check_format("6", &err), SW_OK);
    cr_assert_eq(sw_search_check_format("6 qseqid sseqid evalue", &err), SW_OK);
    cr_assert_eq(sw_search_check_format("json", &err), SW_OK);
    cr_assert_lt(sw_search_check_format("6 nosuchfield", &err), 0);
    cr_assert_not_null(strstr(err.message, "nosuchfield"), "%s", err.message);
    cr_assert_lt(sw_search_check_format("17", &err), 0);
    cr_assert_eq(sw_search_check_format(NULL, &err), SW_EINVAL);
}

Test(api, queries_from_a_descriptor_equal_the_file_and_keep_their_bound)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    sw_search *s = cpu_search(5);
    char *want = written(s, db, SW_TEST_DATA "/queries20.fasta");
    FILE *q = fopen(SW_TEST_DATA "/queries20.fasta", "r");
    cr_assert_not_null(q);
    sw_query_input *in = NULL;
    cr_assert_eq(sw_query_input_open_fd(fileno(q), "queries", 0, &in, &err), SW_OK, "%s", err.message);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write_input(s, db, in, "6 qseqid sseqid score evalue", mem, &err), SW_OK, "%s",
                 err.message);
    fclose(mem);
    cr_assert_str_eq(text, want);
    sw_query_input_close(in);
    fclose(q);
    free(text);

    /* A query past the bound fails the run, named as the input is. */
    char fasta[256];
    snprintf(fasta, sizeof fasta, "%s/long.fa", dir);
    FILE *f = fopen(fasta, "w");
    cr_assert_not_null(f);
    fputs(">short\nMKTAYIAKQR\n>long\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n", f);
    fclose(f);
    q = fopen(fasta, "r");
    cr_assert_eq(sw_query_input_open_fd(fileno(q), "client.fa", 20, &in, &err), SW_OK);
    mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write_input(s, db, in, "6", mem, &err), SW_ELIMIT);
    fclose(mem);
    cr_assert_not_null(strstr(err.message, "client.fa"), "%s", err.message);
    cr_assert_not_null(strstr(err.message, "long"), "%s", err.message);
    sw_query_input_close(in);
    fclose(q);
    free(text);

    cr_assert_eq(sw_query_input_open_fd(-1, "none", 0, &in, &err), SW_EINVAL);
    cr_assert_null(in);
    cr_assert_lt(sw_query_input_open(SW_TEST_DATA "/no-such-queries.fa", &in, &err), 0);
    cr_assert_null(in);
    cr_assert_not_null(strstr(err.message, "no-such-queries.fa"), "%s", err.message);
    cr_assert_eq(sw_search_write_input(s, db, NULL, "6", stdout, &err), SW_EINVAL);
    free(want);
    sw_search_free(s);
    sw_db_close(db);
}

Test(api, a_held_database_gives_the_hits_of_one_not_held)
{
    sw_db *db = NULL, *other = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    cr_assert_eq(sw_db_open(db_path, &other, &err), SW_OK);
    sw_search *s = cpu_search(5);
    char *want = written(s, db, SW_TEST_DATA "/queries20.fasta");
    cr_assert_eq(sw_search_set_threads(s, 2, &err), SW_OK);
    cr_assert_eq(sw_search_hold(s, db, &err), SW_OK, "%s", err.message);
    for (int run = 0; run < 2; run++) {
        char *got = written(s, db, SW_TEST_DATA "/queries20.fasta");
        cr_assert_str_eq(got, want, "run %d on the held database", run);
        free(got);
    }
    /* Another database is searched as it would be without a hold. */
    char *got = written(s, other, SW_TEST_DATA "/queries20.fasta");
    cr_assert_str_eq(got, want);
    free(got);
    cr_assert_eq(sw_search_hold(s, NULL, &err), SW_OK);
    cr_assert_eq(sw_search_hold(NULL, db, &err), SW_EINVAL);
    free(want);
    sw_search_free(s);
    sw_db_close(other);
    sw_db_close(db);
}

Test(api, a_damaged_header_file_fails_a_run_and_a_hold_before_any_output)
{
    char copy[256], cmd[1024];
    snprintf(copy, sizeof copy, "%s/damaged", dir);
    snprintf(cmd, sizeof cmd, "for f in %s.*; do cp \"$f\" \"%s${f#%s}\"; done", db_path, copy, db_path);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "ls %s.*.swh", copy);
    FILE *ls = popen(cmd, "r");
    char headers[512] = "";
    cr_assert_not_null(fgets(headers, sizeof headers, ls));
    pclose(ls);
    headers[strcspn(headers, "\n")] = '\0';
    FILE *f = fopen(headers, "r+b");
    cr_assert_not_null(f, "%s", headers);
    fseek(f, 0, SEEK_END);
    long at = ftell(f) / 2;
    fseek(f, at, SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(c ^ 0x40, f);
    fclose(f);
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(copy, &db, &err), SW_OK, "%s", err.message);
    sw_search *s = cpu_search(5);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write(s, db, SW_TEST_DATA "/queries20.fasta", "6", mem, &err), SW_ECORRUPT);
    fclose(mem);
    cr_assert_eq(len, 0);
    cr_assert_not_null(strstr(err.message, "corrupt"), "%s", err.message);
    cr_assert_eq(sw_search_hold(s, db, &err), SW_ECORRUPT);
    free(text);
    sw_search_free(s);
    sw_db_close(db);
}

Test(api, gpus_are_listed_or_their_absence_explained)
{
    cr_assert_eq(sw_db_format_current(), 2);
    cr_assert_neq(strlen(sw_cpu_simd_name()), 0);
    sw_error err;
    sw_gpu_props gpus[8];
    int n = -1;
    int rc = sw_gpus_list(gpus, 8, &n, &err);
    if (!sw_gpus_built() || rc != SW_OK) {
        cr_assert_eq(rc, SW_ENODEV);
        cr_assert_neq(err.message[0], '\0');
        cr_assert_eq(n, 0);
        cr_assert_eq(sw_gpus_select(NULL, 0, gpus, 8, &n, &err), SW_ENODEV);
        sw_db *db = NULL;
        sw_gpu_calibration cal;
        cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
        cr_assert_lt(sw_gpu_calibrate(0, db, &cal, &err), 0);
        sw_db_close(db);
    } else {
        cr_assert_gt(n, 0);
        cr_assert_eq(gpus[0].id, 0);
        cr_assert_gt(gpus[0].memory, 0);
        /* GPU 0 listed twice: two slices on one GPU. */
        int twice[2] = {0, 0}, k = 0;
        cr_assert_eq(sw_gpus_select(twice, 2, gpus, 8, &k, &err), SW_OK, "%s", err.message);
        cr_assert_eq(k, 2);
        cr_assert_eq(gpus[1].id, 0);
        int beyond = n;
        cr_assert_eq(sw_gpus_select(&beyond, 1, gpus, 8, &k, &err), SW_ENODEV);
    }
    cr_assert_eq(sw_gpus_list(NULL, 0, NULL, &err), SW_EINVAL);
    /* Warming up never fails, with GPUs or without. */
    sw_gpus_warm *w = NULL;
    cr_assert_eq(sw_gpus_warm_up(NULL, 0, &w, &err), SW_OK);
    sw_gpus_warm_free(w);
    int first = 0;
    cr_assert_eq(sw_gpus_warm_up(&first, 0, &w, &err), SW_EINVAL);
    sw_gpus_warm_free(NULL);
    cr_assert_eq(sw_gpu_calibration_save(NULL, NULL, 0, &err), SW_EINVAL);
}

Test(api, search_alone_is_rank_0_of_1_and_its_gpus_are_as_set)
{
    sw_search *s = cpu_search(5);
    sw_error err;
    cr_assert_eq(sw_search_set_mpi(NULL, 1, &err), SW_EINVAL);
    /* Not started by an MPI launcher: nothing to join. */
    cr_assert_eq(sw_search_set_mpi(s, 1, &err), SW_OK, "%s", err.message);
    int rank = -1, ranks = -1, local = -1, locals = -1;
    cr_assert_eq(sw_search_get_rank(s, &rank, &ranks, &local, &locals, &err), SW_OK);
    cr_assert(rank == 0 && ranks == 1 && local == 0 && locals == 1);
    cr_assert_eq(sw_search_agree(s, SW_OK, &err), SW_OK);
    snprintf(err.message, sizeof err.message, "q.fa: no such file");
    cr_assert_eq(sw_search_agree(s, SW_ENOTFOUND, &err), SW_ENOTFOUND);
    cr_assert_str_eq(err.message, "q.fa: no such file");
    int gpus[8], n = -1;
    cr_assert_eq(sw_search_get_gpus(s, gpus, 8, &n, &err), SW_OK);
    cr_assert_eq(n, 0, "every GPU: none listed");
    cr_assert_eq(sw_search_set_gpus(s, (const int[]){2, 0}, 2, &err), SW_OK);
    cr_assert_eq(sw_search_get_gpus(s, gpus, 8, &n, &err), SW_OK);
    cr_assert(n == 2 && gpus[0] == 2 && gpus[1] == 0);
    cr_assert_eq(sw_search_set_gpus(s, NULL, 3, &err), SW_OK);
    cr_assert_eq(sw_search_get_gpus(s, gpus, 8, &n, &err), SW_OK);
    cr_assert(n == 3 && gpus[0] == 0 && gpus[2] == 2, "the first three");
    sw_gpus_warm *w = NULL;
    cr_assert_eq(sw_search_warm_up(s, &w, &err), SW_OK);
    cr_assert_null(w, "a CPU search starts no GPU");
    sw_search_free(s);
}

Test(api, matrices_by_name_only_or_as_text_equal_the_file)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    const char *path = SW_MATRIX_DIR "/BLOSUM50";
    sw_search *by_file = cpu_search(5), *by_name = cpu_search(5), *by_text = cpu_search(5);
    cr_assert_eq(sw_search_set_matrix(by_file, path, &err), SW_OK, "%s", err.message);
    /* Names only: no path, whatever it names. */
    cr_assert_eq(sw_search_set_matrix_name(by_name, path, &err), SW_EINVAL);
    cr_assert(strstr(err.message, "given by name"), "%s", err.message);
    cr_assert_eq(sw_search_set_matrix_name(by_name, "/etc/passwd", &err), SW_EINVAL);
    cr_assert_null(strstr(err.message, "root"), "%s", err.message);
    cr_assert_eq(sw_search_set_matrix_name(by_name, "NOSUCH", &err), SW_ENOTFOUND);
    cr_assert_eq(sw_search_set_matrix_name(by_name, "blosum50", &err), SW_OK, "%s", err.message);
    /* The file's text, named as the path would be. */
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    char text[8192];
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    cr_assert_eq(sw_search_set_matrix_text(by_text, path, text, len, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_search_set_matrix_text(by_text, "bad", "A B\nA 1\n", 8, &err), SW_EFORMAT);
    cr_assert(strstr(err.message, "bad"), "the label names the text: %s", err.message);
    char *a = written(by_file, db, SW_TEST_DATA "/queries20.fasta");
    char *b = written(by_text, db, SW_TEST_DATA "/queries20.fasta");
    char *c = written(by_name, db, SW_TEST_DATA "/queries20.fasta");
    cr_assert_str_eq(a, b, "the text scores as the file");
    cr_assert(strlen(c) > 0);
    free(a);
    free(b);
    free(c);
    sw_search_free(by_file);
    sw_search_free(by_name);
    sw_search_free(by_text);
    sw_db_close(db);
}

/* ---- Requests sharing scans ---- */

static const char SMALL_QUERIES[] =
    ">q1 first\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ\n"
    ">q2\nMSDNGPQNQRNAPRITFGGPSDSTGSNQNGERSGARSKQRRPQGLPNNTASWFTALTQHGKEDLKFPRGQGVPINTNSSPDDQ\n"
    ">q3 third\nMVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHFDLSHGSAQVKGHGKKVADALTNAVAHVDDMPNALSAL\n"
    ">q4\nGIVEQCCTSICSLYQLENYCN\n"
    ">q5\nMALWMRLLPLLALLALWGPDPAAAFVNQHLCGSHLVEALYLVCGERGFFYTPKTRREAEDLQVGQVELGGGPGAGSLQPLALEGSLQKRGIVEQCCTSICSLYQLENYCN\n";

/* The settings of one request of the test, and its output. */
typedef struct test_request {
    const char *format;
    size_t top;
    double evalue;
    sw_stats_method stats;
    int cancel; /* asked by its cancel function */
    sw_query_input *in;
    FILE *queries, *mem;
    char *text;
    size_t len;
    sw_request *request;
} test_request;

static int cancel_flag(void *user) { return *(const int *)user; }

static void configure(sw_search *s, const test_request *t)
{
    sw_error err;
    cr_assert_eq(sw_search_set_top(s, t->top, &err), SW_OK);
    cr_assert_eq(sw_search_set_evalue(s, t->evalue, &err), SW_OK);
    cr_assert_eq(sw_search_set_statistics(s, t->stats, &err), SW_OK);
}

static char *small_queries_file(void)
{
    static char path[192];
    snprintf(path, sizeof path, "%s/small_queries.fa", dir);
    write_file(path, SMALL_QUERIES);
    return path;
}

/* What a search alone writes with t's settings. */
static char *alone(const sw_db *db, const test_request *t)
{
    sw_search *s = cpu_search(t->top);
    configure(s, t);
    char *text = NULL;
    size_t len = 0;
    sw_error err;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write(s, db, small_queries_file(), t->format, mem, &err), SW_OK, "%s", err.message);
    fclose(mem);
    sw_search_free(s);
    return text;
}

static void open_request(sw_search *s, const sw_db *db, test_request *t)
{
    sw_error err;
    configure(s, t);
    cr_assert_eq(sw_search_set_cancel(s, cancel_flag, &t->cancel, &err), SW_OK);
    t->queries = fopen(small_queries_file(), "r");
    cr_assert_not_null(t->queries);
    cr_assert_eq(sw_query_input_open_fd(fileno(t->queries), "small_queries.fa", 0, &t->in, &err), SW_OK);
    t->mem = open_memstream(&t->text, &t->len);
    cr_assert_eq(sw_request_create(s, db, t->in, t->format, t->mem, &t->request, &err), SW_OK, "%s", err.message);
}

static void close_request(test_request *t)
{
    sw_request_free(t->request);
    sw_query_input_close(t->in);
    fclose(t->queries);
    if (t->mem) fclose(t->mem);
    free(t->text);
}

Test(api, requests_sharing_scans_write_what_searches_alone_write)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    test_request t[3] = {
        {.format = "6", .top = 5, .evalue = 10, .stats = SW_STATS_AUTO},
        {.format = "7", .top = 20, .evalue = 1e-3, .stats = SW_STATS_AUTO},
        {.format = "json", .top = 2, .evalue = 100, .stats = SW_STATS_FIT},
    };
    char *want[3];
    for (int i = 0; i < 3; i++) want[i] = alone(db, &t[i]);
    sw_search *s = cpu_search(500);
    cr_assert_eq(sw_search_hold(s, db, &err), SW_OK, "%s", err.message);
    sw_request *reqs[3];
    for (int i = 0; i < 3; i++) {
        open_request(s, db, &t[i]);
        reqs[i] = t[i].request;
    }
    cr_assert(sw_request_compatible(reqs[0], reqs[2]));
    /* Two queries a scan, shared by three requests: each gives one (and
     * one of them two in the last scans); 5 queries each end in 5 steps. */
    int steps = 0, done = 0;
    while (!done) {
        cr_assert_eq(sw_search_step(s, reqs, 3, 2, &err), SW_OK, "%s", err.message);
        steps++;
        cr_assert_leq(steps, 10);
        done = 1;
        for (int i = 0; i < 3; i++) {
            int d = 0;
            cr_assert_eq(sw_request_status(reqs[i], &d, &err), SW_OK, "request %d: %s", i, err.message);
            done &= d;
        }
    }
    cr_assert_eq(steps, 5);
    for (int i = 0; i < 3; i++) {
        fclose(t[i].mem);
        t[i].mem = NULL;
        cr_assert_str_eq(t[i].text, want[i], "request %d (format %s)", i, t[i].format);
        sw_search_summary sum;
        cr_assert_eq(sw_request_get_summary(reqs[i], &sum, &err), SW_OK);
        cr_assert_eq(sum.queries, 5);
        close_request(&t[i]);
        free(want[i]);
    }
    sw_search_free(s);
    sw_db_close(db);
}

Test(api, a_cancelled_request_ends_alone_and_a_cancelled_run_stops)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    test_request t[2] = {
        {.format = "6", .top = 5, .evalue = 10, .stats = SW_STATS_AUTO},
        {.format = "6", .top = 5, .evalue = 10, .stats = SW_STATS_AUTO},
    };
    char *want = alone(db, &t[1]);
    sw_search *s = cpu_search(5);
    /* A whole run, cancelled before it begins, writes nothing. */
    int always = 1;
    cr_assert_eq(sw_search_set_cancel(s, cancel_flag, &always, &err), SW_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write(s, db, small_queries_file(), "6", mem, &err), SW_ECANCELED);
    fclose(mem);
    cr_assert_eq(len, 0, "%s", text);
    free(text);
    /* Of two requests sharing scans, the cancelled one ends, the other is
     * answered whole. */
    sw_request *reqs[2];
    for (int i = 0; i < 2; i++) {
        open_request(s, db, &t[i]);
        reqs[i] = t[i].request;
    }
    cr_assert_eq(sw_search_step(s, reqs, 2, 2, &err), SW_OK, "%s", err.message);
    t[0].cancel = 1;
    int done[2] = {0, 0};
    for (int steps = 0; !done[1]; steps++) {
        cr_assert_leq(steps, 10);
        cr_assert_eq(sw_search_step(s, reqs, 2, 2, &err), SW_OK, "%s", err.message);
        sw_request_status(reqs[1], &done[1], NULL);
    }
    cr_assert_eq(sw_request_status(reqs[0], &done[0], &err), SW_ECANCELED);
    cr_assert(done[0]);
    fclose(t[1].mem);
    t[1].mem = NULL;
    cr_assert_str_eq(t[1].text, want);
    for (int i = 0; i < 2; i++) close_request(&t[i]);
    free(want);
    sw_search_free(s);
    sw_db_close(db);
}

Test(api, requests_of_other_scoring_do_not_share_a_scan)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    test_request t[2] = {
        {.format = "6", .top = 5, .evalue = 10, .stats = SW_STATS_AUTO},
        {.format = "6", .top = 5, .evalue = 10, .stats = SW_STATS_AUTO},
    };
    sw_search *s = cpu_search(5);
    open_request(s, db, &t[0]);
    cr_assert_eq(sw_search_set_gap_costs(s, 10, 1, &err), SW_OK);
    open_request(s, db, &t[1]);
    sw_request *reqs[2] = {t[0].request, t[1].request};
    cr_assert_not(sw_request_compatible(reqs[0], reqs[1]));
    cr_assert_eq(sw_search_step(s, reqs, 2, 0, &err), SW_EINVAL);
    cr_assert_not_null(strstr(err.message, "cannot share a scan"), "%s", err.message);
    /* Each alone is answered. */
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(sw_search_step(s, &reqs[i], 1, 0, &err), SW_OK, "%s", err.message);
        int done = 0;
        while (!done) {
            cr_assert_eq(sw_request_status(reqs[i], &done, &err), SW_OK, "%s", err.message);
            if (!done) cr_assert_eq(sw_search_step(s, &reqs[i], 1, 0, &err), SW_OK, "%s", err.message);
        }
    }
    for (int i = 0; i < 2; i++) close_request(&t[i]);
    sw_search_free(s);
    sw_db_close(db);
}

/* ---- PSSM queries ---- */

/* The k-th record of the benchmark queries (1-based), alone in `path`. */
static void write_benchmark_query(const char *path, int k)
{
    FILE *all = fopen(SW_TEST_DATA "/queries20.fasta", "r"), *q = fopen(path, "w");
    cr_assert(all && q);
    char line[4096];
    int record = 0;
    while (fgets(line, sizeof line, all)) {
        if (line[0] == '>') record++;
        if (record == k) fputs(line, q);
    }
    fclose(all);
    fclose(q);
}

/* What `s` writes for the query input `in`. */
static char *written_input(sw_search *s, const sw_db *db, sw_query_input *in, const char *format)
{
    char *text = NULL;
    size_t len = 0;
    sw_error err;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write_input(s, db, in, format, mem, &err), SW_OK, "%s", err.message);
    fclose(mem);
    return text;
}

Test(api, a_pssm_of_one_sequence_scores_as_the_sequence)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    /* The 4th benchmark query (375 residues), which has homologs here. */
    char one[192];
    snprintf(one, sizeof one, "%s/one.fa", dir);
    write_benchmark_query(one, 4);
    sw_search *s = cpu_search(20);
    const char *formats[] = {"6", "7", "0", "json"};
    for (int f = 0; f < 4; f++) {
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        cr_assert_eq(sw_search_write(s, db, one, formats[f], mem, &err), SW_OK, "%s", err.message);
        fclose(mem);
        /* An alignment of one sequence: the matrix's rows, pseudocounts or
         * not, so every score, E-value and alignment is the sequence's. */
        sw_query_input *in = NULL;
        cr_assert_eq(sw_query_input_open_msa(s, one, &in, &err), SW_OK, "%s", err.message);
        char *got = written_input(s, db, in, formats[f]);
        sw_query_input_close(in);
        cr_assert_str_eq(got, text, "format %s", formats[f]);
        cr_assert_gt(len, 100);
        free(got);
        free(text);
    }
    /* A PSSM read from a file, and one of the wrong matrix refused. */
    sw_query_input *in = NULL;
    cr_assert_eq(sw_query_input_open_pssm(s, SW_TEST_DATA "/pssm_sh3_d1ckaa.pssm", &in, &err), SW_OK, "%s",
                 err.message);
    char *got = written_input(s, db, in, "6");
    sw_query_input_close(in);
    free(got);
    cr_assert_lt(sw_query_input_open_pssm(s, SW_TEST_DATA "/no-such.pssm", &in, &err), 0);
    cr_assert_not_null(strstr(err.message, "no-such.pssm"), "%s", err.message);
    sw_search_free(s);
    sw_db_close(db);
}

/* The whole of a file, for the inputs given as text. */
static char *file_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    char *text = NULL;
    size_t cap = 0;
    FILE *mem = open_memstream(&text, &cap);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, mem);
    fclose(f);
    fclose(mem);
    *len = cap;
    return text;
}

Test(api, a_pssm_or_alignment_given_as_text_is_the_query_its_file_gives)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    sw_search *s = cpu_search(20);
    /* Format 7 names the query: a PSI-BLAST PSSM by the name of its file,
     * which the text's name stands for. */
    const char *pssm = SW_TEST_DATA "/pssm_sh3_d1ckaa.pssm";
    sw_query_input *in = NULL;
    cr_assert_eq(sw_query_input_open_pssm(s, pssm, &in, &err), SW_OK, "%s", err.message);
    char *want = written_input(s, db, in, "7");
    sw_query_input_close(in);
    size_t len = 0;
    char *text = file_text(pssm, &len);
    cr_assert_eq(sw_query_input_parse_pssm(s, text, len, pssm, 0, &in, &err), SW_OK, "%s", err.message);
    char *got = written_input(s, db, in, "7");
    sw_query_input_close(in);
    cr_assert_str_eq(got, want);
    cr_assert_not_null(strstr(got, "# Query: pssm_sh3_d1ckaa.pssm\n"), "%s", got);
    free(got);
    free(want);
    /* At most max_length positions (the PSSM has 57). */
    cr_assert_eq(sw_query_input_parse_pssm(s, text, len, "client.pssm", 57, &in, &err), SW_OK, "%s", err.message);
    sw_query_input_close(in);
    cr_assert_eq(sw_query_input_parse_pssm(s, text, len, "client.pssm", 56, &in, &err), SW_ELIMIT);
    cr_assert_null(in);
    cr_assert_not_null(strstr(err.message, "client.pssm"), "%s", err.message);
    free(text);

    /* Alignments in each format: the file's query. */
    const char *msas[] = {SW_TEST_DATA "/pssm_sh3.a3m", SW_TEST_DATA "/pssm_sh3.sto", SW_TEST_DATA "/pssm_sh3.afa"};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(sw_query_input_open_msa(s, msas[k], &in, &err), SW_OK, "%s", err.message);
        want = written_input(s, db, in, "7");
        sw_query_input_close(in);
        text = file_text(msas[k], &len);
        cr_assert_eq(sw_query_input_parse_msa(s, text, len, msas[k], 0, &in, &err), SW_OK, "%s", err.message);
        got = written_input(s, db, in, "7");
        sw_query_input_close(in);
        cr_assert_str_eq(got, want, "%s", msas[k]);
        cr_assert_gt(strlen(got), 100);
        free(got);
        free(want);
        cr_assert_eq(sw_query_input_parse_msa(s, text, len, "client.msa", 10, &in, &err), SW_ELIMIT, "%s", msas[k]);
        cr_assert_null(in);
        cr_assert_not_null(strstr(err.message, "client.msa"), "%s", err.message);
        free(text);
    }

    /* Errors name the text's name and line, as they name a file's. */
    static const char bad[] = "swsearch-pssm 1\nlabel x\nbroken\n";
    cr_assert_eq(sw_query_input_parse_pssm(s, bad, strlen(bad), "client.pssm", 0, &in, &err), SW_EFORMAT);
    cr_assert_null(in);
    cr_assert_not_null(strstr(err.message, "client.pssm:3:"), "%s", err.message);
    static const char ragged[] = ">q\nMKTAYIAKQR\n>r\nMKTAY\n";
    cr_assert_eq(sw_query_input_parse_msa(s, ragged, strlen(ragged), "client.afa", 0, &in, &err), SW_EFORMAT);
    cr_assert_not_null(strstr(err.message, "client.afa:3:"), "%s", err.message);
    cr_assert_eq(sw_query_input_parse_msa(s, "", 0, "empty.afa", 0, &in, &err), SW_EFORMAT);
    cr_assert_not_null(strstr(err.message, "empty.afa"), "%s", err.message);
    /* A Stockholm alignment told by its first line, cut short. */
    static const char cut[] = "# STOCKHOLM 1.0\nq MKTAYIAKQR\n";
    cr_assert_eq(sw_query_input_parse_msa(s, cut, strlen(cut), "client.sto", 0, &in, &err), SW_EFORMAT);
    cr_assert_not_null(strstr(err.message, "client.sto: no '//'"), "%s", err.message);
    cr_assert_eq(sw_query_input_parse_pssm(NULL, bad, strlen(bad), "x", 0, &in, &err), SW_EINVAL);
    cr_assert_eq(sw_query_input_parse_pssm(s, NULL, 5, "x", 0, &in, &err), SW_EINVAL);
    cr_assert_eq(sw_query_input_parse_msa(s, ragged, strlen(ragged), "x", 0, NULL, &err), SW_EINVAL);
    sw_search_free(s);
    sw_db_close(db);
}

Test(api, a_pssm_request_sharing_scans_with_a_fasta_request_writes_what_each_alone_writes)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    const char *pssm = SW_TEST_DATA "/pssm_sh3_d1ckaa.pssm";
    test_request fasta = {.format = "6", .top = 20, .evalue = 100, .stats = SW_STATS_AUTO};
    char *want_fasta = alone(db, &fasta);
    const char *formats[] = {"7", "json"};
    for (int f = 0; f < 2; f++) {
        sw_search *s = cpu_search(20);
        sw_query_input *in = NULL;
        cr_assert_eq(sw_query_input_open_pssm(s, pssm, &in, &err), SW_OK, "%s", err.message);
        char *want_pssm = written_input(s, db, in, formats[f]);
        sw_query_input_close(in);
        cr_assert_eq(sw_search_hold(s, db, &err), SW_OK, "%s", err.message);
        /* The PSSM's request first, so that the scans' joined queries hold
         * rows at their start and plain queries after. */
        size_t len = 0;
        char *text = file_text(pssm, &len);
        cr_assert_eq(sw_query_input_parse_pssm(s, text, len, pssm, 0, &in, &err), SW_OK, "%s", err.message);
        char *got = NULL;
        size_t got_len = 0;
        FILE *mem = open_memstream(&got, &got_len);
        sw_request *profile = NULL;
        cr_assert_eq(sw_request_create(s, db, in, formats[f], mem, &profile, &err), SW_OK, "%s", err.message);
        open_request(s, db, &fasta);
        sw_request *reqs[2] = {profile, fasta.request};
        cr_assert(sw_request_compatible(reqs[0], reqs[1]));
        cr_assert_eq(sw_search_step(s, reqs, 2, 4, &err), SW_OK, "%s", err.message);
        sw_search_summary sum;
        cr_assert_eq(sw_request_get_summary(reqs[1], &sum, &err), SW_OK);
        cr_assert_eq(sum.queries, 2, "the FASTA request's share of the first scan");
        int done[2] = {0, 0};
        for (int steps = 0; !(done[0] && done[1]); steps++) {
            cr_assert_leq(steps, 10);
            cr_assert_eq(sw_search_step(s, reqs, 2, 4, &err), SW_OK, "%s", err.message);
            for (int i = 0; i < 2; i++)
                cr_assert_eq(sw_request_status(reqs[i], &done[i], &err), SW_OK, "request %d: %s", i, err.message);
        }
        fclose(mem);
        fclose(fasta.mem);
        fasta.mem = NULL;
        cr_assert_str_eq(got, want_pssm, "format %s", formats[f]);
        cr_assert_str_eq(fasta.text, want_fasta);
        sw_request_free(profile);
        sw_query_input_close(in);
        close_request(&fasta);
        fasta.text = NULL;
        free(got);
        free(text);
        free(want_pssm);
        sw_search_free(s);
    }
    free(want_fasta);
    sw_db_close(db);
}

/* The format 7 text of an iterated search of the queries in `path`. */
static char *iterated_text(sw_search *s, const sw_db *db, const char *path, int rounds, double inclusion)
{
    sw_error err;
    sw_query_input *in = NULL;
    cr_assert_eq(sw_query_input_open(path, &in, &err), SW_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write_iterated(s, db, in, rounds, inclusion, NULL, "7", mem, &err), SW_OK, "%s",
                 err.message);
    fclose(mem);
    sw_query_input_close(in);
    return text;
}

/* A round whose inclusions make a profile that scores as its own query did
 * (nothing above the threshold but the query's own entry) would be repeated
 * by the next: the search ends with it, whatever rounds were asked for. */
Test(api, an_iterated_search_ends_where_the_next_round_would_repeat)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    char one[192];
    snprintf(one, sizeof one, "%s/repeat.fa", dir);
    write_benchmark_query(one, 4);
    sw_search *s = cpu_search(100);
    char *once = iterated_text(s, db, one, 1, 0), *four = iterated_text(s, db, one, 4, 0);
    cr_assert_not_null(strstr(four, "# Iteration: 1\n# Profile: 1 sequences\n"), "%s", four);
    cr_assert_str_eq(four, once);
    /* With the family included the profile moves, and a second round runs. */
    char *more = iterated_text(s, db, one, 4, 0.01);
    cr_assert_null(strstr(more, "# Iteration: 1\n"), "%s", more);
    free(more);
    free(once);
    free(four);
    sw_search_free(s);
    sw_db_close(db);
}

Test(api, an_iterated_search_converges_and_saves_its_profile)
{
    sw_db *db = NULL;
    sw_error err;
    cr_assert_eq(sw_db_open(db_path, &db, &err), SW_OK);
    char one[192], saved[192];
    snprintf(one, sizeof one, "%s/iter.fa", dir);
    snprintf(saved, sizeof saved, "%s/iter.pssm", dir);
    write_benchmark_query(one, 4);
    sw_search *s = cpu_search(100);
    /* One round is the plain search. */
    char *plain = NULL;
    size_t plain_len = 0;
    FILE *mem = open_memstream(&plain, &plain_len);
    cr_assert_eq(sw_search_write(s, db, one, "7", mem, &err), SW_OK, "%s", err.message);
    fclose(mem);
    sw_query_input *in = NULL;
    cr_assert_eq(sw_query_input_open(one, &in, &err), SW_OK);
    char *text = NULL;
    size_t len = 0;
    mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write_iterated(s, db, in, 1, 0.01, NULL, "7", mem, &err), SW_OK, "%s", err.message);
    fclose(mem);
    sw_query_input_close(in);
    cr_assert_not_null(strstr(text, "# Iteration: 1\n# Profile: 1 sequences\n"), "%s", text);
    /* Without the two lines that name the round, the plain search's. */
    char *rest = strstr(text, "# Query:");
    cr_assert_not_null(rest);
    cr_assert_str_eq(rest, strstr(plain, "# Query:"));
    free(text);
    /* Up to 5 rounds: the planted family is all included by round 2, so
     * round 2 includes nothing new and ends the search. */
    cr_assert_eq(sw_query_input_open(one, &in, &err), SW_OK);
    mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write_iterated(s, db, in, 5, 0.01, saved, "7", mem, &err), SW_OK, "%s", err.message);
    fclose(mem);
    sw_query_input_close(in);
    cr_assert_not_null(strstr(text, "# Iteration: 2\n"), "%s", text);
    free(text);
    /* The saved profile reads back as a query. */
    cr_assert_eq(sw_query_input_open_pssm(s, saved, &in, &err), SW_OK, "%s", err.message);
    char *again = written_input(s, db, in, "6");
    cr_assert_gt(strlen(again), 100);
    free(again);
    sw_query_input_close(in);
    /* Several queries iterate together, each as it would alone: the
     * output is theirs one after another (formats 6 and json, which have
     * no head or tail). A profile is saved for one query only. */
    char three[192];
    snprintf(three, sizeof three, "%s/three.fa", dir);
    const int records[3] = {4, 1, 7};
    FILE *all = fopen(three, "w");
    cr_assert_not_null(all);
    for (int k = 0; k < 3; k++) {
        char one_k[192];
        snprintf(one_k, sizeof one_k, "%s/one%d.fa", dir, k);
        write_benchmark_query(one_k, records[k]);
        FILE *f = fopen(one_k, "r");
        char line[4096];
        while (f && fgets(line, sizeof line, f)) fputs(line, all);
        if (f) fclose(f);
    }
    fclose(all);
    const char *formats[2] = {"6 qseqid sseqid evalue bitscore qstart qend sstart send", "json"};
    for (int f = 0; f < 2; f++) {
        char *alone = NULL;
        size_t alone_len = 0;
        FILE *cat = open_memstream(&alone, &alone_len);
        for (int k = 0; k < 3; k++) {
            char one_k[192];
            snprintf(one_k, sizeof one_k, "%s/one%d.fa", dir, k);
            cr_assert_eq(sw_query_input_open(one_k, &in, &err), SW_OK);
            cr_assert_eq(sw_search_write_iterated(s, db, in, 3, 0.01, NULL, formats[f], cat, &err), SW_OK, "%s",
                         err.message);
            sw_query_input_close(in);
        }
        fclose(cat);
        cr_assert_eq(sw_query_input_open(three, &in, &err), SW_OK);
        mem = open_memstream(&text, &len);
        cr_assert_eq(sw_search_write_iterated(s, db, in, 3, 0.01, NULL, formats[f], mem, &err), SW_OK, "%s",
                     err.message);
        fclose(mem);
        sw_query_input_close(in);
        cr_assert_gt(alone_len, 1000);
        cr_assert_str_eq(text, alone, "format %s", formats[f]);
        free(text);
        free(alone);
    }
    cr_assert_eq(sw_query_input_open(three, &in, &err), SW_OK);
    mem = open_memstream(&text, &len);
    cr_assert_eq(sw_search_write_iterated(s, db, in, 2, 0.01, saved, "6", mem, &err), SW_EINVAL);
    cr_assert_not_null(strstr(err.message, "one query"), "%s", err.message);
    fclose(mem);
    free(text);
    sw_query_input_close(in);
    free(plain);
    sw_search_free(s);
    sw_db_close(db);
}
