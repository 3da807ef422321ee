/* Substitution matrices, the scoring scheme and the alphabets. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sw_alphabet.h"
#include "sw_matrix.h"

static const sw_alphabet *P(void) { return sw_alphabet_protein(); }
static uint8_t code(char c) { return sw_alphabet_encode(P(), (unsigned char)c); }

static int score(const sw_matrix *m, char a, char b)
{
    return sw_matrix_score(sw_matrix_table(m), code(a), code(b));
}

static sw_matrix *parse_ok(const char *text)
{
    sw_matrix *m = NULL;
    sw_error err;
    int rc = sw_matrix_parse(text, strlen(text), "test.mat", &m, &err);
    cr_assert_eq(rc, SW_OK, "%s", err.message);
    return m;
}

static void parse_fails(const char *text, const char *expected_message_part)
{
    sw_matrix *m = NULL;
    sw_error err;
    int rc = sw_matrix_parse(text, strlen(text), "bad.mat", &m, &err);
    cr_assert_eq(rc, SW_EFORMAT);
    cr_assert_null(m);
    cr_assert(strstr(err.message, expected_message_part), "message was: %s", err.message);
    cr_assert(strstr(err.message, "bad.mat"), "message names the file: %s", err.message);
}

/* A 20-letter matrix (no B, Z, X, *) with score 1 on the diagonal; `bad_cell`
 * (if not NULL) replaces the score of row V, column V. */
static char *identity20(const char *bad_cell)
{
    static char buf[4096];
    const char *letters = "ARNDCQEGHILKMFPSTWYV";
    size_t o = 0;
    for (int j = 0; j < 20; j++) o += (size_t)sprintf(buf + o, "  %c", letters[j]);
    buf[o++] = '\n';
    for (int i = 0; i < 20; i++) {
        o += (size_t)sprintf(buf + o, "%c", letters[i]);
        for (int j = 0; j < 20; j++) {
            if (i == 19 && j == 19 && bad_cell) o += (size_t)sprintf(buf + o, " %s", bad_cell);
            else o += (size_t)sprintf(buf + o, " %2d", i == j ? 1 : -1);
        }
        buf[o++] = '\n';
    }
    buf[o] = '\0';
    return buf;
}

Test(alphabet, protein_letters_round_trip_in_both_cases)
{
    for (int i = 0; i < P()->size; i++) {
        char c = P()->letters[i];
        cr_assert_eq(code(c), i);
        cr_assert_eq(code((char)tolower((unsigned char)c)), i);
        cr_assert_eq(sw_alphabet_decode(P(), (uint8_t)i), c);
    }
}

Test(alphabet, protein_rejects_everything_else)
{
    int valid = 0;
    for (int c = 0; c < 256; c++)
        if (sw_alphabet_encode(P(), (unsigned char)c) != SW_CODE_INVALID) valid++;
    cr_assert_eq(valid, 26 * 2 + 1, "26 letters in two cases and '*'");
    cr_assert_eq(code('#'), SW_CODE_INVALID);
    cr_assert_eq(code('-'), SW_CODE_INVALID);
    cr_assert_eq(code('1'), SW_CODE_INVALID);
}

Test(alphabet, standard_residues_have_codes_below_20)
{
    const char *standard = "ACDEFGHIKLMNPQRSTVWY";
    for (const char *s = standard; *s; s++) cr_assert_lt(code(*s), 20);
}

Test(alphabet, dna_maps_iupac_codes_to_n)
{
    const sw_alphabet *d = sw_alphabet_dna();
    cr_assert_eq(sw_alphabet_encode(d, 'a'), 0);
    cr_assert_eq(sw_alphabet_encode(d, 'C'), 1);
    cr_assert_eq(sw_alphabet_encode(d, 'g'), 2);
    cr_assert_eq(sw_alphabet_encode(d, 'T'), 3);
    for (const char *s = "NRYSWKMBDHVnrysw"; *s; s++)
        cr_assert_eq(sw_alphabet_encode(d, (unsigned char)*s), SW_DNA_N, "%c", *s);
    for (const char *s = "EFIJLOPQUXZ*-1"; *s; s++)
        cr_assert_eq(sw_alphabet_encode(d, (unsigned char)*s), SW_CODE_INVALID, "%c", *s);
}

Test(matrix, loads_every_shipped_matrix_by_name)
{
    const char *names[] = {"BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80",
                           "BLOSUM90", "PAM30",    "PAM70",    "PAM250"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SW_MATRIX_DIR, names[i]);
        sw_matrix *m = NULL;
        sw_error err;
        cr_assert_eq(sw_matrix_load(path, &m, &err), SW_OK, "%s", err.message);
        /* Every shipped matrix is symmetric and rewards identity. */
        for (int a = 0; a < SW_PROTEIN_CODES; a++)
            for (int b = 0; b < SW_PROTEIN_CODES; b++)
                cr_assert_eq(sw_matrix_score(sw_matrix_table(m), (uint8_t)a, (uint8_t)b),
                             sw_matrix_score(sw_matrix_table(m), (uint8_t)b, (uint8_t)a));
        for (int a = 0; a < 20; a++)
            cr_assert_gt(sw_matrix_score(sw_matrix_table(m), (uint8_t)a, (uint8_t)a), 0);
        sw_matrix_free(m);
    }
}

Test(matrix, blosum62_has_the_ncbi_values)
{
    sw_matrix *m = NULL;
    sw_error err;
    cr_assert_eq(sw_matrix_load(SW_MATRIX_DIR "/BLOSUM62", &m, &err), SW_OK, "%s", err.message);
    cr_assert_eq(score(m, 'A', 'A'), 4);
    cr_assert_eq(score(m, 'W', 'W'), 11);
    cr_assert_eq(score(m, 'C', 'C'), 9);
    cr_assert_eq(score(m, 'W', 'F'), 1);
    cr_assert_eq(score(m, 'E', 'Z'), 4);
    cr_assert_eq(score(m, 'N', 'B'), 3);
    cr_assert_eq(score(m, 'A', 'X'), 0);
    cr_assert_eq(score(m, 'X', 'X'), -1);
    /* The '*' row and column are ssearch36's (its BL62): X's scores, and 6
     * against '*'. */
    cr_assert_eq(score(m, '*', 'A'), 0);
    cr_assert_eq(score(m, 'W', '*'), -2);
    cr_assert_eq(score(m, '*', 'X'), -1);
    cr_assert_eq(score(m, '*', '*'), 6);
    cr_assert_eq(sw_matrix_max(m), 11);
    /* Codes past the alphabet score the matrix minimum. */
    cr_assert_eq(sw_matrix_score(sw_matrix_table(m), SW_CODE_LIMIT - 1, SW_CODE_LIMIT - 1), -4);
    sw_matrix_free(m);
}

/* The figures are ssearch36's (FASTA 36.3.8, -s BL62), measured with a
 * query WWWWWWWWxWWWWWWWW against WWWWWWWWyWWWWWWWW for every pair x, y. */
Test(matrix, u_o_and_j_score_as_ssearch36_scores_them)
{
    sw_matrix *m = NULL;
    sw_error err;
    cr_assert_eq(sw_matrix_load(SW_MATRIX_DIR "/BLOSUM62", &m, &err), SW_OK, "%s", err.message);
    const char *letters = "ARNDCQEGHILKMFPSTWYVBZX";
    for (const char *a = letters; *a; a++) {
        cr_assert_eq(score(m, 'U', *a), score(m, 'C', *a), "U against %c", *a);
        cr_assert_eq(score(m, *a, 'U'), score(m, *a, 'C'), "%c against U", *a);
        cr_assert_eq(score(m, 'O', *a), score(m, 'K', *a), "O against %c", *a);
        int i = score(m, 'I', *a), l = score(m, 'L', *a);
        cr_assert_eq(score(m, 'J', *a), i > l ? i : l, "J against %c", *a);
    }
    cr_assert_eq(score(m, 'U', 'U'), 9);
    cr_assert_eq(score(m, 'O', 'O'), 5);
    cr_assert_eq(score(m, 'J', 'J'), 4);
    cr_assert_eq(score(m, 'J', 'V'), 3);
    cr_assert_eq(score(m, 'J', 'K'), -2);
    cr_assert_eq(score(m, 'J', 'M'), 2);
    sw_matrix_free(m);
}

/* Every pair of * U O J B Z X, against each other and the 20 standard
 * letters, as ssearch36 36.3.8 -s BL62 scores it (the same probe); the
 * rest of the table is BLOSUM62's. */
Test(matrix, special_letters_against_each_other_score_as_ssearch36_scores_them)
{
    sw_matrix *m = NULL;
    sw_error err;
    cr_assert_eq(sw_matrix_load(SW_MATRIX_DIR "/BLOSUM62", &m, &err), SW_OK, "%s", err.message);
    static const char letters[] = "*UOJBZX";
    static const int want[7][7] = {
        /*        *   U   O   J   B   Z   X */
        /* * */ {6, 6, -1, -1, -1, -1, -1},
        /* U */ {6, 9, 0, 0, -3, -3, -2},
        /* O */ {-1, 0, 5, 0, 0, 1, -1},
        /* J */ {-1, 0, 0, 4, -3, -3, -1},
        /* B */ {-1, -3, 0, -3, 4, 1, -1},
        /* Z */ {-1, -3, 1, -3, 1, 4, -1},
        /* X */ {-1, -2, -1, -1, -1, -1, -1},
    };
    for (int a = 0; a < 7; a++)
        for (int b = 0; b < 7; b++)
            cr_expect_eq(score(m, letters[a], letters[b]), want[a][b], "%c against %c: %d, ssearch36 %d", letters[a],
                         letters[b], score(m, letters[a], letters[b]), want[a][b]);
    /* '*' against the standard letters: X's scores, both ways. */
    for (const char *a = "ARNDCQEGHILKMFPSTWYV"; *a; a++) {
        cr_expect_eq(score(m, '*', *a), score(m, 'X', *a), "* against %c", *a);
        cr_expect_eq(score(m, *a, '*'), score(m, *a, 'X'), "%c against *", *a);
    }
    sw_matrix_free(m);
}

Test(matrix, added_letters_follow_any_matrix)
{
    /* A file without U, O and J: they get 0 against each other, J against
     * J the better of I:I and L:L (not I:L), U against '*' the file's '*'
     * against '*', even where 0 tops every score of the file. */
    char text[8192];
    const char *letters = "ARNDCQEGHILKMFPSTWYVX*";
    size_t n = (size_t)snprintf(text, sizeof text, " ");
    for (const char *c = letters; *c; c++) n += (size_t)snprintf(text + n, sizeof text - n, " %c", *c);
    n += (size_t)snprintf(text + n, sizeof text - n, "\n");
    for (const char *r = letters; *r; r++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "%c", *r);
        for (const char *c = letters; *c; c++) {
            int v = *r == *c ? -1 : -5;
            if ((*r == 'I' && *c == 'L') || (*r == 'L' && *c == 'I')) v = -1;
            if (*r == 'I' && *c == 'I') v = -3;
            if (*r == 'L' && *c == 'L') v = -2;
            n += (size_t)snprintf(text + n, sizeof text - n, " %d", v);
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "\n");
    }
    sw_matrix *m = NULL;
    sw_error err;
    cr_assert_eq(sw_matrix_parse(text, n, "neg", &m, &err), SW_OK, "%s", err.message);
    cr_expect_eq(score(m, 'U', 'O'), 0);
    cr_expect_eq(score(m, 'O', 'J'), 0);
    cr_expect_eq(score(m, 'J', 'U'), 0);
    cr_expect_eq(score(m, 'J', 'J'), -2);
    cr_expect_eq(score(m, 'J', 'I'), -1);
    cr_expect_eq(score(m, 'U', '*'), -1);
    cr_expect_eq(score(m, '*', 'U'), -1);
    cr_expect_eq(score(m, 'O', '*'), -5);
    cr_expect_eq(sw_matrix_max(m), 0);
    sw_matrix_free(m);
}

Test(matrix, without_x_missing_residues_score_the_minimum)
{
    sw_matrix *m = parse_ok(identity20(NULL));
    cr_assert_eq(score(m, 'A', 'A'), 1);
    cr_assert_eq(score(m, 'B', 'B'), -1);
    cr_assert_eq(score(m, 'X', 'A'), -1);
    sw_matrix_free(m);
}

Test(matrix, names_are_case_insensitive)
{
    sw_matrix *m = NULL;
    sw_error err;
    setenv("SWSEARCH_MATRIX_DIR", SW_MATRIX_DIR, 1);
    cr_assert_eq(sw_matrix_load("pam30", &m, &err), SW_OK, "%s", err.message);
    cr_assert_eq(score(m, 'W', 'W'), 13);
    sw_matrix_free(m);
}

Test(matrix, unknown_name_is_not_found)
{
    sw_matrix *m = NULL;
    sw_error err;
    cr_assert_eq(sw_matrix_load("BLOSUM63", &m, &err), SW_ENOTFOUND);
    cr_assert(strstr(err.message, "BLOSUM63"), "%s", err.message);
}

Test(matrix, comments_blank_lines_and_crlf_are_accepted)
{
    char text[8192];
    /* A comment may hold any bytes, UTF-8 among them. */
    snprintf(text, sizeof text, "# a comment by J\xc3\xb6rg\r\n\r\n%s", identity20(NULL));
    sw_matrix *m = parse_ok(text);
    cr_assert_eq(score(m, 'V', 'V'), 1);
    sw_matrix_free(m);
}

Test(matrix, rejects_non_integer_score)
{
    parse_fails(identity20("x1"), "'x1' is not an integer");
}

Test(matrix, rejects_score_out_of_range)
{
    parse_fails(identity20("300"), "outside the supported range");
}

Test(matrix, rejects_short_row)
{
    const char *text = "  A  R\nA  1 -1\nR  1\n";
    parse_fails(text, "bad.mat:3: row has 1 scores, expected 2");
}

Test(matrix, rejects_long_row)
{
    const char *text = "  A  R\nA  1 -1 5\n";
    parse_fails(text, "bad.mat:2: row has more than 2 scores");
}

Test(matrix, rejects_unknown_letter_in_header)
{
    parse_fails("  A  #\n", "bad.mat:1: '#' is not a residue letter");
}

Test(matrix, rejects_duplicate_row)
{
    parse_fails("  A  R\nA 1 0\nA 1 0\n", "row 'A' appears twice");
}

Test(matrix, rejects_missing_standard_residue)
{
    parse_fails("  A  R\nA 1 0\nR 0 1\n", "no row for the standard residue");
}

Test(matrix, rejects_empty_text)
{
    parse_fails("# only a comment\n", "not a matrix in NCBI format");
}

Test(scoring, rejects_bad_gap_penalties)
{
    sw_matrix *m = parse_ok(identity20(NULL));
    sw_scoring s;
    sw_error err;
    cr_assert_eq(sw_scoring_init(&s, m, 11, 1, &err), SW_OK);
    cr_assert_eq(s.max_score, 1);
    cr_assert_eq(sw_scoring_init(&s, m, -1, 1, &err), SW_EINVAL);
    cr_assert_eq(sw_scoring_init(&s, m, 11, 0, &err), SW_EINVAL);
    cr_assert_eq(sw_scoring_init(&s, m, 256, 1, &err), SW_EINVAL);
    sw_matrix_free(m);
}

static int all_printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7F) return 0;
    return 1;
}

Test(matrix, binary_bytes_are_reported_not_echoed)
{
    /* An escape sequence, a NUL and a UTF-8 letter inside tokens that the
     * message would otherwise quote. */
    static const char text[] = "  A  R\nA  1 \x1b[2J\x00-1\nR \xc3\xa9 1\n";
    sw_matrix *m = NULL;
    sw_error err;
    int rc = sw_matrix_parse(text, sizeof text - 1, "bad.mat", &m, &err);
    cr_assert_eq(rc, SW_EFORMAT);
    cr_assert_null(m);
    cr_assert(strstr(err.message, "bad.mat:2: byte 0x1B at column 6"), "%s", err.message);
    cr_assert(all_printable(err.message), "raw bytes in the message");
}

Test(matrix, a_directory_is_named_as_such)
{
    char dir[] = "/tmp/sw_matrix_dir_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    sw_matrix *m = NULL;
    sw_error err;
    char expected[64];
    snprintf(expected, sizeof expected, "%s: is a directory", dir);
    int rc = sw_matrix_load(dir, &m, &err);
    /* The same for a bare name, which is otherwise looked up as a matrix name. */
    char sub[sizeof dir + 16];
    snprintf(sub, sizeof sub, "%s/blosum", dir);
    int made = mkdir(sub, 0700);
    int in_dir = made == 0 && chdir(dir) == 0;
    sw_error err2;
    int rc2 = in_dir ? sw_matrix_load("blosum", &m, &err2) : SW_OK;
    if (made == 0) rmdir(sub);
    rmdir(dir);
    cr_assert_eq(rc, SW_EIO);
    cr_assert_str_eq(err.message, expected);
    cr_assert(in_dir);
    cr_assert_eq(rc2, SW_EIO);
    cr_assert_str_eq(err2.message, "blosum: is a directory");
    cr_assert_null(m);
}

Test(matrix, a_matrix_found_by_name_keeps_its_name_and_a_file_has_none)
{
    sw_matrix *m = NULL;
    sw_error err;
    setenv("SWSEARCH_MATRIX_DIR", SW_MATRIX_DIR, 1);
    cr_assert_eq(sw_matrix_load("blosum62", &m, &err), SW_OK, "%s", err.message);
    cr_assert_str_eq(sw_matrix_name(m), "BLOSUM62");
    sw_matrix_free(m);
    cr_assert_eq(sw_matrix_load(SW_MATRIX_DIR "/BLOSUM62", &m, &err), SW_OK, "%s", err.message);
    cr_assert_null(sw_matrix_name(m));
    sw_matrix_free(m);
}
