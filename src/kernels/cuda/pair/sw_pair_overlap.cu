/* The overlap engine (sw_pair_overlap.h).
 *
 * Rows are the longer sequence, cut into chunks of chunk_bands bands of
 * BAND_ROWS rows; columns the shorter one. First round: warp c sweeps the
 * bands of chunk c, preceded by overlap_bands bands of the chunk above that
 * it starts from a row of zeros; each band hands its last row to the next
 * through the chunk's row buffer, which ends as the chunk's last row. The
 * last row of the overlap is kept too.
 *
 * Exactness. In a local pass every cell below a row depends on nothing
 * above it but that row's H and F, and F <= 0 acts as F = 0 (F only enters
 * H through a max with 0 and only falls as it goes down). So a chunk is
 * exact when the row it started from equals, in that sense, the true last
 * row of the chunk above. After the first round, chunk c is inexact when
 * its overlap row differs from chunk c - 1's last row. Each later round
 * recomputes every run of consecutive inexact chunks in one launch of the
 * persistent kernel (the CUDAlign engine's wavefront, bands handed down
 * through rings), from the last row of the chunk above the run; where that
 * changes the run's last row, the chunk below becomes inexact for the next
 * round. Chunk 0 starts at the matrix edge, so when no chunk is inexact
 * every chunk is exact by induction, whatever the input.
 *
 * Jain and Kumar recompute each inexact chunk on its own, one chunk a
 * round; an alignment spanning many chunks (a long query along a related
 * subject) would then take as many rounds, one warp each. Recomputing a run
 * as one wavefront keeps every band of the run busy. The region below a
 * high-scoring alignment where a long gap still scores above zero can
 * stretch over chunks that the first round found exact; a run that keeps
 * making the chunk below it inexact grows by 1, 2, 4, ... chunks a round,
 * which bounds the rounds by the logarithm of that region.
 *
 * Ties: the pass wants the first cell in column-major order. When the
 * second sequence is the longer one the engine runs the pair transposed
 * and breaks ties by row first (ROWMAJOR), which is the pass's order. */
#include "sw_pair_overlap.h"

#include <string.h>

#include <vector>

#include "sw_pair_band.cuh"
#include "sw_pair_gpu.h"

namespace {

struct overlap_args {
    long long chunks, chunk_bands, overlap_bands;
    int2 *last;    /* chunk c's last row at c * n */
    int2 *overlap; /* chunk c's overlap row at c * n */
    best_record *records;
    unsigned long long *overlap_cells;
};

template <bool ROWMAJOR, bool MASKED>
__global__ void __launch_bounds__(WARPS_PER_BLOCK *LANES, BLOCKS_PER_SM) overlap_kernel(pair_args p, overlap_args o)
{
    __shared__ warp_smem smem[WARPS_PER_BLOCK];
    const int w = threadIdx.x / LANES, lane = threadIdx.x & (LANES - 1);
    const long long c = (long long)blockIdx.x * WARPS_PER_BLOCK + w;
    if (c >= o.chunks) return;
    band_worker<false, ROWMAJOR, MASKED> bw(p, smem[w], lane);
    const long long kb = c * o.chunk_bands, ke = min(p.bands, kb + o.chunk_bands);
    const long long k0 = max(0ll, kb - o.overlap_bands);
    int2 *row = o.last + c * p.n;
    for (long long k = k0; k < ke; ++k) {
        /* Chunk 0 starts from the pass's row above (the matrix edge when
         * there is none), the others from zeros. */
        bw.run_strip(k, k == k0 ? (c == 0 ? p.top : nullptr) : row, row, k + 1 == kb ? o.overlap + c * p.n : nullptr);
        if (k + 1 == kb) bw.forget_best();
        if (lane == 0) {
            const unsigned long long cells = (unsigned long long)min((long long)BAND_ROWS, p.m - k * BAND_ROWS) * p.n;
            if (k < kb) {
                atomicAdd(o.overlap_cells, cells);
            } else {
                const unsigned long long total = atomicAdd(p.cells, cells) + cells;
                if (p.cells_host) *(volatile unsigned long long *)p.cells_host = total;
            }
        }
    }
    const best_record r = bw.warp_best();
    if (lane == 0) o.records[c] = r;
}

/* Where rows x + i * stride and y + i * stride (n columns of (H - oe, F))
 * differ in H or in max(F, 0), differs[i] becomes at least 1 and at least
 * the largest score of row y among the columns that differ: how far below
 * the row the difference may still reach (a gap sinks a score by ext a
 * row) is what the next recomputation is sized by. */
__global__ void compare_kernel(const int2 *x, const int2 *y, long long stride, long long n, long long count, int oe,
                               int *differs)
{
    for (long long i = blockIdx.y; i < count; i += gridDim.y) {
        const int2 *xr = x + i * stride, *yr = y + i * stride;
        int reach = 0;
        for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (long long)gridDim.x * blockDim.x) {
            const int2 u = xr[j], v = yr[j];
            if (u.x != v.x || max(u.y, 0) != max(v.y, 0)) reach = max(reach, max(1, max(v.x + oe, v.y)));
        }
        for (int d = 16; d > 0; d >>= 1) reach = max(reach, __shfl_xor_sync(0xffffffffu, reach, d));
        if ((threadIdx.x & 31) == 0 && reach > 0) atomicMax(differs + i, reach);
    }
}

struct overlap_buffers {
    uint8_t *rows = nullptr, *cols = nullptr;
    int2 *last = nullptr, *overlap = nullptr, *saved = nullptr, *top = nullptr;
    sw_pair_box *boxes = nullptr;
    best_record *records = nullptr, *reduced = nullptr;
    unsigned long long *counters = nullptr; /* cells, overlap cells, recomputed cells, pruned, stall */
    int *flags = nullptr;
    int *best_score = nullptr;
    unsigned long long *found = nullptr;
    unsigned long long *cells_host = nullptr;
    cudaEvent_t start = nullptr, mid = nullptr, stop = nullptr;
    cudaStream_t stream = nullptr;
    sw_pair_links links = {};

    ~overlap_buffers()
    {
        sw_pair_links_free(&links);
        cudaFree(rows);
        cudaFree(cols);
        cudaFree(last);
        cudaFree(overlap);
        cudaFree(saved);
        cudaFree(top);
        cudaFree(boxes);
        cudaFree(records);
        cudaFree(reduced);
        cudaFree(counters);
        cudaFree(flags);
        cudaFree(best_score);
        cudaFree(found);
        if (cells_host) cudaFreeHost(cells_host);
        if (start) cudaEventDestroy(start);
        if (mid) cudaEventDestroy(mid);
        if (stop) cudaEventDestroy(stop);
        if (stream) cudaStreamDestroy(stream);
    }
};

/* Bands a chunk: the fewest waves of `resident` warps, then the fewest
 * bands a warp (overlap included); at least `min_bands` so that the rows
 * kept for every chunk fit in memory. */
long long choose_chunk_bands(long long bands, long long overlap, long long resident, long long min_bands)
{
    long long best = bands, best_cost = -1;
    for (long long waves = 1; waves <= 64; ++waves) {
        long long rb = (bands + waves * resident - 1) / (waves * resident);
        if (rb < min_bands) rb = min_bands;
        const long long chunks = (bands + rb - 1) / rb;
        const long long cost = ((chunks + resident - 1) / resident) * (rb + (chunks > 1 ? overlap : 0));
        if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best = rb;
        }
        if (rb == min_bands) break;
    }
    return best;
}

template <bool ROWMAJOR>
int run_overlap(const sw_pair_pass *pass, const sw_pair_overlap_options *opt, bool transposed, sw_pair_hit *out,
                sw_pair_overlap_stats *st, sw_error *err)
{
    const uint8_t *rows_seq = transposed ? pass->b : pass->a;
    const uint8_t *cols_seq = transposed ? pass->a : pass->b;
    const long long m = (long long)(transposed ? pass->b_len : pass->a_len);
    const long long n = (long long)(transposed ? pass->a_len : pass->b_len);
    const long long bands = (m + BAND_ROWS - 1) / BAND_ROWS;
    const long long overlap_bands = opt->overlap_bands > 0 ? opt->overlap_bands : 1;
    int rc;

    const bool masked = pass->forbidden_count > 0;
    const void *kernel = masked ? (const void *)overlap_kernel<ROWMAJOR, true> : (const void *)overlap_kernel<ROWMAJOR, false>;
    const void *fix_kernel =
        masked ? (const void *)persistent_kernel<false, ROWMAJOR, true> : (const void *)persistent_kernel<false, ROWMAJOR>;
    long long resident = 0, fix_resident = 0;
    if ((rc = sw_pair_band_resident_warps(kernel, opt->device, &resident, err))) return rc;
    if ((rc = sw_pair_band_resident_warps(fix_kernel, opt->device, &fix_resident, err))) return rc;

    /* Two rows a chunk stay in memory (its last row and its overlap row):
     * at most half of what is free goes to them. */
    size_t free_bytes = 0, total_bytes = 0;
    SW_PAIR_CK(cudaMemGetInfo(&free_bytes, &total_bytes), "querying the GPU memory");
    const long long max_chunks = (long long)(free_bytes / 2 / ((size_t)n * 2 * sizeof(int2)));
    if (max_chunks < 1)
        return sw_error_set(err, SW_ENOMEM, "overlap engine: a row of %lld columns does not fit the GPU memory", n);
    const long long min_bands = (bands + max_chunks - 1) / max_chunks;
    long long chunk_bands = opt->chunk_bands > 0 ? opt->chunk_bands
                                                 : choose_chunk_bands(bands, overlap_bands, resident, min_bands);
    if (chunk_bands < min_bands) chunk_bands = min_bands;
    if (chunk_bands > bands) chunk_bands = bands;
    const long long chunks = (bands + chunk_bands - 1) / chunk_bands;
    st->transposed = transposed;
    st->chunks = chunks;
    st->chunk_rows = chunk_bands * BAND_ROWS;
    st->overlap_rows = overlap_bands * BAND_ROWS;

    overlap_buffers g;
    SW_PAIR_CK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), "creating a stream");
    SW_PAIR_CK(cudaEventCreate(&g.start), "creating an event");
    SW_PAIR_CK(cudaEventCreate(&g.mid), "creating an event");
    SW_PAIR_CK(cudaEventCreate(&g.stop), "creating an event");
    SW_PAIR_CK(cudaMalloc(&g.rows, m), "allocating the longer sequence");
    SW_PAIR_CK(cudaMalloc(&g.cols, n), "allocating the shorter sequence");
    SW_PAIR_CK(sw_cuda_upload(g.rows, rows_seq, m, g.stream), "copying the longer sequence");
    SW_PAIR_CK(sw_cuda_upload(g.cols, cols_seq, n, g.stream), "copying the shorter sequence");
    SW_PAIR_CK(cudaMalloc(&g.last, (size_t)chunks * n * sizeof(int2)), "allocating the chunks' last rows");
    SW_PAIR_CK(cudaMalloc(&g.overlap, (size_t)chunks * n * sizeof(int2)), "allocating the chunks' overlap rows");
    SW_PAIR_CK(cudaMalloc(&g.saved, (size_t)n * sizeof(int2)), "allocating");
    SW_PAIR_CK(cudaMalloc(&g.records, (size_t)chunks * sizeof(best_record)), "allocating the results");
    SW_PAIR_CK(cudaMalloc(&g.reduced, sizeof(best_record)), "allocating");
    SW_PAIR_CK(cudaMalloc(&g.counters, 5 * sizeof(unsigned long long)), "allocating");
    SW_PAIR_CK(cudaMemsetAsync(g.counters, 0, 5 * sizeof(unsigned long long), g.stream), "clearing");
    SW_PAIR_CK(cudaMalloc(&g.flags, (size_t)chunks * sizeof(int)), "allocating");
    SW_PAIR_CK(cudaMalloc(&g.best_score, sizeof(int)), "allocating");
    SW_PAIR_CK(cudaMemsetAsync(g.best_score, 0, sizeof(int), g.stream), "clearing");
    SW_PAIR_CK(cudaMalloc(&g.found, sizeof(unsigned long long)), "allocating");
    unsigned long long *cells_host_dev = nullptr;
    if ((rc = sw_pair_band_map_counter(&g.cells_host, &cells_host_dev, err))) return rc;
    unsigned long long *cells = g.counters, *overlap_cells = g.counters + 1, *fix_cells = g.counters + 2,
                       *pruned = g.counters + 3, *stall = g.counters + 4;

    pair_args p = sw_pair_band_args(&pass->scoring, g.rows, m, g.cols, n);
    p.found = g.found;
    p.best_score = g.best_score;
    p.cells = cells;
    p.pruned = pruned;
    p.cells_host = cells_host_dev;
    p.stall = stall;
    if ((rc = sw_pair_band_upload_bounds(pass, transposed, &p, &g.top, &g.boxes, g.stream, err))) return rc;

    overlap_args o;
    o.chunks = chunks;
    o.chunk_bands = chunk_bands;
    o.overlap_bands = overlap_bands;
    o.last = g.last;
    o.overlap = g.overlap;
    o.records = g.records;
    o.overlap_cells = overlap_cells;

    std::vector<int> flags((size_t)chunks, 0);
    SW_PAIR_CK(cudaMemsetAsync(g.flags, 0, (size_t)chunks * sizeof(int), g.stream), "clearing");
    SW_PAIR_CK(cudaEventRecord(g.start, g.stream), "recording an event");
    {
        const dim3 grid((unsigned)((chunks + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK)), block(WARPS_PER_BLOCK * LANES);
        if (masked) overlap_kernel<ROWMAJOR, true><<<grid, block, 0, g.stream>>>(p, o);
        else overlap_kernel<ROWMAJOR, false><<<grid, block, 0, g.stream>>>(p, o);
        SW_PAIR_CK(cudaGetLastError(), "launching the kernel");
    }
    if (chunks > 1) {
        const long long pairs = chunks - 1;
        const dim3 grid((unsigned)min(32ll, (n + 255) / 256), (unsigned)min(pairs, 65535ll));
        compare_kernel<<<grid, 256, 0, g.stream>>>(g.overlap + n, g.last, n, n, pairs, p.oe, g.flags + 1);
        SW_PAIR_CK(cudaGetLastError(), "launching the comparison");
    }
    SW_PAIR_CK(cudaEventRecord(g.mid, g.stream), "recording an event");
    if ((rc = sw_pair_band_wait(pass, g.mid, g.cells_host, err))) return rc;
    SW_PAIR_CK(cudaMemcpy(flags.data(), g.flags, (size_t)chunks * sizeof(int), cudaMemcpyDeviceToHost),
               "copying results");
    for (long long c = 0; c < chunks; ++c) st->inexact_first += flags[(size_t)c] != 0;

    /* Recomputation rounds. A run of b bands costs about one band's sweep
     * of the n columns plus b hand-over delays of CHUNK columns, so up to
     * n / (4 CHUNK) bands (and one a multiprocessor) a run costs hardly
     * more than one: runs take at least that many (fill). grow[c]: the
     * chunks a run starting at c takes at least; a run that left the chunk
     * below it inexact grows that chunk's run to the reach of the
     * difference (its largest score over ext rows, as a gap would sink
     * it), or to twice its own length where that is more. */
    int sms = 0;
    SW_PAIR_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, opt->device), "querying the GPU");
    const long long chunk_rows = chunk_bands * BAND_ROWS;
    const long long fill_bands = max(1ll, min((long long)sms, n / (4 * CHUNK)));
    const long long fill = (fill_bands + chunk_bands - 1) / chunk_bands;
    std::vector<long long> grow((size_t)chunks, fill);
    std::vector<long long> run_start, run_end;
    p.cells = fix_cells;
    p.cells_host = nullptr;
    p.prune = 0;
    if (st->inexact_first) {
        const long long fix_max = min(fix_resident, min(bands, chunks * chunk_bands));
        if ((rc = sw_pair_links_reserve(&g.links, max(fix_max, 2ll), n, err))) return rc;
    }
    for (;;) {
        run_start.clear();
        run_end.clear();
        for (long long c = 0; c < chunks;) {
            if (!flags[(size_t)c]) {
                ++c;
                continue;
            }
            long long e = c, want = c + grow[(size_t)c] - 1;
            while (e + 1 < chunks && (flags[(size_t)e + 1] || e + 1 <= want)) ++e;
            run_start.push_back(c);
            run_end.push_back(e);
            c = e + 1;
        }
        if (run_start.empty()) break;
        st->rounds++;
        SW_PAIR_CK(cudaMemsetAsync(g.flags, 0, (size_t)chunks * sizeof(int), g.stream), "clearing");
        for (size_t r = 0; r < run_start.size(); ++r) {
            const long long ca = run_start[r], cb = run_end[r];
            const long long row_a = ca * chunk_bands * BAND_ROWS, row_b = min(m, (cb + 1) * chunk_bands * BAND_ROWS);
            pair_args q = p;
            q.a = g.rows + row_a;
            q.m = row_b - row_a;
            q.bands = (q.m + BAND_ROWS - 1) / BAND_ROWS;
            q.top = g.last + (ca - 1) * n;
            q.bottom = g.last + cb * n;
            q.row_base = row_a;
            const long long G = sw_pair_band_warps(g.links.warps, q.bands, n, 0);
            SW_PAIR_CK(
                cudaMemcpyAsync(g.saved, q.bottom, (size_t)n * sizeof(int2), cudaMemcpyDeviceToDevice, g.stream),
                "saving a row");
            if ((rc = sw_pair_links_launch(&g.links, fix_kernel, &q, G, g.stream, 1, err))) return rc;
            reduce_kernel<ROWMAJOR><<<1, 256, 0, g.stream>>>(g.links.records, G, g.records + ca);
            SW_PAIR_CK(cudaGetLastError(), "launching the reduction");
            if (cb > ca)
                SW_PAIR_CK(cudaMemsetAsync(g.records + ca + 1, 0, (size_t)(cb - ca) * sizeof(best_record), g.stream),
                           "clearing results");
            if (cb + 1 < chunks) {
                const dim3 grid((unsigned)min(32ll, (n + 255) / 256), 1);
                compare_kernel<<<grid, 256, 0, g.stream>>>(g.saved, q.bottom, 0, n, 1, p.oe, g.flags + cb + 1);
                SW_PAIR_CK(cudaGetLastError(), "launching the comparison");
            }
            st->recomputed += cb - ca + 1;
        }
        SW_PAIR_CK(
            cudaMemcpyAsync(flags.data(), g.flags, (size_t)chunks * sizeof(int), cudaMemcpyDeviceToHost, g.stream),
            "copying results");
        SW_PAIR_CK(cudaStreamSynchronize(g.stream), "recomputing chunks");
        for (size_t r = 0; r < run_start.size(); ++r) {
            const long long below = run_end[r] + 1;
            if (below >= chunks || !flags[(size_t)below]) continue;
            const long long reach_rows = (long long)flags[(size_t)below] / p.ext + 1;
            grow[(size_t)below] = max(2 * grow[(size_t)run_start[r]], (reach_rows + chunk_rows - 1) / chunk_rows);
        }
    }
    reduce_kernel<ROWMAJOR><<<1, 256, 0, g.stream>>>(g.records, chunks, g.reduced);
    SW_PAIR_CK(cudaGetLastError(), "launching the reduction");
    SW_PAIR_CK(cudaEventRecord(g.stop, g.stream), "recording an event");
    SW_PAIR_CK(cudaEventSynchronize(g.stop), "running the kernels");
    float ms = 0, ms_first = 0;
    SW_PAIR_CK(cudaEventElapsedTime(&ms, g.start, g.stop), "timing");
    SW_PAIR_CK(cudaEventElapsedTime(&ms_first, g.start, g.mid), "timing");
    st->kernel_seconds = ms / 1000.0;
    st->recompute_seconds = (ms - ms_first) / 1000.0;

    unsigned long long counts[5];
    best_record r;
    SW_PAIR_CK(cudaMemcpy(counts, g.counters, sizeof counts, cudaMemcpyDeviceToHost), "copying results");
    SW_PAIR_CK(cudaMemcpy(&r, g.reduced, sizeof r, cudaMemcpyDeviceToHost), "copying results");
    if (counts[4])
        return sw_error_set(err, SW_EDEVICE, "overlap engine: internal error: a recomputation's hand-over stalled");
    st->overlap_cells = counts[1];
    st->recomputed_cells = counts[2];
    out->cells = counts[0] + counts[1] + counts[2];
    if (r.score > 0) {
        out->score = r.score;
        out->a_end = (uint64_t)(transposed ? r.col : r.row) + 1;
        out->b_end = (uint64_t)(transposed ? r.row : r.col) + 1;
    }
    if (pass->bottom && (rc = sw_pair_band_download_row(g.last + (chunks - 1) * n, n, p.oe, pass->bottom, err)))
        return rc;
    if (pass->cells_done) __atomic_store_n(pass->cells_done, (uint64_t)counts[0], __ATOMIC_RELAXED);
    return SW_OK;
}

} // namespace

extern "C" int sw_pair_overlap_run(const sw_pair_pass *pass, const sw_pair_overlap_options *opt, sw_pair_hit *out,
                                   sw_pair_overlap_stats *stats, sw_error *err)
{
    memset(out, 0, sizeof *out);
    sw_pair_overlap_stats st;
    memset(&st, 0, sizeof st);
    if (stats) *stats = st;
    if (!opt) return sw_error_set(err, SW_EINVAL, "pairwise pass: invalid arguments");
    int rc = sw_pair_check_pass(pass, err);
    if (rc) return rc;
    if (pass->left || pass->right || pass->col_base || pass->cols_after)
        return sw_error_set(err, SW_EINVAL, "the overlap engine runs whole matrices, not strips of columns");
    if (pass->mode != SW_PAIR_LOCAL) return sw_error_set(err, SW_EINVAL, "the overlap engine runs local passes only");
    if (pass->a_len > 0x7fffffffull || pass->b_len > 0x7fffffffull)
        return sw_error_set(err, SW_ELIMIT, "the GPU engines take sequences of up to %llu bases",
                            (unsigned long long)0x7fffffff);
    if (pass->bottom && pass->forbidden_count)
        return sw_error_set(err, SW_EINVAL, "the GPU engines hand on no last row of a pass with forbidden cells");
    if (pass->a_len == 0 || pass->b_len == 0) {
        sw_pair_pass_no_rows(pass);
        return SW_OK;
    }
    if (!sw_pair_gpu_usable(opt->device, err)) return SW_ENODEV;
    SW_PAIR_CK(cudaSetDevice(opt->device), "selecting the GPU");
    const bool transposed = pass->b_len > pass->a_len;
    if (transposed && (pass->top || pass->bottom))
        return sw_error_set(err, SW_EINVAL,
                            "the overlap engine takes boundary rows only where the first sequence is the longer");
    rc = transposed ? run_overlap<true>(pass, opt, true, out, &st, err)
                    : run_overlap<false>(pass, opt, false, out, &st, err);
    if (stats) *stats = st;
    return rc;
}
