/* A picture of megabase alignments: each alignment's path drawn over the
 * two sequences (the first along the x axis, the second up the y axis), as
 * a dot plot draws them, in SVG. Readable at any scale: points closer than
 * a fraction of a pixel are merged, so a chromosome-size path stays small. */
#ifndef SW_PAIR_PLOT_H
#define SW_PAIR_PLOT_H

#include <stdio.h>

#include "sw_pair.h"
#include "sw_pair_input.h"
#include "sw_pair_path.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Draws paths[0 .. count - 1] (the alignments of all[0 .. count - 1], best
 * first) to `out`. Errors of `out` are left to the caller (ferror). */
void sw_pair_plot_write(FILE *out, const sw_pair_seq *a, const sw_pair_seq *b, const sw_pair_result *all,
                        const sw_pair_path *const *paths, int count);

#ifdef __cplusplus
}
#endif

#endif
