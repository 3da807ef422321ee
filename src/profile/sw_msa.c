/* Aligned FASTA and A3M through the streaming FASTA reader, with an
 * alphabet that knows the gap and tells insertions apart; Clustal and
 * Stockholm by their blocks (sw_msa.h). */
#include "sw_msa.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sw_fasta.h"

struct sw_msa {
    size_t rows, columns;
    char **names;
    uint8_t *codes; /* rows x columns */
};

char sw_msa_letter(uint8_t code)
{
    return code == SW_MSA_GAP ? '-' : sw_alphabet_decode(sw_alphabet_protein(), code);
}

/* The protein alphabet plus '-' and '.' as the gap. */
static sw_alphabet gapped_alphabet(void)
{
    sw_alphabet a = *sw_alphabet_protein();
    a.encode['-'] = SW_MSA_GAP;
    a.encode['.'] = SW_MSA_GAP;
    a.size = SW_PROTEIN_CODES + 1;
    return a;
}

/* ---- Clustal and Stockholm: "name sequence" lines in blocks ---- */

/* A row being gathered by name, in order of first appearance. */
typedef struct gathered {
    char *name;
    uint8_t *codes;
    size_t len, cap;
    unsigned long line; /* of the name's first line */
} gathered;

typedef struct gather {
    gathered *row;
    size_t rows, cap;
} gather;

static void gather_free(gather *g)
{
    for (size_t k = 0; k < g->rows; ++k) {
        free(g->row[k].name);
        free(g->row[k].codes);
    }
    free(g->row);
    memset(g, 0, sizeof *g);
}

/* Appends `seq` (n bytes) to the row called name, made if new. */
static int gather_add(gather *g, const sw_alphabet *alpha, const char *name, size_t name_len, const char *seq,
                      size_t n, const char *file, unsigned long line, sw_error *err)
{
    size_t k = 0;
    while (k < g->rows && !(strlen(g->row[k].name) == name_len && !memcmp(g->row[k].name, name, name_len))) ++k;
    if (k == g->rows) {
        if (g->rows == g->cap) {
            const size_t nc = g->cap ? 2 * g->cap : 16;
            gathered *grown = realloc(g->row, nc * sizeof *grown);
            if (!grown) return sw_error_set(err, SW_ENOMEM, "out of memory");
            g->row = grown;
            g->cap = nc;
        }
        g->row[k] = (gathered){strndup(name, name_len), NULL, 0, 0, line};
        if (!g->row[k].name) return sw_error_set(err, SW_ENOMEM, "out of memory");
        ++g->rows;
    }
    gathered *r = &g->row[k];
    for (size_t t = 0; t < n; ++t) {
        const uint8_t c = sw_alphabet_encode(alpha, (unsigned char)seq[t]);
        if (c == SW_CODE_INVALID) {
            char shown[8], name_shown[4 * 60 + 8];
            sw_error_quote(shown, sizeof shown, seq + t, 1, 1);
            sw_error_quote(name_shown, sizeof name_shown, r->name, strlen(r->name), 60);
            return sw_error_set(err, SW_EFORMAT, "%s:%lu: invalid residue '%s' in row %s", file, line, shown,
                                name_shown);
        }
        if (r->len == r->cap) {
            const size_t nc = r->cap ? 2 * r->cap : 256;
            uint8_t *grown = realloc(r->codes, nc);
            if (!grown) return sw_error_set(err, SW_ENOMEM, "out of memory");
            r->codes = grown;
            r->cap = nc;
        }
        r->codes[r->len++] = c;
    }
    return SW_OK;
}

/* Reads a Clustal (clustal != 0) or Stockholm file from f, whose first line
 * was already read into `first`. */
static int read_blocks(FILE *f, int clustal, const char *file, sw_msa *m, sw_error *err)
{
    const sw_alphabet alpha = gapped_alphabet();
    gather g;
    memset(&g, 0, sizeof g);
    char *line = NULL;
    size_t line_cap = 0;
    unsigned long number = 1; /* the header line */
    int rc = SW_OK, ended = 0;
    ssize_t got;
    while (!rc && (got = getline(&line, &line_cap, f)) >= 0) {
        ++number;
        size_t n = (size_t)got;
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) --n;
        if (n == 0) continue;
        if (!clustal && n >= 2 && line[0] == '/' && line[1] == '/') {
            ended = 1;
            break;
        }
        /* Clustal: a line that starts with a blank is the conservation
         * line; Stockholm: '#' lines are annotations. */
        if (clustal ? (line[0] == ' ' || line[0] == '\t') : line[0] == '#') continue;
        size_t name_len = strcspn(line, " \t");
        if (name_len >= n) {
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: expected a name and its sequence", file, number);
            break;
        }
        size_t at = name_len + strspn(line + name_len, " \t");
        size_t seq_len = strcspn(line + at, " \t\r\n");
        /* Clustal may end a line with a residue count. */
        const size_t rest = at + seq_len + strspn(line + at + seq_len, " \t");
        if (rest < n && !(clustal && strspn(line + rest, "0123456789") == n - rest)) {
            char name_shown[4 * 60 + 8];
            sw_error_quote(name_shown, sizeof name_shown, line, name_len, 60);
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: unexpected text after the sequence of %s", file, number,
                              name_shown);
            break;
        }
        rc = gather_add(&g, &alpha, line, name_len, line + at, seq_len, file, number, err);
    }
    free(line);
    if (!rc && ferror(f)) rc = sw_error_set(err, SW_EIO, "%s: read error", file);
    if (!rc && !clustal && !ended) rc = sw_error_set(err, SW_EFORMAT, "%s: no '//' line at the end of the alignment", file);
    if (!rc && g.rows == 0) rc = sw_error_set(err, SW_EFORMAT, "%s: no aligned sequences", file);
    for (size_t k = 1; !rc && k < g.rows; ++k)
        if (g.row[k].len != g.row[0].len) {
            char name_shown[4 * 60 + 8];
            sw_error_quote(name_shown, sizeof name_shown, g.row[k].name, strlen(g.row[k].name), 60);
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: row '%s' has %zu columns, the first row has %zu: not an alignment",
                              file, g.row[k].line, name_shown, g.row[k].len, g.row[0].len);
        }
    if (!rc && g.row[0].len == 0) rc = sw_error_set(err, SW_EFORMAT, "%s: the rows are empty", file);
    if (!rc) {
        m->columns = g.row[0].len;
        m->names = calloc(g.rows, sizeof *m->names);
        m->codes = malloc(g.rows * m->columns);
        if (!m->names || !m->codes) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
        for (size_t k = 0; !rc && k < g.rows; ++k) {
            m->names[k] = g.row[k].name;
            g.row[k].name = NULL;
            memcpy(m->codes + k * m->columns, g.row[k].codes, m->columns);
            m->rows = k + 1;
        }
    }
    gather_free(&g);
    return rc;
}

/* The format from the first bytes of a plain text: 1 Clustal, 2
 * Stockholm, 0 anything else (FASTA, or zstd). */
static int head_kind(const char *head, size_t n)
{
    if ((n >= 7 && !strncmp(head, "CLUSTAL", 7)) || (n >= 6 && !strncmp(head, "MUSCLE", 6))) return 1;
    if (n >= 11 && !strncmp(head, "# STOCKHOLM", 11)) return 2;
    return 0;
}

static void skip_line(FILE *f)
{
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {
    }
}

/* The format of a file (head_kind), opened past its header line for Clustal
 * and Stockholm. */
static int sniff(const char *path, FILE **opened, sw_error *err)
{
    *opened = NULL;
    if (!strcmp(path, "-")) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return sw_error_set(err, SW_EIO, "%s: %s", path, strerror(errno)), -1;
    char head[16] = {0};
    const size_t got = fread(head, 1, sizeof head - 1, f);
    const int kind = head_kind(head, got);
    if (!kind) {
        fclose(f);
        return 0;
    }
    rewind(f);
    skip_line(f);
    *opened = f;
    return kind;
}

/* The FASTA reader skips a record with no characters and reports it
 * through its warning ("FILE:LINE: empty sequence 'ID' skipped"); in an
 * alignment such a record is an error, never a row silently lost. */
typedef struct empty_row {
    int seen;
    char message[1024];
} empty_row;

static void note_empty_row(void *user, const char *message)
{
    empty_row *e = user;
    if (e->seen) return;
    e->seen = 1;
    snprintf(e->message, sizeof e->message, "%s", message);
}

/* The error for the empty record that note_empty_row() saw: "FILE:LINE:
 * row 'ID' has no characters ...", or the reader's own words if they differ. */
static int empty_row_error(const empty_row *e, sw_error *err)
{
    static const char mark[] = ": empty sequence '", tail[] = "' skipped";
    const char *at = strstr(e->message, mark);
    const size_t n = strlen(e->message), tail_len = sizeof tail - 1;
    const char *id = at ? at + sizeof mark - 1 : NULL;
    if (!at || n < tail_len || strcmp(e->message + n - tail_len, tail) || e->message + n - tail_len < id)
        return sw_error_set(err, SW_EFORMAT, "%s: a row with no characters: not an alignment", e->message);
    return sw_error_set(err, SW_EFORMAT, "%.*s: row '%.*s' has no characters, not even gaps: not an alignment",
                        (int)(at - e->message), e->message, (int)(e->message + n - tail_len - id), id);
}

/* While a FASTA-style file is read, lower-case letters and '.' carry this
 * bit over their residue's (or the gap's) code, so that an A3M file can drop
 * them; every code stays below the FASTA reader's 0x80 bound. */
#define INSERT_BIT 0x40
_Static_assert(SW_MSA_GAP < INSERT_BIT, "codes below the insert bit");

/* gapped_alphabet() with lower case and '.' marked by INSERT_BIT. */
static sw_alphabet cased_alphabet(void)
{
    sw_alphabet a = gapped_alphabet();
    for (int c = 'a'; c <= 'z'; ++c)
        if (a.encode[c] != SW_CODE_INVALID) a.encode[c] |= INSERT_BIT;
    a.encode['.'] = SW_MSA_GAP | INSERT_BIT;
    a.size = INSERT_BIT + SW_MSA_GAP + 1;
    return a;
}

static size_t match_columns(const uint8_t *raw, size_t n)
{
    size_t k = 0;
    for (size_t t = 0; t < n; ++t) k += !(raw[t] & INSERT_BIT);
    return k;
}

/* The rows of a FASTA-style file as read: codes with INSERT_BIT, one after
 * the other. */
typedef struct raw_rows {
    uint8_t *codes;
    size_t used, cap;
    size_t *start, *len;
    unsigned long long *line;
    size_t rows, rows_cap;
} raw_rows;

static void raw_rows_free(raw_rows *r)
{
    free(r->codes);
    free(r->start);
    free(r->len);
    free(r->line);
}

static int raw_rows_add(raw_rows *r, sw_msa *m, const sw_fasta_record *rec)
{
    if (r->rows == r->rows_cap) {
        const size_t nc = r->rows_cap ? 2 * r->rows_cap : 16;
        char **names = realloc(m->names, nc * sizeof *names);
        if (!names) return -1;
        m->names = names;
        size_t *start = realloc(r->start, nc * sizeof *start);
        if (!start) return -1;
        r->start = start;
        size_t *len = realloc(r->len, nc * sizeof *len);
        if (!len) return -1;
        r->len = len;
        unsigned long long *line = realloc(r->line, nc * sizeof *line);
        if (!line) return -1;
        r->line = line;
        r->rows_cap = nc;
    }
    if (r->used + rec->length > r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 4096;
        while (nc < r->used + rec->length) nc *= 2;
        uint8_t *codes = realloc(r->codes, nc);
        if (!codes) return -1;
        r->codes = codes;
        r->cap = nc;
    }
    char *h = malloc(rec->header_len + 1);
    if (!h) return -1;
    memcpy(h, rec->header, rec->header_len);
    h[rec->header_len] = 0;
    m->names[r->rows] = h;
    m->rows = r->rows + 1;
    memcpy(r->codes + r->used, rec->residues, rec->length);
    r->start[r->rows] = r->used;
    r->len[r->rows] = rec->length;
    r->line[r->rows] = rec->line;
    r->used += rec->length;
    ++r->rows;
    return 0;
}

/* "FILE:LINE: row 'ID' has N WHAT, the first row has M: not KIND". */
static int row_error(sw_error *err, const char *file, unsigned long long line, const char *header,
                     size_t header_len, const char *what, size_t has, size_t first, const char *kind)
{
    size_t id_len;
    sw_fasta_split_header(header, header_len, &id_len, NULL, NULL);
    char id_shown[4 * 60 + 8];
    sw_error_quote(id_shown, sizeof id_shown, header, id_len, 60);
    return sw_error_set(err, SW_EFORMAT, "%s:%llu: row '%s' has %zu %s, the first row has %zu: not %s", file, line,
                        id_shown, has, what, first, kind);
}

/* Aligned FASTA, or A3M where `a3m` says so or where a row longer or shorter
 * than the first holds insertions (lower case or '.'): a valid A3M row of
 * another length than the first always does, and an aligned FASTA file never
 * has rows of two lengths. Read from `path`, or from `fd` (>= 0, left open)
 * named `path`. */
static int read_fasta_style(const char *path, int fd, int a3m, sw_msa **out, sw_error *err)
{
    const sw_alphabet alpha = cased_alphabet();
    empty_row empty = {0, ""};
    const sw_fasta_options opt = {&alpha, note_empty_row, &empty, 0};
    sw_fasta *f = NULL;
    int rc = fd >= 0 ? sw_fasta_open_fd(fd, path, &opt, &f, err) : sw_fasta_open(path, &opt, &f, err);
    if (rc) return rc;
    const char *name = fd >= 0 || strcmp(path, "-") ? path : "<stdin>";
    sw_msa *m = calloc(1, sizeof *m);
    raw_rows raw;
    memset(&raw, 0, sizeof raw);
    if (!m) {
        sw_fasta_close(f);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    sw_fasta_record rec;
    int more;
    while ((more = sw_fasta_next(f, &rec, err)) == 1 && !empty.seen) {
        if (!a3m && raw.rows && rec.length != raw.len[0]) {
            if (match_columns(rec.residues, rec.length) == rec.length) {
                rc = row_error(err, name, rec.line, rec.header, rec.header_len, "columns", rec.length, raw.len[0],
                               "an alignment");
                break;
            }
            a3m = 1;
        }
        if (raw_rows_add(&raw, m, &rec)) {
            rc = sw_error_set(err, SW_ENOMEM, "%s:%llu: out of memory", name, (unsigned long long)rec.line);
            break;
        }
    }
    /* An empty record comes before whatever stopped the loop. */
    if (empty.seen) rc = empty_row_error(&empty, err);
    else if (!rc && more < 0) rc = more;
    sw_fasta_close(f);
    if (!rc && raw.rows == 0) rc = sw_error_set(err, SW_EFORMAT, "%s: no aligned sequences", name);
    if (!rc) {
        m->columns = a3m ? match_columns(raw.codes, raw.len[0]) : raw.len[0];
        for (size_t k = 1; !rc && a3m && k < raw.rows; ++k) {
            const size_t cols = match_columns(raw.codes + raw.start[k], raw.len[k]);
            if (cols != m->columns)
                rc = row_error(err, name, raw.line[k], m->names[k], strlen(m->names[k]),
                               "match columns (upper-case letters and '-')", cols, m->columns, "an A3M alignment");
        }
        if (!rc && m->columns == 0)
            rc = sw_error_set(err, SW_EFORMAT, "%s: the rows have no match columns (upper-case letters or '-')", name);
    }
    if (!rc && !(m->codes = malloc(raw.rows * m->columns)))
        rc = sw_error_set(err, SW_ENOMEM, "%s: out of memory", name);
    for (size_t k = 0; !rc && k < raw.rows; ++k) {
        uint8_t *to = m->codes + k * m->columns;
        const uint8_t *from = raw.codes + raw.start[k];
        for (size_t t = 0; t < raw.len[k]; ++t)
            if (!a3m) *to++ = from[t] & (uint8_t)~INSERT_BIT;
            else if (!(from[t] & INSERT_BIT)) *to++ = from[t];
    }
    raw_rows_free(&raw);
    if (rc) {
        sw_msa_free(m);
        return rc;
    }
    *out = m;
    return SW_OK;
}

static int named_a3m(const char *path)
{
    const size_t n = strlen(path);
    return (n >= 4 && !strcasecmp(path + n - 4, ".a3m")) || (n >= 8 && !strcasecmp(path + n - 8, ".a3m.zst"));
}

int sw_msa_read(const char *path, sw_msa **out, sw_error *err)
{
    *out = NULL;
    FILE *blocks = NULL;
    const int kind = sniff(path, &blocks, err);
    if (kind < 0) return err->code ? err->code : SW_EIO;
    if (kind > 0) {
        sw_msa *m = calloc(1, sizeof *m);
        int rc = m ? read_blocks(blocks, kind == 1, path, m, err) : sw_error_set(err, SW_ENOMEM, "out of memory");
        fclose(blocks);
        if (rc) {
            sw_msa_free(m);
            return rc;
        }
        *out = m;
        return SW_OK;
    }
    return read_fasta_style(path, -1, named_a3m(path), out, err);
}

int sw_msa_read_a3m(const char *path, sw_msa **out, sw_error *err)
{
    *out = NULL;
    return read_fasta_style(path, -1, 1, out, err);
}

int sw_msa_parse(const char *text, size_t len, const char *name, sw_msa **out, sw_error *err)
{
    *out = NULL;
    const int kind = head_kind(text, len);
    if (kind > 0) {
        /* "r" never writes to the buffer. */
        FILE *f = fmemopen((void *)text, len, "r");
        if (!f) return sw_error_set(err, SW_ENOMEM, "%s: out of memory", name);
        skip_line(f);
        sw_msa *m = calloc(1, sizeof *m);
        int rc = m ? read_blocks(f, kind == 1, name, m, err) : sw_error_set(err, SW_ENOMEM, "out of memory");
        fclose(f);
        if (rc) {
            sw_msa_free(m);
            return rc;
        }
        *out = m;
        return SW_OK;
    }
    /* The FASTA reader reads descriptors (zstd included): the text goes to
     * one in memory. */
    const int fd = memfd_create("swsearch-msa", MFD_CLOEXEC);
    if (fd < 0) return sw_error_set(err, SW_EIO, "%s: cannot hold the alignment: %s", name, strerror(errno));
    int rc = SW_OK;
    for (size_t at = 0; rc == SW_OK && at < len;) {
        const ssize_t w = write(fd, text + at, len - at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) rc = sw_error_set(err, SW_EIO, "%s: cannot hold the alignment: %s", name, strerror(errno));
        else at += (size_t)w;
    }
    if (rc == SW_OK && lseek(fd, 0, SEEK_SET) != 0)
        rc = sw_error_set(err, SW_EIO, "%s: cannot hold the alignment: %s", name, strerror(errno));
    if (rc == SW_OK) rc = read_fasta_style(name, fd, named_a3m(name), out, err);
    close(fd);
    return rc;
}

int sw_msa_from_rows(const char *const *names, const uint8_t *const *rows, size_t num_rows, size_t columns,
                     sw_msa **out, sw_error *err)
{
    *out = NULL;
    if (!num_rows || !columns) return sw_error_set(err, SW_EINVAL, "an alignment needs rows and columns");
    sw_msa *m = calloc(1, sizeof *m);
    if (!m) return sw_error_set(err, SW_ENOMEM, "out of memory");
    m->names = calloc(num_rows, sizeof *m->names);
    m->codes = malloc(num_rows * columns);
    if (!m->names || !m->codes) {
        sw_msa_free(m);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    m->columns = columns;
    for (size_t k = 0; k < num_rows; ++k) {
        for (size_t c = 0; c < columns; ++c)
            if (rows[k][c] > SW_MSA_GAP) {
                sw_msa_free(m);
                return sw_error_set(err, SW_EINVAL, "row %zu, column %zu: code %d", k, c, rows[k][c]);
            }
        m->names[k] = strdup(names[k]);
        m->rows = k + 1;
        if (!m->names[k]) {
            sw_msa_free(m);
            return sw_error_set(err, SW_ENOMEM, "out of memory");
        }
        memcpy(m->codes + k * columns, rows[k], columns);
    }
    *out = m;
    return SW_OK;
}

void sw_msa_free(sw_msa *m)
{
    if (!m) return;
    for (size_t k = 0; k < m->rows; ++k) free(m->names[k]);
    free(m->names);
    free(m->codes);
    free(m);
}

size_t sw_msa_rows(const sw_msa *m) { return m->rows; }
size_t sw_msa_columns(const sw_msa *m) { return m->columns; }
const char *sw_msa_name(const sw_msa *m, size_t k) { return m->names[k]; }
const uint8_t *sw_msa_row(const sw_msa *m, size_t k) { return m->codes + k * m->columns; }
