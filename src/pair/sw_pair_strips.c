/* Strip widths (sw_pair_strips.h). With T the common end, strip k of
 * width w_k ends at d_k + rows w_k / s_k, where d_k, its start, is the sum
 * over the strips left of it of in_flight_i w_i / s_i. Setting every end to
 * T makes each w_k a multiple of T: w_k = a_k T with
 * a_k = (1 - sum_{i<k} in_flight_i a_i / s_i) s_k / rows, and T follows
 * from the widths summing to cols. */
#include "sw_pair_strips.h"

#include <math.h>

int sw_pair_strip_widths(uint64_t rows, uint64_t cols, int count, const double *speed, const uint64_t *in_flight,
                         uint64_t *widths)
{
    if (count < 1 || rows == 0 || cols == 0 || !speed || !in_flight || !widths) return 0;
    for (int k = 0; k < count; ++k)
        if (!(speed[k] > 0)) return 0;
    double a[64];
    if (count > 64) count = 64;
    if ((uint64_t)count > cols) count = (int)cols;
    int used = 0;
    double start = 0, total = 0;
    for (int k = 0; k < count; ++k) {
        const double share = (1.0 - start) * speed[k] / (double)rows;
        if (!(share > 0)) break;
        /* A strip that would start after most of the run is over is not
         * worth its fill. */
        if (k > 0 && start > 0.9) break;
        a[k] = share;
        total += share;
        const double held = (double)(in_flight[k] < rows ? in_flight[k] : rows);
        start += held * share / speed[k];
        used = k + 1;
    }
    /* Widths from T = cols / total, rounded down, each at least 1, the
     * remainder to the strips in order. */
    uint64_t sum = 0;
    for (int k = 0; k < used; ++k) {
        double w = floor(a[k] / total * (double)cols);
        widths[k] = w < 1 ? 1 : (uint64_t)w;
        sum += widths[k];
    }
    for (int k = 0; sum > cols && k < used; ++k)
        while (sum > cols && widths[k] > 1) {
            widths[k]--;
            sum--;
        }
    for (int k = 0; sum < cols; k = (k + 1) % used) {
        widths[k]++;
        sum++;
    }
    return used;
}
