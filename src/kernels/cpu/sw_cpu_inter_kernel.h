/* The body of an inter-sequence kernel (sw_cpu_inter_impl.h), written once
 * for every instruction set: a kernel file defines LANES, KERNEL, V, MASK,
 * ALIGNED and the vector operations (ZERO, SET1, LOAD, STORE, STOREU, ADDS,
 * SUBS, MAX, SHUFFLE, BROADCAST16, TEST_BIT, BLEND), then includes this
 * file, as the striped kernels include sw_cpu_simd_striped.h. */

/* The column profile: for each query code c, every lane's score against c
 * (plus bias). The table row of c has 32 entries but a byte shuffle looks up
 * 16, within each 128-bit block, so the row's two halves are each looked up
 * and bit 4 of the residue code picks between them. SW_INTER_PAD has bit 7
 * set, which makes both shuffles give 0. */
static inline V lookup(const uint8_t *row, V idx, MASK high)
{
    V lo = BROADCAST16(row), hi = BROADCAST16(row + 16);
    return BLEND(high, SHUFFLE(lo, idx), SHUFFLE(hi, idx));
}

/* Subject columns in the outer loop, query rows in the inner one: lanes
 * move along their subjects in step, so one column profile (a few dozen
 * vectors, in L1) serves every query row, and H and E of the query rows
 * (query_len vectors each) are all the state a column passes on. The
 * transposed order would need a profile vector per (query row, subject
 * position), rebuilt for every group. Four columns go together (SWIPE
 * does the same): H and E are read and written once per row for all four,
 * and F and the diagonals of the four columns stay in registers. */
void KERNEL(const sw_inter_group *g)
{
    const size_t query_len = g->query_len, columns = g->columns, n_codes = g->n_codes;
    const uint8_t *query = g->query, *codes = g->codes, *table = g->table;
    V *h = g->h, *e = g->e;
    const V zero = ZERO(), v_bias = SET1(g->bias), v_oe = SET1(g->gap_open_extend),
            v_ext = SET1(g->gap_extend), v_bit4 = SET1(0x10);
    /* prof[c * 4 + k]: code c against column k of the block. */
    ALIGNED V prof[SW_CODE_LIMIT * 4];
    V best = zero;

    for (size_t i = 0; i < query_len; i++) {
        STORE(&h[i], zero);
        STORE(&e[i], zero);
    }
    for (size_t j = 0; j < columns; j += 4) {
        for (int k = 0; k < 4; k++) {
            V idx = LOAD((const V *)(g->subjects + (j + k) * LANES));
            MASK high = TEST_BIT(idx, v_bit4);
            for (size_t c = 0; c < n_codes; c++)
                prof[codes[c] * 4 + k] = lookup(table + codes[c] * SW_CODE_LIMIT, idx, high);
        }
        /* d_k: H of the row above, one column left of column k; f_k: F of
         * column k. Row 0 of the matrix is all 0, and 0 is minus infinity
         * for a gap in lanes that never go below 0. */
        V d0 = zero, d1 = zero, d2 = zero, d3 = zero;
        V f0 = zero, f1 = zero, f2 = zero, f3 = zero;
        for (size_t i = 0; i < query_len; i++) {
            const V *p = &prof[query[i] * 4];
            V left = LOAD(&h[i]), ev = LOAD(&e[i]), h0, h1, h2, h3, gap;
/* ev last into H: E runs along the row, the one chain from cell to cell
 * of a row, so it goes through the fewest steps. */
#define CELL(hk, dk, fk, pk)                                      \
    hk = SUBS(ADDS(dk, pk), v_bias);                             \
    hk = MAX(MAX(hk, fk), ev);                                   \
    gap = SUBS(hk, v_oe);                                        \
    ev = MAX(SUBS(ev, v_ext), gap);                              \
    fk = MAX(SUBS(fk, v_ext), gap)
            CELL(h0, d0, f0, p[0]);
            CELL(h1, d1, f1, p[1]);
            CELL(h2, d2, f2, p[2]);
            CELL(h3, d3, f3, p[3]);
#undef CELL
            d0 = left;
            d1 = h0;
            d2 = h1;
            d3 = h2;
            best = MAX(best, MAX(MAX(h0, h1), MAX(h2, h3)));
            STORE(&h[i], h3);
            STORE(&e[i], ev);
        }
    }
    STOREU((V *)g->best, best);
}
