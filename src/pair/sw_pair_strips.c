/* Strip widths (sw_pair_strips.h). */
#include "sw_pair_strips.h"

#include <math.h>

int sw_pair_strip_widths(uint64_t rows, uint64_t cols, int count, const double *speed, const uint64_t *in_flight,
                         uint64_t *widths)
{
    if (count < 1 || rows == 0 || cols == 0 || !speed || !in_flight || !widths) return 0;
    for (int k = 0; k < count; ++k)
        if (!(speed[k] > 0)) return 0;
    if (count > 64) count = 64;
    if ((uint64_t)count > cols) count = (int)cols;
    uint64_t held = 0;
    for (int k = 0; k < count; ++k)
        if (in_flight[k] > held) held = in_flight[k];
    if (rows <= held) count = 1;
    double total = 0;
    for (int k = 0; k < count; ++k) total += speed[k];
    /* Rounded down, each at least 1; the remainder to the strips in order. */
    uint64_t sum = 0;
    for (int k = 0; k < count; ++k) {
        const double w = floor(speed[k] / total * (double)cols);
        widths[k] = w < 1 ? 1 : (uint64_t)w;
        sum += widths[k];
    }
    for (int k = 0; sum > cols && k < count; ++k)
        while (sum > cols && widths[k] > 1) {
            widths[k]--;
            sum--;
        }
    for (int k = 0; sum < cols; k = (k + 1) % count) {
        widths[k]++;
        sum++;
    }
    return count;
}
