/* PSSM files: swsearch's own text format, written and read back, and
 * PSI-BLAST's ASCII PSSM, read (sw_pssm.h). */
#include "sw_pssm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sw_parse.h"

#define MAGIC "swsearch-pssm"
/* PSI-BLAST's first 20 score columns, which are codes 0-19 in order. */
static const char standard_letters[] = "ARNDCQEGHILKMFPSTWYV";
/* Fields kept of a line: more than either format's lines have (PSI-BLAST's
 * position lines have 44). */
#define MAX_FIELDS 48

/* ---- Lines and fields ---- */

typedef struct reader {
    const char *text;
    size_t len, pos;
    const char *source;
    unsigned long line;  /* of the line last read */
    char *buf;           /* the line last read, NUL-terminated, cut into fields */
    size_t cap;
    char *field[MAX_FIELDS];
    int fields;          /* how many the line has (the first MAX_FIELDS are kept) */
    const char *raw;     /* the line as in the text, without its end */
    size_t raw_len;
} reader;

/* Reads the next line into r->buf and splits it at blanks; 0 at the end. */
static int next_line(reader *r, sw_error *err, int *rc)
{
    *rc = SW_OK;
    if (r->pos >= r->len) return 0;
    const char *start = r->text + r->pos;
    const char *nl = memchr(start, '\n', r->len - r->pos);
    size_t n = nl ? (size_t)(nl - start) : r->len - r->pos;
    r->pos += n + (nl != NULL);
    ++r->line;
    if (n && start[n - 1] == '\r') --n;
    if (n + 1 > r->cap) {
        char *grown = realloc(r->buf, n + 1);
        if (!grown) {
            *rc = sw_error_set(err, SW_ENOMEM, "%s:%lu: out of memory", r->source, r->line);
            return 0;
        }
        r->buf = grown;
        r->cap = n + 1;
    }
    memcpy(r->buf, start, n);
    r->buf[n] = 0;
    if (memchr(r->buf, 0, n)) {
        *rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: a NUL byte: not a text file", r->source, r->line);
        return 0;
    }
    r->raw = start;
    r->raw_len = n;
    r->fields = 0;
    char *save = NULL;
    for (char *f = strtok_r(r->buf, " \t", &save); f; f = strtok_r(NULL, " \t", &save)) {
        if (r->fields < MAX_FIELDS) r->field[r->fields] = f;
        ++r->fields;
    }
    return 1;
}

/* A field as a message may show it. */
static const char *shown(const char *field, char *buf, size_t cap)
{
    sw_error_quote(buf, cap, field, strlen(field), 40);
    return buf;
}

static int score_field(reader *r, int k, const char *column, int8_t *out, sw_error *err)
{
    long v;
    if (sw_parse_long(r->field[k], -128, 127, &v)) {
        char s[4 * 40 + 8];
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: score '%s' of column %s is not a whole number from -128 to 127",
                            r->source, r->line, shown(r->field[k], s, sizeof s), column);
    }
    *out = (int8_t)v;
    return SW_OK;
}

/* The line's first field as the position number `expected` (from 1), and
 * its second as the residue letter, into p->query[expected - 1]. */
static int position_fields(reader *r, size_t expected, sw_pssm *p, sw_error *err)
{
    char s[4 * 40 + 8];
    long v;
    if (sw_parse_long(r->field[0], 1, LONG_MAX, &v) || (size_t)v != expected)
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: expected position %zu, found '%s'", r->source, r->line,
                            expected, shown(r->field[0], s, sizeof s));
    const uint8_t code = strlen(r->field[1]) == 1
                             ? sw_alphabet_encode(sw_alphabet_protein(), (unsigned char)r->field[1][0])
                             : SW_CODE_INVALID;
    if (code == SW_CODE_INVALID)
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: '%s' at position %zu is not a protein residue", r->source,
                            r->line, shown(r->field[1], s, sizeof s), expected);
    p->query[expected - 1] = code;
    return SW_OK;
}

/* ---- PSI-BLAST's ASCII PSSM ---- */

/* Whether the line's first 20 fields are A R N D ... V. */
static int is_column_header(const reader *r)
{
    if (r->fields < 20) return 0;
    for (int k = 0; k < 20; ++k)
        if (r->field[k][0] != standard_letters[k] || r->field[k][1]) return 0;
    return 1;
}

/* The file's name without its folders, as the PSSM's label. */
static const char *base_name(const char *source)
{
    const char *slash = strrchr(source, '/');
    return slash ? slash + 1 : source;
}

static int parse_psiblast(reader *r, const sw_matrix *m, sw_pssm **out, sw_error *err)
{
    if (!m)
        return sw_error_set(err, SW_EINVAL,
                            "%s: a PSI-BLAST PSSM is read with the matrix psiblast ran with: none given", r->source);
    int rc = sw_pssm_check_matrix(m, err);
    if (rc) return rc;
    int found = 0;
    while (!found && next_line(r, err, &rc)) found = is_column_header(r);
    if (rc) return rc;
    if (!found)
        return sw_error_set(err, SW_EFORMAT,
                            "%s: not a PSSM: neither a '" MAGIC "' first line nor PSI-BLAST's line of column letters "
                            "'A R N D C Q E G H I L K M F P S T W Y V'",
                            r->source);
    /* The positions, up to the blank line before the statistics; counted
     * first so that the PSSM is made once. */
    const size_t after_header = r->pos;
    const unsigned long header_line = r->line;
    size_t length = 0;
    while (next_line(r, err, &rc) && r->fields > 0) ++length;
    if (rc) return rc;
    if (length == 0)
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: no positions after the line of column letters", r->source,
                            header_line + 1);
    sw_pssm *p = NULL;
    if ((rc = sw_pssm_new(length, base_name(r->source), &p, err))) return rc;
    r->pos = after_header;
    r->line = header_line;
    for (size_t i = 0; !rc && i < length; ++i) {
        next_line(r, err, &rc);
        if (rc) break;
        if (r->fields < 22) {
            rc = sw_error_set(err, SW_EFORMAT,
                              "%s:%lu: %d fields: a position line has the position, the residue and 20 scores",
                              r->source, r->line, r->fields);
            break;
        }
        rc = position_fields(r, i + 1, p, err);
        for (int k = 0; !rc && k < 20; ++k) {
            const char column[2] = {standard_letters[k], 0};
            rc = score_field(r, 2 + k, column, p->scores + i * SW_CODE_LIMIT + k, err);
        }
        if (!rc) sw_pssm_complete_row(p, i, m);
    }
    if (rc) {
        sw_pssm_free(p);
        return rc;
    }
    if (sw_matrix_name(m)) snprintf(p->matrix, sizeof p->matrix, "%s", sw_matrix_name(m));
    *out = p;
    return SW_OK;
}

/* ---- swsearch's format ---- */

/* The next line, which must start with `key`; its fields follow. */
static int keyed_line(reader *r, const char *key, int min_fields, int max_fields, const char *what, sw_error *err)
{
    int rc;
    const int got = next_line(r, err, &rc);
    if (rc) return rc;
    if (!got)
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: the file ends before the '%s' line", r->source, r->line, key);
    if (r->fields == 0 || strcmp(r->field[0], key) || r->fields < min_fields || r->fields > max_fields)
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: expected '%s%s%s'", r->source, r->line, key, *what ? " " : "",
                            what);
    return SW_OK;
}

/* A count, or '-' for 0 (not known). */
static int count_field(reader *r, int k, long max, long *out, sw_error *err)
{
    if (!strcmp(r->field[k], "-")) return *out = 0, SW_OK;
    if (sw_parse_long(r->field[k], 1, max, out)) {
        char s[4 * 40 + 8];
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: '%s' is not a whole number from 1 to %ld (or '-')", r->source,
                            r->line, shown(r->field[k], s, sizeof s), max);
    }
    return SW_OK;
}

static int parse_own(reader *r, sw_pssm **out, sw_error *err)
{
    char s[4 * 40 + 8];
    int rc = keyed_line(r, MAGIC, 2, 2, "VERSION", err);
    if (rc) return rc;
    long version;
    if (sw_parse_long(r->field[1], 1, LONG_MAX, &version))
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: '%s' is not a format version", r->source, r->line,
                            shown(r->field[1], s, sizeof s));
    if (version > SW_PSSM_FORMAT_VERSION)
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: format version %ld is newer than this program reads (%d)",
                            r->source, r->line, version, SW_PSSM_FORMAT_VERSION);

    /* The label is the rest of its line after "label " as it stands. */
    if ((rc = keyed_line(r, "label", 1, INT_MAX, "TEXT", err))) return rc;
    const size_t key_len = strlen("label");
    const char *label = r->raw + key_len + (r->raw_len > key_len);
    const size_t label_len = r->raw_len - (size_t)(label - r->raw);
    if (r->raw_len > key_len && r->raw[key_len] != ' ')
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: expected 'label TEXT'", r->source, r->line);

    long sequences, length, gap_open = 0, gap_extend = 0;
    double effective = 0;
    if ((rc = keyed_line(r, "sequences", 2, 2, "N", err)) || (rc = count_field(r, 1, LONG_MAX, &sequences, err)))
        return rc;
    if ((rc = keyed_line(r, "effective", 2, 2, "NUMBER", err))) return rc;
    if (strcmp(r->field[1], "-")) {
        char *end;
        errno = 0;
        effective = strtod(r->field[1], &end);
        if (*end || errno || !(effective > 0) || effective > 1e300)
            return sw_error_set(err, SW_EFORMAT, "%s:%lu: '%s' is not a positive number (or '-')", r->source, r->line,
                                shown(r->field[1], s, sizeof s));
    }
    if ((rc = keyed_line(r, "matrix", 2, 2, "NAME", err))) return rc;
    char matrix[sizeof ((sw_pssm *)0)->matrix] = "";
    if (strcmp(r->field[1], "-")) {
        if (strlen(r->field[1]) >= sizeof matrix)
            return sw_error_set(err, SW_EFORMAT, "%s:%lu: matrix name '%s' is longer than %zu characters", r->source,
                                r->line, shown(r->field[1], s, sizeof s), sizeof matrix - 1);
        memcpy(matrix, r->field[1], strlen(r->field[1]) + 1);
    }
    if ((rc = keyed_line(r, "gaps", 3, 3, "OPEN EXTEND", err))) return rc;
    if (strcmp(r->field[1], "-") || strcmp(r->field[2], "-")) {
        if (sw_parse_long(r->field[1], 0, 255, &gap_open) || sw_parse_long(r->field[2], 1, 255, &gap_extend))
        {
            char t[4 * 40 + 8];
            return sw_error_set(err, SW_EFORMAT,
                                "%s:%lu: gap costs '%s %s': an opening of 0 to 255 and an extension of 1 to 255 "
                                "(or '- -')",
                                r->source, r->line, shown(r->field[1], s, sizeof s), shown(r->field[2], t, sizeof t));
        }
    }
    if ((rc = keyed_line(r, "length", 2, 2, "L", err))) return rc;
    if (sw_parse_long(r->field[1], 1, LONG_MAX, &length))
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: length '%s' is not a whole number of 1 or more", r->source,
                            r->line, shown(r->field[1], s, sizeof s));
    /* Each position takes a line of at least 2 + 2 x 27 bytes: a length
     * the text cannot hold is refused before the memory is taken. */
    if ((size_t)length > r->len / (2 + 2 * SW_PROTEIN_CODES))
        return sw_error_set(err, SW_EFORMAT, "%s:%lu: length %ld, but the file is too short for it", r->source,
                            r->line, length);

    const sw_alphabet *protein = sw_alphabet_protein();
    if ((rc = keyed_line(r, "columns", 1 + SW_PROTEIN_CODES, 1 + SW_PROTEIN_CODES, "and the protein letters", err)))
        return rc;
    for (int c = 0; c < SW_PROTEIN_CODES; ++c)
        if (r->field[1 + c][0] != protein->letters[c] || r->field[1 + c][1])
            return sw_error_set(err, SW_EFORMAT, "%s:%lu: column %d is '%s', expected '%c' (the codes in order %s)",
                                r->source, r->line, c + 1, shown(r->field[1 + c], s, sizeof s), protein->letters[c],
                                protein->letters);

    sw_pssm *p = NULL;
    char *label_copy = strndup(label, label_len);
    if (!label_copy) return sw_error_set(err, SW_ENOMEM, "%s: out of memory", r->source);
    rc = sw_pssm_new((size_t)length, label_copy, &p, err);
    free(label_copy);
    if (rc) return rc;
    for (size_t i = 0; !rc && i < (size_t)length; ++i) {
        int got = next_line(r, err, &rc);
        if (rc) break;
        if (!got) {
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: the file ends after %zu of %ld positions", r->source, r->line,
                              i, length);
            break;
        }
        if (r->fields != 2 + SW_PROTEIN_CODES) {
            rc = sw_error_set(err, SW_EFORMAT,
                              "%s:%lu: %d fields: a position line has the position, the residue and %d scores",
                              r->source, r->line, r->fields, SW_PROTEIN_CODES);
            break;
        }
        rc = position_fields(r, i + 1, p, err);
        int8_t *row = p->scores + i * SW_CODE_LIMIT;
        for (int c = 0; !rc && c < SW_PROTEIN_CODES; ++c) {
            const char column[2] = {protein->letters[c], 0};
            rc = score_field(r, 2 + c, column, row + c, err);
        }
        if (!rc) sw_pssm_pad_row(p, i);
    }
    if (!rc && !(rc = keyed_line(r, "end", 1, 1, "", err))) {
        int more;
        while ((more = next_line(r, err, &rc)) && r->fields == 0) {
        }
        if (!rc && more)
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: text after the 'end' line", r->source, r->line);
    }
    if (rc) {
        sw_pssm_free(p);
        return rc;
    }
    p->sequences = (size_t)sequences;
    p->effective = effective;
    memcpy(p->matrix, matrix, sizeof matrix);
    p->gap_open = (int)gap_open;
    p->gap_extend = (int)gap_extend;
    *out = p;
    return SW_OK;
}

/* ---- Either format ---- */

int sw_pssm_parse(const char *text, size_t len, const char *source, const sw_matrix *m, sw_pssm **out,
                  sw_error *err)
{
    *out = NULL;
    reader r;
    memset(&r, 0, sizeof r);
    r.text = text;
    r.len = len;
    r.source = source;
    const size_t magic_len = strlen(MAGIC);
    const int own = len >= magic_len && !memcmp(text, MAGIC, magic_len);
    const int rc = own ? parse_own(&r, out, err) : parse_psiblast(&r, m, out, err);
    free(r.buf);
    return rc;
}

/* The whole of `path` ("-": standard input). */
static int read_all(const char *path, const char *name, char **text, size_t *len, sw_error *err)
{
    *text = NULL;
    *len = 0;
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) return sw_error_set(err, SW_EIO, "%s: %s", name, strerror(errno));
    size_t cap = 0;
    char *buf = NULL;
    int rc = SW_OK;
    for (;;) {
        if (*len == cap) {
            const size_t nc = cap ? 2 * cap : 1 << 16;
            char *grown = realloc(buf, nc);
            if (!grown) {
                rc = sw_error_set(err, SW_ENOMEM, "%s: out of memory", name);
                break;
            }
            buf = grown;
            cap = nc;
        }
        const size_t got = fread(buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) break;
    }
    if (!rc && ferror(f)) rc = sw_error_set(err, SW_EIO, "%s: read error", name);
    if (f != stdin) fclose(f);
    if (rc) {
        free(buf);
        *len = 0;
        return rc;
    }
    *text = buf;
    return SW_OK;
}

int sw_pssm_read(const char *path, const sw_matrix *m, sw_pssm **out, sw_error *err)
{
    *out = NULL;
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    char *text;
    size_t len;
    int rc = read_all(path, name, &text, &len, err);
    if (rc) return rc;
    rc = sw_pssm_parse(text, len, name, m, out, err);
    free(text);
    return rc;
}

/* ---- Writing ---- */

int sw_pssm_write(const sw_pssm *p, FILE *f, const char *name, sw_error *err)
{
    const sw_alphabet *protein = sw_alphabet_protein();
    fprintf(f, MAGIC " %d\n", SW_PSSM_FORMAT_VERSION);
    fprintf(f, "label %s\n", p->label);
    if (p->sequences) fprintf(f, "sequences %zu\n", p->sequences);
    else fputs("sequences -\n", f);
    if (p->effective > 0) fprintf(f, "effective %.17g\n", p->effective);
    else fputs("effective -\n", f);
    fprintf(f, "matrix %s\n", p->matrix[0] ? p->matrix : "-");
    if (p->gap_open || p->gap_extend) fprintf(f, "gaps %d %d\n", p->gap_open, p->gap_extend);
    else fputs("gaps - -\n", f);
    fprintf(f, "length %zu\ncolumns", p->length);
    for (int c = 0; c < SW_PROTEIN_CODES; ++c) fprintf(f, " %c", protein->letters[c]);
    fputc('\n', f);
    for (size_t i = 0; i < p->length; ++i) {
        fprintf(f, "%zu %c", i + 1, sw_alphabet_decode(protein, p->query[i]));
        const int8_t *row = sw_pssm_row(p, i);
        for (int c = 0; c < SW_PROTEIN_CODES; ++c) fprintf(f, " %d", row[c]);
        fputc('\n', f);
    }
    fputs("end\n", f);
    if (fflush(f) || ferror(f)) return sw_error_set(err, SW_EIO, "%s: write error: %s", name, strerror(errno));
    return SW_OK;
}

/* A new file beside `path`, named path.PID.N, created exclusively with the
 * usual mode (0666 less the umask). */
static int create_beside(const char *path, char *tmp, size_t cap)
{
    for (unsigned n = 0; n < 1000; ++n) {
        snprintf(tmp, cap, "%s.%ld.%u", path, (long)getpid(), n);
        const int fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

int sw_pssm_save(const sw_pssm *p, const char *path, sw_error *err)
{
    if (!strcmp(path, "-")) return sw_pssm_write(p, stdout, "<stdout>", err);
    const size_t cap = strlen(path) + 32;
    char *tmp = malloc(cap);
    if (!tmp) return sw_error_set(err, SW_ENOMEM, "%s: out of memory", path);
    const int fd = create_beside(path, tmp, cap);
    if (fd < 0) {
        const int e = errno;
        free(tmp);
        return sw_error_set(err, SW_EIO, "%s: cannot create: %s", path, strerror(e));
    }
    FILE *f = fdopen(fd, "w");
    int rc = SW_OK;
    if (!f) {
        rc = sw_error_set(err, SW_EIO, "%s: %s", path, strerror(errno));
        close(fd);
    } else {
        rc = sw_pssm_write(p, f, path, err);
        if (fclose(f) && !rc) rc = sw_error_set(err, SW_EIO, "%s: write error: %s", path, strerror(errno));
    }
    if (!rc && rename(tmp, path)) rc = sw_error_set(err, SW_EIO, "%s: %s", path, strerror(errno));
    if (rc) unlink(tmp);
    free(tmp);
    return rc;
}
