/* The body of an inter-sequence kernel (sw_cpu_inter_impl.h), written once
 * for every instruction set: a kernel file defines LANES, KERNEL, V, MASK,
 * the vector operations (SET1, LOAD, STORE, ADDS, SUBS, MAX on signed
 * bytes; MAX_BY_MASK, XOR, SHUFFLE, BROADCAST16, TEST_BIT, BLEND), then
 * includes this file, as the striped kernels include sw_cpu_simd_striped.h.
 *
 * MAX_BY_MASK is MAX computed another way where the instruction set has
 * one that runs beside it: a cell's saturating arithmetic and MAX keep one
 * port busy, so the maxes off H's own path (E, F and the best) go through
 * it. */

/* Every lane's score against one query code: the table row of the code
 * has 32 entries but a byte shuffle looks up 16, within each 128-bit
 * block, so the row's two halves are each looked up and bit 4 of the
 * residue code picks between them. SW_INTER_PAD has bit 7 set, which makes
 * both shuffles give 0. */
static inline V lookup(const int8_t *row, V idx, MASK high)
{
    V lo = BROADCAST16(row), hi = BROADCAST16(row + 16);
    return BLEND(high, SHUFFLE(lo, idx), SHUFFLE(hi, idx));
}

/* The column profile of four columns: prof[c * 4 + k] is every lane's
 * score in column k against code c, for the group's codes. It depends on
 * the subjects alone, so it is built once for all the queries. */
static inline void profile4(V *prof, const uint8_t *columns, const sw_inter_group *g)
{
    const V v_bit4 = SET1(0x10);
    for (int k = 0; k < 4; k++) {
        V idx = LOAD((const V *)(columns + k * LANES));
        MASK high = TEST_BIT(idx, v_bit4);
        for (size_t c = 0; c < g->n_codes; c++) {
            const uint8_t code = g->codes[c];
            prof[code * 4 + k] = lookup(g->table + code * SW_CODE_LIMIT, idx, high);
        }
    }
}

/* Four columns against every row of one query; returns `best` raised by
 * their cells. Query rows in the inner loop: H and E of the rows (len
 * vectors each) are all the state a column passes on, and the column's F
 * and the diagonals of the four columns stay in registers (SWIPE takes
 * four columns together too). H and E are read and written once per row
 * for all four. */
static inline V rows4(const V *prof, const uint8_t *seq, size_t len, V *h, V *e, V best, V v_floor,
                      V v_oe, V v_ext)
{
    /* d_k: H of the row above, one column left of column k; f_k: F of
     * column k; b_k: the best of column k. Row 0 of the matrix is all
     * H = 0 (the floor), which is also minus infinity for a gap in lanes
     * that never go below it. */
    V d0 = v_floor, d1 = v_floor, d2 = v_floor, d3 = v_floor;
    V f0 = v_floor, f1 = v_floor, f2 = v_floor, f3 = v_floor;
    V b0 = best, b1 = best, b2 = best, b3 = best;
    for (size_t i = 0; i < len; i++) {
        const V *p = &prof[seq[i] * 4];
        V left = LOAD(&h[i]), ev = LOAD(&e[i]), h0, h1, h2, h3, gap;
/* ev last into H: E runs along the row, the one chain from cell to cell
 * of a row, so it goes through the fewest steps. */
#define CELL(hk, dk, fk, bk, pk)                                  \
    hk = ADDS(dk, pk);                                           \
    hk = MAX(MAX(hk, fk), ev);                                   \
    bk = MAX_BY_MASK(bk, hk);                                    \
    gap = SUBS(hk, v_oe);                                        \
    ev = MAX_BY_MASK(SUBS(ev, v_ext), gap);                      \
    fk = MAX_BY_MASK(SUBS(fk, v_ext), gap)
        CELL(h0, d0, f0, b0, p[0]);
        CELL(h1, d1, f1, b1, p[1]);
        CELL(h2, d2, f2, b2, p[2]);
        CELL(h3, d3, f3, b3, p[3]);
#undef CELL
        d0 = left;
        d1 = h0;
        d2 = h1;
        d3 = h2;
        STORE(&h[i], h3);
        STORE(&e[i], ev);
    }
    return MAX(MAX(b0, b1), MAX(b2, b3));
}

/* Subject columns in the outer loop, query rows in the inner one: lanes
 * move along their subjects in step, so one column profile serves every
 * row of every query. The transposed order would need a profile vector
 * per (query row, subject position), rebuilt for every group. The columns
 * go a tile at a time: its profile (tile x the codes' vectors) stays in
 * L1 while every query passes over it, each from the H and E it left at
 * the tile before. */
void KERNEL(const sw_inter_group *g)
{
    const V v_floor = SET1(0x80), v_oe = SET1(g->gap_open_extend), v_ext = SET1(g->gap_extend);
    V *prof = g->profile;
    for (size_t q = 0; q < g->num_queries; q++) {
        const sw_inter_query *query = &g->queries[q];
        V *h = query->h, *e = query->e;
        for (size_t i = 0; i < query->len; i++) {
            STORE(&h[i], v_floor);
            STORE(&e[i], v_floor);
        }
        STORE((V *)query->best, v_floor);
    }
    for (size_t first = 0; first < g->columns; first += g->tile) {
        const size_t end = first + g->tile < g->columns ? first + g->tile : g->columns;
        for (size_t j = first; j < end; j += 4)
            profile4(prof + (j - first) / 4 * SW_CODE_LIMIT * 4, g->subjects + j * LANES, g);
        for (size_t q = 0; q < g->num_queries; q++) {
            const sw_inter_query *query = &g->queries[q];
            V best = LOAD((const V *)query->best);
            for (size_t j = first; j < end; j += 4)
                best = rows4(prof + (j - first) / 4 * SW_CODE_LIMIT * 4, query->seq, query->len,
                             query->h, query->e, best, v_floor, v_oe, v_ext);
            STORE((V *)query->best, best);
        }
    }
    /* From H - 128 back to H. */
    for (size_t q = 0; q < g->num_queries; q++) {
        V *best = (V *)g->queries[q].best;
        STORE(best, XOR(LOAD(best), v_floor));
    }
}
