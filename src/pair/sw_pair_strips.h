/* How wide each column strip of a multi-GPU forward pass is
 * (sw_pair_gpu_strips_run): strip k starts about one band's sweep of
 * strip k - 1 later than it (the band's cells of its last column are what
 * strip k starts from), so the strips on the left are made wider, each by
 * as much as lets every strip end at the same time. */
#ifndef SW_PAIR_STRIPS_H
#define SW_PAIR_STRIPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Widths of up to `count` strips of a pass of `rows` rows and `cols`
 * columns, into widths[]: strip k sweeps speed[k] cells a unit of time and
 * holds in_flight[k] rows at once. Strip k starts when the strips on its
 * left have each swept one band of their width, in_flight rows of it;
 * each strip then takes rows x width / speed. The widths make those ends
 * equal, each at least 1, summing to cols. Returns how many strips are
 * worth running: fewer than `count` where the later ones would start after
 * the earlier ones end (a pass too short for so many); 0 for invalid
 * arguments. */
int sw_pair_strip_widths(uint64_t rows, uint64_t cols, int count, const double *speed, const uint64_t *in_flight,
                         uint64_t *widths);

#ifdef __cplusplus
}
#endif

#endif
