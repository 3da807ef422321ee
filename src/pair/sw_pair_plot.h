/* A picture of megabase alignments: each alignment's path drawn over the
 * two sequences (the first along the x axis, the second up the y axis), as
 * a dot plot draws them, in SVG or PNG. Readable at any scale: points closer
 * than a fraction of a pixel are merged, so a chromosome-size path stays
 * small. */
#ifndef SW_PAIR_PLOT_H
#define SW_PAIR_PLOT_H

#include <stdio.h>

#include "sw_error.h"
#include "sw_pair.h"
#include "sw_pair_input.h"
#include "sw_pair_path.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { SW_PAIR_PLOT_SVG = 0, SW_PAIR_PLOT_PNG = 1 } sw_pair_plot_format;

/* What a file name asks for: PNG for a name ending in ".png" (any case),
 * else SVG. */
sw_pair_plot_format sw_pair_plot_format_of(const char *path);

/* Draws paths[0 .. count - 1] (the alignments of all[0 .. count - 1], best
 * first) to `out`. SVG: errors of `out` are left to the caller (ferror).
 * PNG: SW_EINVAL when this build has no PNG support, SW_ENOMEM, SW_EIO. */
int sw_pair_plot_write(FILE *out, sw_pair_plot_format format, const sw_pair_seq *a, const sw_pair_seq *b,
                       const sw_pair_result *all, const sw_pair_path *const *paths, int count, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
