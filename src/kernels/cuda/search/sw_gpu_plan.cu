/* The plan of the GPU engine: which kernel takes which lengths, and the
 * database cut into batches (when it does not stay on the GPU) and each
 * batch into length buckets, one a plan entry. */
#include "sw_gpu_plan.cuh"

#include <stdlib.h>

namespace sw_gpu_detail {

namespace {

int find_config(int group_size, int columns, int multipass, int wide, int pssm = 0)
{
    for (int i = 0; i < sw_gk_num_configs(); ++i) {
        const sw_gk_config *c = sw_gk_get_config(i);
        if (c->group_size == group_size && c->columns == columns && c->multipass == multipass &&
            c->wide == wide && c->pssm == pssm)
            return i;
    }
    return -1;
}

} /* namespace */

/* Single-pass kernels up to `max_columns` per thread, the smallest group for
 * each width (fewer wavefront fill steps and shuffles per cell); beyond the
 * widest, multipass kernels. Blocks of 512 columns waste less padding than
 * blocks of 1024 just above 1024 residues. */
void make_plan(sw_gpu_engine *e)
{
    const uint32_t threshold = e->opt.intra_threshold;
    const int max_columns = e->tune.max_columns_per_thread;
    e->plan_size = 0;
    uint32_t widest = 0;
    for (;;) {
        int best = -1;
        uint32_t best_width = 0;
        for (int i = 0; i < sw_gk_num_configs(); ++i) {
            const sw_gk_config *c = sw_gk_get_config(i);
            if (c->multipass || c->wide || c->pssm || c->columns > max_columns) continue;
            const uint32_t w = (uint32_t)(c->group_size * c->columns);
            if (w <= widest) continue;
            if (best < 0 || w < best_width ||
                (w == best_width && c->group_size < sw_gk_get_config(best)->group_size)) {
                best = i;
                best_width = w;
            }
        }
        /* Room is kept for the two multipass entries and the intra-task one. */
        if (best < 0 || e->plan_size + 3 > SW_GPU_MAX_BUCKETS) break;
        e->plan[e->plan_size++] = plan_entry{best_width, best};
        widest = best_width;
    }
    const int mp16 = find_config(32, 16, 1, 0), mp32 = find_config(32, 32, 1, 0);
    if (max_columns >= 32) {
        if (widest < 1536) e->plan[e->plan_size++] = plan_entry{1536, mp16};
        e->plan[e->plan_size++] = plan_entry{UINT32_MAX, mp32};
    } else {
        e->plan[e->plan_size++] = plan_entry{UINT32_MAX, mp16};
    }
    e->wide_config = find_config(32, 16, 1, 1);
    e->wide_pssm_config = find_config(32, 16, 1, 1, 1);
    if (threshold != SW_GPU_NO_INTRA) {
        /* Inter-task entries up to the threshold, then the intra-task kernel. */
        size_t keep = 0;
        while (keep < e->plan_size && e->plan[keep].max_length < threshold) ++keep;
        if (keep < e->plan_size) e->plan[keep++].max_length = threshold;
        e->plan_size = keep;
        e->plan[e->plan_size++] = plan_entry{UINT32_MAX, INTRA_CONFIG};
    }
    /* Up to opt.qp_max_length the kernels with the query across the
     * threads; above, what the entries above planned for those lengths. The
     * device-side launcher knows only the entries above. Where the
     * intra-task threshold (or no intra-task kernel) leaves longer
     * sequences to the kernels with the table in shared memory, the
     * query-across-threads kernels take them instead: those kernels cannot
     * score a PSSM query, whose scores are a row a position. */
    if (e->opt.qp_max_length != SW_GPU_NO_QP && !e->tune.device_launch) {
        uint32_t qmax = e->opt.qp_max_length;
        if (threshold == SW_GPU_NO_INTRA) qmax = UINT32_MAX;
        else if (threshold > qmax) qmax = threshold;
        size_t k = 0;
        while (k < e->plan_size && e->plan[k].max_length <= qmax) ++k;
        plan_entry rest[SW_GPU_MAX_BUCKETS];
        const size_t n = e->plan_size - k;
        for (size_t i = 0; i < n; ++i) rest[i] = e->plan[k + i];
        e->plan[0] = plan_entry{qmax, QP_CONFIG};
        for (size_t i = 0; i < n; ++i) e->plan[1 + i] = rest[i];
        e->plan_size = 1 + n;
    }
}

uint64_t per_seq_bytes() { return 16 + SLOTS * 20; }

uint64_t working_reserve(uint64_t budget) { return budget / 4 < ((uint64_t)1 << 30) ? budget / 4 : (uint64_t)1 << 30; }

int fits_on_gpu(uint64_t num_seqs, uint64_t residues, uint64_t budget)
{
    return num_seqs * per_seq_bytes() + residues + working_reserve(budget) <= budget;
}

/* Residency: the database stays on the GPU when it fits beside the
 * per-sequence arrays and a reserve for the working buffers of a search;
 * otherwise two batch buffers share what is left. */
int make_batches(sw_gpu_engine *e, const uint32_t *lengths, const uint64_t *offsets, sw_error *err)
{
    const uint64_t num_seqs = e->num_seqs, total = e->num_residues;
    const uint64_t fixed = num_seqs * per_seq_bytes();
    const uint64_t reserve = working_reserve(e->budget);
    e->resident = fits_on_gpu(num_seqs, total, e->budget);
    if (e->resident) {
        e->num_batches = 1;
        e->batches = (batch *)calloc(1, sizeof(batch));
        if (!e->batches) return sw_error_set(err, SW_ENOMEM, "out of memory");
        e->batches[0] = batch{0, (uint32_t)num_seqs, 0, total, 0, 0};
    } else {
        const uint64_t room = e->budget > fixed + reserve ? e->budget - fixed - reserve : 0;
        uint64_t cap = room / 2;
        if (cap < e->longest) cap = e->longest;
        if (cap < 1) cap = 1;
        e->batch_capacity = cap;
        size_t nb = 0;
        for (uint64_t i = 0; i < num_seqs;) {
            uint64_t bytes = 0;
            while (i < num_seqs && bytes + lengths[i] <= cap) bytes += lengths[i++];
            ++nb;
        }
        e->batches = (batch *)calloc(nb ? nb : 1, sizeof(batch));
        if (!e->batches) return sw_error_set(err, SW_ENOMEM, "out of memory");
        for (uint64_t i = 0; i < num_seqs;) {
            batch *b = &e->batches[e->num_batches++];
            b->first = (uint32_t)i;
            b->res_begin = offsets[i];
            uint64_t bytes = 0;
            while (i < num_seqs && bytes + lengths[i] <= cap) bytes += lengths[i++];
            b->count = (uint32_t)i - b->first;
            b->res_end = b->res_begin + bytes;
        }
    }
    return SW_OK;
}

/* Splits the sorted sequences of each batch into runs that share a plan entry. */
int make_buckets(sw_gpu_engine *e, const uint32_t *lengths, sw_error *err)
{
    size_t cap = e->num_batches * e->plan_size;
    free(e->buckets); /* a part's, before the next part's */
    e->buckets = (bucket *)calloc(cap ? cap : 1, sizeof(bucket));
    if (!e->buckets) return sw_error_set(err, SW_ENOMEM, "out of memory");
    e->num_buckets = 0;
    for (size_t b = 0; b < e->num_batches; ++b) {
        batch *bt = &e->batches[b];
        bt->first_bucket = e->num_buckets;
        uint32_t s = bt->first;
        const uint32_t end = bt->first + bt->count;
        size_t pe = 0;
        while (s < end) {
            while (lengths[s] > e->plan[pe].max_length) ++pe;
            bucket *k = &e->buckets[e->num_buckets++];
            k->plan = (int)pe;
            k->first = s;
            if (e->plan[pe].config == QP_CONFIG) {
                /* Pairs, each as long as its longer subject. */
                while (s < end && lengths[s] <= e->plan[pe].max_length) {
                    k->residues += lengths[s];
                    if (((s - k->first) & 1) == 1) k->padded += 2 * (uint64_t)lengths[s];
                    if (lengths[s] > e->qp_longest) e->qp_longest = lengths[s];
                    ++s;
                }
                if (((s - k->first) & 1) == 1) k->padded += 2 * (uint64_t)lengths[s - 1];
                k->count = s - k->first;
                continue;
            }
            if (e->plan[pe].config == INTRA_CONFIG) {
                /* Pairs, each padded to its longer subject. */
                while (s < end) {
                    k->residues += lengths[s];
                    if (((s - k->first) & 1) == 1) k->padded += 2 * (uint64_t)lengths[s];
                    if (lengths[s] > e->intra_longest) e->intra_longest = lengths[s];
                    ++s;
                }
                if (((s - k->first) & 1) == 1) k->padded += 2 * (uint64_t)lengths[s - 1];
                k->count = s - k->first;
                continue;
            }
            const sw_gk_config *c = sw_gk_get_config(e->plan[pe].config);
            const uint64_t block = (uint64_t)c->group_size * c->columns;
            uint32_t longest = 0;
            while (s < end && lengths[s] <= e->plan[pe].max_length) {
                k->residues += lengths[s];
                longest = lengths[s];
                /* A pair costs what its longer subject needs; the shorter
                 * one is padded to it. */
                if (((s - k->first) & 1) == 1) {
                    const uint64_t passes = c->multipass ? (lengths[s] + block - 1) / block : 1;
                    k->padded += 2 * passes * block;
                }
                ++s;
            }
            if (((s - k->first) & 1) == 1) {
                const uint64_t passes = c->multipass ? (longest + block - 1) / block : 1;
                k->padded += 2 * passes * block;
            }
            k->count = s - k->first;
        }
        bt->num_buckets = e->num_buckets - bt->first_bucket;
    }
    uint64_t qp_seqs = 0, qp_residues = 0;
    for (size_t k = 0; k < e->num_buckets; ++k)
        if (e->plan[e->buckets[k].plan].config == QP_CONFIG) {
            qp_seqs += e->buckets[k].count;
            qp_residues += e->buckets[k].residues;
        }
    e->qp_mean_length = qp_seqs ? (double)qp_residues / (double)qp_seqs : 0.0;
    return SW_OK;
}

} /* namespace sw_gpu_detail */
