/* The residue-balanced split of a sorted database into slices (sw_slices.h). */
#include "sw_slices.h"

#include <stdlib.h>

typedef struct slice {
    sw_slice_run *runs;
    size_t num_runs, cap;
    uint64_t seqs, residues;
} slice;

struct sw_slicing {
    int count;
    slice slices[];
};

int sw_slice_band(uint32_t length)
{
    if (length < 2) return 0;
    int k = 31 - __builtin_clz(length);
    /* The upper half of [2^k, 2^(k+1)) starts at 2^k sqrt 2: length^2 >= 2^(2k+1). */
    return 2 * k + ((uint64_t)length * length >= (uint64_t)1 << (2 * k + 1));
}

/* Appends sequences [first, first + count) to slice `s`, joining the run
 * before when they follow it. */
static int add_run(slice *s, uint64_t first, uint64_t count, uint64_t residue, uint64_t residues)
{
    if (!count) return SW_OK;
    if (s->num_runs) {
        sw_slice_run *last = &s->runs[s->num_runs - 1];
        if (last->first + last->count == first) {
            last->count += count;
            last->residues += residues;
            s->seqs += count;
            s->residues += residues;
            return SW_OK;
        }
    }
    if (s->num_runs == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        sw_slice_run *more = realloc(s->runs, cap * sizeof *more);
        if (!more) return SW_ENOMEM;
        s->runs = more;
        s->cap = cap;
    }
    s->runs[s->num_runs++] = (sw_slice_run){first, count, s->seqs, residue, residues};
    s->seqs += count;
    s->residues += residues;
    return SW_OK;
}

int sw_slicing_make(const uint32_t *lengths, uint64_t num_seqs, int slices, sw_slicing **out, sw_error *err)
{
    *out = NULL;
    if (slices < 1 || slices > SW_SLICES_MAX)
        return sw_error_set(err, SW_EINVAL, "a database is cut into 1 to %d slices, not %d", SW_SLICES_MAX, slices);
    sw_slicing *s = calloc(1, sizeof *s + (size_t)slices * sizeof(slice));
    if (!s) return sw_error_set(err, SW_ENOMEM, "out of memory slicing the database");
    s->count = slices;
    uint64_t at = 0, residue = 0;
    /* Band j's run k goes to slice (j + k) mod slices: where a band's
     * residues do not divide evenly (a band of one giant sequence), the
     * slices that get more take turns. */
    int turn = 0;
    while (at < num_seqs) {
        /* One band: [at, end), `total` residues. */
        const int band = sw_slice_band(lengths[at]);
        uint64_t end = at, total = 0;
        while (end < num_seqs && sw_slice_band(lengths[end]) == band) total += lengths[end++];
        /* Run k starts at the first sequence with at least k/slices of the
         * band's residues before it. */
        uint64_t i = at, before = 0;
        for (int k = 0; k < slices; k++) {
            const uint64_t first = i, first_residue = residue + before;
            const uint64_t start_before = before;
            if (k == slices - 1) {
                before = total;
                i = end;
            } else {
                /* Products stay below 2^63: slices <= SW_SLICES_MAX and a
                 * band holds far fewer than 2^50 residues. */
                while (i < end && before * (uint64_t)slices < (uint64_t)(k + 1) * total) before += lengths[i++];
            }
            if (add_run(&s->slices[(turn + k) % slices], first, i - first, first_residue, before - start_before)) {
                sw_slicing_free(s);
                return sw_error_set(err, SW_ENOMEM, "out of memory slicing the database");
            }
        }
        residue += total;
        at = end;
        turn = (turn + 1) % slices;
    }
    *out = s;
    return SW_OK;
}

void sw_slicing_free(sw_slicing *s)
{
    if (!s) return;
    for (int k = 0; k < s->count; k++) free(s->slices[k].runs);
    free(s);
}

int sw_slicing_count(const sw_slicing *s) { return s->count; }
uint64_t sw_slice_num_seqs(const sw_slicing *s, int slice) { return s->slices[slice].seqs; }
uint64_t sw_slice_num_residues(const sw_slicing *s, int slice) { return s->slices[slice].residues; }

const sw_slice_run *sw_slice_runs(const sw_slicing *s, int slice, size_t *count)
{
    *count = s->slices[slice].num_runs;
    return s->slices[slice].runs;
}

size_t sw_slice_run_of(const sw_slicing *s, int slice, uint64_t local)
{
    const sw_slice_run *r = s->slices[slice].runs;
    size_t lo = 0, hi = s->slices[slice].num_runs;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].local <= local) lo = mid;
        else hi = mid;
    }
    return lo;
}

uint64_t sw_slice_seq(const sw_slicing *s, int slice, uint64_t local)
{
    const sw_slice_run *r = &s->slices[slice].runs[sw_slice_run_of(s, slice, local)];
    return r->first + (local - r->local);
}
