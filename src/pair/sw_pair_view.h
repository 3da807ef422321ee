/* A window of a megabase alignment as text, for reading by eye: the
 * columns whose base of the first sequence lies in a range, with the gaps
 * between them, in blocks of 60 columns as BLAST and EMBOSS draw them
 * ('|' a match, '.' a mismatch, ' ' a gap). */
#ifndef SW_PAIR_VIEW_H
#define SW_PAIR_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "sw_pair.h"
#include "sw_pair_input.h"
#include "sw_pair_path.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the columns of alignment `p` (of result `r`) whose base of a lies
 * in from..to (1-based, inclusive), and the columns of b's bases against
 * gaps that lie between two of those. Writes a line saying so when the
 * alignment has no base of a in that range. */
void sw_pair_view_write(FILE *out, const sw_pair_seq *a, const sw_pair_seq *b, const sw_pair_result *r,
                        const sw_pair_path *p, uint64_t from, uint64_t to);

#ifdef __cplusplus
}
#endif

#endif
