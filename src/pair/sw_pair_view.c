/* Text view of a window of a megabase alignment (sw_pair_view.h). */
#include "sw_pair_view.h"

#include <string.h>

#define WIDTH 60

typedef struct block {
    char top[WIDTH + 1], mid[WIDTH + 1], bottom[WIDTH + 1];
    int n;
    uint64_t a_first, a_last, b_first, b_last; /* 0 while the block holds no base of that sequence */
} block;

static char letter(uint8_t code) { return "ACGTN"[code < 4 ? code : 4]; }

static void flush(FILE *out, block *k, const char *a_id, const char *b_id, int id_width, uint64_t *a_prev,
                  uint64_t *b_prev)
{
    if (!k->n) return;
    k->top[k->n] = k->mid[k->n] = k->bottom[k->n] = 0;
    /* A block with no base of a sequence shows the position before it. */
    const uint64_t a0 = k->a_first ? k->a_first : *a_prev, a1 = k->a_last ? k->a_last : *a_prev;
    const uint64_t b0 = k->b_first ? k->b_first : *b_prev, b1 = k->b_last ? k->b_last : *b_prev;
    fprintf(out, "%-*s %12llu %s %llu\n", id_width, a_id, (unsigned long long)a0, k->top, (unsigned long long)a1);
    fprintf(out, "%-*s %12s %s\n", id_width, "", "", k->mid);
    fprintf(out, "%-*s %12llu %s %llu\n\n", id_width, b_id, (unsigned long long)b0, k->bottom,
            (unsigned long long)b1);
    *a_prev = a1;
    *b_prev = b1;
    memset(k, 0, sizeof *k);
}

void sw_pair_view_write(FILE *out, const sw_pair_seq *a, const sw_pair_seq *b, const sw_pair_result *r,
                        const sw_pair_path *p, uint64_t from, uint64_t to)
{
    fprintf(out, "%s %llu-%llu against %s: alignment of score %d, %s %llu-%llu, %s %llu-%llu\n\n", a->id,
            (unsigned long long)from, (unsigned long long)to, b->id, (int)r->score, a->id,
            (unsigned long long)r->a_start, (unsigned long long)r->a_end, b->id, (unsigned long long)r->b_start,
            (unsigned long long)r->b_end);
    if (r->score <= 0 || to < r->a_start || from > r->a_end) {
        fprintf(out, "The alignment has no base of %s in %llu-%llu.\n", a->id, (unsigned long long)from,
                (unsigned long long)to);
        return;
    }
    int id_width = (int)strlen(a->id);
    if ((int)strlen(b->id) > id_width) id_width = (int)strlen(b->id);
    if (id_width > 30) id_width = 30;
    block k;
    memset(&k, 0, sizeof k);
    uint64_t i = r->a_start, j = r->b_start; /* next base of each, 1-based */
    uint64_t a_prev = from > r->a_start ? from - 1 : r->a_start - 1, b_prev = 0;
    int inside = 0; /* a base of a in the window has been shown */
    const size_t n = sw_pair_path_runs(p);
    for (size_t x = 0; x < n && i <= to; ++x) {
        const sw_pair_run run = sw_pair_path_run(p, x);
        for (uint64_t t = 0; t < run.len; ++t) {
            const int has_a = run.op != 'D', has_b = run.op != 'I';
            int show;
            if (has_a) show = i >= from && i <= to;
            else show = inside && i <= to; /* b against a gap, between shown bases of a */
            if (has_a && i > to) break;
            if (show) {
                if (!inside) b_prev = j - 1;
                inside = 1;
                const char ca = has_a ? letter(a->codes[i - 1]) : '-';
                const char cb = has_b ? letter(b->codes[j - 1]) : '-';
                k.top[k.n] = ca;
                k.bottom[k.n] = cb;
                k.mid[k.n] = !has_a || !has_b ? ' ' : (ca == cb && ca != 'N' ? '|' : '.');
                if (has_a) {
                    if (!k.a_first) k.a_first = i;
                    k.a_last = i;
                }
                if (has_b) {
                    if (!k.b_first) k.b_first = j;
                    k.b_last = j;
                }
                if (++k.n == WIDTH) flush(out, &k, a->id, b->id, id_width, &a_prev, &b_prev);
            }
            if (has_a) ++i;
            if (has_b) ++j;
        }
    }
    flush(out, &k, a->id, b->id, id_width, &a_prev, &b_prev);
}
