/* The CUDAlign engine of megabase pairwise alignment: one pass on one GPU,
 * in the persistent layout (default) or CUDAlign 2010's diagonal layout;
 * the band sweep and the layouts are described in sw_pair_band.cuh. */
#include "sw_pair_gpu.h"

#include <string.h>

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
    SW_PAIR_CK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), "creating a stream");
    SW_PAIR_CK(cudaEventCreate(&g.start), "creating an event");
    SW_PAIR_CK(cudaEventCreate(&g.stop), "creating an event");
    SW_PAIR_CK(cudaMalloc(&g.a, m), "allocating the first sequence");
    SW_PAIR_CK(cudaMalloc(&g.b, n), "allocating the second sequence");
    SW_PAIR_CK(cudaMemcpy(g.a, rows_seq, m, cudaMemcpyHostToDevice), "copying the first sequence");
    SW_PAIR_CK(cudaMemcpy(g.b, cols_seq, n, cudaMemcpyHostToDevice), "copying the second sequence");
    SW_PAIR_CK(cudaMalloc(&g.found, sizeof *g.found), "allocating");
    SW_PAIR_CK(cudaMemset(g.found, 0xff, sizeof *g.found), "clearing");
    SW_PAIR_CK(cudaMalloc(&g.cells, sizeof *g.cells), "allocating");
    SW_PAIR_CK(cudaMemset(g.cells, 0, sizeof *g.cells), "clearing");
    SW_PAIR_CK(cudaMalloc(&g.pruned, sizeof *g.pruned), "allocating");
    SW_PAIR_CK(cudaMemset(g.pruned, 0, sizeof *g.pruned), "clearing");
    SW_PAIR_CK(cudaMalloc(&g.best_score, sizeof *g.best_score), "allocating");
    SW_PAIR_CK(cudaMemset(g.best_score, 0, sizeof *g.best_score), "clearing");
    SW_PAIR_CK(cudaMalloc(&g.reduced, sizeof *g.reduced), "allocating");
    SW_PAIR_CK(cudaMalloc(&g.stall, sizeof *g.stall), "allocating");
    SW_PAIR_CK(cudaMemset(g.stall, 0, sizeof *g.stall), "clearing");
    unsigned long long *cells_host_dev = nullptr;
    if ((rc = sw_pair_band_map_counter(&g.cells_host, &cells_host_dev, err))) return rc;

    pair_args p = sw_pair_band_args(&pass->scoring, g.a, m, g.b, n);
    p.target = anchored ? pass->target : 0;
    /* A pruned cell is taken as 0: fine for the best score, wrong for a
     * last row that another pass goes on from. */
    p.prune = opt->prune != 0 && !pass->bottom;
    if ((rc = sw_pair_band_upload_bounds(pass, transposed, &p, &g.top, &g.boxes, err))) return rc;
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
        if ((rc = sw_pair_links_launch(&g.links, kernel, &p, G, g.stream, err))) return rc;
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
