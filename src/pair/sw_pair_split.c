/* Row slices of a local pass across processes (sw_pair_split.h).
 *
 * Why the method is exact: in a local pass the rows below a row depend on
 * nothing above it but that row's H and F, and F <= 0 acts as F = 0 (F
 * enters H only through a max with 0, and only falls going down). A slice
 * computed from a row equal in that sense to the true last row of the slice
 * above is exact; slice 0 starts at the matrix edge. Each round every
 * slice whose row above changed (in that sense) is recomputed from the new
 * one, and a slice whose last row changed sends it on; when no rank has a
 * changed row, every slice is exact by induction. A chain of related slices
 * (the best alignment running through all of them) takes one round a
 * slice, which is the most there can be. */
#include "sw_pair_split.h"

#include <stdlib.h>
#include <string.h>

static int same_row(const sw_pair_edge *x, const sw_pair_edge *y, uint64_t n)
{
    for (uint64_t j = 0; j < n; ++j) {
        const int32_t fx = x[j].f > 0 ? x[j].f : 0, fy = y[j].f > 0 ? y[j].f : 0;
        if (x[j].h != y[j].h || fx != fy) return 0;
    }
    return 1;
}

int sw_pair_split_agree(const sw_pair_slice_ops *ops, int rc, sw_error *err)
{
    int64_t worst = 0;
    sw_error local;
    sw_error_clear(&local);
    if (ops->max_all(ops->user, rc ? 1 : 0, &worst, &local)) {
        if (!rc && err) *err = local;
        return rc ? rc : SW_EIO;
    }
    if (!worst) return SW_OK;
    return rc ? rc : sw_error_set(err, SW_EIO, "another process of the run failed");
}

int sw_pair_split_run(const sw_pair_pass *pass, uint64_t overlap, const sw_pair_slice_ops *ops,
                      sw_pair_slice_engine engine, void *engine_user, sw_pair_hit *out, sw_pair_split_stats *stats,
                      sw_error *err)
{
    memset(out, 0, sizeof *out);
    sw_pair_split_stats st;
    memset(&st, 0, sizeof st);
    if (stats) *stats = st;
    if (!ops || !engine || ops->ranks < 1 || ops->rank < 0 || ops->rank >= ops->ranks)
        return sw_error_set(err, SW_EINVAL, "split pass: invalid arguments");
    int rc = sw_pair_check_pass(pass, err);
    if (!rc && (pass->mode != SW_PAIR_LOCAL || pass->top || pass->bottom))
        rc = sw_error_set(err, SW_EINVAL, "split pass: local passes of a whole matrix only");
    if (overlap == 0) overlap = SW_PAIR_SPLIT_OVERLAP;
    const uint64_t m = pass->a_len, n = pass->b_len;
    const int rank = ops->rank, ranks = ops->ranks;
    const uint64_t r0 = m * (uint64_t)rank / (uint64_t)ranks, r1 = m * (uint64_t)(rank + 1) / (uint64_t)ranks;

    /* top: the row this slice was computed from; last: its last row;
     * above: the last row of the slice above as received. */
    sw_pair_edge *top = NULL, *last = NULL, *above = NULL, *fresh = NULL;
    if (!rc && n) {
        top = malloc(n * sizeof *top);
        last = malloc(n * sizeof *last);
        above = malloc(n * sizeof *above);
        fresh = malloc(n * sizeof *fresh);
        if (!top || !last || !above || !fresh)
            rc = sw_error_set(err, SW_ENOMEM, "out of memory for the rows of %llu columns", (unsigned long long)n);
    }
    sw_pair_hit hit;
    memset(&hit, 0, sizeof hit);
    if (!rc && n) {
        /* The overlap: rows [r0 - overlap, r0) from zeros give the row above. */
        sw_pair_pass part = *pass;
        part.cells_done = NULL;
        if (rank > 0) {
            const uint64_t o0 = r0 > overlap ? r0 - overlap : 0;
            part.a = pass->a + o0;
            part.a_len = r0 - o0;
            part.bottom = top;
            sw_pair_hit ignored;
            rc = engine(engine_user, &part, &ignored, err);
            st.cells += ignored.cells;
        }
        if (!rc) {
            part = *pass;
            part.a = pass->a + r0;
            part.a_len = r1 - r0;
            part.top = rank > 0 ? top : NULL;
            part.bottom = last;
            rc = engine(engine_user, &part, &hit, err);
            st.cells += hit.cells;
        }
    }
    if ((rc = sw_pair_split_agree(ops, rc, err))) goto done;

    int changed = 1;
    for (;;) {
        /* The chain goes one way: rank r sends before it receives, and the
         * last rank only receives, so no cycle of waits can form. */
        int inexact = 0;
        if (n && rank + 1 < ranks) rc = ops->send_next(ops->user, last, n, changed, err);
        if (!rc && n && rank > 0) {
            int got = 0;
            rc = ops->recv_prev(ops->user, above, n, &got, err);
            if (!rc && got && !same_row(above, top, n)) inexact = 1;
        }
        if ((rc = sw_pair_split_agree(ops, rc, err))) goto done;
        int64_t any = 0;
        if ((rc = ops->max_all(ops->user, inexact, &any, err))) goto done;
        if (!any) break;
        st.rounds++;
        changed = 0;
        if (inexact) {
            st.recomputed++;
            memcpy(top, above, n * sizeof *top);
            sw_pair_pass part = *pass;
            part.cells_done = NULL;
            part.a = pass->a + r0;
            part.a_len = r1 - r0;
            part.top = top;
            part.bottom = fresh;
            rc = engine(engine_user, &part, &hit, err);
            st.cells += hit.cells;
            if (!rc && !same_row(fresh, last, n)) {
                changed = 1;
                memcpy(last, fresh, n * sizeof *last);
            }
        }
        if ((rc = sw_pair_split_agree(ops, rc, err))) goto done;
    }

    {
        /* The best over the slices: higher score, then smaller column, then
         * smaller row (the order of every engine). */
        const int64_t mine[SW_PAIR_SPLIT_FIELDS] = {hit.score, hit.score > 0 ? (int64_t)(hit.a_end + r0) : 0,
                                                    (int64_t)hit.b_end, (int64_t)st.cells, st.recomputed};
        int64_t *all = malloc((size_t)ranks * SW_PAIR_SPLIT_FIELDS * sizeof *all);
        if (!all) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory");
            goto done;
        }
        rc = ops->gather_all(ops->user, mine, all, err);
        if (!rc) {
            st.cells = 0;
            st.recomputed = 0;
            for (int r = 0; r < ranks; ++r) {
                const int64_t *x = all + SW_PAIR_SPLIT_FIELDS * r;
                st.cells += (uint64_t)x[3];
                st.recomputed += x[4];
                const int better = x[0] > out->score ||
                                   (x[0] == out->score && x[0] > 0 &&
                                    ((uint64_t)x[2] < out->b_end ||
                                     ((uint64_t)x[2] == out->b_end && (uint64_t)x[1] < out->a_end)));
                if (better) {
                    out->score = (int32_t)x[0];
                    out->a_end = (uint64_t)x[1];
                    out->b_end = (uint64_t)x[2];
                }
            }
            out->cells = st.cells;
        }
        free(all);
    }

done:
    if (stats) *stats = st;
    free(top);
    free(last);
    free(above);
    free(fresh);
    return rc;
}
