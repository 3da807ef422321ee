/* The pass contract of sw_pair_pass.h, shared by every megabase engine: the
 * checks each makes before it starts, and the answer of a pass without rows. */
#include "sw_pair_pass.h"

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
    return sw_pair_check_scoring(&p->scoring, p->a_len, p->b_len, err);
}

void sw_pair_pass_no_rows(const sw_pair_pass *p)
{
    if (p->bottom && !p->a_len)
        for (uint64_t j = 0; j < p->b_len; ++j) p->bottom[j] = p->top ? p->top[j] : (sw_pair_edge){0, SW_PAIR_FLOOR};
}
