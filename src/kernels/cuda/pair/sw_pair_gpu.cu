/* The CUDAlign engine of megabase pairwise alignment: one pass on one GPU,
 * in the persistent layout (default) or CUDAlign 2010's diagonal layout;
 * the band sweep and the layouts are described in sw_pair_band.cuh. */
#include "sw_pair_gpu.h"

#include <new>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sw_pair_band.cuh"

namespace {

/* One phase of external diagonal d: tile (k, d - k) for k from k_lo. */
__global__ void __launch_bounds__(WARPS_PER_BLOCK *LANES)
    diagonal_kernel(pair_args p, long long d, long long k_lo, long long tiles, long long tile_cols, int short_phase)
{
    __shared__ warp_smem smem[WARPS_PER_BLOCK];
    const int w = threadIdx.x / LANES;
    const long long t = (long long)blockIdx.x * WARPS_PER_BLOCK + w;
    if (t >= tiles) return;
    const long long k = k_lo + t, q = d - k;
    const long long steps = p.n + LANES - 1;
    long long sb = q * tile_cols, se = min(sb + tile_cols, steps);
    if (short_phase) se = min(sb + LANES - 1, se);
    else sb = min(sb + LANES - 1, se);
    if (sb >= se) return;
    band_worker<false> bw(p, smem[w], threadIdx.x & (LANES - 1));
    bw.run_tile(k, sb, se);
}

struct gpu_buffers {
    uint8_t *a = nullptr, *b = nullptr;
    int2 *hbus = nullptr, *top = nullptr, *bottom = nullptr;
    sw_pair_box *boxes = nullptr;
    unsigned long long *found = nullptr, *cells = nullptr, *pruned = nullptr;
    int *best_score = nullptr;
    best_record *records = nullptr, *reduced = nullptr;
    int *vbus = nullptr;
    unsigned long long *cells_host = nullptr, *stall = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    cudaStream_t stream = nullptr;
    sw_pair_links links = {};

    /* The pass's stream and events, both sequences on the device (rows
     * m bases, columns n), the result counters cleared and the progress
     * counter mapped (*cells_host_dev its device side), on the current
     * device. The clears go on the pass's stream: a plain cudaMemset runs
     * on the legacy stream, which a non-blocking stream does not wait for,
     * so the kernel could start on what an earlier pass left there. */
    int prepare(const uint8_t *rows, long long m, const uint8_t *cols, long long n,
                unsigned long long **cells_host_dev, sw_error *err)
    {
        SW_PAIR_CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "creating a stream");
        SW_PAIR_CK(cudaEventCreate(&start), "creating an event");
        SW_PAIR_CK(cudaEventCreate(&stop), "creating an event");
        SW_PAIR_CK(cudaMalloc(&a, (size_t)m), "allocating the first sequence");
        SW_PAIR_CK(cudaMalloc(&b, (size_t)n), "allocating the second sequence");
        SW_PAIR_CK(sw_cuda_upload(a, rows, (size_t)m, stream), "copying the first sequence");
        SW_PAIR_CK(sw_cuda_upload(b, cols, (size_t)n, stream), "copying the second sequence");
        SW_PAIR_CK(cudaMalloc(&found, sizeof *found), "allocating");
        SW_PAIR_CK(cudaMemsetAsync(found, 0xff, sizeof *found, stream), "clearing");
        SW_PAIR_CK(cudaMalloc(&cells, sizeof *cells), "allocating");
        SW_PAIR_CK(cudaMemsetAsync(cells, 0, sizeof *cells, stream), "clearing");
        SW_PAIR_CK(cudaMalloc(&pruned, sizeof *pruned), "allocating");
        SW_PAIR_CK(cudaMemsetAsync(pruned, 0, sizeof *pruned, stream), "clearing");
        SW_PAIR_CK(cudaMalloc(&best_score, sizeof *best_score), "allocating");
        SW_PAIR_CK(cudaMemsetAsync(best_score, 0, sizeof *best_score, stream), "clearing");
        SW_PAIR_CK(cudaMalloc(&reduced, sizeof *reduced), "allocating");
        SW_PAIR_CK(cudaMalloc(&stall, sizeof *stall), "allocating");
        SW_PAIR_CK(cudaMemsetAsync(stall, 0, sizeof *stall, stream), "clearing");
        return sw_pair_band_map_counter(&cells_host, cells_host_dev, err);
    }

    ~gpu_buffers()
    {
        sw_pair_links_free(&links);
        cudaFree(a);
        cudaFree(b);
        cudaFree(hbus);
        cudaFree(top);
        cudaFree(boxes);
        cudaFree(bottom);
        cudaFree(found);
        cudaFree(cells);
        cudaFree(pruned);
        cudaFree(best_score);
        cudaFree(records);
        cudaFree(reduced);
        cudaFree(vbus);
        cudaFree(stall);
        if (cells_host) cudaFreeHost(cells_host);
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
        if (stream) cudaStreamDestroy(stream);
    }
};

} // namespace


extern "C" int sw_pair_gpu_usable(int device, sw_error *err)
{
    int count = 0;
    if (sw_cuda_device_count(&count, err)) return 0;
    if (device < 0 || device >= count) {
        sw_error_set(err, SW_ENODEV, "no GPU %d (this machine has %d)", device, count);
        return 0;
    }
    int coop = 0;
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device);
    if (!coop) {
        sw_error_set(err, SW_ENODEV, "GPU %d cannot run cooperative kernels", device);
        return 0;
    }
    return 1;
}

extern "C" int sw_pair_gpu_run(const sw_pair_pass *pass, const sw_pair_gpu_options *opt, sw_pair_hit *out,
                               sw_pair_gpu_stats *stats, sw_error *err)
{
    memset(out, 0, sizeof *out);
    sw_pair_gpu_stats st;
    memset(&st, 0, sizeof st);
    if (stats) *stats = st;
    if (!opt) return sw_error_set(err, SW_EINVAL, "pairwise pass: invalid arguments");
    int rc = sw_pair_check_pass(pass, err);
    if (rc) return rc;
    if (pass->a_len > 0x7fffffffull || pass->b_len > 0x7fffffffull)
        return sw_error_set(err, SW_ELIMIT, "the GPU engine takes sequences of up to %llu bases",
                            (unsigned long long)0x7fffffff);
    const bool anchored = pass->mode == SW_PAIR_ANCHORED;
    const bool diagonal = opt->layout == SW_PAIR_GPU_DIAGONAL;
    if (diagonal && anchored)
        return sw_error_set(err, SW_EINVAL, "the diagonal layout runs local passes only");
    if (diagonal && (pass->top || pass->bottom))
        return sw_error_set(err, SW_EINVAL, "the diagonal layout takes no boundary rows");
    if (pass->bottom && pass->forbidden_count)
        return sw_error_set(err, SW_EINVAL, "the GPU engines hand on no last row of a pass with forbidden cells");
    if (pass->left || pass->right || pass->col_base || pass->cols_after)
        return sw_error_set(err, SW_EINVAL, "a strip of columns runs in sw_pair_gpu_strips_run");
    if (diagonal && pass->forbidden_count)
        return sw_error_set(err, SW_EINVAL, "the diagonal layout takes no forbidden cells");
    if (pass->a_len == 0 || pass->b_len == 0) {
        sw_pair_pass_no_rows(pass);
        return SW_OK;
    }
    if (!sw_pair_gpu_usable(opt->device, err)) return SW_ENODEV;
    SW_PAIR_CK(cudaSetDevice(opt->device), "selecting the GPU");

    /* The persistent layout keeps at most one warp a tile of the columns
     * busy (persistent_warps) and one a band of the rows: a local pass
     * whose second sequence is the longer runs transposed, ties broken by
     * row first, which is the pass's order in the transposed matrix. */
    const bool transposed = !diagonal && !anchored && !pass->top && !pass->bottom && pass->b_len > pass->a_len;
    const uint8_t *rows_seq = transposed ? pass->b : pass->a, *cols_seq = transposed ? pass->a : pass->b;
    const long long m = (long long)(transposed ? pass->b_len : pass->a_len);
    const long long n = (long long)(transposed ? pass->a_len : pass->b_len);
    const long long bands = (m + BAND_ROWS - 1) / BAND_ROWS;
    const bool masked = pass->forbidden_count > 0;
    const void *kernel = diagonal ? (const void *)diagonal_kernel
                         : anchored ? (masked ? (const void *)persistent_kernel<true, false, true>
                                              : (const void *)persistent_kernel<true>)
                         : transposed ? (masked ? (const void *)persistent_kernel<false, true, true>
                                                : (const void *)persistent_kernel<false, true>)
                                      : (masked ? (const void *)persistent_kernel<false, false, true>
                                                : (const void *)persistent_kernel<false>);
    long long resident = 0;
    if ((rc = sw_pair_band_resident_warps(kernel, opt->device, &resident, err))) return rc;

    gpu_buffers g;
    unsigned long long *cells_host_dev = nullptr;
    if ((rc = g.prepare(rows_seq, m, cols_seq, n, &cells_host_dev, err))) return rc;

    pair_args p = sw_pair_band_args(&pass->scoring, g.a, m, g.b, n);
    p.target = anchored ? pass->target : 0;
    p.threshold = p.target;
    /* A pruned cell is taken as 0: fine for the best score, wrong for a
     * last row that another pass goes on from. */
    p.prune = opt->prune != 0 && !pass->bottom;
    if ((rc = sw_pair_band_upload_bounds(pass, transposed, &p, &g.top, &g.boxes, g.stream, err))) return rc;
    if (pass->bottom) SW_PAIR_CK(cudaMalloc(&g.bottom, (size_t)n * sizeof(int2)), "allocating the last row");
    p.bottom = g.bottom;
    p.found = g.found;
    p.best_score = g.best_score;
    p.cells = g.cells;
    p.pruned = g.pruned;
    p.cells_host = cells_host_dev;
    p.stall = g.stall;
    long long record_count = 0;
    st.transposed = transposed;

    if (!diagonal) {
        const long long G = sw_pair_band_warps(resident, bands, n, opt->warps);
        if ((rc = sw_pair_links_reserve(&g.links, G, n, err))) return rc;
        record_count = G;
        st.warps = (int)G;
        st.launches = 1;
        SW_PAIR_CK(cudaEventRecord(g.start, g.stream), "recording an event");
        if ((rc = sw_pair_links_launch(&g.links, kernel, &p, G, g.stream, 1, err))) return rc;
        SW_PAIR_CK(cudaEventRecord(g.stop, g.stream), "recording an event");
        if ((rc = sw_pair_band_wait(pass, g.stop, g.cells_host, err))) return rc;
    } else {
        const long long steps = n + LANES - 1;
        long long tiles = opt->warps > 0 ? (long long)opt->warps : resident;
        long long tile_cols = (steps + tiles - 1) / tiles;
        tile_cols = (tile_cols + CHUNK - 1) / CHUNK * CHUNK;
        if (tile_cols < 2 * CHUNK) tile_cols = 2 * CHUNK;
        const long long per_band = (steps + tile_cols - 1) / tile_cols;
        SW_PAIR_CK(cudaMalloc(&g.hbus, (size_t)n * sizeof(int2)), "allocating the horizontal bus");
        SW_PAIR_CK(cudaMalloc(&g.vbus, (size_t)bands * LANES * STATE_INTS * sizeof(int)),
                   "allocating the vertical bus");
        SW_PAIR_CK(cudaMalloc(&g.records, (size_t)bands * LANES * sizeof(best_record)), "allocating");
        p.hbus = g.hbus;
        p.vbus = g.vbus;
        p.vbest = g.records;
        p.workers = per_band;
        record_count = bands * LANES;
        st.warps = (int)min(per_band, bands);
        const long long diagonals = bands + per_band - 1;
        SW_PAIR_CK(cudaEventRecord(g.start, g.stream), "recording an event");
        for (long long d = 0; d < diagonals; ++d) {
            const long long k_lo = d - (per_band - 1) > 0 ? d - (per_band - 1) : 0;
            const long long k_hi = d < bands - 1 ? d : bands - 1;
            const long long tiles_d = k_hi - k_lo + 1;
            const dim3 grid((unsigned)((tiles_d + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK)), block(WARPS_PER_BLOCK * LANES);
            for (int phase = 1; phase >= 0; --phase) {
                diagonal_kernel<<<grid, block, 0, g.stream>>>(p, d, k_lo, tiles_d, tile_cols, phase);
                SW_PAIR_CK(cudaGetLastError(), "launching the kernel");
                st.launches++;
            }
            if ((d & 255) == 255) { /* keep the progress counter's reader in step */
                SW_PAIR_CK(cudaEventRecord(g.stop, g.stream), "recording an event");
                if ((rc = sw_pair_band_wait(pass, g.stop, g.cells_host, err))) return rc;
            }
        }
        SW_PAIR_CK(cudaEventRecord(g.stop, g.stream), "recording an event");
        if ((rc = sw_pair_band_wait(pass, g.stop, g.cells_host, err))) return rc;
    }
    float ms = 0;
    SW_PAIR_CK(cudaEventElapsedTime(&ms, g.start, g.stop), "timing");
    st.kernel_seconds = ms / 1000.0;

    unsigned long long stall = 0;
    SW_PAIR_CK(cudaMemcpy(&stall, g.stall, sizeof stall, cudaMemcpyDeviceToHost), "copying results");
    if (stall)
        return sw_error_set(err, SW_EDEVICE,
                            "GPU pairwise engine: internal error: a %s wait stalled (band or link %llu, column %llu)",
                            (stall >> 60 & 7) == 1 ? "consumer" : "producer",
                            (unsigned long long)(stall >> 32 & 0xfffffff), (unsigned long long)(stall & 0xffffffff));
    unsigned long long cells = 0, pruned = 0;
    SW_PAIR_CK(cudaMemcpy(&cells, g.cells, sizeof cells, cudaMemcpyDeviceToHost), "copying results");
    SW_PAIR_CK(cudaMemcpy(&pruned, g.pruned, sizeof pruned, cudaMemcpyDeviceToHost), "copying results");
    out->cells = cells;
    st.pruned = pruned;
    if (anchored) {
        unsigned long long f = NO_HIT;
        SW_PAIR_CK(cudaMemcpy(&f, g.found, sizeof f, cudaMemcpyDeviceToHost), "copying results");
        if (f != NO_HIT) {
            out->score = pass->target;
            out->b_end = (f >> 32) + 1;
            out->a_end = (f & 0xffffffffull) + 1;
        }
    } else {
        if (transposed)
            reduce_kernel<true><<<1, 256, 0, g.stream>>>(g.links.records, record_count, g.reduced);
        else
            reduce_kernel<<<1, 256, 0, g.stream>>>(diagonal ? g.records : g.links.records, record_count, g.reduced);
        SW_PAIR_CK(cudaGetLastError(), "launching the reduction");
        best_record r;
        SW_PAIR_CK(cudaMemcpyAsync(&r, g.reduced, sizeof r, cudaMemcpyDeviceToHost, g.stream), "copying results");
        SW_PAIR_CK(cudaStreamSynchronize(g.stream), "copying results");
        if (r.score > 0) {
            out->score = r.score;
            out->a_end = (uint64_t)(transposed ? r.col : r.row) + 1;
            out->b_end = (uint64_t)(transposed ? r.row : r.col) + 1;
        }
    }
    if (pass->bottom && (rc = sw_pair_band_download_row(g.bottom, n, p.oe, pass->bottom, err))) return rc;
    if (pass->cells_done) __atomic_store_n(pass->cells_done, (uint64_t)(cells + pruned), __ATOMIC_RELAXED);
    if (stats) *stats = st;
    return SW_OK;
}

/* ---- column strips (sw_pair_gpu_strips_run) ---- */

namespace {

/* What strip k owns on its device. */
struct strip {
    int device = 0;
    long long first = 0, width = 0; /* its columns, 0-based */
    int share = 1;                  /* strips on its device */
    long long warps = 0;
    gpu_buffers g;
    unsigned long long *cells_host_dev = nullptr;
    bool launched = false, done = false;
    double seconds = 0; /* from the first launch to this strip's end, seen by the host */
};

double now_seconds()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A hand-over from strip k to strip k + 1 is an sw_pair_column in mapped
 * host memory: the counters, then the column (m rows) 128 bytes in. */
static_assert(sizeof(sw_pair_column) == 128, "the column starts 128 bytes in");

/* The mapped host memory of a run: the abort flag and the borders. */
struct strips_host {
    int *abort = nullptr;
    void *borders[SW_PAIR_GPU_MAX_STRIPS] = {};

    ~strips_host()
    {
        if (abort) cudaFreeHost(abort);
        for (void *b : borders)
            if (b) cudaFreeHost(b);
    }
};

/* Whether the pass is a strip of a larger matrix (sw_pair_pass.left ...):
 * then it is cut by b, never transposed. */
bool part_of_larger(const sw_pair_pass *pass)
{
    return pass->left || pass->right || pass->col_base || pass->cols_after;
}

/* Sets up strip x (its device current) and launches its kernel. */
int launch_strip(const sw_pair_pass *pass, const sw_pair_gpu_strips *o, strips_host &h, strip *all, int k,
                 sw_error *err)
{
    strip &x = all[k];
    gpu_buffers &g = x.g;
    /* A local pass's longer sequence is the rows (see sw_pair_gpu_strips_run). */
    const bool anchored = pass->mode == SW_PAIR_ANCHORED;
    const bool transposed = !anchored && !part_of_larger(pass) && pass->b_len > pass->a_len;
    const uint8_t *rows_seq = transposed ? pass->b : pass->a, *cols_seq = transposed ? pass->a : pass->b;
    const long long m = (long long)(transposed ? pass->b_len : pass->a_len), n = x.width;
    const long long all_cols = (long long)(transposed ? pass->a_len : pass->b_len);
    const void *kernel = anchored     ? (const void *)persistent_kernel<true>
                         : transposed ? (const void *)persistent_kernel<false, true>
                                      : (const void *)persistent_kernel<false>;
    long long resident = 0;
    int rc = sw_pair_band_resident_warps(kernel, x.device, &resident, err);
    if (rc) return rc;
    if (x.share > 1) resident /= x.share;
    if (resident < 2) return sw_error_set(err, SW_EDEVICE, "GPU %d: too many strips share it", x.device);
    if ((rc = g.prepare(rows_seq, m, cols_seq + x.first, n, &x.cells_host_dev, err))) return rc;

    pair_args p = sw_pair_band_args(&pass->scoring, g.a, m, g.b, n);
    p.prune = o->prune != 0;
    p.target = anchored ? pass->target : 0;
    p.threshold = p.target;
    p.found = g.found;
    p.best_score = g.best_score;
    p.cells = g.cells;
    p.pruned = g.pruned;
    p.cells_host = x.cells_host_dev;
    p.stall = g.stall;
    p.col_base = (long long)pass->col_base + x.first;
    p.cols_after = (long long)pass->cols_after + all_cols - (x.first + n);
    SW_PAIR_CK(cudaHostGetDevicePointer((void **)&p.abort, h.abort, 0), "mapping the strips' flag");
    if (k == 0 && pass->left) {
        /* The column on the left of the whole pass, filled by another
         * process (a strip of a larger matrix). */
        char *dev = nullptr;
        SW_PAIR_CK(cudaHostGetDevicePointer((void **)&dev, (void *)pass->left, 0),
                   "mapping the column on the left (not from sw_pair_gpu_column_alloc?)");
        p.left_rows = (const unsigned long long *)&((sw_pair_column *)dev)->rows;
        p.left_best = &((sw_pair_column *)dev)->best;
        p.left_abort = &((sw_pair_column *)dev)->abort;
        p.left = (const int2 *)(dev + sizeof(sw_pair_column));
        p.left_wait_ns = 20000000000ull + 2000ull * (unsigned long long)(pass->col_base + x.first);
        if (p.stall_ns < p.left_wait_ns) p.stall_ns = p.left_wait_ns;
    } else if (k > 0) {
        char *dev = nullptr;
        SW_PAIR_CK(cudaHostGetDevicePointer((void **)&dev, h.borders[k - 1], 0), "mapping a strip's border");
        p.left_rows = (const unsigned long long *)&((sw_pair_column *)dev)->rows;
        p.left_best = &((sw_pair_column *)dev)->best;
        p.left = (const int2 *)(dev + sizeof(sw_pair_column));
        /* A band waits for the strip on its left to sweep the same band,
         * which waits in turn for the strips left of it: allow each of
         * them far more than a sweep of its columns. */
        p.left_wait_ns = 20000000000ull + 2000ull * (unsigned long long)x.first;
        /* A band waiting for its left rows holds up the bands below it. */
        if (p.stall_ns < p.left_wait_ns) p.stall_ns = p.left_wait_ns;
    }
    if (k + 1 < o->count || pass->right) {
        char *dev = nullptr;
        void *host = k + 1 < o->count ? h.borders[k] : (void *)pass->right;
        SW_PAIR_CK(cudaHostGetDevicePointer((void **)&dev, host, 0),
                   "mapping a strip's last column (not from sw_pair_gpu_column_alloc?)");
        p.right_rows = (unsigned long long *)&((sw_pair_column *)dev)->rows;
        p.right_best = &((sw_pair_column *)dev)->best;
        p.right = (int2 *)(dev + sizeof(sw_pair_column));
    }
    x.warps = sw_pair_band_warps(resident, p.bands, n, 0);
    if ((rc = sw_pair_links_reserve(&g.links, x.warps, n, err))) return rc;
    SW_PAIR_CK(cudaEventRecord(g.start, g.stream), "recording an event");
    /* Alone on its GPU the launch is cooperative (all warps resident, as
     * the hand-overs within the strip need); strips sharing a GPU each
     * take their share of its warps, so that they fit together. */
    if ((rc = sw_pair_links_launch(&g.links, kernel, &p, x.warps, g.stream, x.share == 1, err))) return rc;
    SW_PAIR_CK(cudaEventRecord(g.stop, g.stream), "recording an event");
    x.launched = true;
    return SW_OK;
}

} // namespace

extern "C" int sw_pair_gpu_column_alloc(uint64_t rows, sw_pair_column **out, sw_error *err)
{
    *out = nullptr;
    void *host = nullptr;
    const cudaError_t e = cudaHostAlloc(&host, (size_t)sw_pair_column_bytes(rows), cudaHostAllocMapped | cudaHostAllocPortable);
    if (e != cudaSuccess) return sw_cuda_fail(err, e, SW_PAIR_WHO, "allocating a column of a strip");
    memset(host, 0, sizeof(sw_pair_column));
    *out = (sw_pair_column *)host;
    return SW_OK;
}

extern "C" void sw_pair_gpu_column_free(sw_pair_column *c)
{
    if (c) cudaFreeHost(c);
}

extern "C" int sw_pair_gpu_strip_capacity(int device, int share, uint64_t *rows_in_flight, double *speed,
                                          sw_error *err)
{
    long long resident = 0;
    int rc = sw_pair_band_resident_warps((const void *)persistent_kernel<false>, device, &resident, err);
    if (rc) return rc;
    int sms = 0, clock_khz = 0;
    SW_PAIR_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "querying the GPU");
    SW_PAIR_CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device), "querying the GPU");
    const long long warps = share > 1 ? resident / share : resident;
    *rows_in_flight = (uint64_t)(warps > 1 ? warps : 1) * BAND_ROWS;
    *speed = (double)sms * (clock_khz > 0 ? clock_khz : 1) / (share > 1 ? share : 1);
    return SW_OK;
}

extern "C" int sw_pair_gpu_strips_run(const sw_pair_pass *pass, const sw_pair_gpu_strips *o, sw_pair_hit *out,
                                      sw_pair_gpu_strip_stats *stats, sw_error *err)
{
    memset(out, 0, sizeof *out);
    if (!o || o->count < 1 || o->count > SW_PAIR_GPU_MAX_STRIPS || !o->devices || !o->widths)
        return sw_error_set(err, SW_EINVAL, "column strips: invalid arguments");
    int rc = sw_pair_check_pass(pass, err);
    if (rc) return rc;
    if (pass->top || pass->bottom || pass->forbidden_count)
        return sw_error_set(err, SW_EINVAL, "column strips run passes with no boundary rows or forbidden cells");
    if ((o->count > 1 || pass->left || pass->right) && pass->b_len == 0)
        return sw_error_set(err, SW_EINVAL, "column strips: no columns");
    if (pass->a_len > 0x7fffffffull || pass->b_len > 0x7fffffffull)
        return sw_error_set(err, SW_ELIMIT, "the GPU engine takes sequences of up to %llu bases",
                            (unsigned long long)0x7fffffff);
    const int count = o->count;
    /* The strips of a local pass cut the shorter sequence: the sweep's
     * rows are the longer one, so that a strip's fill (one band's sweep)
     * is a small part of its work. Ties then go by row first, the pass's
     * order transposed. An anchored pass is cut by b. */
    const bool anchored = pass->mode == SW_PAIR_ANCHORED;
    const bool transposed = !anchored && !part_of_larger(pass) && pass->b_len > pass->a_len;
    const uint64_t rows = transposed ? pass->b_len : pass->a_len, cols = transposed ? pass->a_len : pass->b_len;
    uint64_t sum = 0;
    for (int k = 0; k < count; ++k) {
        if (o->widths[k] == 0) return sw_error_set(err, SW_EINVAL, "column strips: strip %d has no columns", k);
        sum += o->widths[k];
    }
    if (sum != cols)
        return sw_error_set(err, SW_EINVAL, "column strips: widths sum to %llu, not %llu columns",
                            (unsigned long long)sum, (unsigned long long)cols);
    if (rows == 0) {
        sw_pair_pass_no_rows(pass);
        return SW_OK;
    }
    for (int k = 0; k < count; ++k)
        if (!sw_pair_gpu_usable(o->devices[k], err)) return SW_ENODEV;

    strips_host h;
    strip *all = new (std::nothrow) strip[count];
    if (!all) return sw_error_set(err, SW_ENOMEM, "out of memory");
    long long first = 0;
    for (int k = 0; k < count; ++k) {
        all[k].device = o->devices[k];
        all[k].first = first;
        all[k].width = (long long)o->widths[k];
        first += all[k].width;
        for (int j = 0; j < count; ++j)
            if (j != k && o->devices[j] == o->devices[k]) all[k].share++;
    }
    /* Mapped host memory, portable: every device reads and writes it. */
    const size_t border_bytes = sizeof(sw_pair_column) + (size_t)rows * sizeof(int2);
    cudaError_t e = cudaSetDevice(all[0].device);
    if (e == cudaSuccess) e = cudaHostAlloc((void **)&h.abort, sizeof *h.abort, cudaHostAllocMapped | cudaHostAllocPortable);
    if (e == cudaSuccess) *h.abort = 0;
    for (int k = 0; e == cudaSuccess && k + 1 < count; ++k) {
        e = cudaHostAlloc(&h.borders[k], border_bytes, cudaHostAllocMapped | cudaHostAllocPortable);
        if (e == cudaSuccess) memset(h.borders[k], 0, sizeof(sw_pair_column));
    }
    if (e != cudaSuccess) rc = sw_cuda_fail(err, e, SW_PAIR_WHO, "allocating the strips' borders");
    /* Left to right: a strip only waits for those on its left, so each
     * launch may start at once. */
    const double t0 = now_seconds();
    for (int k = 0; !rc && k < count; ++k) {
        if ((e = cudaSetDevice(all[k].device)) != cudaSuccess) rc = sw_cuda_fail(err, e, SW_PAIR_WHO, "selecting the GPU");
        else rc = launch_strip(pass, o, h, all, k, err);
    }
    if (rc && h.abort) __atomic_store_n(h.abort, 1, __ATOMIC_RELEASE);

    /* Waits for every launched strip, summing their progress. */
    long sleep_ns = 50 * 1000;
    for (;;) {
        int pending = 0;
        unsigned long long seen = 0;
        for (int k = 0; k < count; ++k) {
            strip &x = all[k];
            if (!x.launched || x.done) {
                if (x.g.cells_host) seen += *(volatile const unsigned long long *)x.g.cells_host;
                continue;
            }
            const cudaError_t q = cudaEventQuery(x.g.stop);
            seen += *(volatile const unsigned long long *)x.g.cells_host;
            if (q == cudaSuccess) {
                x.done = true;
                x.seconds = now_seconds() - t0;
            } else if (q == cudaErrorNotReady) {
                pending++;
            } else {
                x.done = true;
                if (!rc) rc = sw_cuda_fail(err, q, SW_PAIR_WHO, "running a strip's kernel");
                __atomic_store_n(h.abort, 1, __ATOMIC_RELEASE);
            }
        }
        if (pass->cells_done && seen > __atomic_load_n(pass->cells_done, __ATOMIC_RELAXED))
            __atomic_store_n(pass->cells_done, (uint64_t)seen, __ATOMIC_RELAXED);
        if (!pending) break;
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
        if (sleep_ns < 2 * 1000 * 1000) sleep_ns *= 2;
    }

    /* Each strip's best, its columns placed in the matrix; the best of
     * them in the pass's order: higher score, smaller column, smaller row. */
    best_record best{0, -1, -1};
    unsigned long long first_hit = NO_HIT;
    uint64_t cells = 0, pruned = 0;
    for (int k = 0; !rc && k < count; ++k) {
        strip &x = all[k];
        gpu_buffers &g = x.g;
        if ((e = cudaSetDevice(x.device)) != cudaSuccess) {
            rc = sw_cuda_fail(err, e, SW_PAIR_WHO, "selecting the GPU");
            break;
        }
        unsigned long long stall = 0, c = 0, pr = 0;
        best_record r;
        e = cudaMemcpy(&stall, g.stall, sizeof stall, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess && stall) {
            rc = sw_error_set(err, SW_EDEVICE,
                              "GPU pairwise engine: internal error: strip %d of %d stalled (%s, band or link %llu)", k,
                              count, (stall >> 60 & 7) == 3 ? "waiting for the strip on its left" : "a hand-over",
                              (unsigned long long)(stall >> 32 & 0xfffffff));
            break;
        }
        if (e == cudaSuccess) e = cudaMemcpy(&c, g.cells, sizeof c, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = cudaMemcpy(&pr, g.pruned, sizeof pr, cudaMemcpyDeviceToHost);
        /* An anchored strip's first cell reaching the target, its column
         * placed in the matrix: the first of all is the smallest. A strip
         * right of one that found it may have gone on from rows that
         * stopped early, but all its columns come later. A local strip's
         * best, reduced over its warps. */
        unsigned long long f = NO_HIT;
        r.score = 0;
        if (e == cudaSuccess && anchored) {
            e = cudaMemcpy(&f, g.found, sizeof f, cudaMemcpyDeviceToHost);
        } else if (e == cudaSuccess) {
            if (transposed) reduce_kernel<true><<<1, 256, 0, g.stream>>>(g.links.records, x.warps, g.reduced);
            else reduce_kernel<<<1, 256, 0, g.stream>>>(g.links.records, x.warps, g.reduced);
            e = cudaGetLastError();
            if (e == cudaSuccess) e = cudaMemcpyAsync(&r, g.reduced, sizeof r, cudaMemcpyDeviceToHost, g.stream);
            if (e == cudaSuccess) e = cudaStreamSynchronize(g.stream);
        }
        if (e != cudaSuccess) {
            rc = sw_cuda_fail(err, e, SW_PAIR_WHO, "copying a strip's results");
            break;
        }
        cells += c;
        pruned += pr;
        if (f != NO_HIT) {
            f += (unsigned long long)x.first << 32;
            if (f < first_hit) first_hit = f;
        }
        if (r.score > 0) {
            r.col += x.first;
            if (transposed ? better<true>(r, best) : better(r, best)) best = r;
        }
        if (stats) stats[k] = sw_pair_gpu_strip_stats{(int)x.warps, c, pr, x.seconds};
    }
    /* Each strip's buffers freed on its own device. */
    for (int k = count - 1; k >= 0; --k) {
        cudaSetDevice(all[k].device);
        all[k].g.~gpu_buffers();
        new (&all[k].g) gpu_buffers();
    }
    delete[] all;
    if (rc) return rc;
    out->cells = cells;
    out->pruned = pruned;
    if (anchored && first_hit != NO_HIT) {
        out->score = pass->target;
        out->b_end = (first_hit >> 32) + 1;
        out->a_end = (first_hit & 0xffffffffull) + 1;
    } else if (!anchored && best.score > 0) {
        out->score = best.score;
        out->a_end = (uint64_t)(transposed ? best.col : best.row) + 1;
        out->b_end = (uint64_t)(transposed ? best.row : best.col) + 1;
    }
    if (pass->cells_done) __atomic_store_n(pass->cells_done, (uint64_t)(cells + pruned), __ATOMIC_RELAXED);
    return SW_OK;
}

/* ---- the halves of Myers and Miller's splits (sw_pair_gpu_rows) ---- */

namespace {

/* The anchored sweep with windows that hands its last row out. */
const auto rows_kernel = persistent_kernel<true, false, false, true>;

/* Kernels of rows passes running at once, at most. */
constexpr int ROWS_SLOTS = 64;

/* What one rows pass in flight owns: its stream, hand-over buffers, last
 * row (on the device and pinned on the host), band windows and counters.
 * Buffers grow to the largest pass seen and are kept. */
struct rows_slot {
    cudaStream_t stream = nullptr;
    cudaEvent_t stop = nullptr;
    sw_pair_links links = {};
    int2 *bottom = nullptr, *staging = nullptr;
    long long row_cap = 0;
    int2 *windows = nullptr, *windows_host = nullptr;
    long long windows_cap = 0;
    unsigned long long *counters = nullptr; /* found, cells, pruned, stall */
    bool busy = false;

    void release()
    {
        sw_pair_links_free(&links);
        cudaFree(bottom);
        cudaFree(windows);
        cudaFree(counters);
        if (staging) cudaFreeHost(staging);
        if (windows_host) cudaFreeHost(windows_host);
        if (stop) cudaEventDestroy(stop);
        if (stream) cudaStreamDestroy(stream);
    }

    /* Room for G warps, rows of n columns and `bands` windows. */
    int reserve(long long G, long long n, long long bands, sw_error *err)
    {
        if (!stream) {
            SW_PAIR_CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "creating a stream");
            SW_PAIR_CK(cudaEventCreateWithFlags(&stop, cudaEventDisableTiming), "creating an event");
            SW_PAIR_CK(cudaMalloc(&counters, 4 * sizeof *counters), "allocating the counters");
        }
        if (G > links.warps || n > links.cols) {
            const long long warps = G > links.warps ? G : links.warps, cols = n > links.cols ? n : links.cols;
            sw_pair_links_free(&links);
            const int rc = sw_pair_links_reserve(&links, warps, cols, err);
            if (rc) return rc;
        }
        int rc = grow(bottom, staging, row_cap, n, "allocating the last row", err);
        if (!rc) rc = grow(windows, windows_host, windows_cap, bands, "allocating the windows", err);
        return rc;
    }

    /* A device buffer and its pinned host twin, of `cap` entries, grown to
     * at least `need` (the contents are not kept). */
    static int grow(int2 *&dev, int2 *&host, long long &cap, long long need, const char *what, sw_error *err)
    {
        if (need <= cap) return SW_OK;
        cudaFree(dev);
        if (host) cudaFreeHost(host);
        dev = host = nullptr;
        cap = 0;
        SW_PAIR_CK(cudaMalloc(&dev, (size_t)need * sizeof(int2)), what);
        SW_PAIR_CK(cudaHostAlloc(&host, (size_t)need * sizeof(int2), cudaHostAllocDefault), what);
        cap = need;
        return SW_OK;
    }
};

/* `len` bases forwards into *fwd and backwards into *rev on the device. */
int upload_both_ways(const uint8_t *seq, long long len, uint8_t **fwd, uint8_t **rev, sw_error *err)
{
    uint8_t *host = (uint8_t *)malloc((size_t)len);
    if (!host) return sw_error_set(err, SW_ENOMEM, "out of memory for a reversed sequence");
    for (long long k = 0; k < len; ++k) host[k] = seq[len - 1 - k];
    cudaError_t e = cudaMalloc(fwd, (size_t)len);
    if (e == cudaSuccess) e = cudaMalloc(rev, (size_t)len);
    if (e == cudaSuccess) e = sw_cuda_upload(*fwd, seq, (size_t)len, 0);
    if (e == cudaSuccess) e = sw_cuda_upload(*rev, host, (size_t)len, 0);
    free(host);
    if (e != cudaSuccess) return sw_cuda_fail(err, e, SW_PAIR_WHO, "copying the sequences");
    return SW_OK;
}

} // namespace

struct sw_pair_gpu_rows {
    int device = 0;
    sw_pair_scoring scoring = {};
    long long a_len = 0, b_len = 0;
    /* The sequences forwards and backwards: a pass from the bottom of a
     * piece reads both backwards, a forward run of the reversed copies. */
    uint8_t *a = nullptr, *b = nullptr, *ar = nullptr, *br = nullptr;
    /* Warps of the kernel that fit the GPU at once. Passes run side by
     * side only while their warps together fit: then every warp of each
     * is resident (the hand-overs between its bands wait on one another),
     * without a cooperative launch. */
    long long resident = 0, warps_free = 0;
    pthread_mutex_t lock;
    pthread_cond_t freed;
    rows_slot slots[ROWS_SLOTS];

    sw_pair_gpu_rows()
    {
        pthread_mutex_init(&lock, nullptr);
        pthread_cond_init(&freed, nullptr);
    }
    ~sw_pair_gpu_rows()
    {
        for (rows_slot &s : slots) s.release();
        cudaFree(a);
        cudaFree(b);
        cudaFree(ar);
        cudaFree(br);
        pthread_cond_destroy(&freed);
        pthread_mutex_destroy(&lock);
    }
};

extern "C" int sw_pair_gpu_rows_open(int device, const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                                     const sw_pair_scoring *scoring, sw_pair_gpu_rows **out, sw_error *err)
{
    *out = nullptr;
    int rc = sw_pair_check_scoring(scoring, a_len, b_len, err);
    if (rc) return rc;
    if (a_len == 0 || b_len == 0 || a_len > 0x7fffffffull || b_len > 0x7fffffffull)
        return sw_error_set(err, SW_ELIMIT, "the GPU engine takes sequences of 1 to %llu bases",
                            (unsigned long long)0x7fffffff);
    if (!sw_pair_gpu_usable(device, err)) return SW_ENODEV;
    SW_PAIR_CK(cudaSetDevice(device), "selecting the GPU");
    sw_pair_gpu_rows *g = new (std::nothrow) sw_pair_gpu_rows;
    if (!g) return sw_error_set(err, SW_ENOMEM, "out of memory");
    g->device = device;
    g->scoring = *scoring;
    g->a_len = (long long)a_len;
    g->b_len = (long long)b_len;
    rc = sw_pair_band_resident_warps((const void *)rows_kernel, device, &g->resident, err);
    g->warps_free = g->resident;
    if (!rc) rc = upload_both_ways(a, g->a_len, &g->a, &g->ar, err);
    if (!rc) rc = upload_both_ways(b, g->b_len, &g->b, &g->br, err);
    if (rc) {
        delete g;
        return rc;
    }
    *out = g;
    return SW_OK;
}

namespace {

/* The columns [x, y) of every band of a rows pass (0-based): the cells of
 * its rows in the piece's band (sw_pair_band_of), the first rounded down
 * to a chunk; never decreasing from band to band, and never empty. */
void band_windows(const sw_pair_scoring *s, const sw_pair_rows_job *job, long long bands, int2 *w)
{
    const long long m = (long long)job->m, n = (long long)job->n;
    for (long long k = 0; k < bands; ++k) {
        const uint64_t i0 = (uint64_t)(k * BAND_ROWS + 1), i1 = (uint64_t)min((k + 1) * BAND_ROWS, m);
        uint64_t lo0, hi0, lo1, hi1;
        sw_pair_band_of(s, job->goal_rows, job->n, job->threshold, i0, &lo0, &hi0);
        sw_pair_band_of(s, job->goal_rows, job->n, job->threshold, i1, &lo1, &hi1);
        long long lo = n, hi = 0; /* 1-based columns */
        if (lo0 <= hi0) {
            lo = min(lo, (long long)lo0);
            hi = max(hi, (long long)hi0);
        }
        if (lo1 <= hi1) {
            lo = min(lo, (long long)lo1);
            hi = max(hi, (long long)hi1);
        }
        /* Column j (1-based) is kernel column j - 1. The window starts a
         * column early: the first row's first cell of the band takes its
         * diagonal from the row above one column left, a cell that the
         * band's lane 0 reads only as the row above of a column it
         * computes (left of the window everything is the floor). */
        w[k] = make_int2((int)max(lo - 2, 0ll), (int)min(hi, n));
    }
    /* Starts: the least of those at or below; ends: the most at or above. */
    for (long long k = bands - 2; k >= 0; --k) w[k].x = min(w[k].x, w[k + 1].x);
    for (long long k = 1; k < bands; ++k) w[k].y = max(w[k].y, w[k - 1].y);
    for (long long k = 0; k < bands; ++k) {
        w[k].x = w[k].x / CHUNK * CHUNK;
        if (w[k].y <= w[k].x) w[k].y = (int)min((long long)w[k].x + CHUNK, n);
    }
}

/* Warps worth giving a pass (0: as many as fit). With windows the bands
 * run as a diagonal wavefront: a band can start once the band above is
 * past its window's start (windows move BAND_ROWS columns a band) plus its
 * hand-over delay, so about (widest window) / (BAND_ROWS + a few chunks)
 * bands are at work at a time; this gives about twice that, since more
 * warps would only wait and keep other passes from running beside this
 * one. The widest window is taken over a few rows. */
int rows_warps(const sw_pair_scoring *s, const sw_pair_rows_job *job)
{
    if (job->threshold == INT64_MIN) return 0;
    uint64_t widest = 0;
    for (int t = 0; t <= 32; ++t) {
        uint64_t lo, hi;
        sw_pair_band_of(s, job->goal_rows, job->n, job->threshold, job->m * (uint64_t)t / 32, &lo, &hi);
        if (lo <= hi && hi - lo + 1 > widest) widest = hi - lo + 1;
    }
    const uint64_t warps = (widest + BAND_ROWS) / CHUNK / 4 + 16;
    return warps > 0x7fffffff ? 0x7fffffff : (int)warps;
}

struct rows_run {
    const sw_pair_rows_job *job;
    int32_t *h, *d;
    rows_slot *slot;
    long long G, bands;
    /* The pass's first bases in the forward or reversed copies. */
    long long a_fwd, b_fwd;
    /* The columns of the last row that the kernel leaves (its last band's
     * window; the whole row without pruning). */
    long long from, to;
    pair_args p;
};

/* Launches one pass on its slot (buffers reserved). */
int rows_launch(sw_pair_gpu_rows *g, rows_run *r, sw_error *err)
{
    const sw_pair_rows_job *job = r->job;
    rows_slot *sl = r->slot;
    const long long m = (long long)job->m, n = (long long)job->n;
    const int pruning = job->threshold != INT64_MIN;
    pair_args &p = r->p;
    p = sw_pair_band_args(&g->scoring, (job->backwards ? g->ar : g->a) + r->a_fwd, m,
                          (job->backwards ? g->br : g->b) + r->b_fwd, n);
    /* No cell reaches INT_MAX: the pass never stops at a hit. */
    p.target = 0x7fffffff;
    p.open_col0 = job->open_col0;
    p.prune = pruning;
    p.threshold = !pruning ? 0 : job->threshold < -(1ll << 30) ? -(1 << 30) : (int)job->threshold;
    p.goal_rows = (long long)job->goal_rows;
    p.last_row_wanted = 1;
    p.bottom = sl->bottom;
    p.found = sl->counters;
    p.cells = sl->counters + 1;
    p.pruned = sl->counters + 2;
    p.stall = sl->counters + 3;
    p.cells_host = nullptr;
    if (pruning) {
        band_windows(&g->scoring, job, r->bands, sl->windows_host);
        SW_PAIR_CK(cudaMemcpyAsync(sl->windows, sl->windows_host, (size_t)r->bands * sizeof(int2),
                                   cudaMemcpyHostToDevice, sl->stream),
                   "copying the windows");
        p.windows = sl->windows;
    }
    /* Counters to 0, but `found` to "no hit": a sweep stops its bands
     * at a hit's column. */
    SW_PAIR_CK(cudaMemsetAsync(sl->counters, 0, 4 * sizeof *sl->counters, sl->stream), "clearing");
    SW_PAIR_CK(cudaMemsetAsync(sl->counters, 0xff, sizeof *sl->counters, sl->stream), "clearing");
    int rc = sw_pair_links_launch(&sl->links, (const void *)rows_kernel, &p, r->G, sl->stream, 0, err);
    if (rc) return rc;
    r->from = pruning ? sl->windows_host[r->bands - 1].x : 0;
    r->to = pruning ? sl->windows_host[r->bands - 1].y : n;
    SW_PAIR_CK(cudaMemcpyAsync(sl->staging + r->from, sl->bottom + r->from, (size_t)(r->to - r->from) * sizeof(int2),
                               cudaMemcpyDeviceToHost, sl->stream),
               "copying the last row");
    SW_PAIR_CK(cudaEventRecord(sl->stop, sl->stream), "recording an event");
    return SW_OK;
}

/* Waits for a launched pass and hands its last row out. */
int rows_finish(sw_pair_gpu_rows *g, rows_run *r, uint64_t *cells_out, sw_error *err)
{
    rows_slot *sl = r->slot;
    const sw_pair_rows_job *job = r->job;
    sw_pair_pass quiet;
    memset(&quiet, 0, sizeof quiet);
    int rc = sw_pair_band_wait(&quiet, sl->stop, nullptr, err);
    if (rc) return rc;
    unsigned long long c[4];
    SW_PAIR_CK(cudaMemcpy(c, sl->counters, sizeof c, cudaMemcpyDeviceToHost), "copying results");
    if (c[3])
        return sw_error_set(err, SW_EDEVICE, "GPU pairwise engine: internal error: a wait stalled in a rows pass");
    const long long m = (long long)job->m, n = (long long)job->n, from = r->from, to = r->to;
    /* Column 0: the gap down it from the corner; the last band's window
     * from the kernel, which keeps H - oe; pruned elsewhere. */
    const long long c0 = -((long long)job->open_col0 + m * (long long)g->scoring.gap_extend);
    r->h[0] = r->d[0] = c0 < SW_PAIR_FLOOR ? SW_PAIR_FLOOR : (int32_t)c0;
    const int oe = r->p.oe;
    for (long long j = 0; j < n; ++j) {
        if (j < from || j >= to) {
            r->h[j + 1] = r->d[j + 1] = SW_PAIR_FLOOR;
            continue;
        }
        const int2 v = sl->staging[j];
        r->h[j + 1] = v.x + oe;
        r->d[j + 1] = v.y;
    }
    if (cells_out) *cells_out += c[1];
    return SW_OK;
}

} // namespace

extern "C" int sw_pair_gpu_rows_run(sw_pair_gpu_rows *g, const sw_pair_rows_job *jobs, int count, int32_t *const *h,
                                    int32_t *const *d, uint64_t *cells_out, sw_error *err)
{
    if (cells_out) *cells_out = 0;
    if (count < 1 || count > ROWS_SLOTS) return sw_error_set(err, SW_EINVAL, "GPU pairwise rows: %d passes", count);
    rows_run runs[ROWS_SLOTS];
    long long warps = 0;
    for (int k = 0; k < count; ++k) {
        const sw_pair_rows_job *job = &jobs[k];
        const long long m = (long long)job->m, n = (long long)job->n;
        const long long a0 = (long long)job->a_first, b0 = (long long)job->b_first;
        /* The pass's bases: forwards from a_first, or backwards from it (a
         * forward run of the reversed copy). */
        const long long a_fwd = job->backwards ? g->a_len - 1 - a0 : a0;
        const long long b_fwd = job->backwards ? g->b_len - 1 - b0 : b0;
        if (m < 1 || n < 1 || n > g->b_len || a_fwd < 0 || b_fwd < 0 || a_fwd + m > g->a_len ||
            b_fwd + n > g->b_len || job->goal_rows < job->m)
            return sw_error_set(err, SW_EINVAL, "GPU pairwise rows: a piece outside the sequences");
        runs[k].job = job;
        runs[k].a_fwd = a_fwd;
        runs[k].b_fwd = b_fwd;
        runs[k].h = h[k];
        runs[k].d = d[k];
        runs[k].bands = (m + BAND_ROWS - 1) / BAND_ROWS;
        runs[k].G = sw_pair_band_warps(g->resident, runs[k].bands, n, rows_warps(&g->scoring, job));
        warps += runs[k].G;
    }
    /* Passes whose warps do not fit together run one after the other. */
    if (warps > g->resident && count > 1) {
        for (int k = 0; k < count; ++k) {
            uint64_t cells = 0;
            const int rc = sw_pair_gpu_rows_run(g, &jobs[k], 1, &h[k], &d[k], &cells, err);
            if (rc) return rc;
            if (cells_out) *cells_out += cells;
        }
        return SW_OK;
    }
    SW_PAIR_CK(cudaSetDevice(g->device), "selecting the GPU");
    /* Slots and warps for all of them at once, or wait: taking them one by
     * one could leave two callers each holding part of what it needs. */
    pthread_mutex_lock(&g->lock);
    for (;;) {
        int idle = 0;
        for (rows_slot &s : g->slots) idle += !s.busy;
        if (idle >= count && g->warps_free >= warps) break;
        pthread_cond_wait(&g->freed, &g->lock);
    }
    int next = 0;
    for (int k = 0; k < count; ++k) {
        while (g->slots[next].busy) ++next;
        runs[k].slot = &g->slots[next];
        runs[k].slot->busy = true;
    }
    g->warps_free -= warps;
    pthread_mutex_unlock(&g->lock);

    int rc = SW_OK;
    int launched = 0;
    for (int k = 0; k < count && !rc; ++k) {
        rc = runs[k].slot->reserve(runs[k].G, (long long)runs[k].job->n, runs[k].bands, err);
        if (!rc) rc = rows_launch(g, &runs[k], err);
        if (!rc) ++launched;
    }
    for (int k = 0; k < launched; ++k) {
        sw_error e2;
        sw_error_clear(&e2);
        const int r2 = rows_finish(g, &runs[k], cells_out, rc ? &e2 : err);
        if (!rc) rc = r2;
    }
    pthread_mutex_lock(&g->lock);
    for (int k = 0; k < count; ++k) runs[k].slot->busy = false;
    g->warps_free += warps;
    pthread_cond_broadcast(&g->freed);
    pthread_mutex_unlock(&g->lock);
    return rc;
}

extern "C" void sw_pair_gpu_rows_close(sw_pair_gpu_rows *g) { delete g; }
