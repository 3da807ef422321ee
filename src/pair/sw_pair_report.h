/* The result of a megabase pairwise alignment as text: a TSV table of the
 * alignments, or one JSON object with their engine, cells and time. */
#ifndef SW_PAIR_REPORT_H
#define SW_PAIR_REPORT_H

#include <stdio.h>

#include "sw_pair.h"
#include "sw_pair_input.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { SW_PAIR_REPORT_TSV = 0, SW_PAIR_REPORT_JSON = 1 } sw_pair_report_format;

/* Writes the alignments of a and b to `out`. all[0 .. rounds - 1] ran; the
 * first `count` found an alignment (a round that found none still has its
 * engine and cells). TSV: a header line, then one line an alignment, best
 * first (one line of zeros when none). JSON: the first alignment's fields,
 * the cells, pruned cells and seconds of every round, and with `listed`
 * (best-K) the list of all `count` alignments. Errors of `out` are left to
 * the caller (ferror). */
void sw_pair_report_write(FILE *out, sw_pair_report_format format, const sw_pair_seq *a, const sw_pair_seq *b,
                          const sw_pair_result *all, int count, int rounds, int listed);

#ifdef __cplusplus
}
#endif

#endif
