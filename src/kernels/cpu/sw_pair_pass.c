/* The pass contract of sw_pair_pass.h, shared by every megabase engine: the
 * checks each makes before it starts, and the answer of a pass without rows. */
#include "sw_pair_pass.h"

#include <stddef.h>

int sw_pair_check_scoring(const sw_pair_scoring *s, uint64_t a_len, uint64_t b_len, sw_error *err)
{
    if (s->match <= 0) return sw_error_set(err, SW_EINVAL, "the match score must be positive, not %d", s->match);
    if (s->mismatch > 0)
        return sw_error_set(err, SW_EINVAL, "the mismatch score must be zero or negative, not %d", s->mismatch);
    if (s->gap_open < 0) return sw_error_set(err, SW_EINVAL, "the gap open penalty must not be negative");
    if (s->gap_extend <= 0) return sw_error_set(err, SW_EINVAL, "the gap extension penalty must be positive");
    if ((int64_t)s->gap_open + s->gap_extend > SW_PAIR_MAX_GAP || -(int64_t)s->mismatch > SW_PAIR_MAX_GAP)
        return sw_error_set(err, SW_ELIMIT, "penalties above %d are not supported", SW_PAIR_MAX_GAP);
    const uint64_t shorter = a_len < b_len ? a_len : b_len;
    if ((uint64_t)s->match > SW_PAIR_MAX_SCORE || shorter > (uint64_t)SW_PAIR_MAX_SCORE / (uint64_t)s->match)
        return sw_error_set(err, SW_ELIMIT,
                            "a match score of %d over %llu bases could exceed %d, the largest score supported",
                            s->match, (unsigned long long)shorter, SW_PAIR_MAX_SCORE);
    return SW_OK;
}

int sw_pair_check_pass(const sw_pair_pass *p, sw_error *err)
{
    if (!p || (p->a_len && !p->a) || (p->b_len && !p->b))
        return sw_error_set(err, SW_EINVAL, "pairwise pass: invalid arguments");
    if (p->mode == SW_PAIR_ANCHORED && p->target <= 0)
        return sw_error_set(err, SW_EINVAL, "pairwise pass: an anchored pass needs a positive target");
    if (p->mode == SW_PAIR_ANCHORED && (p->top || p->bottom))
        return sw_error_set(err, SW_EINVAL, "pairwise pass: boundary rows are for local passes only");
    if (p->forbidden_count < 0 || (p->forbidden_count && !p->forbidden))
        return sw_error_set(err, SW_EINVAL, "pairwise pass: invalid forbidden boxes");
    if ((p->left || p->right || p->col_base || p->cols_after) && (p->top || p->bottom || p->forbidden_count))
        return sw_error_set(err, SW_EINVAL, "pairwise pass: a strip of columns takes no boundary rows or forbidden cells");
    return sw_pair_check_scoring(&p->scoring, p->a_len, p->b_len, err);
}

void sw_pair_pass_no_rows(const sw_pair_pass *p)
{
    if (p->bottom && !p->a_len)
        for (uint64_t j = 0; j < p->b_len; ++j) p->bottom[j] = p->top ? p->top[j] : (sw_pair_edge){0, SW_PAIR_FLOOR};
}

/* The most a path from one corner of a piece to cell (x, y) of it can
 * score: x or y pairs of bases, the difference in gaps (openings left out,
 * so that a gap going on from outside the piece is covered too). */
static int64_t reach(const sw_pair_scoring *s, uint64_t x, uint64_t y)
{
    const uint64_t pairs = x < y ? x : y, gaps = x > y ? x - y : y - x;
    return (int64_t)s->match * (int64_t)pairs - (int64_t)s->gap_extend * (int64_t)gaps;
}

void sw_pair_band_of(const sw_pair_scoring *s, uint64_t M, uint64_t N, int64_t target, uint64_t i, uint64_t *lo,
                    uint64_t *hi)
{
#define BAND_U(j) (reach(s, i, (j)) + reach(s, M - i, N - (j)))
    /* The maximum lies at a kink of the sum (j = i or j = i + N - M) or
     * at an end. */
    uint64_t cand[4] = {0, N, i < N ? i : N, 0};
    const int64_t k = (int64_t)i + (int64_t)N - (int64_t)M;
    cand[3] = k < 0 ? 0 : (uint64_t)k > N ? N : (uint64_t)k;
    uint64_t top = cand[0];
    for (int c = 1; c < 4; ++c)
        if (BAND_U(cand[c]) > BAND_U(top)) top = cand[c];
    if (BAND_U(top) < target) {
        *lo = 1;
        *hi = 0;
        return;
    }
    uint64_t a = 0, b = top; /* first j in [0, top] with U >= target */
    while (a < b) {
        const uint64_t mid = a + (b - a) / 2;
        if (BAND_U(mid) >= target) b = mid;
        else a = mid + 1;
    }
    *lo = a;
    a = top;
    b = N; /* last j in [top, N] with U >= target */
    while (a < b) {
        const uint64_t mid = a + (b - a + 1) / 2;
        if (BAND_U(mid) >= target) a = mid;
        else b = mid - 1;
    }
    *hi = a;
#undef BAND_U
}

