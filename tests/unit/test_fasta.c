/* Specification of the FASTA reader: formats, line ends, blanks, encodings
 * and the messages a user sees for bad input. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "sw_fasta.h"

#define DATA(name) SW_TEST_DATA "/" name

/* Every test runs in its own process; temporary files are removed by
 * remove_temps() at the end of the test that made them. */
static char temps[8][64];
static int num_temps;

static const char *write_temp(const void *data, size_t n)
{
    cr_assert_lt(num_temps, 8);
    char *path = temps[num_temps++];
    strcpy(path, "/tmp/test_fasta_XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        cr_assert_gt(w, 0);
        p += w;
        n -= (size_t)w;
    }
    close(fd);
    return path;
}

static const char *write_temp_str(const char *s) { return write_temp(s, strlen(s)); }

static void remove_temps(void)
{
    for (int i = 0; i < num_temps; i++) unlink(temps[i]);
    num_temps = 0;
}

TestSuite(fasta, .fini = remove_temps);
TestSuite(fasta_header, .fini = remove_temps);

static void *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

static void *zstd_compress(const void *src, size_t n, size_t *out_len)
{
    size_t cap = ZSTD_compressBound(n);
    void *dst = malloc(cap);
    size_t z = ZSTD_compress(dst, cap, src, n, 3);
    cr_assert(!ZSTD_isError(z));
    *out_len = z;
    return dst;
}

/* All records of a file, residues decoded back to letters. */
typedef struct {
    int count;
    char *header[16];
    char *seq[16];
    uint64_t line[16];
} records;

static void records_free(records *r)
{
    for (int i = 0; i < r->count; i++) {
        free(r->header[i]);
        free(r->seq[i]);
    }
    r->count = 0;
}

/* Frees a test's buffers and records when it ends, whichever way it passes. */
static void free_pointer(void *p) { free(*(void **)p); }
#define FREED __attribute__((cleanup(free_pointer)))
#define RECORDS __attribute__((cleanup(records_free))) records

static int read_all(const char *path, const sw_fasta_options *opt, records *out, sw_error *err)
{
    sw_fasta *f;
    memset(out, 0, sizeof *out);
    int rc = sw_fasta_open(path, opt, &f, err);
    if (rc) return rc;
    const sw_alphabet *a = opt && opt->alphabet ? opt->alphabet : sw_alphabet_protein();
    sw_fasta_record r;
    while ((rc = sw_fasta_next(f, &r, err)) == 1) {
        cr_assert_lt(out->count, 16);
        int i = out->count++;
        out->header[i] = strndup(r.header, r.header_len);
        out->seq[i] = malloc(r.length + 1);
        for (size_t k = 0; k < r.length; k++) out->seq[i][k] = sw_alphabet_decode(a, r.residues[k]);
        out->seq[i][r.length] = '\0';
        out->line[i] = r.line;
    }
    sw_fasta_close(f);
    return rc;
}

static void expect_error(const char *path, int code, const char *message)
{
    RECORDS recs = {0};
    sw_error err;
    sw_error_clear(&err);
    cr_assert_eq(read_all(path, NULL, &recs, &err), code, "message: %s", err.message);
    cr_assert_str_eq(err.message, message);
}

Test(fasta, reads_multi_line_records_with_header_line_numbers)
{
    RECORDS r = {0};
    sw_error err;
    cr_assert_eq(read_all(DATA("fasta_small.fa"), NULL, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 3);
    cr_assert_str_eq(r.header[0], "sp|P69905|HBA_HUMAN Hemoglobin subunit alpha OS=Homo sapiens");
    cr_assert_str_eq(r.header[1], "P02232 Leghemoglobin-1");
    cr_assert_str_eq(r.header[2], "short");
    cr_assert_eq(strlen(r.seq[0]), 142);
    cr_assert_eq(strlen(r.seq[1]), 145);
    cr_assert_str_eq(r.seq[2], "ACDEFGHIKLMNPQRSTVWYBJZXUO");
    cr_assert_eq(r.line[0], 1);
    cr_assert_eq(r.line[1], 5);
    cr_assert_eq(r.line[2], 9);
}

Test(fasta, accepts_crlf_line_ends)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">P1 first\r\nMKV\r\nLLA\r\n\r\n>P2\r\nACD\r\n");
    cr_assert_eq(read_all(p, NULL, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 2);
    cr_assert_str_eq(r.header[0], "P1 first");
    cr_assert_str_eq(r.seq[0], "MKVLLA");
    cr_assert_str_eq(r.header[1], "P2");
    cr_assert_str_eq(r.seq[1], "ACD");
    cr_assert_eq(r.line[1], 5);
}

Test(fasta, accepts_cr_only_line_ends)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str("\r>P1 first\rMKV\rLLA\r\r>P2\rACD\r");
    cr_assert_eq(read_all(p, NULL, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 2);
    cr_assert_str_eq(r.header[0], "P1 first");
    cr_assert_str_eq(r.seq[0], "MKVLLA");
    cr_assert_str_eq(r.header[1], "P2");
    cr_assert_str_eq(r.seq[1], "ACD");
    cr_assert_eq(r.line[0], 2);
    cr_assert_eq(r.line[1], 6);
}

Test(fasta, accepts_mixed_line_ends_in_one_file)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">P1\r\nMK\rV\n\r\n>P2\rAC\r\n>P3\nD");
    cr_assert_eq(read_all(p, NULL, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 3);
    cr_assert_str_eq(r.seq[0], "MKV");
    cr_assert_str_eq(r.header[1], "P2");
    cr_assert_str_eq(r.seq[1], "AC");
    cr_assert_str_eq(r.seq[2], "D");
    cr_assert_eq(r.line[1], 5);
    cr_assert_eq(r.line[2], 7);
}

Test(fasta, counts_cr_only_lines_in_messages)
{
    char want[512];
    const char *p = write_temp_str("\r>P1\r\nMK\rV#\r");
    snprintf(want, sizeof want, "%s:4: invalid residue '#' in sequence P1", p);
    expect_error(p, SW_EFORMAT, want);
}

Test(fasta, counts_cr_only_lines_before_the_first_header)
{
    char want[512];
    const char *p = write_temp_str("\r\r\nMKV\r");
    snprintf(want, sizeof want, "%s:3: sequence data before the first '>' header", p);
    expect_error(p, SW_EFORMAT, want);
}

Test(fasta, skips_blank_lines_anywhere)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str("\n  \n\t\n>P1\n\nMK\n   \nV\n\n\n>P2\nAC\n\n");
    cr_assert_eq(read_all(p, NULL, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 2);
    cr_assert_str_eq(r.seq[0], "MKV");
    cr_assert_str_eq(r.seq[1], "AC");
    cr_assert_eq(r.line[0], 4);
    cr_assert_eq(r.line[1], 11);
}

Test(fasta, reads_a_ten_megabyte_single_line_sequence)
{
    size_t n = 10u << 20;
    const char *letters = "ACDEFGHIKLMNPQRSTVWY";
    char *text = malloc(n + 32);
    size_t o = (size_t)sprintf(text, ">long one line\n");
    for (size_t i = 0; i < n; i++) text[o++] = letters[(i * 7 + i / 13) % 20];
    o += (size_t)sprintf(text + o, "\n>next\nMK\n");
    const char *p = write_temp(text, o);

    sw_fasta *f;
    sw_error err;
    sw_fasta_record rec;
    cr_assert_eq(sw_fasta_open(p, NULL, &f, &err), 0);
    cr_assert_eq(sw_fasta_next(f, &rec, &err), 1, "%s", err.message);
    cr_assert_eq(rec.length, n);
    const sw_alphabet *a = sw_alphabet_protein();
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(rec.residues[i], sw_alphabet_encode(a, (unsigned char)letters[(i * 7 + i / 13) % 20]),
                     "residue %zu", i);
    cr_assert_eq(sw_fasta_next(f, &rec, &err), 1);
    cr_assert_eq(rec.length, 2);
    cr_assert_eq(rec.line, 3);
    cr_assert_eq(sw_fasta_next(f, &rec, &err), 0);
    sw_fasta_close(f);
    free(text);
}

/* Records of every size, half with CRLF, spread over several read blocks so
 * that lines, line ends and headers fall across block boundaries. */
Test(fasta, reads_records_across_block_boundaries)
{
    size_t cap = 24u << 20, o = 0;
    char *text = malloc(cap);
    const char *letters = "ACDEFGHIKLMNPQRSTVWY";
    uint64_t total = 0, count = 0, sum = 0;
    /* A record takes at most 3 bytes a residue (one-residue CRLF lines). */
    for (uint32_t i = 0; o < cap - 400000; i++) {
        const char *eol = i % 2 ? "\r\n" : "\n";
        size_t len = 1 + (i * 2654435761u) % 100000 / (i % 5 ? 100 : 1);
        size_t width = 1 + i % 97;
        o += (size_t)sprintf(text + o, ">s%u desc%s", i, eol);
        for (size_t k = 0; k < len; k++) {
            char c = letters[(i + k) % 20];
            text[o++] = c;
            sum += sw_alphabet_encode(sw_alphabet_protein(), (unsigned char)c);
            if ((k + 1) % width == 0 || k + 1 == len) o += (size_t)sprintf(text + o, "%s", eol);
        }
        total += len;
        count++;
    }
    const char *p = write_temp(text, o);

    sw_fasta *f;
    sw_error err;
    sw_fasta_record rec;
    cr_assert_eq(sw_fasta_open(p, NULL, &f, &err), 0);
    uint64_t got_total = 0, got_count = 0, got_sum = 0;
    int rc;
    while ((rc = sw_fasta_next(f, &rec, &err)) == 1) {
        char want[32];
        int wn = sprintf(want, "s%llu desc", (unsigned long long)got_count);
        cr_assert_eq(rec.header_len, (size_t)wn);
        cr_assert(memcmp(rec.header, want, (size_t)wn) == 0, "record %llu",
                  (unsigned long long)got_count);
        got_count++;
        got_total += rec.length;
        for (size_t k = 0; k < rec.length; k++) got_sum += rec.residues[k];
    }
    cr_assert_eq(rc, 0, "%s", err.message);
    cr_assert_eq(got_count, count);
    cr_assert_eq(got_total, total);
    cr_assert_eq(got_sum, sum);
    cr_assert_eq(sw_fasta_bytes_read(f), o);
    sw_fasta_close(f);
    free(text);
}

Test(fasta, accepts_an_empty_header)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">\nMKV\n");
    cr_assert_eq(read_all(p, NULL, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 1);
    cr_assert_str_eq(r.header[0], "");
    cr_assert_str_eq(r.seq[0], "MKV");
}

static void collect_warning(void *user, const char *message)
{
    char *dst = user;
    size_t n = strlen(dst);
    snprintf(dst + n, 1024 - n, "%s|", message);
}

Test(fasta, skips_an_empty_sequence_with_a_warning_naming_file_line_and_id)
{
    char warnings[1024] = "";
    sw_fasta_options opt = {.warn = collect_warning, .warn_user = warnings};
    RECORDS r = {0};
    sw_error err;
    const char *p = DATA("fasta_empty_sequence.fa");
    cr_assert_eq(read_all(p, &opt, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 2);
    cr_assert_str_eq(r.header[0], "P1 first");
    cr_assert_str_eq(r.header[1], "P3 third");
    char want[512];
    snprintf(want, sizeof want, "%s:3: empty sequence 'P2' skipped|", p);
    cr_assert_str_eq(warnings, want);
}

Test(fasta, skips_a_header_at_the_end_of_the_input)
{
    char warnings[1024] = "";
    sw_fasta_options opt = {.warn = collect_warning, .warn_user = warnings};
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">P1\nMK\n>P2 last");
    cr_assert_eq(read_all(p, &opt, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 1);
    cr_assert_neq(strstr(warnings, ":3: empty sequence 'P2' skipped"), NULL, "%s", warnings);
}

Test(fasta, reports_invalid_residue_with_file_line_char_and_id)
{
    char want[512];
    const char *p = DATA("fasta_bad_residue.fa");
    snprintf(want, sizeof want, "%s:5: invalid residue '#' in sequence P2", p);
    expect_error(p, SW_EFORMAT, want);
}

Test(fasta, shows_a_non_printable_invalid_byte_in_hex)
{
    char want[512];
    const char *p = write_temp_str(">P1\nMK\x01V\n");
    snprintf(want, sizeof want, "%s:2: invalid residue '\\x01' in sequence P1", p);
    expect_error(p, SW_EFORMAT, want);
}

Test(fasta, rejects_a_header_marker_inside_a_sequence_line)
{
    char want[512];
    const char *p = write_temp_str(">P1\nMK>V\n");
    snprintf(want, sizeof want, "%s:2: invalid residue '>' in sequence P1", p);
    expect_error(p, SW_EFORMAT, want);
}

Test(fasta, rejects_a_nul_byte_in_a_header)
{
    char want[512];
    const char *p = write_temp(">P1\nMK\n>\0P2 x\nAC\n", 17);
    snprintf(want, sizeof want, "%s:3: NUL byte in a header line", p);
    expect_error(p, SW_EFORMAT, want);
}

Test(fasta, reads_an_empty_first_sequence_line)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">a\n\nA\n");
    cr_assert_eq(read_all(p, NULL, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 1);
    cr_assert_str_eq(r.seq[0], "A");
}

Test(fasta, rejects_sequence_data_before_the_first_header)
{
    char want[512];
    const char *p = write_temp_str("MKV\n>P1\nMKV\n");
    snprintf(want, sizeof want, "%s:1: sequence data before the first '>' header", p);
    expect_error(p, SW_EFORMAT, want);
}

Test(fasta, counts_blank_lines_in_the_line_of_data_before_the_first_header)
{
    char want[512];
    const char *p = write_temp_str("\n\nMKV\n");
    snprintf(want, sizeof want, "%s:3: sequence data before the first '>' header", p);
    expect_error(p, SW_EFORMAT, want);
}

Test(fasta, encodes_lower_case_like_upper_case)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">lower\nacdefghiklmnpqrstvwybjzxuo\n");
    cr_assert_eq(read_all(p, NULL, &r, &err), 0, "%s", err.message);
    cr_assert_str_eq(r.seq[0], "ACDEFGHIKLMNPQRSTVWYBJZXUO");
}

Test(fasta, keeps_a_trailing_stop_as_a_residue)
{
    sw_fasta *f;
    sw_error err;
    sw_fasta_record rec;
    const char *p = write_temp_str(">P1\nMKV*\n");
    cr_assert_eq(sw_fasta_open(p, NULL, &f, &err), 0);
    cr_assert_eq(sw_fasta_next(f, &rec, &err), 1);
    cr_assert_eq(rec.length, 4);
    cr_assert_eq(rec.residues[3], sw_alphabet_encode(sw_alphabet_protein(), '*'));
    sw_fasta_close(f);
}

Test(fasta, ignores_spaces_and_tabs_in_sequence_lines)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">P1\nMK V\t\tL \n  AC\t\n");
    cr_assert_eq(read_all(p, NULL, &r, &err), 0, "%s", err.message);
    cr_assert_str_eq(r.seq[0], "MKVLAC");
}

Test(fasta, reads_a_last_line_without_line_end)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">P1\nMK\nVL");
    cr_assert_eq(read_all(p, NULL, &r, &err), 0, "%s", err.message);
    cr_assert_str_eq(r.seq[0], "MKVL");
}

Test(fasta, returns_no_records_for_an_empty_file)
{
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp("", 0);
    cr_assert_eq(read_all(p, NULL, &r, &err), 0);
    cr_assert_eq(r.count, 0);
}

Test(fasta, uses_the_dna_alphabet_when_asked)
{
    sw_fasta_options opt = {.alphabet = sw_alphabet_dna()};
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">chr\nACGTNacgtnRY\n");
    cr_assert_eq(read_all(p, &opt, &r, &err), 0, "%s", err.message);
    cr_assert_str_eq(r.seq[0], "ACGTNACGTNNN");
}

Test(fasta, reads_zstd_input_like_plain_input)
{
    size_t n, zn;
    FREED void *plain = read_file(DATA("fasta_small.fa"), &n);
    FREED void *z = zstd_compress(plain, n, &zn);
    const char *p = write_temp(z, zn);
    RECORDS a = {0};
    RECORDS b = {0};
    sw_error err;
    cr_assert_eq(read_all(DATA("fasta_small.fa"), NULL, &a, &err), 0);
    cr_assert_eq(read_all(p, NULL, &b, &err), 0, "%s", err.message);
    cr_assert_eq(a.count, b.count);
    for (int i = 0; i < a.count; i++) {
        cr_assert_str_eq(a.header[i], b.header[i]);
        cr_assert_str_eq(a.seq[i], b.seq[i]);
        cr_assert_eq(a.line[i], b.line[i]);
    }
}

/* A file of two zstd frames holding `a` and `b`: the reader gets the text
 * in two pieces. */
static const char *two_frames(const char *a, const char *b)
{
    size_t n1, n2;
    FREED void *z1 = zstd_compress(a, strlen(a), &n1);
    FREED void *z2 = zstd_compress(b, strlen(b), &n2);
    FREED char *both = malloc(n1 + n2);
    memcpy(both, z1, n1);
    memcpy(both + n1, z2, n2);
    return write_temp(both, n1 + n2);
}

Test(fasta, reads_concatenated_zstd_frames)
{
    RECORDS r = {0};
    sw_error err;
    cr_assert_eq(read_all(two_frames(">P1\nMK", "V\n>P2\nAC\n"), NULL, &r, &err), 0, "%s",
                 err.message);
    cr_assert_eq(r.count, 2);
    cr_assert_str_eq(r.seq[0], "MKV");
    cr_assert_str_eq(r.seq[1], "AC");
}

/* A "\r\n" cut in two by the end of a piece of text is one line end, in a
 * header line and in a sequence line alike. */
Test(fasta, reads_a_crlf_split_between_zstd_frames_as_one_line_end)
{
    RECORDS r = {0};
    sw_error err;
    cr_assert_eq(read_all(two_frames(">P1\r", "\nMK\r\nV\r"), NULL, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 1);
    cr_assert_str_eq(r.header[0], "P1");
    cr_assert_str_eq(r.seq[0], "MKV");
    RECORDS s = {0};
    cr_assert_eq(read_all(two_frames(">P1\rMK\r", "\n>P2\rA#"), NULL, &s, &err), SW_EFORMAT);
    cr_assert_str_eq(strrchr(err.message, ':'), ": invalid residue '#' in sequence P2");
    cr_assert_neq(strstr(err.message, ":4: invalid"), NULL, "%s", err.message);
}

Test(fasta, reads_cr_only_zstd_input_like_plain_input)
{
    const char *text = ">P1 first\rMKV\rLLA\r>P2\rACD";
    size_t zn;
    FREED void *z = zstd_compress(text, strlen(text), &zn);
    RECORDS r = {0};
    sw_error err;
    cr_assert_eq(read_all(write_temp(z, zn), NULL, &r, &err), 0, "%s", err.message);
    cr_assert_eq(r.count, 2);
    cr_assert_str_eq(r.header[0], "P1 first");
    cr_assert_str_eq(r.seq[0], "MKVLLA");
    cr_assert_str_eq(r.seq[1], "ACD");
    cr_assert_eq(r.line[1], 4);
}

Test(fasta, skips_a_byte_order_mark_that_is_a_zstd_frame_of_its_own)
{
    RECORDS r = {0};
    sw_error err;
    cr_assert_eq(read_all(two_frames("\xEF\xBB\xBF", ">P1\nMK\n"), NULL, &r, &err), 0, "%s",
                 err.message);
    cr_assert_eq(r.count, 1);
    cr_assert_str_eq(r.header[0], "P1");
    cr_assert_str_eq(r.seq[0], "MK");
}

Test(fasta, rejects_a_truncated_zstd_stream)
{
    size_t n, zn;
    FREED void *plain = read_file(DATA("fasta_small.fa"), &n);
    FREED void *z = zstd_compress(plain, n, &zn);
    const char *p = write_temp(z, zn / 2);
    RECORDS r = {0};
    sw_error err;
    cr_assert_eq(read_all(p, NULL, &r, &err), SW_EFORMAT);
    char want[512];
    snprintf(want, sizeof want, "%s: corrupt zstd stream: ", p);
    cr_assert(strncmp(err.message, want, strlen(want)) == 0, "message: %s", err.message);
}

Test(fasta, rejects_a_corrupt_zstd_stream)
{
    size_t n, zn;
    FREED void *plain = read_file(DATA("fasta_small.fa"), &n);
    FREED unsigned char *z = zstd_compress(plain, n, &zn);
    z[4] |= 0x08; /* the reserved bit of the frame header descriptor */
    const char *p = write_temp(z, zn);
    RECORDS r = {0};
    sw_error err;
    cr_assert_eq(read_all(p, NULL, &r, &err), SW_EFORMAT);
    char want[512];
    snprintf(want, sizeof want, "%s: corrupt zstd stream: ", p);
    cr_assert(strncmp(err.message, want, strlen(want)) == 0, "message: %s", err.message);
}

Test(fasta, refuses_a_zstd_window_beyond_128_mb_before_taking_its_memory)
{
    /* A frame header alone: magic, no content size, a window of 2^28
     * bytes; then the start of a block. */
    static const unsigned char frame[] = {0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x90, 0x01, 0x00, 0x00};
    const char *p = write_temp(frame, sizeof frame);
    char want[512];
    snprintf(want, sizeof want,
             "%s: the zstd stream asks for a window of more than 128 MB (zstd --long=N with N > 27); "
             "recompress it with a smaller one (zstd --long) or decompress it first",
             p);
    expect_error(p, SW_EFORMAT, want);
}

Test(fasta, refuses_a_header_line_beyond_its_bound)
{
    /* The bound itself passes; one byte more fails on its line. */
    for (int over = 0; over <= 1; ++over) {
        const size_t n = SW_FASTA_MAX_HEADER + (size_t)over;
        FREED char *text = malloc(n + 16);
        text[0] = '>';
        memset(text + 1, 'h', n);
        memcpy(text + 1 + n, "\nMKV\n", 5);
        const char *p = write_temp(text, n + 6);
        RECORDS r = {0};
        sw_error err;
        sw_error_clear(&err);
        const int rc = read_all(p, NULL, &r, &err);
        if (!over) {
            cr_expect_eq(rc, 0, "%s", err.message);
            cr_expect_eq(r.count, 1);
        } else {
            char want[512];
            snprintf(want, sizeof want, "%s:1: header line longer than %zu bytes", p, SW_FASTA_MAX_HEADER);
            cr_expect_eq(rc, SW_ELIMIT);
            cr_expect_str_eq(err.message, want);
        }
    }
}

Test(fasta, rejects_gzip_input_with_advice)
{
    static const unsigned char gz[] = {0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03,
                                       0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const char *p = write_temp(gz, sizeof gz);
    sw_fasta *f = NULL;
    sw_error err;
    cr_assert_eq(sw_fasta_open(p, NULL, &f, &err), SW_EFORMAT);
    cr_assert_null(f);
    char want[512];
    snprintf(want, sizeof want,
             "%s: gzip-compressed input is not supported; decompress it first or recompress "
             "with zstd",
             p);
    cr_assert_str_eq(err.message, want);
}

Test(fasta, reports_a_missing_file_as_not_found)
{
    sw_fasta *f = NULL;
    sw_error err;
    cr_assert_eq(sw_fasta_open("/nonexistent/q.fa", NULL, &f, &err), SW_ENOTFOUND);
    cr_assert_null(f);
    cr_assert_str_eq(err.message, "/nonexistent/q.fa: No such file or directory");
}

Test(fasta, reads_standard_input_for_dash)
{
    const char *p = write_temp_str(">P1\nMK#\n");
    int fd = open(p, O_RDONLY);
    cr_assert_geq(fd, 0);
    cr_assert_geq(dup2(fd, STDIN_FILENO), 0);
    close(fd);
    expect_error("-", SW_EFORMAT, "<stdin>:2: invalid residue '#' in sequence P1");
}

Test(fasta, stops_a_sequence_longer_than_max_length)
{
    sw_fasta_options opt = {.max_length = 5};
    RECORDS r = {0};
    sw_error err;
    const char *p = write_temp_str(">ok\nMKVLA\n>P2 long\nMKV\nLAC\n");
    cr_assert_eq(read_all(p, &opt, &r, &err), SW_ELIMIT);
    char want[512];
    snprintf(want, sizeof want, "%s:5: sequence P2 is longer than 5 residues", p);
    cr_assert_str_eq(err.message, want);
}

Test(fasta, counts_progress_in_file_bytes)
{
    size_t n, zn;
    FREED void *plain = read_file(DATA("fasta_small.fa"), &n);
    FREED void *z = zstd_compress(plain, n, &zn);
    const char *p = write_temp(z, zn);
    sw_fasta *f;
    sw_error err;
    sw_fasta_record rec;
    cr_assert_eq(sw_fasta_open(p, NULL, &f, &err), 0);
    cr_assert_eq(sw_fasta_file_size(f), zn);
    while (sw_fasta_next(f, &rec, &err) == 1) {}
    cr_assert_eq(sw_fasta_file_offset(f), zn);
    cr_assert_eq(sw_fasta_bytes_read(f), n);
    sw_fasta_close(f);
}

static void split(const char *h, const char *id, const char *desc)
{
    size_t id_len, desc_len;
    const char *d;
    sw_fasta_split_header(h, strlen(h), &id_len, &d, &desc_len);
    cr_assert_eq(id_len, strlen(id), "header '%s'", h);
    cr_assert(strncmp(h, id, id_len) == 0, "header '%s'", h);
    cr_assert_eq(desc_len, strlen(desc), "header '%s'", h);
    cr_assert(strncmp(d, desc, desc_len) == 0, "header '%s'", h);
}

Test(fasta_header, splits_id_at_the_first_space)
{
    split("sp|P69905|HBA_HUMAN Hemoglobin subunit alpha", "sp|P69905|HBA_HUMAN",
          "Hemoglobin subunit alpha");
}

Test(fasta_header, splits_id_at_a_tab)
{
    split("P1\tsome protein", "P1", "some protein");
}

Test(fasta_header, skips_all_blanks_before_the_description)
{
    split("P1 \t  desc  ", "P1", "desc  ");
}

Test(fasta_header, gives_an_empty_description_without_blanks)
{
    split("P1", "P1", "");
    split("P1   ", "P1", "");
}

Test(fasta_header, gives_empty_id_and_description_for_an_empty_header)
{
    split("", "", "");
}

Test(fasta_header, gives_an_empty_id_for_a_leading_blank)
{
    split(" P1 desc", "", "P1 desc");
}
