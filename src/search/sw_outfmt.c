/* The output formats (docs/OUTPUT.md), in BLAST+ 2.12's conventions: its
 * field names and the descriptions that format 7 prints, its number formats
 * (E-values, bit scores, percentages), its BTOP; MMseqs2's field names as
 * aliases. */
#include "sw_outfmt.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sw_alphabet.h"
#include "sw_fasta.h"
#include "sw_matrix.h"

typedef enum {
    F_QSEQID, F_QLEN, F_SSEQID, F_SLEN, F_STITLE, F_QSTART, F_QEND, F_SSTART, F_SEND, F_QSEQ,
    F_SSEQ, F_EVALUE, F_BITSCORE, F_SCORE, F_LENGTH, F_PIDENT, F_FIDENT, F_NIDENT, F_MISMATCH,
    F_POSITIVE, F_GAPOPEN, F_GAPS, F_PPOS, F_QCOV, F_TCOV, F_BTOP, F_CIGAR, F_QHEADER
} field_id;

typedef struct field_name {
    const char *name;
    field_id id;
    const char *description; /* format 7's "# Fields:" wording */
} field_name;

/* BLAST's names first, then MMseqs2's. */
static const field_name known[] = {
    {"qseqid", F_QSEQID, "query id"},
    {"qacc", F_QSEQID, "query acc."},
    {"qaccver", F_QSEQID, "query acc.ver"},
    {"qlen", F_QLEN, "query length"},
    {"sseqid", F_SSEQID, "subject id"},
    {"sacc", F_SSEQID, "subject acc."},
    {"saccver", F_SSEQID, "subject acc.ver"},
    {"slen", F_SLEN, "subject length"},
    {"stitle", F_STITLE, "subject title"},
    {"salltitles", F_STITLE, "subject titles"},
    {"qstart", F_QSTART, "q. start"},
    {"qend", F_QEND, "q. end"},
    {"sstart", F_SSTART, "s. start"},
    {"send", F_SEND, "s. end"},
    {"qseq", F_QSEQ, "query seq"},
    {"sseq", F_SSEQ, "subject seq"},
    {"evalue", F_EVALUE, "evalue"},
    {"bitscore", F_BITSCORE, "bit score"},
    {"score", F_SCORE, "score"},
    {"length", F_LENGTH, "alignment length"},
    {"pident", F_PIDENT, "% identity"},
    {"nident", F_NIDENT, "identical"},
    {"mismatch", F_MISMATCH, "mismatches"},
    {"positive", F_POSITIVE, "positives"},
    {"gapopen", F_GAPOPEN, "gap opens"},
    {"gaps", F_GAPS, "gaps"},
    {"ppos", F_PPOS, "% positives"},
    {"qcovs", F_QCOV, "% query coverage per subject"},
    {"qcovhsp", F_QCOV, "% query coverage per hsp"},
    {"btop", F_BTOP, "BTOP"},
    {"query", F_QSEQID, "query"},
    {"target", F_SSEQID, "target"},
    {"theader", F_STITLE, "target header"},
    {"qheader", F_QHEADER, "query header"},
    {"fident", F_FIDENT, "fraction identical"},
    {"alnlen", F_LENGTH, "alignment length"},
    {"bits", F_BITSCORE, "bit score"},
    {"raw", F_SCORE, "raw score"},
    {"tstart", F_SSTART, "t. start"},
    {"tend", F_SEND, "t. end"},
    {"tlen", F_SLEN, "target length"},
    {"qaln", F_QSEQ, "query alignment"},
    {"taln", F_SSEQ, "target alignment"},
    {"cigar", F_CIGAR, "CIGAR"},
    {"qcov", F_QCOV, "% query coverage"},
    {"tcov", F_TCOV, "% target coverage"},
};
#define NUM_KNOWN (sizeof known / sizeof *known)

/* BLAST's 12 standard columns, with the names BLAST+ 2.12 uses for them. */
static const char *const standard[] = {"qaccver", "saccver", "pident", "length", "mismatch", "gapopen",
                                       "qstart", "qend", "sstart", "send", "evalue", "bitscore"};

typedef enum { KIND_TABULAR, KIND_PAIRWISE, KIND_JSON, KIND_TSV } format_kind;

struct sw_outfmt {
    format_kind kind;
    int comments; /* format 7 */
    size_t num_fields;
    const field_name **fields;
};

static int add_field(sw_outfmt *f, const field_name *n)
{
    const field_name **p = realloc(f->fields, (f->num_fields + 1) * sizeof *p);
    if (!p) return SW_ENOMEM;
    f->fields = p;
    f->fields[f->num_fields++] = n;
    return SW_OK;
}

static const field_name *find_field(const char *name, size_t len)
{
    for (size_t i = 0; i < NUM_KNOWN; i++)
        if (strlen(known[i].name) == len && !strncmp(known[i].name, name, len)) return &known[i];
    return NULL;
}

int sw_outfmt_parse(const char *spec, sw_outfmt **out, sw_error *err)
{
    *out = NULL;
    sw_outfmt *f = calloc(1, sizeof *f);
    if (!f) return sw_error_set(err, SW_ENOMEM, "out of memory");
    const char *p = spec;
    while (*p == ' ') p++;
    int rc = SW_OK;
    if (!strcmp(p, "0")) {
        f->kind = KIND_PAIRWISE;
    } else if (!strcmp(p, "json")) {
        f->kind = KIND_JSON;
    } else if (!strcmp(p, "tsv")) {
        f->kind = KIND_TSV;
    } else if ((p[0] == '6' || p[0] == '7') && (p[1] == '\0' || p[1] == ' ')) {
        f->kind = KIND_TABULAR;
        f->comments = p[0] == '7';
        p++;
        for (;;) {
            while (*p == ' ' || *p == '\t') p++;
            if (!*p) break;
            size_t len = strcspn(p, " \t");
            if (len == 3 && !strncmp(p, "std", 3)) {
                for (size_t i = 0; i < 12 && rc == SW_OK; i++)
                    rc = add_field(f, find_field(standard[i], strlen(standard[i])));
            } else {
                const field_name *n = find_field(p, len);
                if (!n) {
                    char names[1400] = "";
                    for (size_t i = 0; i < NUM_KNOWN; i++) {
                        strcat(names, i ? " " : "");
                        strcat(names, known[i].name);
                    }
                    rc = sw_error_set(err, SW_EFORMAT, "unknown field '%.*s' in --outfmt; known fields: std %s",
                                      (int)(len > 64 ? 64 : len), p, names);
                    break;
                }
                rc = add_field(f, n);
            }
            if (rc) break;
            p += len;
        }
        if (rc == SW_OK && f->num_fields == 0)
            for (size_t i = 0; i < 12 && rc == SW_OK; i++)
                rc = add_field(f, find_field(standard[i], strlen(standard[i])));
        if (rc == SW_ENOMEM) sw_error_set(err, rc, "out of memory");
    } else {
        rc = sw_error_set(err, SW_EFORMAT,
                          "unknown --outfmt '%.64s': use 6 or 7 (with an optional field list), 0, json "
                          "or tsv",
                          spec);
    }
    if (rc) {
        sw_outfmt_free(f);
        return rc;
    }
    *out = f;
    return SW_OK;
}

void sw_outfmt_free(sw_outfmt *f)
{
    if (!f) return;
    free(f->fields);
    free(f);
}

static int field_needs_alignment(field_id id)
{
    switch (id) {
    case F_QSEQID: case F_QLEN: case F_SSEQID: case F_SLEN: case F_STITLE: case F_EVALUE:
    case F_BITSCORE: case F_SCORE: case F_QHEADER:
        return 0;
    default:
        return 1;
    }
}

static int field_needs_sequences(field_id id)
{
    return id == F_QSEQ || id == F_SSEQ || id == F_BTOP;
}

int sw_outfmt_needs_alignment(const sw_outfmt *f)
{
    if (f->kind == KIND_TSV) return 0;
    if (f->kind != KIND_TABULAR) return 1;
    for (size_t i = 0; i < f->num_fields; i++)
        if (field_needs_alignment(f->fields[i]->id)) return 1;
    return 0;
}

int sw_outfmt_needs_sequences(const sw_outfmt *f)
{
    if (f->kind == KIND_TSV) return 0;
    if (f->kind != KIND_TABULAR) return 1;
    for (size_t i = 0; i < f->num_fields; i++)
        if (field_needs_sequences(f->fields[i]->id)) return 1;
    return 0;
}

int sw_outfmt_needs_statistics(const sw_outfmt *f) { return f->kind != KIND_TSV; }

/* BLAST+'s E-value and bit score texts (CAlignFormatUtil::GetScoreString):
 * 0.0 below 1e-180, 1e-120 below 1e-99, 3.29e-20 below 0.0009, then 3, 2,
 * 1 and 0 decimals at 0.1, 1 and 10; bit scores with one decimal up to
 * 99.9, then truncated to whole bits, then scientific above 99999. */
static void format_evalue(char *buf, size_t n, double e)
{
    if (e < 1.0e-180) snprintf(buf, n, "0.0");
    else if (e < 1.0e-99) snprintf(buf, n, "%.0e", e);
    else if (e < 0.0009) snprintf(buf, n, "%.2e", e);
    else if (e < 0.1) snprintf(buf, n, "%.3f", e);
    else if (e < 1.0) snprintf(buf, n, "%.2f", e);
    else if (e < 10.0) snprintf(buf, n, "%.1f", e);
    else snprintf(buf, n, "%.0f", e);
}

static void format_bits(char *buf, size_t n, double b)
{
    if (b > 99999) snprintf(buf, n, "%.3e", b);
    else if (b > 99.9) snprintf(buf, n, "%ld", (long)b);
    else snprintf(buf, n, "%.1f", b);
}

/* Tabs and line ends inside a header would break a table. */
static void put_text(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        putc(c == '\t' || c == '\n' || c == '\r' ? ' ' : c, out);
    }
}

static void put_id(FILE *out, const char *header)
{
    size_t id_len, desc_len;
    const char *desc;
    sw_fasta_split_header(header, strlen(header), &id_len, &desc, &desc_len);
    put_text(out, header, id_len);
}

static char letter(uint8_t code) { return sw_alphabet_decode(sw_alphabet_protein(), code); }

/* The aligned rows: query or subject letters, '-' against a gap. */
static void put_row(FILE *out, const sw_alignment *a, const uint8_t *q, const uint8_t *s, int subject)
{
    size_t qi = a->query_start - 1, sj = a->subject_start - 1;
    for (size_t k = 0; k < a->num_runs; k++) {
        uint32_t op = SW_OP_KIND(a->runs[k]), len = SW_OP_LEN(a->runs[k]);
        for (uint32_t t = 0; t < len; t++) {
            if (op == SW_OP_M) putc(letter(subject ? s[sj + t] : q[qi + t]), out);
            else if (op == SW_OP_I) putc(subject ? '-' : letter(q[qi + t]), out);
            else putc(subject ? letter(s[sj + t]) : '-', out);
        }
        if (op != SW_OP_D) qi += len;
        if (op != SW_OP_I) sj += len;
    }
}

/* BLAST's BTOP: runs of identities as numbers, other columns as the query
 * letter then the subject letter, '-' for a gap. */
static void put_btop(FILE *out, const sw_alignment *a, const uint8_t *q, const uint8_t *s)
{
    size_t qi = a->query_start - 1, sj = a->subject_start - 1, same = 0;
    for (size_t k = 0; k < a->num_runs; k++) {
        uint32_t op = SW_OP_KIND(a->runs[k]), len = SW_OP_LEN(a->runs[k]);
        for (uint32_t t = 0; t < len; t++) {
            char x = op == SW_OP_D ? '-' : letter(q[qi + t]);
            char y = op == SW_OP_I ? '-' : letter(s[sj + t]);
            if (op == SW_OP_M && q[qi + t] == s[sj + t]) {
                same++;
                continue;
            }
            if (same) fprintf(out, "%zu", same);
            same = 0;
            putc(x, out);
            putc(y, out);
        }
        if (op != SW_OP_D) qi += len;
        if (op != SW_OP_I) sj += len;
    }
    if (same) fprintf(out, "%zu", same);
}

static void put_cigar(FILE *out, const sw_alignment *a)
{
    static const char ops[] = "MID";
    for (size_t k = 0; k < a->num_runs; k++)
        fprintf(out, "%u%c", (unsigned)SW_OP_LEN(a->runs[k]), ops[SW_OP_KIND(a->runs[k])]);
}

static void put_field(FILE *out, field_id id, const sw_outfmt_query *q, const sw_outfmt_hit *h)
{
    const sw_alignment *a = h->alignment;
    char buf[64];
    switch (id) {
    case F_QSEQID: put_id(out, q->header); break;
    case F_QHEADER: put_text(out, q->header, strlen(q->header)); break;
    case F_QLEN: fprintf(out, "%zu", q->length); break;
    case F_SSEQID: put_id(out, h->header); break;
    case F_SLEN: fprintf(out, "%u", h->length); break;
    case F_STITLE: put_text(out, h->header, strlen(h->header)); break;
    case F_QSTART: fprintf(out, "%zu", a->query_start); break;
    case F_QEND: fprintf(out, "%zu", a->query_end); break;
    case F_SSTART: fprintf(out, "%zu", a->subject_start); break;
    case F_SEND: fprintf(out, "%zu", a->subject_end); break;
    case F_QSEQ: put_row(out, a, q->residues, h->residues, 0); break;
    case F_SSEQ: put_row(out, a, q->residues, h->residues, 1); break;
    case F_EVALUE: format_evalue(buf, sizeof buf, h->evalue); fputs(buf, out); break;
    case F_BITSCORE: format_bits(buf, sizeof buf, h->bits); fputs(buf, out); break;
    case F_SCORE: fprintf(out, "%d", h->score); break;
    case F_LENGTH: fprintf(out, "%zu", a->length); break;
    case F_PIDENT: fprintf(out, "%.3f", sw_outfmt_percent(a->identities, a->length)); break;
    case F_FIDENT: fprintf(out, "%.3f", a->length ? (double)a->identities / (double)a->length : 0.0); break;
    case F_NIDENT: fprintf(out, "%zu", a->identities); break;
    case F_MISMATCH: fprintf(out, "%zu", a->mismatches); break;
    case F_POSITIVE: fprintf(out, "%zu", a->positives); break;
    case F_GAPOPEN: fprintf(out, "%zu", a->gap_opens); break;
    case F_GAPS: fprintf(out, "%zu", a->gaps); break;
    case F_PPOS: fprintf(out, "%.2f", sw_outfmt_percent(a->positives, a->length)); break;
    case F_QCOV:
        fprintf(out, "%.0f", sw_outfmt_percent(a->query_end - a->query_start + 1, q->length));
        break;
    case F_TCOV:
        fprintf(out, "%.0f", sw_outfmt_percent(a->subject_end - a->subject_start + 1, h->length));
        break;
    case F_BTOP: put_btop(out, a, q->residues, h->residues); break;
    case F_CIGAR: put_cigar(out, a); break;
    }
}

int sw_outfmt_field_text(const char *field, const sw_outfmt_query *q, const sw_outfmt_hit *h, char **out,
                         sw_error *err)
{
    *out = NULL;
    const field_name *n = find_field(field, strlen(field));
    if (!n) return sw_error_set(err, SW_EINVAL, "unknown output field '%s'", field);
    if (!h->alignment && field_needs_alignment(n->id)) return sw_error_set(err, SW_EINVAL, "'%s' needs the alignment", field);
    if (!h->residues && field_needs_sequences(n->id)) return sw_error_set(err, SW_EINVAL, "'%s' needs the sequences", field);
    size_t len = 0;
    FILE *mem = open_memstream(out, &len);
    if (!mem) return sw_error_set(err, SW_ENOMEM, "out of memory writing the field '%s'", field);
    put_field(mem, n->id, q, h);
    if (fclose(mem) || !*out) {
        free(*out);
        *out = NULL;
        return sw_error_set(err, SW_ENOMEM, "out of memory writing the field '%s'", field);
    }
    return SW_OK;
}

int sw_outfmt_begin(FILE *out, const sw_outfmt *f, const sw_outfmt_run *run, sw_error *err)
{
    (void)run;
    (void)err;
    if (f->kind == KIND_TSV)
        fputs("query_id\tquery_length\trank\tscore\tsubject_id\tsubject_length\tsubject_description\n", out);
    return SW_OK;
}

static void write_tsv(FILE *out, const sw_outfmt_query *q, const sw_outfmt_hit *hits, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t id_len, desc_len;
        const char *desc;
        sw_fasta_split_header(hits[i].header, strlen(hits[i].header), &id_len, &desc, &desc_len);
        put_id(out, q->header);
        fprintf(out, "\t%zu\t%zu\t%d\t", q->length, i + 1, hits[i].score);
        put_text(out, hits[i].header, id_len);
        fprintf(out, "\t%u\t", hits[i].length);
        put_text(out, desc, desc_len);
        putc('\n', out);
    }
}

static void write_tabular(FILE *out, const sw_outfmt *f, const sw_outfmt_run *run, const sw_outfmt_query *q,
                          const sw_outfmt_hit *hits, size_t n)
{
    if (f->comments) {
        fprintf(out, "# SWSEARCH %s\n", run->version ? run->version : "");
        if (run->iteration)
            fprintf(out, "# Iteration: %d\n# Profile: %zu sequences\n", run->iteration, run->profile_sequences);
        fputs("# Query: ", out);
        put_text(out, q->header, strlen(q->header));
        fprintf(out, "\n# Database: %s\n", run->db_path ? run->db_path : "");
        if (q->stats && q->stats[0]) fprintf(out, "# Statistics: %s\n", q->stats);
        if (n) {
            fputs("# Fields: ", out);
            for (size_t i = 0; i < f->num_fields; i++)
                fprintf(out, "%s%s", i ? ", " : "", f->fields[i]->description);
            putc('\n', out);
        }
        fprintf(out, "# %zu hits found\n", n);
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < f->num_fields; k++) {
            if (k) putc('\t', out);
            put_field(out, f->fields[k]->id, q, &hits[i]);
        }
        putc('\n', out);
    }
}

/* A JSON string: quotes, backslashes and control bytes escaped; other bytes
 * pass as they are (headers are taken to be UTF-8; a byte that is not
 * valid UTF-8 is written as \u00XX of its value, so the line stays JSON). */
static void put_json_string(FILE *out, const char *s, size_t n)
{
    putc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            putc('\\', out);
            putc(c, out);
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(out, "\\u%04x", c);
        } else if (c < 0x80) {
            putc(c, out);
        } else {
            /* Pass a well-formed UTF-8 sequence whole. */
            size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            int ok = len && i + len <= n;
            for (size_t k = 1; ok && k < len; k++) ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
            if (ok) {
                fwrite(s + i, 1, len, out);
                i += len - 1;
            } else {
                fprintf(out, "\\u%04x", c);
            }
        }
    }
    putc('"', out);
}

static void put_json_number(FILE *out, double v)
{
    if (!isfinite(v)) v = v > 0 ? 1.7976931348623157e308 : 0.0;
    fprintf(out, "%.6g", v);
}

static void write_json(FILE *out, const sw_outfmt_query *q, const sw_outfmt_hit *hits, size_t n)
{
    size_t qid_len, qdesc_len;
    const char *qdesc;
    sw_fasta_split_header(q->header, strlen(q->header), &qid_len, &qdesc, &qdesc_len);
    for (size_t i = 0; i < n; i++) {
        const sw_outfmt_hit *h = &hits[i];
        const sw_alignment *a = h->alignment;
        size_t id_len, desc_len;
        const char *desc;
        sw_fasta_split_header(h->header, strlen(h->header), &id_len, &desc, &desc_len);
        fputs("{\"query\":", out);
        put_json_string(out, q->header, qid_len);
        fputs(",\"query_description\":", out);
        put_json_string(out, qdesc, qdesc_len);
        fprintf(out, ",\"qlen\":%zu,\"subject\":", q->length);
        put_json_string(out, h->header, id_len);
        fputs(",\"subject_description\":", out);
        put_json_string(out, desc, desc_len);
        fprintf(out, ",\"slen\":%u,\"rank\":%zu,\"score\":%d,\"bits\":", h->length, i + 1, h->score);
        put_json_number(out, h->bits);
        fputs(",\"evalue\":", out);
        put_json_number(out, h->evalue);
        fprintf(out,
                ",\"pident\":%.3f,\"length\":%zu,\"nident\":%zu,\"positive\":%zu,\"mismatch\":%zu,"
                "\"gapopen\":%zu,\"gaps\":%zu,\"qstart\":%zu,\"qend\":%zu,\"sstart\":%zu,\"send\":%zu,"
                "\"qcov\":%.2f,\"cigar\":\"",
                sw_outfmt_percent(a->identities, a->length), a->length, a->identities, a->positives, a->mismatches,
                a->gap_opens, a->gaps, a->query_start, a->query_end, a->subject_start, a->subject_end,
                sw_outfmt_percent(a->query_end - a->query_start + 1, q->length));
        put_cigar(out, a);
        fputs("\",\"qseq\":\"", out);
        put_row(out, a, q->residues, h->residues, 0);
        fputs("\",\"sseq\":\"", out);
        put_row(out, a, q->residues, h->residues, 1);
        fputs("\"}\n", out);
    }
}

/* Format 0: BLAST's pairwise report. */
static void put_wrapped(FILE *out, const char *prefix, const char *text)
{
    size_t n = strlen(text), col = strlen(prefix);
    fputs(prefix, out);
    for (size_t i = 0; i < n; i++) {
        char c = text[i] == '\t' || text[i] == '\n' || text[i] == '\r' ? ' ' : text[i];
        if (col >= 80 && c == ' ') {
            fputs("\n", out);
            col = 0;
            continue;
        }
        putc(c, out);
        col++;
    }
    putc('\n', out);
}

static void write_pairwise(FILE *out, const sw_outfmt_run *run, const sw_outfmt_query *q,
                           const sw_outfmt_hit *hits, size_t n)
{
    put_wrapped(out, "Query= ", q->header);
    fprintf(out, "\nLength=%zu\n", q->length);
    if (run->iteration)
        fprintf(out, "\nResults from round %d (a profile of %zu sequences)\n", run->iteration, run->profile_sequences);
    if (!n) {
        fputs("\n\n***** No hits found *****\n\n\n", out);
    } else {
        fputs("\n\n                                                                      Score     E\n"
              "Sequences producing significant alignments:                          (Bits)  Value\n\n",
              out);
        for (size_t i = 0; i < n; i++) {
            char e[32], b[32], title[67];
            format_evalue(e, sizeof e, hits[i].evalue);
            format_bits(b, sizeof b, hits[i].bits);
            size_t len = strlen(hits[i].header);
            snprintf(title, sizeof title, "%s", hits[i].header);
            if (len > 66) memcpy(title + 63, "...", 4);
            for (char *c = title; *c; c++)
                if (*c == '\t' || *c == '\n' || *c == '\r') *c = ' ';
            fprintf(out, "%-66s  %6s  %-8s\n", title, b, e);
        }
        fputs("\n\n", out);
    }
    for (size_t i = 0; i < n; i++) {
        const sw_outfmt_hit *h = &hits[i];
        const sw_alignment *a = h->alignment;
        char e[32], b[32];
        format_evalue(e, sizeof e, h->evalue);
        format_bits(b, sizeof b, h->bits);
        put_wrapped(out, "> ", h->header);
        fprintf(out, "Length=%u\n\n", h->length);
        fprintf(out, " Score = %s bits (%d),  Expect = %s\n", b, h->score, e);
        fprintf(out, " Identities = %zu/%zu (%.0f%%), Positives = %zu/%zu (%.0f%%), Gaps = %zu/%zu (%.0f%%)\n\n",
                a->identities, a->length, sw_outfmt_percent(a->identities, a->length), a->positives, a->length,
                sw_outfmt_percent(a->positives, a->length), a->gaps, a->length, sw_outfmt_percent(a->gaps, a->length));
        /* Rows of 60 columns: query, middle line, subject. */
        size_t cols = a->length;
        char *qrow = malloc(cols + 1), *srow = malloc(cols + 1), *mid = malloc(cols + 1);
        if (!qrow || !srow || !mid) {
            free(qrow);
            free(srow);
            free(mid);
            continue; /* the caller sees the error through ferror() only; memory is gone */
        }
        size_t qi = a->query_start - 1, sj = a->subject_start - 1, c = 0;
        for (size_t k = 0; k < a->num_runs; k++) {
            uint32_t op = SW_OP_KIND(a->runs[k]), len = SW_OP_LEN(a->runs[k]);
            for (uint32_t t = 0; t < len; t++, c++) {
                uint8_t x = q->residues[qi + (op == SW_OP_D ? 0 : t)];
                uint8_t y = h->residues[sj + (op == SW_OP_I ? 0 : t)];
                qrow[c] = op == SW_OP_D ? '-' : letter(x);
                srow[c] = op == SW_OP_I ? '-' : letter(y);
                mid[c] = op != SW_OP_M ? ' '
                         : x == y  ? letter(x)
                         : q->rows ? (q->rows[(qi + t) * SW_CODE_LIMIT + y] > 0 ? '+' : ' ')
                         : run->table && sw_matrix_score(run->table, x, y) > 0 ? '+'
                                                                                : ' ';
            }
            if (op != SW_OP_D) qi += len;
            if (op != SW_OP_I) sj += len;
        }
        size_t qpos = a->query_start, spos = a->subject_start;
        int width = snprintf(NULL, 0, "%zu", (a->query_end > a->subject_end ? a->query_end : a->subject_end));
        for (size_t from = 0; from < cols; from += 60) {
            size_t to = from + 60 < cols ? from + 60 : cols, qn = 0, sn = 0;
            for (size_t k = from; k < to; k++) {
                qn += qrow[k] != '-';
                sn += srow[k] != '-';
            }
            fprintf(out, "Query  %-*zu  %.*s  %zu\n", width, qpos, (int)(to - from), qrow + from,
                    qpos + qn - (qn ? 1 : 0));
            fprintf(out, "       %*s  %.*s\n", width, "", (int)(to - from), mid + from);
            fprintf(out, "Sbjct  %-*zu  %.*s  %zu\n\n", width, spos, (int)(to - from), srow + from,
                    spos + sn - (sn ? 1 : 0));
            qpos += qn;
            spos += sn;
        }
        fputs("\n", out);
        free(qrow);
        free(srow);
        free(mid);
    }
    if (q->stats && q->stats[0]) fprintf(out, "Statistics: %s\n\n", q->stats);
}

int sw_outfmt_write_query(FILE *out, const sw_outfmt *f, const sw_outfmt_run *run,
                          const sw_outfmt_query *q, const sw_outfmt_hit *hits, size_t n,
                          sw_error *err)
{
    switch (f->kind) {
    case KIND_TSV: write_tsv(out, q, hits, n); break;
    case KIND_TABULAR: write_tabular(out, f, run, q, hits, n); break;
    case KIND_JSON: write_json(out, q, hits, n); break;
    case KIND_PAIRWISE: write_pairwise(out, run, q, hits, n); break;
    }
    if (ferror(out)) return sw_error_set(err, SW_EIO, "error writing results");
    return SW_OK;
}

int sw_outfmt_end(FILE *out, const sw_outfmt *f, const sw_outfmt_run *run, size_t num_queries,
                  sw_error *err)
{
    if (f->kind == KIND_TABULAR && f->comments)
        fprintf(out, "# SWSEARCH processed %zu queries\n", num_queries);
    if (f->kind == KIND_PAIRWISE && run)
        fprintf(out, "  Database: %s\n    Number of sequences in database:  %llu\n"
                     "    Number of letters in database: %llu\n\nMatrix: %s\n"
                     "Gap Penalties: Existence: %d, Extension: %d\n",
                run->db_path ? run->db_path : "", (unsigned long long)run->db_seqs,
                (unsigned long long)run->db_residues, run->matrix ? run->matrix : "", run->gap_open,
                run->gap_extend);
    if (ferror(out)) return sw_error_set(err, SW_EIO, "error writing results");
    return SW_OK;
}
