/* The result of a megabase pairwise alignment as text: a TSV table of the
 * alignments, one JSON object with their engine, cells and time, PAF (one
 * line an alignment, minimap2's conventions) or MAF (the aligned bases). */
#ifndef SW_PAIR_REPORT_H
#define SW_PAIR_REPORT_H

#include <stdio.h>

#include "sw_pair.h"
#include "sw_pair_input.h"
#include "sw_pair_path.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SW_PAIR_REPORT_TSV = 0,
    SW_PAIR_REPORT_JSON = 1,
    SW_PAIR_REPORT_PAF = 2,
    SW_PAIR_REPORT_MAF = 3
} sw_pair_report_format;

/* Whether a format needs the alignments themselves (sw_pair_path). */
int sw_pair_report_needs_paths(sw_pair_report_format format);

/* Writes the alignments of a and b to `out`. all[0 .. rounds - 1] ran; the
 * first `count` found an alignment (a round that found none still has its
 * engine and cells). paths[k] is the alignment of all[k] for k < count, or
 * paths is NULL when they were not asked for (then PAF and MAF cannot be
 * written).
 * TSV: a header line, then one line an alignment, best first (one line of
 * zeros when none); with paths, also matches, mismatches, gap openings, gap
 * bases, identity and the CIGAR.
 * JSON: the first alignment's fields (with paths, also those above), the
 * cells, pruned cells and seconds of every round, and with `listed`
 * (best-K) the list of all `count` alignments.
 * PAF: a is the query, b the target; 0-based half-open coordinates, the
 * CIGAR in cg:Z:, the score in AS:i:, mismatches plus gap bases in NM:i:;
 * nothing when nothing aligns.
 * MAF: a header, then a block an alignment (a first, then b; N and the
 * other IUPAC codes written as N).
 * Errors of `out` are left to the caller (ferror). */
void sw_pair_report_write(FILE *out, sw_pair_report_format format, const sw_pair_seq *a, const sw_pair_seq *b,
                          const sw_pair_scoring *scoring, const sw_pair_result *all, const sw_pair_path *const *paths,
                          int count, int rounds, int listed);

/* The CIGAR of a path (runs of M, I and D), written to `out`. */
void sw_pair_report_cigar(FILE *out, const sw_pair_path *path);

#ifdef __cplusplus
}
#endif

#endif
