/* The database format: what sw_db_writer stores comes back exactly, and
 * damaged, truncated or mismatched files are refused, never misread. */
#undef _FORTIFY_SOURCE /* this file defines open() itself, see below */
#include <criterion/criterion.h>

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "sw_alphabet.h"
#include "sw_db.h"
#include "sw_db_writer.h"
#include "test_rng.h"
#include "test_tmpdir.h"

/* Larger than the 2 MiB residue chunk target of docs/FORMAT.md. */
#define BIG_SEQUENCE (5u << 20)

/* sw_db_open() is tested against a rebuild that commits between its reading
 * the index and its opening the data files. This open() replaces the C
 * library's in this program (sw_db is linked in statically): before opening
 * the path `open_trigger`, it runs `on_open`, once. */
static void (*on_open)(void);
static char open_trigger[256];

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int creates = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
    mode_t mode = creates ? (mode_t)va_arg(ap, int) : 0;
    va_end(ap);
    if (on_open && !strcmp(path, open_trigger)) {
        void (*run)(void) = on_open;
        on_open = NULL;
        run();
    }
    typedef int open_fn(const char *, int, ...);
    open_fn *real_open = (open_fn *)dlsym(RTLD_NEXT, "open");
    return real_open(path, flags, mode);
}

static char dir[64];
static char prefix[128];

static void make_dir(void)
{
    strcpy(dir, "/tmp/test_db.XXXXXX");
    temp_dir_make(dir);
    snprintf(prefix, sizeof prefix, "%s/db", dir);
}

static void remove_dir(void) { temp_dir_remove(dir); }

static int count_files(const char *path)
{
    DIR *d = opendir(path);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* Test input in input order. */
typedef struct input {
    size_t n;
    uint32_t *length;
    uint8_t **residues;
    char **header;
} input;

/* `n` sequences with lengths in 1..max_length (so many ties), each filled
 * with a pattern tied to its input position, and headers naming it. */
static input make_input(size_t n, uint32_t max_length, uint64_t seed)
{
    input in = {n, calloc(n, sizeof(uint32_t)), calloc(n, sizeof(uint8_t *)),
                calloc(n, sizeof(char *))};
    cr_assert(in.length && in.residues && in.header);
    test_rng rng = test_rng_seed(seed);
    for (size_t i = 0; i < n; i++) {
        uint32_t len = 1 + (uint32_t)(test_rng_next(&rng) % max_length);
        in.length[i] = len;
        in.residues[i] = malloc(len);
        cr_assert_not_null(in.residues[i]);
        for (uint32_t k = 0; k < len; k++) in.residues[i][k] = (uint8_t)(test_rng_next(&rng) % 20);
        char h[96];
        int hl = snprintf(h, sizeof h, "seq%zu some description %u", i,
                          (unsigned)(test_rng_next(&rng) % 100000));
        in.header[i] = strndup(h, (size_t)hl);
    }
    return in;
}

static void free_input(input *in)
{
    for (size_t i = 0; i < in->n; i++) {
        free(in->residues[i]);
        free(in->header[i]);
    }
    free(in->length);
    free(in->residues);
    free(in->header);
}

static void write_db(const char *pfx, const input *in)
{
    sw_db_writer *w;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(pfx, NULL, &w, &err), SW_OK, "%s", err.message);
    for (size_t i = 0; i < in->n; i++)
        cr_assert_eq(sw_db_writer_add(w, in->header[i], strlen(in->header[i]), in->residues[i],
                                      in->length[i], &err),
                     SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);
}

static sw_db *open_db(const char *pfx)
{
    sw_db *db;
    sw_error err;
    cr_assert_eq(sw_db_open(pfx, &db, &err), SW_OK, "%s", err.message);
    return db;
}

/* The header of one sorted sequence, through the batch reader. */
static int read_header(const sw_db *db, uint64_t seq, char **header, sw_error *err)
{
    return sw_db_read_headers(db, &seq, 1, header, err);
}

/* The path of the database file with extension `suffix` (".swi", ".swr",
 * ".swh") under `prefix`; the data files are named after the database id
 * in the index, which must be intact. */
static char *file_path_of(const char *pfx, const char *suffix)
{
    static char path[200];
    if (!strcmp(suffix, ".swi")) {
        snprintf(path, sizeof path, "%s.swi", pfx);
        return path;
    }
    uint32_t version;
    uint64_t id;
    sw_error err;
    cr_assert_eq(sw_db_index_id(pfx, &version, &id, &err), SW_OK, "%s", err.message);
    int which = !strcmp(suffix, ".swr") ? SW_DB_FILE_RESIDUES : SW_DB_FILE_HEADERS;
    char *name = sw_db_file_name(pfx, version, id, which);
    cr_assert_not_null(name);
    snprintf(path, sizeof path, "%s", name);
    free(name);
    return path;
}

static char *file_path(const char *suffix) { return file_path_of(prefix, suffix); }

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(*size ? *size : 1);
    cr_assert_eq(fread(data, 1, *size, f), *size);
    fclose(f);
    return data;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(data, 1, size, f), size);
    cr_assert_eq(fclose(f), 0);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* Every residue of the database in sorted order, read through the chunks. */
static uint8_t *read_all_residues(const sw_db *db)
{
    uint8_t *all = malloc(sw_db_num_residues(db) + 1);
    uint64_t at = 0;
    for (size_t c = 0; c < sw_db_num_chunks(db); c++) {
        sw_db_chunk info;
        sw_error err;
        sw_db_chunk_info(db, c, &info);
        cr_assert_eq(sw_db_read_chunk(db, c, all + at, &err), SW_OK, "%s", err.message);
        at += info.num_residues;
    }
    cr_assert_eq(at, sw_db_num_residues(db));
    return all;
}

static void expect_open_fails(int code, const char *fragment)
{
    sw_db *db = NULL;
    sw_error err;
    sw_error_clear(&err);
    int rc = sw_db_open(prefix, &db, &err);
    cr_assert_eq(rc, code, "expected code %d, got %d: %s", code, rc, err.message);
    cr_assert_null(db);
    cr_assert(strstr(err.message, fragment), "message '%s' lacks '%s'", err.message, fragment);
}

TestSuite(db_roundtrip, .init = make_dir, .fini = remove_dir);
TestSuite(db_format, .init = make_dir, .fini = remove_dir);
TestSuite(db_corruption, .init = make_dir, .fini = remove_dir);
TestSuite(db_writer, .init = make_dir, .fini = remove_dir);

Test(db_roundtrip, reports_counts_of_the_input)
{
    input in = make_input(3000, 2000, 1);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    uint64_t residues = 0;
    uint32_t longest = 0;
    for (size_t i = 0; i < in.n; i++) {
        residues += in.length[i];
        if (in.length[i] > longest) longest = in.length[i];
    }
    cr_assert_eq(sw_db_format_version(db), SW_DB_FORMAT_VERSION);
    cr_assert_eq(sw_db_alphabet(db), SW_ALPHABET_PROTEIN);
    cr_assert_eq(sw_db_num_seqs(db), in.n);
    cr_assert_eq(sw_db_num_residues(db), residues);
    cr_assert_eq(sw_db_max_length(db), longest);
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, sorts_by_length_keeping_input_order_for_ties)
{
    input in = make_input(3000, 200, 2);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    const uint32_t *len = sw_db_lengths(db);
    for (uint64_t s = 1; s < sw_db_num_seqs(db); s++) {
        cr_assert_leq(len[s - 1], len[s]);
        if (len[s - 1] == len[s])
            cr_assert_lt(sw_db_original_index(db, s - 1), sw_db_original_index(db, s));
    }
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, returns_every_sequence_under_its_input_position)
{
    input in = make_input(3000, 2000, 3);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    cr_assert_gt(sw_db_num_chunks(db), 1, "the test needs several chunks");
    uint8_t *all = read_all_residues(db);
    const uint32_t *len = sw_db_lengths(db);
    char *seen = calloc(in.n, 1);
    uint64_t at = 0;
    for (uint64_t s = 0; s < sw_db_num_seqs(db); s++) {
        uint64_t pos = sw_db_original_index(db, s);
        cr_assert_lt(pos, in.n);
        cr_assert_not(seen[pos], "input position %llu appears twice", (unsigned long long)pos);
        seen[pos] = 1;
        cr_assert_eq(len[s], in.length[pos]);
        cr_assert_arr_eq(all + at, in.residues[pos], len[s], "sequence %llu differs",
                         (unsigned long long)s);
        at += len[s];
    }
    free(seen);
    free(all);
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, reads_all_residues_at_once_as_chunk_by_chunk)
{
    input in = make_input(3000, 2000, 4);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    cr_assert_gt(sw_db_num_chunks(db), 1, "the test needs several chunks");
    uint8_t *want = read_all_residues(db);
    /* 0: every online CPU; more threads than chunks too. */
    const int threads[] = {0, 1, 2, 64};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        uint8_t *got = NULL;
        sw_error err;
        cr_assert_eq(sw_db_read_all_residues(db, threads[t], &got, &err), SW_OK, "%s", err.message);
        cr_assert_arr_eq(got, want, sw_db_num_residues(db), "%d threads", threads[t]);
        free(got);
    }
    free(want);
    sw_db_close(db);
    free_input(&in);
}

/* Any range of sequences, within a chunk, across chunks, whole chunks,
 * reads as that part of the whole database. */
Test(db_roundtrip, reads_a_range_of_sequences_as_part_of_the_whole)
{
    input in = make_input(7000, 2000, 5);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    cr_assert_gt(sw_db_num_chunks(db), 2, "the test needs several chunks");
    uint8_t *whole = read_all_residues(db);
    const uint32_t *len = sw_db_lengths(db);
    const uint64_t n = sw_db_num_seqs(db);
    uint64_t *start = malloc((n + 1) * sizeof *start);
    start[0] = 0;
    for (uint64_t i = 0; i < n; i++) start[i + 1] = start[i] + len[i];
    sw_db_chunk c1;
    sw_db_chunk_info(db, 1, &c1);
    const uint64_t ranges[][2] = {{0, n},          {0, 1},           {n - 1, 1},         {7, 5},
                                  {c1.first_seq, c1.num_seqs},       {c1.first_seq - 3, c1.num_seqs + 6},
                                  {1, n - 2},      {c1.first_seq, 0}};
    uint8_t *got = malloc(sw_db_num_residues(db) + 1);
    for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++) {
        const uint64_t first = ranges[r][0], count = ranges[r][1];
        sw_error err;
        for (int threads = 1; threads <= 3; threads += 2) {
            memset(got, 0xee, sw_db_num_residues(db) + 1);
            cr_assert_eq(sw_db_read_range(db, first, count, got, threads, &err), SW_OK, "%s", err.message);
            const uint64_t bytes = start[first + count] - start[first];
            cr_assert_arr_eq(got, whole + start[first], bytes, "sequences %llu + %llu", (unsigned long long)first,
                             (unsigned long long)count);
            cr_assert_eq(got[bytes], 0xee, "sequences %llu + %llu: written past the range", (unsigned long long)first,
                         (unsigned long long)count);
        }
    }
    sw_error err;
    cr_assert_eq(sw_db_read_range(db, n, 1, got, 1, &err), SW_EINVAL);
    cr_assert_eq(sw_db_read_range(db, 2, n, got, 1, &err), SW_EINVAL);
    free(got);
    free(start);
    free(whole);
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, chunks_hold_whole_sequences_back_to_back)
{
    input in = make_input(3000, 2000, 4);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    const uint32_t *len = sw_db_lengths(db);
    uint64_t next = 0;
    for (size_t c = 0; c < sw_db_num_chunks(db); c++) {
        sw_db_chunk info;
        sw_db_chunk_info(db, c, &info);
        cr_assert_eq(info.first_seq, next);
        cr_assert_gt(info.num_seqs, 0);
        uint64_t sum = 0;
        for (uint64_t s = info.first_seq; s < info.first_seq + info.num_seqs; s++) sum += len[s];
        cr_assert_eq(info.num_residues, sum);
        cr_assert_gt(info.compressed_size, 0);
        next += info.num_seqs;
    }
    cr_assert_eq(next, sw_db_num_seqs(db));
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, returns_every_header_one_at_a_time)
{
    input in = make_input(3000, 500, 5);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    sw_db_files files;
    sw_db_file_info(db, &files);
    cr_assert_gt(files.num_header_chunks, 1, "the test needs several header chunks");
    for (uint64_t s = 0; s < sw_db_num_seqs(db); s++) {
        char *h;
        sw_error err;
        cr_assert_eq(read_header(db, s, &h, &err), SW_OK, "%s", err.message);
        cr_assert_str_eq(h, in.header[sw_db_original_index(db, s)]);
        free(h);
    }
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, returns_headers_in_a_batch_in_the_requested_order)
{
    input in = make_input(3000, 500, 6);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    size_t n = 5000;
    uint64_t *seqs = malloc(n * sizeof *seqs);
    char **headers = malloc(n * sizeof *headers);
    test_rng rng = test_rng_seed(7);
    for (size_t i = 0; i < n; i++) seqs[i] = test_rng_next(&rng) % sw_db_num_seqs(db);
    sw_error err;
    cr_assert_eq(sw_db_read_headers(db, seqs, n, headers, &err), SW_OK, "%s", err.message);
    for (size_t i = 0; i < n; i++) {
        cr_assert_str_eq(headers[i], in.header[sw_db_original_index(db, seqs[i])]);
        free(headers[i]);
    }
    free(seqs);
    free(headers);
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, returns_the_residues_of_chosen_sequences_in_the_requested_order)
{
    input in = make_input(3000, 2000, 8);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    cr_assert_gt(sw_db_num_chunks(db), 1, "the test needs several chunks");
    size_t n = 700;
    uint64_t *seqs = malloc(n * sizeof *seqs);
    uint8_t **got = malloc(n * sizeof *got);
    test_rng rng = test_rng_seed(9);
    /* Repeats and the last sequence included. */
    for (size_t i = 0; i < n; i++) seqs[i] = test_rng_next(&rng) % sw_db_num_seqs(db);
    seqs[n - 1] = sw_db_num_seqs(db) - 1;
    seqs[n - 2] = seqs[0];
    const int threads[] = {0, 1, 3};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        sw_error err;
        cr_assert_eq(sw_db_read_sequences(db, seqs, n, threads[t], got, &err), SW_OK, "%s",
                     err.message);
        for (size_t i = 0; i < n; i++) {
            uint64_t orig = sw_db_original_index(db, seqs[i]);
            cr_assert_eq(sw_db_lengths(db)[seqs[i]], in.length[orig]);
            cr_assert_arr_eq(got[i], in.residues[orig], in.length[orig], "sequence %zu", i);
            free(got[i]);
        }
    }
    sw_error err;
    uint64_t bad = sw_db_num_seqs(db);
    cr_assert_eq(sw_db_read_sequences(db, &bad, 1, 1, got, &err), SW_EINVAL);
    cr_assert_null(got[0]);
    free(seqs);
    free(got);
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, keeps_empty_headers_and_arbitrary_bytes)
{
    const char *headers[] = {"", "x", "tab\there \x01\xff bytes", ""};
    const uint8_t res[] = {0, 1, 2, 3, 4, 5, 6, 7};
    sw_db_writer *w;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w, &err), SW_OK, "%s", err.message);
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(sw_db_writer_add(w, headers[i], strlen(headers[i]), res, 8 - i, &err), SW_OK);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);
    sw_db *db = open_db(prefix);
    for (uint64_t s = 0; s < 4; s++) {
        char *h;
        cr_assert_eq(read_header(db, s, &h, &err), SW_OK, "%s", err.message);
        cr_assert_str_eq(h, headers[sw_db_original_index(db, s)]);
        free(h);
    }
    sw_db_close(db);
}

Test(db_roundtrip, stores_a_sequence_longer_than_a_chunk_in_a_chunk_of_its_own)
{
    uint8_t *big = malloc(BIG_SEQUENCE);
    for (size_t i = 0; i < BIG_SEQUENCE; i++) big[i] = (uint8_t)(i * 7 % 20);
    const uint8_t small[] = {3, 1, 4, 1, 5};
    sw_db_writer *w;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_add(w, "small1", 6, small, 5, &err), SW_OK);
    cr_assert_eq(sw_db_writer_add(w, "big", 3, big, BIG_SEQUENCE, &err), SW_OK);
    cr_assert_eq(sw_db_writer_add(w, "small2", 6, small, 4, &err), SW_OK);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);

    sw_db *db = open_db(prefix);
    size_t last = sw_db_num_chunks(db) - 1;
    sw_db_chunk info;
    sw_db_chunk_info(db, last, &info);
    cr_assert_eq(info.num_seqs, 1);
    cr_assert_eq(info.first_seq, 2);
    cr_assert_eq(info.num_residues, BIG_SEQUENCE);
    uint8_t *back = malloc(BIG_SEQUENCE);
    cr_assert_eq(sw_db_read_chunk(db, last, back, &err), SW_OK, "%s", err.message);
    cr_assert_arr_eq(back, big, BIG_SEQUENCE);
    cr_assert_eq(sw_db_original_index(db, 2), 1);
    cr_assert_eq(sw_db_max_length(db), BIG_SEQUENCE);
    free(back);
    free(big);
    sw_db_close(db);
}

Test(db_roundtrip, opens_a_single_sequence_database)
{
    const uint8_t res[] = {9, 8, 7};
    sw_db_writer *w;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_add(w, "only one", 8, res, 3, &err), SW_OK);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);
    sw_db *db = open_db(prefix);
    cr_assert_eq(sw_db_num_seqs(db), 1);
    cr_assert_eq(sw_db_num_chunks(db), 1);
    uint8_t back[3];
    cr_assert_eq(sw_db_read_chunk(db, 0, back, &err), SW_OK, "%s", err.message);
    cr_assert_arr_eq(back, res, 3);
    char *h;
    cr_assert_eq(read_header(db, 0, &h, &err), SW_OK, "%s", err.message);
    cr_assert_str_eq(h, "only one");
    free(h);
    cr_assert_eq(sw_db_verify(db, NULL, NULL, &err), SW_OK, "%s", err.message);
    sw_db_close(db);
}

Test(db_roundtrip, opens_an_empty_database)
{
    input in = make_input(0, 1, 8);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    sw_error err;
    cr_assert_eq(sw_db_num_seqs(db), 0);
    cr_assert_eq(sw_db_num_chunks(db), 0);
    cr_assert_eq(sw_db_verify(db, NULL, NULL, &err), SW_OK, "%s", err.message);
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, stores_dna)
{
    const uint8_t res[] = {0, 1, 2, 3, 4, 3, 2, 1};
    sw_db_writer_options opt = {.alphabet = SW_ALPHABET_DNA};
    sw_db_writer *w;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(prefix, &opt, &w, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_add(w, "chr", 3, res, 8, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);
    sw_db *db = open_db(prefix);
    cr_assert_eq(sw_db_alphabet(db), SW_ALPHABET_DNA);
    uint8_t back[8];
    cr_assert_eq(sw_db_read_chunk(db, 0, back, &err), SW_OK, "%s", err.message);
    cr_assert_arr_eq(back, res, 8);
    sw_db_close(db);
}

typedef struct reader_arg {
    const sw_db *db;
    const uint8_t *expected;
    int failures;
} reader_arg;

static void *read_every_chunk(void *p)
{
    reader_arg *a = p;
    uint64_t at = 0;
    for (size_t c = 0; c < sw_db_num_chunks(a->db); c++) {
        sw_db_chunk info;
        sw_db_chunk_info(a->db, c, &info);
        uint8_t *buf = malloc(info.num_residues);
        if (sw_db_read_chunk(a->db, c, buf, NULL) != SW_OK ||
            memcmp(buf, a->expected + at, info.num_residues) != 0)
            a->failures++;
        char *h;
        if (read_header(a->db, info.first_seq, &h, NULL) != SW_OK) a->failures++;
        free(h);
        free(buf);
        at += info.num_residues;
    }
    return NULL;
}

Test(db_roundtrip, reads_chunks_and_headers_from_several_threads_at_once)
{
    input in = make_input(6000, 2000, 9);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    uint8_t *expected = read_all_residues(db);
    reader_arg args[4];
    pthread_t tid[4];
    for (int t = 0; t < 4; t++) {
        args[t] = (reader_arg){db, expected, 0};
        cr_assert_eq(pthread_create(&tid[t], NULL, read_every_chunk, &args[t]), 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(tid[t], NULL);
        cr_assert_eq(args[t].failures, 0);
    }
    free(expected);
    sw_db_close(db);
    free_input(&in);
}

Test(db_roundtrip, verify_accepts_an_intact_database)
{
    input in = make_input(3000, 2000, 10);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    sw_error err;
    cr_assert_eq(sw_db_verify(db, NULL, NULL, &err), SW_OK, "%s", err.message);
    sw_db_close(db);
    free_input(&in);
}

Test(db_format, refuses_another_format_version)
{
    input in = make_input(20, 50, 11);
    write_db(prefix, &in);
    size_t size;
    uint8_t *idx = read_file(file_path(".swi"), &size);
    put_u32(idx + SW_DB_IX_VERSION, SW_DB_FORMAT_VERSION + 1);
    write_file(file_path(".swi"), idx, size);
    char want[160];
    snprintf(want, sizeof want,
             "db.swi: database format version %u is not supported (this swsearch reads versions "
             "1 to %u); rebuild it with makedb",
             SW_DB_FORMAT_VERSION + 1, SW_DB_FORMAT_VERSION);
    expect_open_fails(SW_EVERSION, want);
    free(idx);
    free_input(&in);
}

Test(db_format, refuses_a_file_without_the_magic_number)
{
    input in = make_input(20, 50, 12);
    write_db(prefix, &in);
    write_file(file_path(".swi"), (const uint8_t *)">seq1\nACDEF\n", 12);
    expect_open_fails(SW_EFORMAT, "db.swi: not a swsearch database index");
    free_input(&in);
}

Test(db_format, refuses_a_residue_file_in_place_of_the_index)
{
    input in = make_input(20, 50, 13);
    write_db(prefix, &in);
    size_t size;
    uint8_t *res = read_file(file_path(".swr"), &size);
    write_file(file_path(".swi"), res, size);
    expect_open_fails(SW_EFORMAT, "not a swsearch database index");
    free(res);
    free_input(&in);
}

Test(db_format, refuses_a_missing_index)
{
    expect_open_fails(SW_ENOTFOUND,
                      "db.swi: No such file or directory; build the database with makedb");
}

Test(db_format, refuses_a_missing_residue_file)
{
    input in = make_input(20, 50, 14);
    write_db(prefix, &in);
    unlink(file_path(".swr"));
    expect_open_fails(SW_ENOTFOUND, ".swr: No such file or directory");
    free_input(&in);
}

static void truncate_and_expect_failure(const char *suffix)
{
    input in = make_input(40, 100, 15);
    write_db(prefix, &in);
    size_t size;
    char path[200];
    snprintf(path, sizeof path, "%s", file_path(suffix));
    uint8_t *data = read_file(path, &size);
    /* Every shorter length, down to an empty file. */
    for (size_t keep = 0; keep < size; keep++) {
        write_file(path, data, keep);
        sw_db *db = NULL;
        sw_error err;
        sw_error_clear(&err);
        cr_assert_neq(sw_db_open(prefix, &db, &err), SW_OK, "%s cut to %zu bytes opened", suffix,
                      keep);
        cr_assert_null(db);
        cr_assert_neq(err.message[0], '\0');
    }
    free(data);
    free_input(&in);
}

Test(db_format, refuses_a_truncated_index) { truncate_and_expect_failure(".swi"); }
Test(db_format, refuses_a_truncated_residue_file) { truncate_and_expect_failure(".swr"); }
Test(db_format, refuses_a_truncated_header_file) { truncate_and_expect_failure(".swh"); }

Test(db_format, refuses_data_files_of_another_build)
{
    input in = make_input(40, 100, 16);
    write_db(prefix, &in);
    char other[160];
    snprintf(other, sizeof other, "%s/other", dir);
    write_db(other, &in);
    /* Same input, so same sizes: only the database id tells them apart. */
    size_t size, own_size;
    uint8_t *res = read_file(file_path_of(other, ".swr"), &size);
    free(read_file(file_path(".swr"), &own_size));
    cr_assert_eq(size, own_size);
    write_file(file_path(".swr"), res, size);
    char want[300];
    snprintf(want, sizeof want, "%s: belongs to a different database than", file_path(".swr"));
    expect_open_fails(SW_ECORRUPT, want);
    free(res);
    free_input(&in);
}

Test(db_format, refuses_a_forged_index_whose_checksum_matches)
{
    input in = make_input(40, 100, 17);
    write_db(prefix, &in);
    size_t size;
    uint8_t *idx = read_file(file_path(".swi"), &size);
    /* Claim more residues than the lengths add up to, and re-seal. */
    put_u64(idx + SW_DB_IX_NUM_RESIDUES, 1ull << 40);
    put_u64(idx + size - 8, XXH3_64bits(idx, size - 8));
    write_file(file_path(".swi"), idx, size);
    expect_open_fails(SW_ECORRUPT, "inconsistent index");
    free(idx);
    free_input(&in);
}

Test(db_format, refuses_a_forged_chunk_table_that_overlaps_itself)
{
    input in = make_input(40, 100, 18);
    write_db(prefix, &in);
    size_t size;
    uint8_t *idx = read_file(file_path(".swi"), &size);
    uint64_t n = 40;
    size_t table = SW_DB_INDEX_FIXED_SIZE + (size_t)(n * 12 + 7) / 8 * 8;
    /* Make the first residue chunk start one byte later. */
    uint8_t *off = idx + table + SW_DB_CK_OFFSET;
    put_u64(off, SW_DB_FILE_HEADER_SIZE + 1);
    put_u64(idx + size - 8, XXH3_64bits(idx, size - 8));
    write_file(file_path(".swi"), idx, size);
    expect_open_fails(SW_ECORRUPT, "residue chunk table: chunk 0");
    free(idx);
    free_input(&in);
}

/* Flips every byte of one file in turn (with two patterns: all bits and the
 * lowest bit) and checks that the damage is reported by sw_db_open or
 * sw_db_verify, and that reading through the normal API never returns data
 * other than the original. */
static void flip_every_byte(const char *suffix)
{
    input in = make_input(40, 100, 19);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    uint64_t n = sw_db_num_seqs(db);
    uint8_t *expected = read_all_residues(db);
    char **headers = calloc(n, sizeof *headers);
    for (uint64_t s = 0; s < n; s++) cr_assert_eq(read_header(db, s, &headers[s], NULL), 0);
    sw_db_close(db);

    size_t size;
    char path[200];
    snprintf(path, sizeof path, "%s", file_path(suffix));
    uint8_t *data = read_file(path, &size);
    cr_assert_lt(size, 8192, "the fixture should stay small");
    static const uint8_t patterns[] = {0xFF, 0x01};
    for (size_t p = 0; p < sizeof patterns; p++) {
        for (size_t i = 0; i < size; i++) {
            data[i] ^= patterns[p];
            write_file(path, data, size);
            data[i] ^= patterns[p];

            sw_error err;
            sw_error_clear(&err);
            db = NULL;
            if (sw_db_open(prefix, &db, &err) != SW_OK) {
                cr_assert_null(db);
                cr_assert_neq(err.message[0], '\0', "byte %zu: open failed without a message", i);
                continue;
            }
            int verify = sw_db_verify(db, NULL, NULL, &err);
            cr_assert_neq(verify, SW_OK, "%s byte %zu (^%#x) went unnoticed", suffix, i,
                          patterns[p]);
            cr_assert_neq(err.message[0], '\0');

            uint8_t *back = malloc(sw_db_num_residues(db) + 1);
            uint64_t at = 0;
            for (size_t c = 0; c < sw_db_num_chunks(db); c++) {
                sw_db_chunk info;
                sw_db_chunk_info(db, c, &info);
                if (sw_db_read_chunk(db, c, back + at, NULL) == SW_OK)
                    cr_assert_arr_eq(back + at, expected + at, info.num_residues,
                                     "%s byte %zu: chunk %zu came back altered", suffix, i, c);
                at += info.num_residues;
            }
            for (uint64_t s = 0; s < n; s++) {
                char *h;
                if (read_header(db, s, &h, NULL) == SW_OK) {
                    cr_assert_str_eq(h, headers[s], "%s byte %zu: header %llu came back altered",
                                     suffix, i, (unsigned long long)s);
                    free(h);
                }
            }
            free(back);
            sw_db_close(db);
        }
    }
    for (uint64_t s = 0; s < n; s++) free(headers[s]);
    free(headers);
    free(expected);
    free(data);
    free_input(&in);
}

Test(db_corruption, detects_every_flipped_byte_in_the_index) { flip_every_byte(".swi"); }
Test(db_corruption, detects_every_flipped_byte_in_the_residue_file) { flip_every_byte(".swr"); }
Test(db_corruption, detects_every_flipped_byte_in_the_header_file) { flip_every_byte(".swh"); }

Test(db_corruption, verify_names_the_damaged_chunk_and_its_sequences)
{
    input in = make_input(3000, 2000, 20);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    sw_db_chunk info;
    sw_db_chunk_info(db, 1, &info);
    size_t chunks = sw_db_num_chunks(db);
    uint64_t offset = SW_DB_FILE_HEADER_SIZE;
    sw_db_chunk first;
    sw_db_chunk_info(db, 0, &first);
    offset += first.compressed_size;
    sw_db_close(db);

    size_t size;
    uint8_t *res = read_file(file_path(".swr"), &size);
    res[offset + info.compressed_size / 2] ^= 0x40;
    write_file(file_path(".swr"), res, size);
    db = open_db(prefix);
    sw_error err;
    cr_assert_eq(sw_db_verify(db, NULL, NULL, &err), SW_ECORRUPT);
    char want[400];
    snprintf(want, sizeof want,
             "%s: chunk 1 of %zu (sequences %llu-%llu) is corrupt: checksum mismatch",
             file_path(".swr"), chunks, (unsigned long long)info.first_seq,
             (unsigned long long)(info.first_seq + info.num_seqs - 1));
    cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
    uint8_t *buf = malloc(info.num_residues);
    cr_assert_eq(sw_db_read_chunk(db, 1, buf, &err), SW_ECORRUPT);
    snprintf(want, sizeof want, "%s: chunk 1 is corrupt (checksum mismatch); run 'swsearch verify'",
             file_path(".swr"));
    cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
    free(buf);
    free(res);
    sw_db_close(db);
    free_input(&in);
}

Test(db_writer, leaves_no_files_when_freed_without_finishing)
{
    input in = make_input(100, 100, 21);
    sw_db_writer *w;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w, &err), SW_OK, "%s", err.message);
    for (size_t i = 0; i < in.n; i++)
        cr_assert_eq(sw_db_writer_add(w, in.header[i], strlen(in.header[i]), in.residues[i],
                                      in.length[i], &err),
                     SW_OK);
    sw_db_writer_free(w);
    cr_assert_eq(count_files(dir), 0);
    free_input(&in);
}

Test(db_writer, leaves_exactly_the_three_database_files)
{
    input in = make_input(100, 100, 22);
    write_db(prefix, &in);
    cr_assert_eq(count_files(dir), 3);
    struct stat st;
    cr_assert_eq(stat(file_path(".swi"), &st), 0);
    cr_assert_eq(stat(file_path(".swr"), &st), 0);
    cr_assert_eq(stat(file_path(".swh"), &st), 0);
    free_input(&in);
}

Test(db_writer, replaces_an_existing_database)
{
    input first = make_input(100, 100, 23);
    input second = make_input(7, 100, 24);
    write_db(prefix, &first);
    write_db(prefix, &second);
    sw_db *db = open_db(prefix);
    cr_assert_eq(sw_db_num_seqs(db), 7);
    cr_assert_eq(count_files(dir), 3);
    sw_db_close(db);
    free_input(&first);
    free_input(&second);
}

Test(db_writer, refuses_an_empty_sequence)
{
    sw_db_writer *w;
    sw_error err;
    const uint8_t res[1] = {0};
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_add(w, "e", 1, res, 0, &err), SW_EINVAL);
    cr_assert(strstr(err.message, "sequence 1 is empty"), "%s", err.message);
    sw_db_writer_free(w);
}

Test(db_writer, refuses_a_residue_code_outside_the_alphabet)
{
    sw_db_writer *w;
    sw_error err;
    const uint8_t res[3] = {1, SW_DNA_CODES, 2};
    sw_db_writer_options opt = {.alphabet = SW_ALPHABET_DNA};
    cr_assert_eq(sw_db_writer_create(prefix, &opt, &w, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_add(w, "d", 1, res, 3, &err), SW_EINVAL);
    cr_assert(strstr(err.message, "outside the alphabet"), "%s", err.message);
    sw_db_writer_free(w);
}

Test(db_writer, refuses_sequences_after_finishing)
{
    sw_db_writer *w;
    sw_error err;
    const uint8_t res[2] = {1, 2};
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_add(w, "a", 1, res, 2, &err), SW_OK);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_add(w, "b", 1, res, 2, &err), SW_EINVAL);
    cr_assert_eq(sw_db_writer_finish(w, NULL, &err), SW_EINVAL);
    sw_db_writer_free(w);
    sw_db *db = open_db(prefix);
    cr_assert_eq(sw_db_num_seqs(db), 1);
    sw_db_close(db);
}

Test(db_writer, fails_early_when_the_directory_does_not_exist)
{
    sw_db_writer *w = (sw_db_writer *)1;
    sw_error err;
    char missing[160];
    snprintf(missing, sizeof missing, "%s/no/such/dir/db", dir);
    cr_assert_neq(sw_db_writer_create(missing, NULL, &w, &err), SW_OK);
    cr_assert_null(w);
    cr_assert(strstr(err.message, "No such file or directory"), "%s", err.message);
}

static void count_phases(void *user, const char *phase, uint64_t done, uint64_t total)
{
    int *seen = user;
    cr_assert_leq(done, total);
    if (!strcmp(phase, "sorting")) seen[0]++;
    if (!strcmp(phase, "compressing residues") && done == total) seen[1]++;
    if (!strcmp(phase, "compressing headers") && done == total) seen[2]++;
}

Test(db_writer, reports_each_phase_to_completion)
{
    input in = make_input(3000, 2000, 25);
    int seen[3] = {0, 0, 0};
    sw_db_writer_options opt = {.threads = 3, .progress = count_phases, .progress_user = seen};
    sw_db_writer *w;
    sw_error err;
    cr_assert_eq(sw_db_writer_create(prefix, &opt, &w, &err), SW_OK, "%s", err.message);
    for (size_t i = 0; i < in.n; i++)
        cr_assert_eq(sw_db_writer_add(w, in.header[i], strlen(in.header[i]), in.residues[i],
                                      in.length[i], &err),
                     SW_OK);
    sw_db_build_stats stats;
    cr_assert_eq(sw_db_writer_finish(w, &stats, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w);
    cr_assert_gt(seen[0], 0);
    cr_assert_eq(seen[1], 1);
    cr_assert_eq(seen[2], 1);
    cr_assert_eq(stats.num_seqs, in.n);
    struct stat st;
    cr_assert_eq(stat(file_path(".swr"), &st), 0);
    cr_assert_eq((uint64_t)st.st_size, stats.residue_bytes);
    free_input(&in);
}

/* Turns the database at `prefix` into the one an older makedb wrote for the
 * same input: format version 1 in the three file headers (the layout is the
 * same), the index re-sealed, and the data files named PREFIX.swr and
 * PREFIX.swh. */
static void make_version_1(void)
{
    static const char *const suffix[] = {".swi", ".swr", ".swh"};
    for (int f = 2; f >= 0; f--) { /* the index last: it names the others */
        char from[200], to[200];
        snprintf(from, sizeof from, "%s", file_path(suffix[f]));
        snprintf(to, sizeof to, "%s%s", prefix, suffix[f]);
        size_t size;
        uint8_t *data = read_file(from, &size);
        put_u32(data + SW_DB_IX_VERSION, 1);
        if (f == 0) put_u64(data + size - 8, XXH3_64bits(data, size - 8));
        write_file(to, data, size);
        if (strcmp(from, to)) cr_assert_eq(unlink(from), 0);
        free(data);
    }
}

Test(db_format, names_data_files_after_the_database_id)
{
    input in = make_input(20, 50, 30);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    cr_assert_eq(sw_db_format_version(db), 2);
    uint32_t version;
    uint64_t id;
    sw_error err;
    cr_assert_eq(sw_db_index_id(prefix, &version, &id, &err), SW_OK, "%s", err.message);
    char want[200];
    snprintf(want, sizeof want, "%s.swi", prefix);
    cr_assert_str_eq(sw_db_path(db, SW_DB_FILE_INDEX), want);
    snprintf(want, sizeof want, "%s.%016llx.swr", prefix, (unsigned long long)id);
    cr_assert_str_eq(sw_db_path(db, SW_DB_FILE_RESIDUES), want);
    snprintf(want, sizeof want, "%s.%016llx.swh", prefix, (unsigned long long)id);
    cr_assert_str_eq(sw_db_path(db, SW_DB_FILE_HEADERS), want);
    cr_assert_null(sw_db_path(db, 3));
    struct stat st;
    for (int f = SW_DB_FILE_INDEX; f <= SW_DB_FILE_HEADERS; f++)
        cr_assert_eq(stat(sw_db_path(db, f), &st), 0, "%s", sw_db_path(db, f));
    cr_assert_eq(count_files(dir), 3);
    sw_db_close(db);
    free_input(&in);
}

Test(db_format, opens_a_version_1_database)
{
    input in = make_input(3000, 500, 31);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    uint8_t *expected = read_all_residues(db);
    sw_db_close(db);
    make_version_1();

    db = open_db(prefix);
    cr_assert_eq(sw_db_format_version(db), 1);
    char want[200];
    snprintf(want, sizeof want, "%s.swr", prefix);
    cr_assert_str_eq(sw_db_path(db, SW_DB_FILE_RESIDUES), want);
    snprintf(want, sizeof want, "%s.swh", prefix);
    cr_assert_str_eq(sw_db_path(db, SW_DB_FILE_HEADERS), want);
    uint8_t *back = read_all_residues(db);
    cr_assert_arr_eq(back, expected, sw_db_num_residues(db));
    for (uint64_t s = 0; s < sw_db_num_seqs(db); s += 97) {
        char *h;
        sw_error err;
        cr_assert_eq(read_header(db, s, &h, &err), SW_OK, "%s", err.message);
        cr_assert_str_eq(h, in.header[sw_db_original_index(db, s)]);
        free(h);
    }
    sw_error err;
    cr_assert_eq(sw_db_verify(db, NULL, NULL, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_check_headers(db, &err), SW_OK, "%s", err.message);
    free(back);
    free(expected);
    sw_db_close(db);
    free_input(&in);
}

Test(db_format, refuses_data_files_of_another_version_than_the_index)
{
    input in = make_input(20, 50, 32);
    write_db(prefix, &in);
    size_t size;
    char path[200];
    snprintf(path, sizeof path, "%s", file_path(".swh"));
    uint8_t *data = read_file(path, &size);
    put_u32(data + SW_DB_IX_VERSION, 1);
    write_file(path, data, size);
    expect_open_fails(SW_ECORRUPT, "format version 1, but");
    free(data);
    free_input(&in);
}

/* The rebuild that sw_db_open() meets: the database at "next" takes the
 * place of the one at `prefix` as makedb would commit it (data files under
 * their names, then the index by rename), and the replaced data files go. */
static char next_prefix[200];

static void commit_rebuild(void)
{
    char old_data[2][200];
    snprintf(old_data[0], sizeof old_data[0], "%s", file_path(".swr"));
    snprintf(old_data[1], sizeof old_data[1], "%s", file_path(".swh"));
    uint32_t version;
    uint64_t id;
    cr_assert_eq(sw_db_index_id(next_prefix, &version, &id, NULL), SW_OK);
    for (int f = SW_DB_FILE_RESIDUES; f <= SW_DB_FILE_HEADERS; f++) {
        char *from = sw_db_file_name(next_prefix, version, id, f);
        char *to = sw_db_file_name(prefix, version, id, f);
        cr_assert_eq(rename(from, to), 0);
        free(from);
        free(to);
    }
    char from[220], to[220];
    snprintf(from, sizeof from, "%s.swi", next_prefix);
    snprintf(to, sizeof to, "%s.swi", prefix);
    cr_assert_eq(rename(from, to), 0);
    cr_assert_eq(unlink(old_data[0]), 0);
    cr_assert_eq(unlink(old_data[1]), 0);
}

/* Opens `prefix` while a rebuild commits just before the data file with
 * extension `suffix` is opened: the open must give the new database, whole. */
static void open_during_a_rebuild(const char *suffix)
{
    input first = make_input(30, 50, 33);
    input second = make_input(7, 50, 34);
    write_db(prefix, &first);
    snprintf(next_prefix, sizeof next_prefix, "%s/next", dir);
    write_db(next_prefix, &second);
    snprintf(open_trigger, sizeof open_trigger, "%s", file_path(suffix));
    on_open = commit_rebuild;
    sw_db *db = open_db(prefix);
    cr_assert_null(on_open, "the rebuild did not happen during the open");
    cr_assert_eq(sw_db_num_seqs(db), 7);
    sw_error err;
    cr_assert_eq(sw_db_verify(db, NULL, NULL, &err), SW_OK, "%s", err.message);
    sw_db_close(db);
    free_input(&first);
    free_input(&second);
}

Test(db_format, open_starts_again_when_a_rebuild_replaces_the_residue_file)
{
    open_during_a_rebuild(".swr");
}

Test(db_format, open_starts_again_when_a_rebuild_replaces_the_header_file)
{
    open_during_a_rebuild(".swh");
}

Test(db_corruption, check_headers_names_each_damaged_header_chunk)
{
    input in = make_input(8000, 100, 35);
    write_db(prefix, &in);
    sw_db *db = open_db(prefix);
    sw_error err;
    cr_assert_eq(sw_db_check_headers(db, &err), SW_OK, "%s", err.message);
    sw_db_files files;
    sw_db_file_info(db, &files);
    size_t chunks = (size_t)files.num_header_chunks;
    cr_assert_gt(chunks, 2, "the test needs several header chunks");
    sw_db_close(db);

    size_t index_size, size;
    uint8_t *idx = read_file(file_path(".swi"), &index_size);
    uint64_t n = get_u64(idx + SW_DB_IX_NUM_SEQS);
    uint64_t residue_chunks = get_u64(idx + SW_DB_IX_NUM_RESIDUE_CHUNKS);
    const uint8_t *table = idx + SW_DB_INDEX_FIXED_SIZE + (n * 12 + 7) / 8 * 8 +
                           residue_chunks * SW_DB_CHUNK_ENTRY_SIZE;
    char path[200];
    snprintf(path, sizeof path, "%s", file_path(".swh"));
    uint8_t *data = read_file(path, &size);
    for (size_t k = 0; k < chunks; k++) {
        const uint8_t *row = table + k * SW_DB_CHUNK_ENTRY_SIZE;
        uint64_t first = get_u64(row + SW_DB_CK_FIRST_SEQ);
        uint64_t num = get_u64(row + SW_DB_CK_NUM_SEQS);
        uint64_t at = get_u64(row + SW_DB_CK_OFFSET) + get_u64(row + SW_DB_CK_COMPRESSED_SIZE) / 2;
        data[at] ^= 0x10;
        write_file(path, data, size);
        data[at] ^= 0x10;
        db = open_db(prefix);
        sw_error_clear(&err);
        cr_assert_eq(sw_db_check_headers(db, &err), SW_ECORRUPT,
                     "damage in header chunk %zu unnoticed", k);
        char want[400];
        snprintf(want, sizeof want,
                 "%s: header chunk %zu of %zu (sequences %llu-%llu) is corrupt: checksum mismatch",
                 path, k, chunks, (unsigned long long)first, (unsigned long long)(first + num - 1));
        cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
        sw_db_close(db);
    }
    write_file(path, data, size);
    db = open_db(prefix);
    cr_assert_eq(sw_db_check_headers(db, &err), SW_OK, "%s", err.message);
    sw_db_close(db);
    free(data);
    free(idx);
    free_input(&in);
}

Test(db_writer, replaces_a_version_1_database_and_removes_its_data_files)
{
    input first = make_input(40, 100, 36);
    input second = make_input(9, 100, 37);
    write_db(prefix, &first);
    make_version_1();
    write_db(prefix, &second);
    sw_db *db = open_db(prefix);
    cr_assert_eq(sw_db_format_version(db), SW_DB_FORMAT_VERSION);
    cr_assert_eq(sw_db_num_seqs(db), 9);
    struct stat st;
    char path[200];
    snprintf(path, sizeof path, "%s.swr", prefix);
    cr_assert_neq(stat(path, &st), 0, "%s was left", path);
    snprintf(path, sizeof path, "%s.swh", prefix);
    cr_assert_neq(stat(path, &st), 0, "%s was left", path);
    cr_assert_eq(count_files(dir), 3);
    sw_db_close(db);
    free_input(&first);
    free_input(&second);
}

Test(db_writer, removes_version_1_data_files_that_a_killed_rebuild_left)
{
    input first = make_input(40, 100, 39);
    input second = make_input(9, 100, 40);
    write_db(prefix, &first);
    make_version_1();
    char swr[200], swh[200];
    snprintf(swr, sizeof swr, "%s.swr", prefix);
    snprintf(swh, sizeof swh, "%s.swh", prefix);
    size_t rsize, hsize;
    uint8_t *r = read_file(swr, &rsize), *h = read_file(swh, &hsize);
    write_db(prefix, &second);
    /* As if the rebuild was killed after its switch, before removing the
     * version-1 files. */
    write_file(swr, r, rsize);
    write_file(swh, h, hsize);
    cr_assert_eq(count_files(dir), 5);
    write_db(prefix, &first);
    cr_assert_eq(count_files(dir), 3);
    sw_db *db = open_db(prefix);
    cr_assert_eq(sw_db_num_seqs(db), 40);
    sw_db_close(db);
    free(r);
    free(h);
    free_input(&first);
    free_input(&second);
}

Test(db_writer, a_second_writer_of_one_prefix_fails_while_the_first_works)
{
    sw_db_writer *w1, *w2 = (sw_db_writer *)1;
    sw_error err;
    const uint8_t res[2] = {1, 2};
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w1, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w2, &err), SW_EBUSY);
    cr_assert_null(w2);
    char want[300];
    snprintf(want, sizeof want, "%s: another makedb is writing this database", prefix);
    cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
    cr_assert_eq(sw_db_writer_add(w1, "a", 1, res, 2, &err), SW_OK);
    cr_assert_eq(sw_db_writer_finish(w1, NULL, &err), SW_OK, "%s", err.message);
    /* The lock is released, and its file removed, when the first ends. */
    cr_assert_eq(count_files(dir), 3);
    cr_assert_eq(sw_db_writer_create(prefix, NULL, &w2, &err), SW_OK, "%s", err.message);
    sw_db_writer_free(w2);
    sw_db_writer_free(w1);
    cr_assert_eq(count_files(dir), 3);
}

Test(db_writer, refuses_a_prefix_that_names_no_file)
{
    char path[200];
    sw_db_writer *w = (sw_db_writer *)1;
    sw_error err;
    snprintf(path, sizeof path, "%s/sub", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    cr_assert_eq(sw_db_writer_create(path, NULL, &w, &err), SW_EINVAL);
    cr_assert_null(w);
    cr_assert(strstr(err.message, "is a directory"), "%s", err.message);
    const char *ends[] = {"/sub/", "/sub/.", "/sub/.."};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s%s", dir, ends[i]);
        cr_assert_eq(sw_db_writer_create(path, NULL, &w, &err), SW_EINVAL, "%s", path);
        cr_assert(strstr(err.message, "ends in a directory"), "%s", err.message);
    }
    snprintf(path, sizeof path, "%s/fifo", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    cr_assert_eq(sw_db_writer_create(path, NULL, &w, &err), SW_EINVAL);
    cr_assert(strstr(err.message, "is a device, FIFO or socket"), "%s", err.message);
    unlink(path);
    snprintf(path, sizeof path, "%s/sub", dir);
    cr_assert_eq(count_files(path), 0);
    rmdir(path);
    cr_assert_eq(count_files(dir), 0);
}

Test(db_writer, check_input_refuses_a_file_the_build_would_replace)
{
    input in = make_input(20, 50, 38);
    write_db(prefix, &in);
    sw_error err;
    const char *suffixes[] = {".swi", ".swr", ".swh"};
    for (size_t i = 0; i < 3; i++) {
        char path[200];
        snprintf(path, sizeof path, "%s", file_path(suffixes[i]));
        int fd = open(path, O_RDONLY);
        cr_assert_geq(fd, 0);
        cr_assert_eq(sw_db_writer_check_input(prefix, fd, "in.fa", &err), SW_EINVAL, "%s", path);
        char want[500];
        snprintf(want, sizeof want, "in.fa: this input is %s, a file that building the database %s",
                 path, prefix);
        cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
        close(fd);
    }
    char other[200];
    snprintf(other, sizeof other, "%s/in.fa", dir);
    write_file(other, (const uint8_t *)">a\nAC\n", 6);
    int fd = open(other, O_RDONLY);
    cr_assert_eq(sw_db_writer_check_input(prefix, fd, "in.fa", &err), SW_OK, "%s", err.message);
    close(fd);
    free_input(&in);
}

/* Parts (sw_db_part_open): a part reads as a database of its ranges'
 * sequences alone, compared here with what the whole database reads. */
TestSuite(db_part, .init = make_dir, .fini = remove_dir);

/* A database of several residue chunks and what it reads whole. */
typedef struct whole_db {
    input in;
    sw_db *db;
    uint64_t n;
    const uint32_t *len;
    uint64_t *start; /* of each sorted sequence in `residues`, and the end */
    uint8_t *residues;
    size_t num_chunks;
} whole_db;

static whole_db open_whole(uint64_t seed)
{
    whole_db w = {make_input(7000, 3000, seed), NULL, 0, NULL, NULL, NULL, 0};
    write_db(prefix, &w.in);
    w.db = open_db(prefix);
    w.n = sw_db_num_seqs(w.db);
    w.len = sw_db_lengths(w.db);
    w.start = malloc((w.n + 1) * sizeof *w.start);
    w.start[0] = 0;
    for (uint64_t s = 0; s < w.n; s++) w.start[s + 1] = w.start[s] + w.len[s];
    w.residues = read_all_residues(w.db);
    w.num_chunks = sw_db_num_chunks(w.db);
    cr_assert_geq(w.num_chunks, 4, "the tests need several chunks");
    return w;
}

static void close_whole(whole_db *w)
{
    free(w->residues);
    free(w->start);
    sw_db_close(w->db);
    free_input(&w->in);
}

static sw_db_chunk whole_chunk(const whole_db *w, size_t c)
{
    sw_db_chunk info;
    sw_db_chunk_info(w->db, c, &info);
    return info;
}

static sw_db *open_part(const whole_db *w, const sw_db_range *ranges, size_t n)
{
    sw_db *part = NULL;
    sw_error err;
    cr_assert_eq(sw_db_part_open(w->db, ranges, n, &part, &err), SW_OK, "%s", err.message);
    cr_assert_not_null(part);
    return part;
}

/* sw_db_read_range of the part's sequences first.. first + count - 1 is
 * want + pstart[first] and writes nothing past it. */
static void expect_part_range(const sw_db *part, uint64_t first, uint64_t count, const uint8_t *want,
                              const uint64_t *pstart)
{
    const uint64_t bytes = pstart[first + count] - pstart[first];
    uint8_t *got = malloc(bytes + 1);
    memset(got, 0xee, bytes + 1);
    sw_error err;
    cr_assert_eq(sw_db_read_range(part, first, count, got, 2, &err), SW_OK, "%s", err.message);
    cr_assert_arr_eq(got, want + pstart[first], bytes, "part sequences %llu + %llu",
                     (unsigned long long)first, (unsigned long long)count);
    cr_assert_eq(got[bytes], 0xee, "part sequences %llu + %llu: written past the range",
                 (unsigned long long)first, (unsigned long long)count);
    free(got);
}

/* Opens the part of `ranges`, checks every reader on it against the whole,
 * and returns it for further checks. */
static sw_db *check_part(const whole_db *w, const sw_db_range *ranges, size_t n)
{
    sw_db *part = open_part(w, ranges, n);
    sw_error err;
    /* The part's numbering and residues, worked out from the whole's. */
    uint64_t count = 0;
    for (size_t i = 0; i < n; i++) count += ranges[i].count;
    uint64_t *map = malloc(count * sizeof *map), *pstart = malloc((count + 1) * sizeof *pstart);
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (uint64_t j = 0; j < ranges[i].count; j++) map[k++] = ranges[i].first + j;
    pstart[0] = 0;
    for (uint64_t s = 0; s < count; s++) pstart[s + 1] = pstart[s] + w->len[map[s]];
    uint8_t *want = malloc(pstart[count] + 1);
    uint32_t max_length = 0;
    for (uint64_t s = 0; s < count; s++) {
        memcpy(want + pstart[s], w->residues + w->start[map[s]], w->len[map[s]]);
        if (w->len[map[s]] > max_length) max_length = w->len[map[s]];
    }

    cr_assert_eq(sw_db_num_seqs(part), count);
    cr_assert_eq(sw_db_num_residues(part), pstart[count]);
    cr_assert_eq(sw_db_max_length(part), max_length);
    const uint32_t *plen = sw_db_lengths(part);
    for (uint64_t s = 0; s < count; s++) {
        cr_assert_eq(sw_db_whole_seq(part, s), map[s], "part sequence %llu", (unsigned long long)s);
        cr_assert_eq(plen[s], w->len[map[s]], "part sequence %llu", (unsigned long long)s);
        cr_assert_eq(sw_db_original_index(part, s), sw_db_original_index(w->db, map[s]),
                     "part sequence %llu", (unsigned long long)s);
    }
    cr_assert_eq(sw_db_whole_seq(part, count), UINT64_MAX);
    cr_assert_eq(sw_db_original_index(part, count), UINT64_MAX);

    /* What belongs to the files is the whole's. */
    for (int which = SW_DB_FILE_INDEX; which <= SW_DB_FILE_HEADERS; which++)
        cr_assert_str_eq(sw_db_path(part, which), sw_db_path(w->db, which));
    cr_assert_eq(sw_db_format_version(part), sw_db_format_version(w->db));
    cr_assert_eq(sw_db_alphabet(part), sw_db_alphabet(w->db));
    sw_db_files pf, wf;
    sw_db_file_info(part, &pf);
    sw_db_file_info(w->db, &wf);
    cr_assert_eq(memcmp(&pf, &wf, sizeof pf), 0);

    /* The chunks tile the part and read as its residues. */
    uint64_t next = 0;
    for (size_t c = 0; c < sw_db_num_chunks(part); c++) {
        sw_db_chunk info;
        sw_db_chunk_info(part, c, &info);
        cr_assert_eq(info.first_seq, next, "part chunk %zu", c);
        cr_assert_gt(info.num_seqs, 0, "part chunk %zu", c);
        cr_assert_leq(info.first_seq + info.num_seqs, count, "part chunk %zu", c);
        cr_assert_eq(info.num_residues, pstart[next + info.num_seqs] - pstart[next], "part chunk %zu", c);
        cr_assert_gt(info.compressed_size, 0);
        uint8_t *got = malloc(info.num_residues + 1);
        got[info.num_residues] = 0xee;
        cr_assert_eq(sw_db_read_chunk(part, c, got, &err), SW_OK, "%s", err.message);
        cr_assert_arr_eq(got, want + pstart[next], info.num_residues, "part chunk %zu", c);
        cr_assert_eq(got[info.num_residues], 0xee, "part chunk %zu: written past its end", c);
        free(got);
        next += info.num_seqs;
    }
    cr_assert_eq(next, count);
    uint8_t *all;
    cr_assert_eq(sw_db_read_all_residues(part, 3, &all, &err), SW_OK, "%s", err.message);
    cr_assert_arr_eq(all, want, pstart[count]);
    free(all);

    /* Ranges: everything, each chunk whole, and a few sequences across
     * every boundary between the part's chunks. */
    expect_part_range(part, 0, count, want, pstart);
    for (size_t c = 0; c < sw_db_num_chunks(part); c++) {
        sw_db_chunk info;
        sw_db_chunk_info(part, c, &info);
        expect_part_range(part, info.first_seq, info.num_seqs, want, pstart);
        if (c == 0) continue;
        uint64_t lo = info.first_seq >= 2 ? info.first_seq - 2 : 0;
        uint64_t hi = info.first_seq + 2 < count ? info.first_seq + 2 : count;
        expect_part_range(part, lo, hi - lo, want, pstart);
    }
    cr_assert_eq(sw_db_read_range(part, count, 1, want, 1, &err), SW_EINVAL);

    /* Scattered sequences, last first, one twice. */
    uint64_t seqs[40], mapped[40];
    size_t m = 0;
    seqs[m++] = count - 1;
    for (uint64_t s = 0; s < count && m < 38; s += count / 29 + 1) seqs[m++] = s;
    seqs[m++] = count - 1;
    for (size_t i = 0; i < m; i++) mapped[i] = map[seqs[i]];
    uint8_t *res[40];
    cr_assert_eq(sw_db_read_sequences(part, seqs, m, 2, res, &err), SW_OK, "%s", err.message);
    for (size_t i = 0; i < m; i++) {
        cr_assert_arr_eq(res[i], w->residues + w->start[mapped[i]], w->len[mapped[i]],
                         "part sequence %llu", (unsigned long long)seqs[i]);
        free(res[i]);
    }
    char *got_headers[40], *want_headers[40];
    cr_assert_eq(sw_db_read_headers(part, seqs, m, got_headers, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_db_read_headers(w->db, mapped, m, want_headers, &err), SW_OK, "%s", err.message);
    for (size_t i = 0; i < m; i++) {
        cr_assert_str_eq(got_headers[i], want_headers[i], "part sequence %llu", (unsigned long long)seqs[i]);
        free(got_headers[i]);
        free(want_headers[i]);
    }
    uint64_t beyond = count;
    char *header = (char *)1;
    cr_assert_eq(sw_db_read_headers(part, &beyond, 1, &header, &err), SW_EINVAL);
    cr_assert_null(header);
    cr_assert_eq(sw_db_read_sequences(part, &beyond, 1, 1, res, &err), SW_EINVAL);

    cr_assert_eq(sw_db_check_headers(part, &err), SW_OK, "%s", err.message);
    free(want);
    free(pstart);
    free(map);
    return part;
}

/* Closing a part leaves the whole as it was. */
static void close_part(const whole_db *w, sw_db *part)
{
    sw_db_close(part);
    uint8_t *all = read_all_residues(w->db);
    cr_assert_arr_eq(all, w->residues, w->start[w->n]);
    free(all);
    char *header;
    sw_error err;
    cr_assert_eq(read_header(w->db, w->n - 1, &header, &err), SW_OK, "%s", err.message);
    free(header);
}

Test(db_part, reads_ranges_that_start_and_end_inside_chunks)
{
    whole_db w = open_whole(50);
    const sw_db_chunk c1 = whole_chunk(&w, 1), c3 = whole_chunk(&w, 3);
    cr_assert_gt(c1.num_seqs, 40);
    const sw_db_range ranges[] = {
        {c1.first_seq + 5, 10},                 /* inside chunk 1 */
        {c1.first_seq + c1.num_seqs - 3, 7},    /* across chunks 1 and 2 */
        {c3.first_seq + 1, c3.num_seqs + 4}};   /* most of chunk 3, into chunk 4 */
    sw_db *part = check_part(&w, ranges, 3);
    cr_assert_eq(sw_db_num_chunks(part), 5, "one window of each file chunk a range touches");
    close_part(&w, part);
    close_whole(&w);
}

Test(db_part, reads_ranges_that_cover_whole_chunks_as_those_chunks)
{
    whole_db w = open_whole(51);
    const sw_db_chunk c0 = whole_chunk(&w, 0), c2 = whole_chunk(&w, 2), c3 = whole_chunk(&w, 3);
    const sw_db_range ranges[] = {{c0.first_seq, c0.num_seqs}, {c2.first_seq, c2.num_seqs + c3.num_seqs}};
    sw_db *part = check_part(&w, ranges, 2);
    cr_assert_eq(sw_db_num_chunks(part), 3);
    const sw_db_chunk want[] = {c0, c2, c3};
    for (size_t c = 0; c < 3; c++) {
        sw_db_chunk info;
        sw_db_chunk_info(part, c, &info);
        cr_assert_eq(info.num_seqs, want[c].num_seqs, "part chunk %zu", c);
        cr_assert_eq(info.num_residues, want[c].num_residues, "part chunk %zu", c);
        cr_assert_eq(info.compressed_size, want[c].compressed_size, "part chunk %zu", c);
    }
    close_part(&w, part);
    close_whole(&w);
}

Test(db_part, reads_a_single_sequence)
{
    whole_db w = open_whole(52);
    const sw_db_chunk c2 = whole_chunk(&w, 2);
    const uint64_t picks[] = {0, c2.first_seq, c2.first_seq + c2.num_seqs / 2, w.n - 1};
    for (size_t i = 0; i < sizeof picks / sizeof *picks; i++) {
        const sw_db_range range = {picks[i], 1};
        sw_db *part = check_part(&w, &range, 1);
        cr_assert_eq(sw_db_num_chunks(part), 1);
        cr_assert_eq(sw_db_max_length(part), w.len[picks[i]]);
        close_part(&w, part);
    }
    close_whole(&w);
}

Test(db_part, reads_many_ranges_some_adjacent)
{
    whole_db w = open_whole(53);
    sw_db_range ranges[200];
    size_t n = 0;
    test_rng rng = test_rng_seed(53);
    for (uint64_t at = test_rng_next(&rng) % 50; at < w.n && n < 200;) {
        uint64_t count = 1 + test_rng_next(&rng) % 400;
        if (count > w.n - at) count = w.n - at;
        ranges[n++] = (sw_db_range){at, count};
        at += count + (n % 4 == 0 ? 0 : test_rng_next(&rng) % 300); /* every 4th adjacent */
    }
    cr_assert_gt(n, 20);
    sw_db *part = check_part(&w, ranges, n);
    close_part(&w, part);
    close_whole(&w);
}

Test(db_part, of_the_whole_database_reads_as_the_whole)
{
    whole_db w = open_whole(54);
    const sw_db_range all = {0, w.n};
    sw_db *part = check_part(&w, &all, 1);
    cr_assert_eq(sw_db_num_chunks(part), w.num_chunks);
    cr_assert_eq(sw_db_lengths(part), w.len, "one range uses the whole's lengths in place");
    close_part(&w, part);
    /* Adjacent ranges read each file chunk once, as one range would. */
    const sw_db_range halves[] = {{0, w.n / 2}, {w.n / 2, w.n - w.n / 2}};
    part = check_part(&w, halves, 2);
    cr_assert_eq(sw_db_num_chunks(part), w.num_chunks);
    close_part(&w, part);
    for (uint64_t s = 0; s < w.n; s += 97) cr_assert_eq(sw_db_whole_seq(w.db, s), s);
    cr_assert_eq(sw_db_whole_seq(w.db, w.n), UINT64_MAX);
    close_whole(&w);
}

Test(db_part, reports_a_damaged_chunk_under_the_files_chunk_number)
{
    whole_db w = open_whole(55);
    const sw_db_chunk c2 = whole_chunk(&w, 2), c3 = whole_chunk(&w, 3);
    uint64_t offset = SW_DB_FILE_HEADER_SIZE;
    for (size_t c = 0; c < 2; c++) offset += whole_chunk(&w, c).compressed_size;
    sw_db_close(w.db);
    size_t size;
    uint8_t *res = read_file(file_path(".swr"), &size);
    res[offset + c2.compressed_size / 2] ^= 0x40;
    write_file(file_path(".swr"), res, size);
    free(res);
    w.db = open_db(prefix);

    /* A window inside the damaged chunk, then an intact chunk. */
    const sw_db_range ranges[] = {{c2.first_seq + 3, 5}, {c3.first_seq, c3.num_seqs}};
    sw_db *part = open_part(&w, ranges, 2);
    sw_error err;
    char want[400];
    snprintf(want, sizeof want, "%s: chunk 2 is corrupt (checksum mismatch); run 'swsearch verify'",
             file_path(".swr"));
    uint8_t *buf = malloc(sw_db_num_residues(part) + 1);
    cr_assert_eq(sw_db_read_chunk(part, 0, buf, &err), SW_ECORRUPT);
    cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
    cr_assert_eq(sw_db_read_chunk(part, 1, buf, &err), SW_OK, "%s", err.message);
    cr_assert_arr_eq(buf, w.residues + w.start[c3.first_seq], c3.num_residues);
    uint8_t *all = NULL;
    cr_assert_eq(sw_db_read_all_residues(part, 2, &all, &err), SW_ECORRUPT);
    cr_assert_null(all);
    cr_assert_eq(sw_db_read_range(part, 1, 2, buf, 1, &err), SW_ECORRUPT);
    cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
    uint64_t seq = 4;
    uint8_t *one;
    cr_assert_eq(sw_db_read_sequences(part, &seq, 1, 1, &one, &err), SW_ECORRUPT);
    cr_assert_eq(sw_db_verify(part, NULL, NULL, &err), SW_ECORRUPT);
    cr_assert(strstr(err.message, "chunk 2 of"), "%s", err.message);
    sw_db_close(part);

    /* A part that avoids the damaged chunk never reads it. */
    const sw_db_range clear[] = {{c2.first_seq - 10, 10}, {c3.first_seq + 1, 50}};
    part = open_part(&w, clear, 2);
    cr_assert_eq(sw_db_read_all_residues(part, 2, &all, &err), SW_OK, "%s", err.message);
    const uint64_t a = w.start[c2.first_seq] - w.start[c2.first_seq - 10];
    const uint64_t b = w.start[c3.first_seq + 51] - w.start[c3.first_seq + 1];
    cr_assert_arr_eq(all, w.residues + w.start[c2.first_seq - 10], a);
    cr_assert_arr_eq(all + a, w.residues + w.start[c3.first_seq + 1], b);
    free(all);
    sw_db_close(part);
    free(buf);
    close_whole(&w);
}

Test(db_part, refuses_bad_ranges)
{
    whole_db w = open_whole(56);
    const uint64_t n = w.n;
    const struct {
        const char *what;
        sw_db_range r[2];
        size_t n;
    } bad[] = {
        {"no ranges", {{0, 1}}, 0},
        {"an empty range", {{5, 0}}, 1},
        {"an empty second range", {{0, 5}, {10, 0}}, 2},
        {"overlapping ranges", {{0, 10}, {9, 5}}, 2},
        {"descending ranges", {{100, 10}, {0, 10}}, 2},
        {"a range past the end", {{n - 5, 6}}, 1},
        {"a range after the end", {{n, 1}}, 1},
        {"a range whose end overflows", {{n - 1, UINT64_MAX}}, 1},
        {"a first sequence that overflows", {{UINT64_MAX, 2}}, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sw_db *part = (sw_db *)1;
        sw_error err;
        cr_assert_eq(sw_db_part_open(w.db, bad[i].r, bad[i].n, &part, &err), SW_EINVAL, "%s", bad[i].what);
        cr_assert_null(part, "%s", bad[i].what);
    }
    sw_db *part = (sw_db *)1;
    sw_error err;
    cr_assert_eq(sw_db_part_open(w.db, NULL, 1, &part, &err), SW_EINVAL);
    cr_assert_null(part);
    /* A part of a part is refused. */
    const sw_db_range range = {10, 100};
    sw_db *first = open_part(&w, &range, 1);
    part = (sw_db *)1;
    cr_assert_eq(sw_db_part_open(first, &range, 1, &part, &err), SW_EINVAL);
    cr_assert_null(part);
    sw_db_close(first);
    close_whole(&w);
}
