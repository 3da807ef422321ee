/* Output formats of `swsearch search`, in BLAST's syntax and conventions:
 * 6 (tabular, BLAST's 12 columns or a field list), 7 (tabular with comment
 * lines), 0 (pairwise, alignments drawn), json (one object per hit and
 * line), and tsv (the table of earlier versions: scores only). */
#ifndef SW_OUTFMT_H
#define SW_OUTFMT_H

#include <stdint.h>
#include <stdio.h>

#include "sw_error.h"
#include "sw_traceback.h"

typedef struct sw_outfmt sw_outfmt;

/* Parses "6", "6 qseqid sseqid evalue ...", "7", "7 fields...", "0",
 * "json" or "tsv". A bad spec is SW_EFORMAT with a message naming the
 * unknown field or format. */
int sw_outfmt_parse(const char *spec, sw_outfmt **out, sw_error *err);
void sw_outfmt_free(sw_outfmt *f);

/* What the format prints, so that the search computes no more than it
 * needs: coordinates and counts (an alignment), the aligned strings. */
int sw_outfmt_needs_alignment(const sw_outfmt *f);
int sw_outfmt_needs_sequences(const sw_outfmt *f);
/* Whether E-values and bit scores are part of the output (all formats but
 * tsv, whose table of scores predates them and is never filtered by E). */
int sw_outfmt_needs_statistics(const sw_outfmt *f);

/* What every header names. */
typedef struct sw_outfmt_run {
    const char *version;      /* swsearch's version */
    const char *db_path;
    uint64_t db_seqs, db_residues;
    const char *matrix;       /* as the user named it */
    int gap_open, gap_extend;
    double evalue_cutoff;
    const int8_t *table;      /* sw_matrix_table(): format 0 marks positive pairs '+' */
    /* An iterated search's round (1, 2, ...) and the sequences its profile
     * holds, which formats 7 and 0 name; 0: not an iterated search. */
    int iteration;
    size_t profile_sequences;
} sw_outfmt_run;

typedef struct sw_outfmt_query {
    const char *header;       /* the FASTA header without '>': id, then description */
    size_t length;
    const uint8_t *residues;  /* protein codes (sw_alphabet_protein()) */
    const char *stats;        /* sw_stats_describe() of this query's statistics */
    /* A PSSM query's rows (length x SW_CODE_LIMIT), which mark the positive
     * pairs of format 0 instead of the matrix; NULL for a plain query. */
    const int8_t *rows;
} sw_outfmt_query;

typedef struct sw_outfmt_hit {
    int score;
    double bits, evalue;
    const char *header;       /* the subject's FASTA header without '>' */
    uint32_t length;
    const uint8_t *residues;  /* subject codes; NULL unless sequences are needed */
    const sw_alignment *alignment; /* NULL unless an alignment is needed */
    uint64_t seq;             /* the subject's number in the database */
} sw_outfmt_hit;

/* 100 * part / whole, 0 for an empty whole: pident, ppos and the coverages. */
static inline double sw_outfmt_percent(size_t part, size_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One field of format 6 ("qseq", "cigar", "evalue", ...) of one hit as
 * the format writes it, into a malloc'ed string: what the library hands
 * out is the program's output, character for character. */
int sw_outfmt_field_text(const char *field, const sw_outfmt_query *q, const sw_outfmt_hit *h, char **out,
                         sw_error *err);

/* Before the first query (tsv's header line; nothing for the others). */
int sw_outfmt_begin(FILE *out, const sw_outfmt *f, const sw_outfmt_run *run, sw_error *err);
/* One query and its hits, best first (`n` may be 0: formats 7 and 0 say
 * so). */
int sw_outfmt_write_query(FILE *out, const sw_outfmt *f, const sw_outfmt_run *run,
                          const sw_outfmt_query *q, const sw_outfmt_hit *hits, size_t n,
                          sw_error *err);
/* After the last query (format 7's "# ... processed N queries"). */
int sw_outfmt_end(FILE *out, const sw_outfmt *f, const sw_outfmt_run *run, size_t num_queries,
                  sw_error *err);

#endif
