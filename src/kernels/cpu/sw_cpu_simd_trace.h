/* The striped pass that keeps what a traceback needs (16-bit lanes),
 * written once and included by each per-instruction-set file (deliberately
 * no include guard).
 *
 * The includer defines SW_V, v_zero() v_load(p) v_store(p, v) and
 * v_shift_bytes(a, n) as for sw_cpu_simd_striped.h, and SW_TRACE_KERNEL,
 * the name of the function to define, plus these 16-bit operations:
 *   t_set1(x) t_max(a, b) t_adds(a, b) t_subs_epu(a, b) t_add(a, b) t_sub(a, b)
 *   t_cmpeq(a, b) t_cmpgt(a, b) t_and(a, b) t_or(a, b) t_andnot(a, b)
 *   t_slli2(a)   a shifted left by 2 bits in each lane
 *   t_any(m)     nonzero if any lane of the mask m is set
 *
 * Unlike the score-only pass, every stored value here is exact: a cell's H
 * (after every gap along the query has reached it), and the E that the
 * next column reads. Gaps along the query that cross lanes are settled
 * after each column: the exact F entering each lane (a prefix maximum over
 * lanes, as in the score-only pass) goes down the lane while it still
 * raises a cell or beats the gap that the lane's own cells open; each raise
 * also raises the E that the cell feeds. Farrar's lazy-F loop, which
 * revisits the column once per lane the carry crosses, cost up to 16 passes
 * a column on long similar pairs, where gaps from the diagonal fill the
 * lanes below it. Lanes stay >= 0, 0 standing for minus infinity, as in
 * the score-only pass.
 *
 * A cell is stored as (H << 2) | bits: bit 0 set when the diagonal gives
 * H, bit 1 when E does; neither means F (sw_traceback.c's tie rule reads
 * them in that order, and H = 0 ends a walk whatever the bits). Whether a
 * gap was opened or extended needs only H, so H and these bits are all the
 * walk back reads. H must stay below 2^14 (SW_SIMD_TRACE_MAX_SCORE). */

static void SW_TRACE_KERNEL(const sw_simd_trace_pass *pass)
{
    const size_t seg_len = pass->seg_len, columns = pass->columns;
    const size_t lanes = sizeof(SW_V) / sizeof(int16_t);
    const uint8_t *subject = pass->subject;
    const SW_V *profile = pass->profile;
    SW_V *h_load = pass->h, *h_store = pass->h_scratch, *e_col = pass->e;
    SW_V *cells = pass->cells;
    const SW_V v_oe = t_set1(pass->gap_open_extend);
    const SW_V v_ext = t_set1(pass->gap_extend);
    const SW_V v_z = v_zero();
    /* What a gap along the query loses over 2^k lanes (2^k * seg_len cells),
     * clamped to the lane range. */
    SW_V v_decay[4];
    for (int k = 0; k < 4; k++) {
        uint64_t d = ((uint64_t)1 << k) * seg_len * (uint64_t)pass->gap_extend;
        v_decay[k] = t_set1(d < INT16_MAX ? (int64_t)d : INT16_MAX);
    }

    for (size_t j = 0; j < columns; j++) {
        const SW_V *score = profile + (size_t)subject[j] * seg_len;
        SW_V *col = cells ? cells + j * seg_len : NULL;
        /* The diagonal of a lane's first cell is the last cell of the lane
         * below in the previous column. */
        SW_V v_h = v_shift_bytes(v_load(h_load + seg_len - 1), 2);
        SW_V v_f = v_z;
        for (size_t i = 0; i < seg_len; i++) {
            const SW_V v_diag = t_adds(v_h, v_load(score + i));
            const SW_V v_e = v_load(e_col + i);
            const SW_V v_hh = t_max(t_max(v_diag, v_e), v_f);
            v_store(h_store + i, v_hh);
            if (col) {
                /* Equal lanes of a compare are -1: subtracting the diagonal's
                 * mask sets bit 0, twice E's sets bit 1. */
                const SW_V m_e = t_cmpeq(v_hh, v_e);
                v_store(col + i, t_sub(t_sub(t_slli2(v_hh), t_cmpeq(v_hh, v_diag)), t_add(m_e, m_e)));
            }
            const SW_V v_hoe = t_subs_epu(v_hh, v_oe);
            v_store(e_col + i, t_max(t_subs_epu(v_e, v_ext), v_hoe));
            v_f = t_max(t_subs_epu(v_f, v_ext), v_hoe);
            v_h = v_load(h_load + i);
        }
        /* F across lanes: the F entering each lane from the one below,
         * exactly, as a decaying prefix maximum over lanes (see
         * sw_cpu_simd_striped.h), then applied down each lane while it
         * still beats what the lane's own cells give. */
        SW_V v_c = v_shift_bytes(v_f, 2);
        if (t_any(t_cmpgt(v_c, v_z))) {
            for (size_t k = 0; ((size_t)1 << k) < lanes; k++) {
                SW_V v_moved = v_c;
                switch (k) { /* shift counts must be constants */
                case 0: v_moved = v_shift_bytes(v_c, 2); break;
                case 1: v_moved = v_shift_bytes(v_c, 4); break;
                case 2: v_moved = v_shift_bytes(v_c, 8); break;
                default: v_moved = v_shift_bytes(v_c, 16); break;
                }
                v_c = t_max(v_c, t_subs_epu(v_moved, v_decay[k]));
            }
            for (size_t i = 0; i < seg_len; i++) {
                SW_V v_hh = v_load(h_store + i);
                const SW_V raised = t_cmpgt(v_c, v_hh);
                const SW_V v_next = t_subs_epu(v_c, v_ext);
                /* A lane's carry lives on where it raised this cell, or
                 * where it beats the gap this cell opens into the next. */
                const SW_V alive = t_or(raised, t_cmpgt(v_next, t_subs_epu(v_hh, v_oe)));
                if (t_any(raised)) {
                    v_hh = t_max(v_hh, v_c);
                    v_store(h_store + i, v_hh);
                    v_store(e_col + i, t_max(v_load(e_col + i), t_subs_epu(v_hh, v_oe)));
                    if (col) /* raised by F: source bits 0 */
                        v_store(col + i, t_or(t_and(raised, t_slli2(v_hh)), t_andnot(raised, v_load(col + i))));
                }
                v_c = t_and(v_next, alive);
                if (!t_any(t_cmpgt(v_c, v_z))) break;
            }
        }
        SW_V *swap = h_load;
        h_load = h_store;
        h_store = swap;
    }
    /* The last column's H belongs in pass->h. */
    if (h_load != pass->h) memcpy(pass->h, h_load, seg_len * sizeof(SW_V));
}

#undef SW_TRACE_KERNEL
