/* Parsing of NCBI-format substitution matrices and lookup by name. */
#include "sw_matrix.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sw_parse.h"

struct sw_matrix {
    const sw_alphabet *alphabet;
    int max;
    int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
    char name[32]; /* upper case when loaded by name, else empty */
};

const sw_alphabet *sw_matrix_alphabet(const sw_matrix *m) { return m->alphabet; }
const int8_t *sw_matrix_table(const sw_matrix *m) { return m->table; }
int sw_matrix_max(const sw_matrix *m) { return m->max; }
const char *sw_matrix_name(const sw_matrix *m) { return m->name[0] ? m->name : NULL; }

void sw_matrix_free(sw_matrix *m) { free(m); }

/* Next line of `text` as [*line, *line + *n); returns 0 at the end. */
static int next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n)
{
    if (*pos >= len) return 0;
    const char *start = text + *pos;
    const char *nl = memchr(start, '\n', len - *pos);
    size_t l = nl ? (size_t)(nl - start) : len - *pos;
    *pos += l + (nl ? 1 : 0);
    if (l && start[l - 1] == '\r') l--;
    *line = start;
    *n = l;
    return 1;
}

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i])) return 0;
    return 1;
}

/* Offset of the first byte that has no place in a matrix's text (not
 * printable ASCII, not a tab), or n. Checked before a line is parsed, so
 * that messages quote only printable tokens. */
static size_t first_non_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '\t' && (c < 0x20 || c >= 0x7F)) return i;
    }
    return n;
}

/* The codes whose scores code `k` takes in a table: itself when the file
 * has it; for a protein residue the file lacks, its stand-ins (see
 * sw_matrix_parse); none when nothing stands in (the minimum applies).
 * `have` says which codes the file has. */
static int stand_ins(const sw_alphabet *alpha, const int *have, int k, int out[2])
{
    if (k >= alpha->size) return 0;
    if (have[k]) {
        out[0] = k;
        return 1;
    }
    if (alpha->kind == SW_ALPHABET_PROTEIN) {
        const int c = 4, i = 9, l = 10, kk = 11, j = 21, u = 25, o = 26;
        if (k == u) return out[0] = c, 1;
        if (k == o) return out[0] = kk, 1;
        if (k == j) return out[0] = i, out[1] = l, 2;
        if (have[SW_PROTEIN_X]) return out[0] = SW_PROTEIN_X, 1;
    }
    return 0;
}

int sw_matrix_parse(const char *text, size_t len, const char *source, sw_matrix **out,
                    sw_error *err)
{
    const sw_alphabet *alpha = sw_alphabet_protein();
    sw_matrix *m = calloc(1, sizeof *m);
    if (!m) return sw_error_set(err, SW_ENOMEM, "%s: out of memory", source);
    m->alphabet = alpha;

    uint8_t cols[SW_CODE_LIMIT];
    int ncols = 0;
    int have_row[SW_CODE_LIMIT] = {0};
    int have_col[SW_CODE_LIMIT] = {0};
    int rows = 0;
    size_t pos = 0, n;
    const char *line;
    unsigned long lineno = 0;
    int rc = SW_OK;

    while (next_line(text, len, &pos, &line, &n)) {
        lineno++;
        if (n && line[0] == '#') continue;
        size_t bad = first_non_text(line, n);
        if (bad < n) {
            rc = sw_error_set(err, SW_EFORMAT,
                              "%s:%lu: byte 0x%02X at column %zu: not a matrix in NCBI text format",
                              source, lineno, (unsigned char)line[bad], bad + 1);
            goto fail;
        }
        if (is_blank(line, n)) continue;
        char buf[4096];
        if (n >= sizeof buf) {
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: line too long for a matrix", source, lineno);
            goto fail;
        }
        memcpy(buf, line, n);
        buf[n] = '\0';
        char *save = NULL;
        if (ncols == 0) {
            for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
                uint8_t code = strlen(tok) == 1 ? sw_alphabet_encode(alpha, (unsigned char)tok[0])
                                                : SW_CODE_INVALID;
                if (code == SW_CODE_INVALID) {
                    rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: '%s' is not a residue letter",
                                      source, lineno, tok);
                    goto fail;
                }
                if (have_col[code]) {
                    rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: column '%s' appears twice", source,
                                      lineno, tok);
                    goto fail;
                }
                have_col[code] = 1;
                cols[ncols++] = code;
            }
            continue;
        }
        char *tok = strtok_r(buf, " \t", &save);
        uint8_t row = strlen(tok) == 1 ? sw_alphabet_encode(alpha, (unsigned char)tok[0])
                                       : SW_CODE_INVALID;
        if (row == SW_CODE_INVALID) {
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: row label '%s' is not a residue letter",
                              source, lineno, tok);
            goto fail;
        }
        if (!have_col[row]) {
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: row '%s' has no matching column", source,
                              lineno, tok);
            goto fail;
        }
        if (have_row[row]) {
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: row '%s' appears twice", source, lineno, tok);
            goto fail;
        }
        have_row[row] = 1;
        int c = 0;
        for (tok = strtok_r(NULL, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), c++) {
            long v;
            /* Any long: the score range has a message of its own, below. */
            if (sw_parse_long(tok, LONG_MIN, LONG_MAX, &v) != SW_OK) {
                rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: '%s' is not an integer score", source,
                                  lineno, tok);
                goto fail;
            }
            if (c >= ncols) {
                rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: row has more than %d scores", source,
                                  lineno, ncols);
                goto fail;
            }
            if (v < -127 || v > 127) {
                rc = sw_error_set(err, SW_EFORMAT,
                                  "%s:%lu: score %ld is outside the supported range -127..127",
                                  source, lineno, v);
                goto fail;
            }
            m->table[row * SW_CODE_LIMIT + cols[c]] = (int8_t)v;
        }
        if (c != ncols) {
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: row has %d scores, expected %d", source,
                              lineno, c, ncols);
            goto fail;
        }
        rows++;
    }
    if (ncols == 0) {
        rc = sw_error_set(err, SW_EFORMAT, "%s: no column header line: not a matrix in NCBI format",
                          source);
        goto fail;
    }
    if (rows != ncols) {
        rc = sw_error_set(err, SW_EFORMAT, "%s: %d columns but %d rows", source, ncols, rows);
        goto fail;
    }
    for (int i = 0; i < 20; i++) {
        if (!have_row[i]) {
            rc = sw_error_set(err, SW_EFORMAT, "%s: no row for the standard residue '%c'", source,
                              alpha->letters[i]);
            goto fail;
        }
    }

    /* Residues the file lacks (NCBI's files have no U, O or J) score as
     * ssearch36 scores them, its engine being our reference: U
     * (selenocysteine) as C, O (pyrrolysine) as K, J (leucine or isoleucine)
     * as the better of I and L, against the file's letters; against each
     * other as below. BLAST+ also scores U as C. Any other missing residue
     * scores as X when X is present, else as the matrix minimum: an unknown
     * residue should never look like a match. */
    int lo = INT_MAX, hi = INT_MIN;
    for (int i = 0; i < alpha->size; i++)
        for (int j = 0; j < alpha->size; j++)
            if (have_row[i] && have_col[j]) {
                int v = m->table[i * SW_CODE_LIMIT + j];
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
    for (int i = 0; i < SW_CODE_LIMIT; i++) {
        int rows[2], nrows = stand_ins(alpha, have_row, i, rows);
        for (int j = 0; j < SW_CODE_LIMIT; j++) {
            if (i < alpha->size && j < alpha->size && have_row[i] && have_col[j]) continue;
            int cols[2], ncols_in = stand_ins(alpha, have_col, j, cols);
            int v = INT_MIN;
            for (int a = 0; a < nrows; a++)
                for (int b = 0; b < ncols_in; b++) {
                    int t = m->table[rows[a] * SW_CODE_LIMIT + cols[b]];
                    v = t > v ? t : v;
                }
            m->table[i * SW_CODE_LIMIT + j] = (int8_t)(nrows && ncols_in ? v : lo);
        }
    }
    /* Where ssearch36 departs from the stand-ins (FASTA 36.3.8, initfa.c's
     * init_altpam(), which fills U, O and J against the 25 letters of its
     * own matrices only): U, O and J against each other keep its table's
     * initial 0; J against J is the better of I:I and L:L; U against '*'
     * scores as '*' against '*'. */
    if (alpha->kind == SW_ALPHABET_PROTEIN) {
        enum { I = 9, L = 10, J = 21, STOP = 24, U = 25, O = 26 };
        const int added[3] = {J, U, O};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                if (a != b && !have_row[added[a]] && !have_col[added[b]])
                    m->table[added[a] * SW_CODE_LIMIT + added[b]] = 0;
        if (!have_row[J] && !have_col[J]) {
            const int ii = m->table[I * SW_CODE_LIMIT + I], ll = m->table[L * SW_CODE_LIMIT + L];
            m->table[J * SW_CODE_LIMIT + J] = (int8_t)(ii > ll ? ii : ll);
        }
        if (have_row[STOP] && have_col[STOP]) {
            const int8_t stops = m->table[STOP * SW_CODE_LIMIT + STOP];
            if (!have_row[U]) m->table[U * SW_CODE_LIMIT + STOP] = stops;
            if (!have_col[U]) m->table[STOP * SW_CODE_LIMIT + U] = stops;
        }
    }
    /* Stand-ins copy existing entries, but those zeros may top a matrix of
     * negative scores. */
    for (int i = 0; i < alpha->size; i++)
        for (int j = 0; j < alpha->size; j++)
            hi = m->table[i * SW_CODE_LIMIT + j] > hi ? m->table[i * SW_CODE_LIMIT + j] : hi;
    m->max = hi;
    *out = m;
    return SW_OK;
fail:
    free(m);
    return rc;
}

static int read_file(const char *path, char **text, size_t *len, sw_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return sw_error_set(err, e == ENOENT ? SW_ENOTFOUND : SW_EIO, "%s: %s", path, strerror(e));
    }
    /* fopen opens a directory for reading on Linux; only the read fails. */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return sw_error_set(err, SW_EIO, "%s: is a directory", path);
    }
    size_t cap = 1 << 14, n = 0;
    char *buf = malloc(cap);
    int read_errno = 0;
    while (buf) {
        errno = 0;
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) {
            read_errno = errno;
            break;
        }
        if (cap >= (1u << 24)) {
            free(buf);
            fclose(f);
            return sw_error_set(err, SW_EFORMAT, "%s: too large to be a substitution matrix", path);
        }
        char *bigger = realloc(buf, cap *= 2);
        if (!bigger) free(buf);
        buf = bigger;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf) return sw_error_set(err, SW_ENOMEM, "%s: out of memory", path);
    if (bad) {
        free(buf);
        return sw_error_set(err, SW_EIO, "%s: %s", path,
                            read_errno ? strerror(read_errno) : "read error");
    }
    *text = buf;
    *len = n;
    return SW_OK;
}

static int is_regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int load(const char *path_or_name, int names_only, sw_matrix **out, sw_error *err)
{
    char path[4096];
    const char *found = NULL;
    if (names_only && strchr(path_or_name, '/'))
        return sw_error_set(err, SW_EINVAL, "'%s': a matrix is given by name here, not as a file", path_or_name);
    if (!names_only && (strchr(path_or_name, '/') || is_regular_file(path_or_name))) {
        found = path_or_name;
    } else {
        char upper[256];
        size_t n = strlen(path_or_name);
        if (n == 0 || n >= sizeof upper)
            return sw_error_set(err, SW_ENOTFOUND, "matrix name '%s' is not valid", path_or_name);
        for (size_t i = 0; i <= n; i++) upper[i] = (char)toupper((unsigned char)path_or_name[i]);
        const char *dirs[] = {
            getenv("SWSEARCH_MATRIX_DIR"),
#ifdef SW_MATRIX_INSTALL_DIR
            SW_MATRIX_INSTALL_DIR,
#endif
#ifdef SW_MATRIX_SOURCE_DIR
            SW_MATRIX_SOURCE_DIR,
#endif
        };
        for (size_t d = 0; d < sizeof dirs / sizeof *dirs && !found; d++) {
            if (!dirs[d] || !*dirs[d]) continue;
            snprintf(path, sizeof path, "%s/%s", dirs[d], upper);
            if (is_regular_file(path)) found = path;
        }
        /* A directory is no name: say what it is rather than "not found". */
        struct stat st;
        if (!found && !names_only && stat(path_or_name, &st) == 0 && S_ISDIR(st.st_mode))
            return sw_error_set(err, SW_EIO, "%s: is a directory", path_or_name);
        if (!found)
            return sw_error_set(err, SW_ENOTFOUND,
                                "matrix '%s' not found (give a file path, or one of BLOSUM45, "
                                "BLOSUM50, BLOSUM62, BLOSUM80, BLOSUM90, PAM30, PAM70, PAM250)",
                                path_or_name);
    }
    char *text = NULL;
    size_t len = 0;
    int rc = read_file(found, &text, &len, err);
    if (rc) return rc;
    rc = sw_matrix_parse(text, len, found, out, err);
    free(text);
    if (rc == SW_OK && found == path && strlen(path_or_name) < sizeof (*out)->name)
        for (size_t i = 0; path_or_name[i]; i++)
            (*out)->name[i] = (char)toupper((unsigned char)path_or_name[i]);
    return rc;
}

int sw_matrix_load(const char *path_or_name, sw_matrix **out, sw_error *err)
{
    return load(path_or_name, 0, out, err);
}

int sw_matrix_load_name(const char *name, sw_matrix **out, sw_error *err) { return load(name, 1, out, err); }

int sw_scoring_init(sw_scoring *s, const sw_matrix *m, int gap_open, int gap_extend, sw_error *err)
{
    if (gap_open < 0 || gap_open > 255)
        return sw_error_set(err, SW_EINVAL, "gap open penalty must be between 0 and 255 (got %d)",
                            gap_open);
    if (gap_extend < 1 || gap_extend > 255)
        return sw_error_set(err, SW_EINVAL, "gap extend penalty must be between 1 and 255 (got %d)",
                            gap_extend);
    s->table = sw_matrix_table(m);
    s->rows = NULL; /* a PSSM query sets its own */
    s->gap_open = gap_open;
    s->gap_extend = gap_extend;
    s->max_score = sw_matrix_max(m);
    return SW_OK;
}
