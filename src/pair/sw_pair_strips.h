/* How wide each column strip of a multi-GPU pass is
 * (sw_pair_gpu_strips_run). Strip k starts band b once strip k - 1 has
 * swept it, so no strip runs ahead of the ones on its left: the strips go
 * at the pace of the slowest band sweep, and all are busy when each sweeps
 * its band in the same time, that is, when widths are in proportion to
 * speeds. The pass then lasts about (rounds + count - 1) band sweeps,
 * against rounds x count on one GPU of them, where rounds is the rows over
 * the rows a strip holds in flight: the fill and drain of the pipeline
 * (docs/CUDALIGN.md). */
#ifndef SW_PAIR_STRIPS_H
#define SW_PAIR_STRIPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Widths of up to `count` strips of a pass of `rows` rows and `cols`
 * columns, into widths[]: in proportion to speed[k] (any unit), each at
 * least 1, summing to cols. in_flight[k]: the rows strip k holds at once;
 * a pass of no more rows than that gains nothing from strips (the second
 * would start as the first ends) and gets one. At most one strip a column.
 * Returns the number of strips; 0 for invalid arguments. */
int sw_pair_strip_widths(uint64_t rows, uint64_t cols, int count, const double *speed, const uint64_t *in_flight,
                         uint64_t *widths);

#ifdef __cplusplus
}
#endif

#endif
