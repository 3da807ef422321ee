/* The striped Smith-Waterman pass (Farrar 2007), written once and included by
 * each per-instruction-set file once per lane width (deliberately no include
 * guard).
 *
 * The includer defines, for the whole instruction set:
 *   SW_V                 the vector type
 *   v_zero() v_load(p) v_store(p, v)
 *   v_shift_bytes(a, n)  a moved up by n bytes (n a constant, 1..16),
 *                        zeros shifted in at the bottom
 * and, before each inclusion, for one lane width (undefined again below):
 *   SW_KERNEL            name of the static function to define
 *   SW_ELEM, SW_LANE_MAX lane type and its largest value
 *   v_set1(x) v_max(a, b)
 *   v_add_score(h, s)    h plus a profile score (may dip below 0 in a lane;
 *                        the max with E, always >= 0, lifts it back)
 *   v_sub_gap(a, g)      a - g, clamped at 0
 *   v_any_gt(a, b)       nonzero if a > b in any lane
 *
 * All lanes stay >= 0: H is never below 0 in local alignment, so an E or F
 * value at or below 0 can never win a max, and 0 serves as minus infinity.
 * That puts every width on the same unsigned-style saturating arithmetic.
 *
 * F across lane boundaries. Farrar's lazy-F loop revisits a column until no
 * carry can change it; with 32 narrow lanes some lane nearly always has a
 * carry, and that data-dependent loop cost more than the column itself. Here
 * the carry is exact and branch-light instead: a lane's carry is the F at the
 * end of the lane below, c[L] = max(f_end[L-1], c[L-1] - seg_len * extend),
 * a decaying prefix maximum over lanes, found in log2(lanes) shift-and-max
 * steps. Steps that carry over 1 to 3 lanes run only when some f_end exceeds
 * what a gap loses crossing one lane, and the longer ones only when some
 * f_end exceeds the loss over four; in a search both are rare, so the
 * branches predict well. The carry is applied as the next column loads each H (carry - i *
 * extend at cell i): the diagonal is all the next column reads from H.
 *
 * Two things the carry need not update. E: an H raised by a gap along the
 * query feeds only a gap along the subject right after it, and the two gaps
 * in the other order cost the same and are found without the carry. The best
 * score: a cell whose H comes from F scores below the cell the gap left. */

#define SW_LANES ((int)(sizeof(SW_V) / sizeof(SW_ELEM)))

/* Moves v_c up by 2^k lanes, decaying by v_decay[k] on the way, and keeps
 * the larger. Steps past a narrow vector's width are dropped; the inner
 * conditional only keeps their shift count a valid constant. */
#define SW_SCAN_STEP(k)                                                                   \
    if ((1 << (k)) < SW_LANES)                                                            \
    v_c = v_max(v_c, v_sub_gap(v_shift_bytes(v_c, ((1 << (k)) < SW_LANES ? 1 << (k) : 1) * \
                                                      sizeof(SW_ELEM)),                   \
                               v_decay[k]))

static int SW_KERNEL(const sw_simd_pass *pass)
{
    /* Locals, not pass->..., in the loops: the vector stores could alias
     * *pass as far as the compiler knows, forcing reloads. */
    const size_t seg_len = pass->seg_len, subject_len = pass->subject_len;
    const uint8_t *subject = pass->subject;
    const SW_V *profile = pass->profile;
    SW_V *h_load = pass->h_a, *h_store = pass->h_b, *e_col = pass->e;
    const SW_V v_oe = v_set1(pass->gap_open_extend);
    const SW_V v_ext = v_set1(pass->gap_extend);
    const SW_V v_bias = v_set1(pass->bias);
    const SW_V v_ceiling = v_set1(pass->ceiling);
    (void)v_bias; /* only the 8-bit v_add_score uses it */

    /* What a gap along the query loses over 2^k lanes (2^k * seg_len cells)
     * and over the seg_len - 1 cells from a lane's first to its last,
     * clamped to the lane range like every other subtraction. */
    SW_V v_decay[5];
    for (int k = 0; k < 5; k++) {
        uint64_t d = ((uint64_t)1 << k) * seg_len * (uint64_t)pass->gap_extend;
        v_decay[k] = v_set1(d < SW_LANE_MAX ? (int64_t)d : SW_LANE_MAX);
    }
    uint64_t last = (uint64_t)(seg_len - 1) * (uint64_t)pass->gap_extend;
    const SW_V v_decay_last = v_set1(last < SW_LANE_MAX ? (int64_t)last : SW_LANE_MAX);

    SW_V v_best = v_zero();
    SW_V v_c = v_zero(); /* the previous column's carry into each lane */
    /* The end column: where the best score over all lanes last rose. A
     * cell raised only by the carry is never the best (see above), so the
     * column in which the best cell is computed is its own. */
    const int track_end = pass->end_column != NULL;
    SW_V v_track = v_zero();
    size_t end_column = 0;
    /* The last column holding a cell of `target`: a scan of the column's
     * stored H after it is done (carry-raised cells are never the best, so
     * never the target when the target is the best score). A target past
     * this width's range cannot be reached before the pass saturates. */
    const int track_last = pass->last_column != NULL;
    const SW_V v_below_target =
        v_set1(pass->target - 1 < SW_LANE_MAX ? (pass->target - 1 > 0 ? pass->target - 1 : 0) : SW_LANE_MAX);
    size_t last_column = 0;
    for (size_t i = 0; i < seg_len; i++) {
        v_store(h_store + i, v_zero());
        v_store(e_col + i, v_zero());
    }
    for (size_t j = 0; j < subject_len; j++) {
        const SW_V *score = profile + (size_t)subject[j] * seg_len;
        /* The diagonal predecessor of a lane's first cell is the last cell
         * of the lane below in the previous column. */
        SW_V v_h = v_max(v_load(h_store + seg_len - 1), v_sub_gap(v_c, v_decay_last));
        v_h = v_shift_bytes(v_h, sizeof(SW_ELEM));
        SW_V v_f = v_zero();
        SW_V *swap = h_load;
        h_load = h_store;
        h_store = swap;
        for (size_t i = 0; i < seg_len; i++) {
            v_h = v_add_score(v_h, v_load(score + i));
            SW_V v_e = v_load(e_col + i);
            v_h = v_max(v_h, v_e);
            v_h = v_max(v_h, v_f);
            v_best = v_max(v_best, v_h);
            v_store(h_store + i, v_h);
            v_h = v_sub_gap(v_h, v_oe);
            v_store(e_col + i, v_max(v_sub_gap(v_e, v_ext), v_h));
            v_f = v_max(v_sub_gap(v_f, v_ext), v_h);
            v_h = v_max(v_load(h_load + i), v_c);
            v_c = v_sub_gap(v_c, v_ext);
        }

        v_c = v_shift_bytes(v_f, sizeof(SW_ELEM));
        if (v_any_gt(v_c, v_decay[0])) {
            const SW_V v_f_end = v_c;
            SW_SCAN_STEP(0);
            SW_SCAN_STEP(1);
            if (v_any_gt(v_f_end, v_decay[2])) {
                SW_SCAN_STEP(2);
                SW_SCAN_STEP(3);
                SW_SCAN_STEP(4);
            }
        }

        /* A saturated lane makes every later value suspect; stop early. */
        if (v_any_gt(v_best, v_ceiling)) return SW_SIMD_SATURATED;
        if (track_end && v_any_gt(v_best, v_track)) {
            SW_ELEM lanes[SW_LANES];
            memcpy(lanes, &v_best, sizeof lanes);
            int top = 0;
            for (int l = 0; l < SW_LANES; l++)
                if (lanes[l] > top) top = lanes[l];
            v_track = v_set1(top);
            end_column = j + 1;
        }
        if (track_last) {
            SW_V v_col = v_zero();
            for (size_t i = 0; i < seg_len; i++) v_col = v_max(v_col, v_load(h_store + i));
            if (v_any_gt(v_col, v_below_target)) last_column = j + 1;
        }
    }
    if (track_end) *pass->end_column = end_column;
    if (track_last) *pass->last_column = last_column;

    SW_ELEM lanes[SW_LANES];
    memcpy(lanes, &v_best, sizeof lanes);
    int best = 0;
    for (int l = 0; l < SW_LANES; l++)
        if (lanes[l] > best) best = lanes[l];
    return best;
}

#undef SW_LANES
#undef SW_SCAN_STEP
#undef SW_KERNEL
#undef SW_ELEM
#undef SW_LANE_MAX
#undef v_set1
#undef v_max
#undef v_add_score
#undef v_sub_gap
#undef v_any_gt
