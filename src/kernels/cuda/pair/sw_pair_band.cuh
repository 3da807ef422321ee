/* The device side of the megabase pairwise GPU engines (sw_pair_gpu.cu,
 * the CUDAlign engine, and sw_pair_overlap.cu, the overlap engine): the
 * warp that sweeps a band of rows and the persistent kernel. Everything
 * here is internal to those two files; what the host does around the
 * launches (their arguments, buffers, uploads, waits) is compiled once,
 * in sw_pair_band_host.cu.
 *
 * The matrix is cut into row bands of BAND_ROWS rows (ALPHA rows for each
 * of the 32 lanes of a warp). A warp sweeps its band from the first column
 * to the last as a wavefront: at step s lane l computes column s - l for its
 * ALPHA rows, takes the row above from lane l - 1 by a shuffle, and lane 0
 * takes it from the band above. Scores are 32-bit; each cell costs five
 * integer instructions, three of them Hopper DPX (add-max, three-way max).
 *
 * Persistent layout (the default): one launch of as many warps as the GPU
 * holds at once; warp w takes bands w, w + G, w + 2G, ... Band k hands its
 * last row to band k + 1 through link k + 1 mod G with two 64-bit counters
 * (columns produced, columns consumed, counted across the rounds), so band
 * k + 1 starts a few chunks of CHUNK columns behind band k and every warp
 * is busy except for the fill at the very start and the drain at the end.
 * Within a round the consumer runs close behind and a ring of RING columns
 * suffices; across rounds (link 0: band G - 1 to band G, ...) the consumer
 * starts only when its warp has finished the band before, nearly a whole
 * row later, so link 0 holds a whole row: with a ring there, the first
 * round would fill every ring and wait for a warp that never comes.
 *
 * Diagonal layout (CUDAlign 2010, for comparison): the bands are cut into
 * tiles of tile_cols columns; each external diagonal of tiles is two
 * launches, a short phase (the first 31 steps of every tile, which the band
 * below needs) and a long phase; borders go through a horizontal bus (one
 * row of the matrix) and a vertical bus (each band's lane states). The
 * staircase of lane states at a tile's border is CUDAlign's delegation of
 * the cells a tile cannot finish to the tile on its right.
 *
 * Pruning (Sandes et al. 2013, per chunk of a band): a chunk is skipped when
 * no alignment through it can reach the threshold (the best score found so
 * far in a local pass, the target in an anchored pass). Its cells are then
 * taken as 0 (local) or FLOOR (anchored): lower than their true values,
 * which cannot change any cell that reaches the threshold. */
#ifndef SW_PAIR_BAND_CUH
#define SW_PAIR_BAND_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "sw_pair_band_host.h"
#include "sw_pair_pass.h"

namespace {

/* The host side's names (sw_pair_band_host.h). */
using pair_args = sw_pair_args;
using best_record = sw_pair_record;

constexpr int ALPHA = SW_PAIR_ALPHA;
constexpr int LANES = SW_PAIR_LANES;
constexpr int BAND_ROWS = SW_PAIR_BAND_ROWS;
constexpr int CHUNK = SW_PAIR_CHUNK;
constexpr int IN_SLOTS = 2 * CHUNK;
constexpr int B_SLOTS = 4 * CHUNK;
constexpr int RING = SW_PAIR_RING;
constexpr int WARPS_PER_BLOCK = SW_PAIR_WARPS_PER_BLOCK;
/* Blocks of two warps resident on an SM: eight, four warps a scheduler at
 * 128 registers a thread (a fifth would leave 96 and spill, which is
 * slower; see bench/JOURNAL.md, 2026-11-26, megabase kernel). Eight rows a
 * lane ran seven blocks of four warps (72 registers, 175 KB of shared
 * memory). */
#ifndef SW_PAIR_BLOCKS_PER_SM
#define SW_PAIR_BLOCKS_PER_SM 8
#endif
constexpr int BLOCKS_PER_SM = SW_PAIR_BLOCKS_PER_SM;
constexpr int PAD = SW_PAIR_PAD;
constexpr int STATE_INTS = 2 * ALPHA + 3;
constexpr int32_t FLOOR = -(1 << 30);
/* Substitution score of rows past the end of the first sequence: low
 * enough that no such cell reaches a real cell's value (see sw_pair_gpu.cu
 * notes in docs/ARCHITECTURE.md), high enough not to overflow. */
constexpr int32_t PHANTOM = -(1 << 29);
constexpr unsigned FULL = 0xffffffffu;
constexpr unsigned long long NO_HIT = ~0ull;

struct warp_smem {
    int4 prof[SW_PAIR_CODES][ALPHA / 4][LANES]; /* substitution + gap_open + gap_extend, per row */
    int2 in[IN_SLOTS];                         /* lane 0's row above: (H - oe, F) by column */
    int2 out[IN_SLOTS];                        /* the band's last row, by column */
    uint8_t b[B_SLOTS];                        /* column bases, by column */
};

/* The order of results: higher score, then smaller column, then smaller
 * row (records of score 0 name no cell and never win a tie). ROWMAJOR
 * swaps the last two, for an engine that runs the pair transposed: its
 * rows are the columns of the pass. */
template <bool ROWMAJOR = false>
__host__ __device__ __forceinline__ bool better(const best_record &x, const best_record &y)
{
    if (x.score != y.score) return x.score > y.score;
    if (x.score <= 0) return false;
    const long long x1 = ROWMAJOR ? x.row : x.col, y1 = ROWMAJOR ? y.row : y.col;
    const long long x2 = ROWMAJOR ? x.col : x.row, y2 = ROWMAJOR ? y.col : y.row;
    return x1 < y1 || (x1 == y1 && x2 < y2);
}

__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_release(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* The same at system scope: counters in host memory mapped into several
 * devices (column strips). */
__device__ __forceinline__ unsigned long long load_acquire_sys(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_release_sys(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Whether a wait that began at `since` has gone on too long (or another
 * one has); records the first such wait: what, band, column. */
__device__ bool stalled(const pair_args &p, unsigned long long since, int what, long long band, long long col)
{
    if (*(volatile unsigned long long *)p.stall) return true;
    if (now_ns() - since < p.stall_ns) return false;
    atomicCAS(p.stall, 0ull,
              (1ull << 63) | ((unsigned long long)what << 60) | ((unsigned long long)(band & 0xfffffff) << 32) |
                  (unsigned long long)(col & 0xffffffff));
    return true;
}

/* Bit t: row i0 + t of column j (1-based) lies in one of the boxes. Kept
 * out of line: only chunks that meet a box call it, and inlined its
 * registers would crowd the sweep's. */
__device__ __noinline__ unsigned forbidden_bits(const sw_pair_box *boxes, int count, unsigned long long i0,
                                                unsigned long long j)
{
    unsigned bits = 0;
    for (int k = 0; k < count; ++k) {
        const sw_pair_box x = boxes[k];
        if (j < x.b_lo || j > x.b_hi) continue;
#pragma unroll
        for (int t = 0; t < ALPHA; ++t)
            if (i0 + t >= x.a_lo && i0 + t <= x.a_hi) bits |= 1u << t;
    }
    return bits;
}

/* MASKED: the variant that honors forbidden boxes (p.boxes), a kernel of
 * its own so that the sweep without them keeps its registers. ROWS: the
 * anchored rows passes of Myers and Miller's splits (windows, goal_rows,
 * the last row handed out), also a kernel of its own, so that the other
 * passes carry none of it. */
template <bool ANCHORED, bool ROWMAJOR = false, bool MASKED = false, bool ROWS = false> struct band_worker {
    const pair_args &p;
    warp_smem &sm;
    const int lane;
    const int oe, neg_ext;
    long long row0;  /* index in a of the lane's first row */
    long long n_eff; /* columns this band computes (fewer once an anchored pass has its hit) */
    long long in_end; /* windows: the row above holds columns below this; pruned from here */
    int HO[ALPHA];   /* H - oe of the lane's rows at its last column */
    int E[ALPHA];
    int dg;          /* H - oe of the row above, one column left */
    int up_h, up_f;  /* H - oe and F of the row above, from lane - 1 */
    /* per lane, across bands */
    int best;
    long long best_col, best_row;
    long long hit_col;

    __device__ band_worker(const pair_args &args, warp_smem &s, int l)
        : p(args), sm(s), lane(l), oe(args.oe), neg_ext(-args.ext), row0(0), n_eff(0), in_end(0), dg(0), up_h(0),
          up_f(FLOOR),
          best(0), best_col(-1), best_row(-1), hit_col(0x7fffffffffffffffll)
    {
    }

    /* H of the first row (column k) or of the first column (row k, `down`):
     * the cost of a gap from the origin in an anchored pass, clamped at
     * FLOOR like the CPU engines. The gap down column 0 opens at
     * open_col0. */
    __device__ int edge(long long k, bool down = false) const
    {
        if (!ANCHORED || k == 0) return 0;
        const long long v = -((long long)(down ? p.open_col0 : p.open) + k * (long long)p.ext);
        return v < FLOOR ? FLOOR : (int)v;
    }

    __device__ void build_profile()
    {
        int code[ALPHA];
#pragma unroll
        for (int t = 0; t < ALPHA; ++t) code[t] = row0 + t < p.m ? p.a[row0 + t] : -1;
#pragma unroll
        for (int c = 0; c < SW_PAIR_CODES; ++c) {
#pragma unroll
            for (int q = 0; q < ALPHA / 4; ++q) {
                int v[4];
#pragma unroll
                for (int u = 0; u < 4; ++u) {
                    const int x = code[4 * q + u];
                    v[u] = x < 0 ? PHANTOM : (x == c && c < 4 ? p.match : p.mismatch) + oe;
                }
                sm.prof[c][q][lane] = make_int4(v[0], v[1], v[2], v[3]);
            }
        }
    }

    /* Whether this launch is a column strip with a strip on its left. */
    __device__ __forceinline__ bool strip_left() const { return !ROWS && p.left != nullptr; }

    /* The band's state at column 0. */
    __device__ void init_state()
    {
        if (strip_left()) {
            /* Column 0's left neighbours are the left strip's last column;
             * the diagonal of the lane's first row is the row above there
             * (row 0 of the matrix: its edge at that column). Phantom rows
             * start as low as a cell can be. */
#pragma unroll
            for (int t = 0; t < ALPHA; ++t) {
                const int2 v =
                    row0 + t < p.m ? __ldcv(p.left + row0 + t) : make_int2((ANCHORED ? FLOOR : 0) - oe, FLOOR);
                HO[t] = v.x;
                E[t] = v.y;
            }
            dg = row0 == 0       ? edge(p.col_base) - oe
                 : row0 - 1 < p.m ? __ldcv(p.left + row0 - 1).x
                                  : (ANCHORED ? FLOOR : 0) - oe;
            up_h = 0;
            up_f = FLOOR;
            return;
        }
#pragma unroll
        for (int t = 0; t < ALPHA; ++t) {
            HO[t] = edge(row0 + t + 1, true) - oe;
            E[t] = FLOOR;
        }
        dg = edge(row0, true) - oe;
        up_h = 0;
        up_f = FLOOR;
    }

    /* The lane's first row holding `mx` in this column (ties go to the
     * smallest row). */
    __device__ __forceinline__ long long first_row(const int (&h)[ALPHA], int mx, int top) const
    {
        int first = ALPHA - 1;
#pragma unroll
        for (int t = ALPHA - 1; t >= 0; --t)
            if (h[t] == mx) first = t;
        if (top == mx) first = 0;
        return row0 + first;
    }

    /* Step s's best cell. `top`: a value of the lane's first row that h[0]
     * may lack (FLOOR if none); it joins the maximum for free, as ALPHA is
     * even. The column (s - lane) is worked out only on the rare paths. */
    __device__ __forceinline__ void track(const int (&h)[ALPHA], long long s, int top = FLOOR)
    {
        static_assert(ALPHA % 2 == 0, "rows a lane: an even number");
        int mx = top;
#pragma unroll
        for (int t = 0; t < ALPHA; t += 2) mx = __vimax3_s32(mx, h[t], h[t + 1]);
        if (!ANCHORED) {
            /* One test on the common path: below the best so far. */
            if (mx < best) return;
            const long long j = s - lane;
            if (mx > best) {
                best = mx;
                best_col = j;
                best_row = first_row(h, mx, top);
                if (p.prune) atomicMax(p.best_score, mx);
            } else if (mx > 0) {
                /* A later column wins a tie only from a smaller row; in
                 * column-major order a smaller column wins it, which happens
                 * when a warp sweeps a second band (columns start again at
                 * 0, rows are larger). */
                const long long r = first_row(h, mx, top);
                if (ROWMAJOR ? r < best_row : j < best_col) {
                    best_col = j;
                    best_row = r;
                }
            }
        } else if (mx == p.target) {
            const long long j = s - lane;
            if (j < hit_col) {
                hit_col = j;
                atomicMin(p.found, ((unsigned long long)j << 32) | (unsigned long long)first_row(h, mx, top));
            }
        }
    }

    /* Whether a forbidden box meets the cells that steps [c0, c0 + CHUNK)
     * compute in the band of rows [band_row, band_row + BAND_ROWS). */
    __device__ bool chunk_forbidden(long long band_row, long long c0) const
    {
        if (!MASKED || !p.box_count) return false;
        /* A reversed pass bars gaps by the cell below or to the right too. */
        const unsigned long long more = p.reversed ? 1 : 0;
        const unsigned long long i0 = (unsigned long long)(p.row_base + band_row) + 1, i1 = i0 + BAND_ROWS - 1 + more;
        const unsigned long long j0 = (unsigned long long)max(0ll, c0 - (LANES - 1)) + 1,
                                 j1 = (unsigned long long)(c0 + CHUNK) + more;
        for (int k = 0; k < p.box_count; ++k) {
            const sw_pair_box x = p.boxes[k];
            if (x.a_lo <= i1 && i0 <= x.a_hi && x.b_lo <= j1 && j0 <= x.b_hi) return true;
        }
        return false;
    }

    /* Bit t: the lane's row t + drow in column j + dcol (0-based) is
     * forbidden. */
    __device__ __forceinline__ unsigned forbidden_rows(long long j, int drow = 0, int dcol = 0) const
    {
        return forbidden_bits(p.boxes, p.box_count, (unsigned long long)(p.row_base + row0 + drow) + 1,
                              (unsigned long long)(j + dcol) + 1);
    }

    /* Whether the band starting at row band_row is the matrix's last, short
     * of BAND_ROWS rows, in a pass that hands its last row on: it sweeps
     * with step<..., PARTIAL>. */
    __device__ bool short_last_band(long long band_row) const
    {
        return (!ANCHORED || ROWS) && !MASKED && p.last_row_wanted && band_row + BAND_ROWS > p.m;
    }

    /* Step s: lane l computes column s - l of its rows. PARTIAL: the
     * matrix's last band, short of BAND_ROWS rows, in a pass
     * that hands its last row on. The rows past the matrix (phantom rows)
     * would carry vertical gaps down to the band's last row; instead the
     * lanes wholly past the matrix hand the row above on unchanged, and
     * the lane holding the matrix's last row hands on that row. */
    template <bool CHECK, bool MASK = false, bool PARTIAL = false> __device__ __forceinline__ void step(long long s)
    {
        const long long j = s - lane;
        const int last_t = PARTIAL ? (int)max(-1ll, min((long long)ALPHA - 1, p.m - 1 - row0)) : ALPHA - 1;
        const bool active = (!CHECK || (j >= 0 && j < n_eff)) && (!PARTIAL || last_t >= 0);
        const int2 top = sm.in[(unsigned)s & (IN_SLOTS - 1)];
        const int hu = lane == 0 ? top.x : up_h;
        const int fu = lane == 0 ? top.y : up_f;
        int out_h = hu, out_f = fu;
        if (active) {
            const int code = sm.b[(unsigned)j & (B_SLOTS - 1)];
            int sc[ALPHA];
#pragma unroll
            for (int q = 0; q < ALPHA / 4; ++q) {
                const int4 v = sm.prof[code][q][lane];
                sc[4 * q] = v.x;
                sc[4 * q + 1] = v.y;
                sc[4 * q + 2] = v.z;
                sc[4 * q + 3] = v.w;
            }
            int f = fu, hup = hu, diag = dg;
            int last_h = 0, last_f = 0;
            int h[ALPHA];
            int top_f = FLOOR; /* F of the band's first row, for `track` */
            const unsigned banned = MASK ? forbidden_rows(j) : 0u;
            /* A reversed pass: E and F barred by their own cells. */
            const unsigned banned_e = MASK && p.reversed ? forbidden_rows(j, 1, 0) : 0u;
            const unsigned banned_f = MASK && p.reversed ? forbidden_rows(j, 0, 1) : 0u;
            if (!MASK) {
                /* F of the lane's first row from the cell above; below
                 * that, F(t + 1) = max(F(t) - ext, H(t) - oe) with H(t) =
                 * max(X(t), F(t)) (X: the diagonal and E, clamped) is
                 * max(F(t) - ext, X(t) - oe), as oe >= ext: one operation
                 * a row on the chain down the lane's rows instead of three
                 * (the kernel is bound by that chain's latency). `track`
                 * reads X, and F too at the band's first row: a cell whose H
                 * came from F lies below a cell of the band at least oe
                 * higher, or below the first row, whose H is then at least
                 * as high (its F came from outside the band and lost at
                 * most ext a row on the way down). Either way the band's
                 * first best cell and first hit have H = X or lie in the
                 * first row. */
                f = __viaddmax_s32(f, neg_ext, hup);
                top_f = lane == 0 ? f : FLOOR;
#pragma unroll
                for (int t = 0; t < ALPHA; ++t) {
                    const int e = __viaddmax_s32(E[t], neg_ext, HO[t]);
                    const int x = ANCHORED ? max(max(diag + sc[t], e), FLOOR) : __viaddmax_s32_relu(diag, sc[t], e);
                    const int xo = x - oe;
                    diag = HO[t];
                    E[t] = e;
                    hup = __viaddmax_s32(f, -oe, xo);
                    HO[t] = hup;
                    h[t] = x;
                    if (PARTIAL && t == last_t) {
                        last_h = hup;
                        last_f = f;
                    }
                    if (t + 1 < ALPHA) f = __viaddmax_s32(f, neg_ext, xo);
                }
            } else {
#pragma unroll
                for (int t = 0; t < ALPHA; ++t) {
                    int e = __viaddmax_s32(E[t], neg_ext, HO[t]);
                    f = __viaddmax_s32(f, neg_ext, hup);
                    int v = ANCHORED ? max(__vimax3_s32(diag + sc[t], e, f), FLOOR)
                                     : __vimax3_s32_relu(diag + sc[t], e, f);
                    if (MASK && !p.reversed && (banned >> t & 1u)) {
                        v = ANCHORED ? FLOOR : 0;
                        e = f = FLOOR;
                    } else if (MASK && p.reversed && ((banned | banned_e | banned_f) >> t & 1u)) {
                        if (banned_e >> t & 1u) e = FLOOR;
                        if (banned_f >> t & 1u) f = FLOOR;
                        const int pair = (banned >> t & 1u) ? FLOOR : diag + sc[t];
                        v = ANCHORED ? max(__vimax3_s32(pair, e, f), FLOOR) : __vimax3_s32_relu(pair, e, f);
                    }
                    diag = HO[t];
                    E[t] = e;
                    hup = v - oe;
                    HO[t] = hup;
                    h[t] = v;
                    if (PARTIAL && t == last_t) {
                        last_h = hup;
                        last_f = f;
                    }
                }
            }
            dg = hu;
            out_h = PARTIAL ? last_h : hup;
            out_f = PARTIAL ? last_f : f;
            track(h, s, top_f);
        }
        up_h = __shfl_sync(FULL, out_h, (lane + LANES - 1) & (LANES - 1));
        up_f = __shfl_sync(FULL, out_f, (lane + LANES - 1) & (LANES - 1));
        if (lane == 0) {
            const long long col = s - (LANES - 1);
            if (!CHECK || (col >= 0 && col < n_eff))
                sm.out[(unsigned)col & (IN_SLOTS - 1)] = make_int2(up_h, up_f);
        }
    }

    /* Lane 0's row above for columns [c, c + CHUNK) from `top`, or the
     * first row of the matrix where `top` is NULL. */
    __device__ void load_top(long long c, const int2 *top)
    {
        for (long long col = c + lane; col < c + CHUNK; col += LANES)
            if (col < n_eff)
                sm.in[col & (IN_SLOTS - 1)] = top ? __ldcg(top + col) : make_int2(edge(p.col_base + col + 1) - oe, FLOOR);
    }

    /* The band's last row, columns [q, qe), to `dst` and `copy` (may be NULL). */
    __device__ void store_row(long long q, long long qe, int2 *dst, int2 *copy)
    {
        for (long long col = q + lane; col < qe; col += LANES) {
            const int2 v = sm.out[col & (IN_SLOTS - 1)];
            __stcg(dst + col, v);
            if (copy) __stcg(copy + col, v);
        }
    }

    /* ---- persistent layout ---- */

    /* Lane 0's row above for columns [c, c + CHUNK): the first row of the
     * matrix, or band k - 1's last row from the ring. */
    __device__ int2 *link_slot(long long link, unsigned long long seq, long long col) const
    {
        return link == 0 ? p.row + col : p.ring + link * RING + ((seq + col) & (RING - 1));
    }

    __device__ void fetch(long long c, long long k, long long link, unsigned long long seq, int round_parity,
                          unsigned long long &seen)
    {
        if (k == 0) {
            load_top(c, p.top);
            return;
        }
        const long long want = min(c + CHUNK, n_eff);
        if (seen < seq + (unsigned long long)want) {
            /* Wait for the columns or for the producer to finish the band
             * (the counter reaches seq + n even where it stopped early). */
            long long stop = -1;
            if (lane == 0) {
                const unsigned long long since = now_ns();
                for (;;) {
                    seen = load_acquire(&p.produced[link * PAD]);
                    /* With windows, a finished band above may have
                     * stopped short of `want`: ask where. */
                    if (seen >= seq + (unsigned long long)want &&
                        !(ROWS && p.windows && seen >= seq + (unsigned long long)p.n))
                        break;
                    if (seen >= seq + (unsigned long long)p.n) {
                        const unsigned long long st = load_acquire(&p.stopped[(link * 2 + round_parity) * PAD]);
                        stop = st > seq ? (long long)(st - seq - 1) : p.n;
                        break;
                    }
                    if (stalled(p, since, 1, k, c)) {
                        stop = c;
                        break;
                    }
                    __nanosleep(64);
                }
            }
            seen = __shfl_sync(FULL, seen, 0);
            stop = __shfl_sync(FULL, stop, 0);
            if (ROWS && stop >= 0 && p.windows) {
                /* The band above stopped at its window's end: the rest
                 * of the row above is pruned, this band goes on. */
                in_end = min(in_end, stop);
            } else if (stop >= 0 && stop < n_eff) {
                n_eff = stop;
            }
        }
        const long long end = min(want, n_eff);
        for (long long col = c + lane; col < end; col += LANES)
            sm.in[col & (IN_SLOTS - 1)] = !ROWS || col < in_end ? __ldcg(link_slot(link, seq, col))
                                                                : make_int2(FLOOR - oe, FLOOR);
        __syncwarp();
        if (lane == 0 && end > c) store_release(&p.consumed[link * PAD], seq + end);
    }

    /* Band k's last row, columns [q, qe), into the ring of band k + 1. */
    __device__ void flush(long long q, long long qe, long long link, unsigned long long seq, unsigned long long &seen)
    {
        const long long need = (long long)seq + qe - (link == 0 ? p.n : RING);
        if ((long long)seen < need) {
            if (lane == 0) {
                const unsigned long long since = now_ns();
                while ((long long)(seen = load_acquire(&p.consumed[link * PAD])) < need &&
                       !stalled(p, since, 2, link, q))
                    __nanosleep(64);
            }
            seen = __shfl_sync(FULL, seen, 0);
        }
        for (long long col = q + lane; col < qe; col += LANES)
            __stcg(link_slot(link, seq, col), sm.out[col & (IN_SLOTS - 1)]);
        __syncwarp();
        if (lane == 0) store_release(&p.produced[link * PAD], seq + qe);
    }

    /* The most a path can add from a cell with r_lo..r_hi rows and
     * c_lo..c_hi columns still to go: a pair of bases a row and column in
     * common. A path to the corner (goal_rows) also crosses the
     * difference of the two as gap bases (openings left out: a gap may
     * already be open). */
    __device__ long long reach(long long r_lo, long long r_hi, long long c_lo, long long c_hi) const
    {
        const long long match = p.match, ext = p.ext;
        if (!ROWS) return match * min(r_hi, c_hi);
        r_lo = max(r_lo, 0ll);
        c_lo = max(c_lo, 0ll);
        if (r_hi < c_lo) return match * r_hi - ext * (c_lo - r_hi);
        if (c_hi < r_lo) return match * c_hi - ext * (r_lo - c_hi);
        return match * min(r_hi, c_hi);
    }

    /* Whether no alignment through the cells of the chunk starting at
     * step c0 can reach the threshold. Every path into them crosses the
     * lanes' states at the chunk's left edge (their rows row0 .. row0 +
     * ALPHA, the row above included, columns around c0 - lane) or the
     * band's row above (columns c0 .. c0 + CHUNK); the bounds count from
     * there, a row and a column to spare. */
    __device__ bool prunable(long long c0, long long band_row, int thr)
    {
        if (thr <= 0 && !ROWS) return false;
        int hmax = dg;
#pragma unroll
        for (int t = 0; t < ALPHA; ++t) hmax = max(hmax, HO[t]);
        if (lane > 0) hmax = max(hmax, up_h);
        long long h = (long long)hmax + oe;
        if (!ANCHORED && h < 0) h = 0;
        const long long goal = ROWS ? p.goal_rows : p.m;
        const long long rows = max(goal - row0, 0ll) + 1, cols = p.n + p.cols_after - (c0 - lane) + 1;
        const long long bound = h + reach(rows - ALPHA - 2, rows, cols - 2, cols);
        int top_h = sm.in[(c0 + lane) & (IN_SLOTS - 1)].x;
        for (int x = lane + LANES; x < CHUNK; x += LANES) top_h = max(top_h, sm.in[(c0 + x) & (IN_SLOTS - 1)].x);
        long long top = (long long)top_h + oe;
        if (!ANCHORED && top < 0) top = 0;
        const long long top_rows = max(goal - band_row, 0ll) + 1;
        const long long rest = p.n + p.cols_after;
        const long long top_bound = top + reach(top_rows - 1, top_rows, rest - c0 - CHUNK - 1, rest - c0 + 1);
        return __all_sync(FULL, bound < thr && top_bound < thr);
    }

    __device__ void prune_chunk(long long c0)
    {
        const int z = (ANCHORED ? FLOOR : 0) - oe;
#pragma unroll
        for (int t = 0; t < ALPHA; ++t) {
            HO[t] = z;
            E[t] = FLOOR;
        }
        dg = lane == 0 ? sm.in[(c0 + CHUNK - 1) & (IN_SLOTS - 1)].x : z;
        up_h = z;
        up_f = FLOOR;
        for (int x = lane; x < CHUNK; x += LANES)
            sm.out[(c0 - (LANES - 1) + x) & (IN_SLOTS - 1)] = make_int2(z, FLOOR);
    }

    /* Column strips: waits until the strip on the left has published the
     * rows of the band starting at band_row (the row above them too: they
     * come in band order), and takes the best score it had found as a
     * floor for pruning. An abort from the host, or a wait far longer than
     * the left strip's sweep, records a stall so that every wait of the
     * launch ends and the host reports it. */
    __device__ void wait_left(long long band_row, long long k)
    {
        if (lane == 0) {
            const unsigned long long need = (unsigned long long)min(band_row + BAND_ROWS, p.m);
            const unsigned long long since = now_ns();
            while (load_acquire_sys(p.left_rows) < need) {
                if (*(volatile const int *)p.abort || (p.left_abort && *(volatile const int *)p.left_abort) ||
                    *(volatile unsigned long long *)p.stall || now_ns() - since > p.left_wait_ns) {
                    atomicCAS(p.stall, 0ull, (1ull << 63) | (3ull << 60) | ((unsigned long long)(k & 0xfffffff) << 32));
                    break;
                }
                __nanosleep(256);
            }
            if (p.prune) {
                const int b = *(volatile const int *)p.left_best;
                if (b > 0) atomicMax(p.best_score, b);
            }
        }
        __syncwarp();
    }

    /* Column strips: the band's states at the strip's last column (each
     * lane's H - oe and E there once the sweep is over) to the strip on
     * the right, published after the band above's so that a count of rows
     * covers every row below it, with the best score found so far. */
    __device__ void publish_right(long long band_row, long long k)
    {
#pragma unroll
        for (int t = 0; t < ALPHA; ++t)
            if (row0 + t < p.m) __stwt(p.right + row0 + t, make_int2(HO[t], E[t]));
        __threadfence_system();
        __syncwarp();
        if (lane == 0) {
            const unsigned long long since = now_ns();
            while (load_acquire_sys(p.right_rows) < (unsigned long long)band_row && !stalled(p, since, 4, k, 0))
                __nanosleep(64);
            const int mine = p.prune ? *(volatile int *)p.best_score : 0;
            volatile int *rb = p.right_best;
            if (mine > *rb) *rb = mine;
            __threadfence_system();
            store_release_sys(p.right_rows, (unsigned long long)min(band_row + BAND_ROWS, p.m));
        }
        __syncwarp();
    }

    __device__ void run_band(long long k)
    {
        const long long G = p.workers, n = p.n;
        const long long link_in = k % G, link_out = (k + 1) % G;
        const unsigned long long seq_in = (unsigned long long)(k / G) * n;
        const unsigned long long seq_out = (unsigned long long)((k + 1) / G) * n;
        const int parity_in = (int)((k / G) & 1), parity_out = (int)(((k + 1) / G) & 1);
        const bool has_out = k + 1 < p.bands;
        const long long band_row = k * BAND_ROWS;
        const bool partial = short_last_band(band_row);
        row0 = band_row + (long long)lane * ALPHA;
        n_eff = n;
        in_end = n;
        /* A window: columns [first, n_eff); the cells left of it pruned. */
        long long first = 0;
        if (ROWS && p.windows) {
            const int2 w = p.windows[k];
            first = w.x;
            n_eff = w.y;
        }
        build_profile();
        if (strip_left()) wait_left(band_row, k);
        init_state();
        if (ROWS && first > 0) {
            const int z = FLOOR - oe;
#pragma unroll
            for (int t = 0; t < ALPHA; ++t) HO[t] = z;
            dg = up_h = z;
            /* The lanes' first steps read the bases left of the window. */
            for (long long col = first - LANES + lane; col < first; col += LANES)
                if (col >= 0) sm.b[col & (B_SLOTS - 1)] = p.b[col];
        }
        unsigned long long prod_seen = 0, cons_seen = 0;
        if (k == 0 && lane == 0) store_release(&p.consumed[link_in * PAD], seq_in + n);
        /* The columns of the row above left of the window are never read. */
        if (ROWS && k > 0 && first > 0 && lane == 0) store_release(&p.consumed[link_in * PAD], seq_in + first);
        fetch(first, k, link_in, seq_in, parity_in, prod_seen);
        long long flushed = first, pruned_chunks = 0;
        /* The shared threshold (local: best score so far) and the first hit
         * (anchored) as read during the previous chunk: reading them there
         * hides the load, and a stale value only prunes or stops later. */
        int thr = ANCHORED ? p.threshold : 0;
        unsigned long long hit = NO_HIT;
        for (long long c0 = first; c0 < n_eff + LANES - 1; c0 += CHUNK) {
            if (ANCHORED && hit != NO_HIT && (long long)(hit >> 32) < c0 && c0 < n_eff) n_eff = c0;
            if (c0 + CHUNK < n_eff) fetch(c0 + CHUNK, k, link_in, seq_in, parity_in, prod_seen);
            {
                for (long long col = c0 + lane; col < c0 + CHUNK && col < n_eff; col += LANES)
                    sm.b[col & (B_SLOTS - 1)] = p.b[col];
            }
            __syncwarp();
            unsigned long long pending = 0;
            if (lane == 0)
                pending = ANCHORED ? *(volatile unsigned long long *)p.found
                                   : (p.prune ? (unsigned long long)*(volatile int *)p.best_score : 0ull);
            if (partial) {
                for (int i = 0; i < CHUNK; ++i) step<true, false, true>(c0 + i);
            } else if (chunk_forbidden(band_row, c0)) {
                for (int i = 0; i < CHUNK; ++i) step<true, true>(c0 + i);
            } else if (c0 == 0 || c0 + CHUNK > n_eff) {
#pragma unroll 4
                for (int i = 0; i < CHUNK; ++i) step<true>(c0 + i);
            } else if (p.prune && prunable(c0, band_row, thr)) {
                prune_chunk(c0);
                ++pruned_chunks;
            } else {
#pragma unroll 4
                for (int i = 0; i < CHUNK; ++i) step<false>(c0 + i);
            }
            __syncwarp();
            pending = __shfl_sync(FULL, pending, 0);
            if (ANCHORED) hit = pending;
            else thr = (int)pending;
            if (has_out)
                for (; flushed + CHUNK <= min(c0 + 1, n_eff); flushed += CHUNK)
                    flush(flushed, flushed + CHUNK, link_out, seq_out, cons_seen);
            else if (p.bottom)
                for (; flushed + CHUNK <= min(c0 + 1, n_eff); flushed += CHUNK)
                    store_row(flushed, flushed + CHUNK, p.bottom, nullptr);
        }
        if (!has_out && p.bottom && flushed < n_eff) store_row(flushed, n_eff, p.bottom, nullptr);
        if (has_out) {
            if (flushed < n_eff) flush(flushed, n_eff, link_out, seq_out, cons_seen);
            if (n_eff < n && lane == 0) {
                store_release(&p.stopped[(link_out * 2 + parity_out) * PAD], seq_out + n_eff + 1);
                store_release(&p.produced[link_out * PAD], seq_out + n);
            }
        }
        if (k > 0 && lane == 0) store_release(&p.consumed[link_in * PAD], seq_in + n);
        if (!ROWS && p.right) publish_right(band_row, k);
        if (lane == 0) {
            const long long rows = min((long long)BAND_ROWS, p.m - band_row);
            const unsigned long long skipped = (unsigned long long)pruned_chunks * CHUNK * rows;
            const unsigned long long done = (unsigned long long)rows * (n_eff - first) - skipped;
            const unsigned long long total = atomicAdd(p.cells, done) + done;
            /* Progress counts the cells swept, pruned ones too. */
            const unsigned long long skipped_total =
                skipped ? atomicAdd(p.pruned, skipped) + skipped : *(volatile unsigned long long *)p.pruned;
            if (p.cells_host) *(volatile unsigned long long *)p.cells_host = total + skipped_total;
        }
    }

    /* ---- overlap engine ---- */

    /* Band k on its own, no waits: the row above from `top` (NULL: a row
     * of zeros, the first row of the matrix or of a chunk's overlap), its
     * last row to `out` (which may be `top`: each column is read a chunk
     * before it is written) and to `copy` (may be NULL). */
    __device__ void run_strip(long long k, const int2 *top, int2 *out, int2 *copy)
    {
        const long long n = p.n;
        const bool partial = short_last_band(k * BAND_ROWS);
        row0 = k * BAND_ROWS + (long long)lane * ALPHA;
        n_eff = n;
        build_profile();
        init_state();
        load_top(0, top);
        long long flushed = 0;
        for (long long c0 = 0; c0 < n + LANES - 1; c0 += CHUNK) {
            if (c0 + CHUNK < n) load_top(c0 + CHUNK, top);
            for (long long col = c0 + lane; col < c0 + CHUNK && col < n; col += LANES) sm.b[col & (B_SLOTS - 1)] = p.b[col];
            __syncwarp();
            if (partial) {
                for (int i = 0; i < CHUNK; ++i) step<true, false, true>(c0 + i);
            } else if (chunk_forbidden(k * BAND_ROWS, c0)) {
                for (int i = 0; i < CHUNK; ++i) step<true, true>(c0 + i);
            } else if (c0 == 0 || c0 + CHUNK > n) {
#pragma unroll 4
                for (int i = 0; i < CHUNK; ++i) step<true>(c0 + i);
            } else {
#pragma unroll 4
                for (int i = 0; i < CHUNK; ++i) step<false>(c0 + i);
            }
            __syncwarp();
            for (; flushed + CHUNK <= min(c0 + 1, n); flushed += CHUNK) store_row(flushed, flushed + CHUNK, out, copy);
        }
        __syncwarp();
        if (flushed < n) store_row(flushed, n, out, copy);
        __syncwarp();
    }

    /* Forgets the best cell seen (after a chunk's overlap bands, which
     * belong to the chunk above). */
    __device__ void forget_best()
    {
        best = 0;
        best_col = best_row = -1;
    }

    /* ---- diagonal layout ---- */

    __device__ void load_state(long long k)
    {
        const int *v = p.vbus + ((size_t)k * LANES + lane) * STATE_INTS;
#pragma unroll
        for (int t = 0; t < ALPHA; ++t) {
            HO[t] = v[t];
            E[t] = v[ALPHA + t];
        }
        dg = v[2 * ALPHA];
        up_h = v[2 * ALPHA + 1];
        up_f = v[2 * ALPHA + 2];
        const best_record r = p.vbest[k * LANES + lane];
        best = r.score;
        best_col = r.col;
        best_row = r.row;
    }

    __device__ void save_state(long long k)
    {
        int *v = p.vbus + ((size_t)k * LANES + lane) * STATE_INTS;
#pragma unroll
        for (int t = 0; t < ALPHA; ++t) {
            v[t] = HO[t];
            v[ALPHA + t] = E[t];
        }
        v[2 * ALPHA] = dg;
        v[2 * ALPHA + 1] = up_h;
        v[2 * ALPHA + 2] = up_f;
        p.vbest[k * LANES + lane] = best_record{best, best_col, best_row};
    }

    /* Steps [sb, se) of band k. */
    __device__ void run_tile(long long k, long long sb, long long se)
    {
        const long long n = p.n;
        row0 = k * BAND_ROWS + (long long)lane * ALPHA;
        n_eff = n;
        build_profile();
        if (sb == 0) {
            init_state();
            best = 0;
            best_col = best_row = -1;
        } else {
            load_state(k);
        }
        for (long long blk = sb; blk < se; blk += CHUNK) {
            const long long be = min(blk + CHUNK, se);
            for (long long col = blk + lane; col < blk + CHUNK; col += LANES) {
                if (col < be && col < n)
                    sm.in[col & (IN_SLOTS - 1)] =
                        k == 0 ? make_int2(edge(col + 1) - oe, FLOOR) : __ldcg(&p.hbus[col]);
                if (col < n) sm.b[col & (B_SLOTS - 1)] = p.b[col];
                if (col - CHUNK >= 0 && col - CHUNK < n) sm.b[(col - CHUNK) & (B_SLOTS - 1)] = p.b[col - CHUNK];
            }
            __syncwarp();
            if (blk < LANES - 1 || be > n) {
                for (long long s = blk; s < be; ++s) step<true>(s);
            } else if (be - blk == CHUNK) {
#pragma unroll 4
                for (int i = 0; i < CHUNK; ++i) step<false>(blk + i);
            } else {
                for (long long s = blk; s < be; ++s) step<false>(s);
            }
            __syncwarp();
            for (long long col = blk - (LANES - 1) + lane; col < blk - (LANES - 1) + CHUNK; col += LANES)
                if (col >= 0 && col < be - (LANES - 1) && col < n) __stcg(&p.hbus[col], sm.out[col & (IN_SLOTS - 1)]);
        }
        save_state(k);
        if (lane == 0) {
            const long long rows = min((long long)BAND_ROWS, p.m - k * BAND_ROWS);
            const long long cols = max(0ll, min(se, n) - max(sb, 0ll));
            const unsigned long long total = atomicAdd(p.cells, (unsigned long long)(rows * cols)) + rows * cols;
            if (p.cells_host) *(volatile unsigned long long *)p.cells_host = total;
        }
    }

    /* The lane's best to the warp's lane 0: highest score, then smallest
     * column, then smallest row. */
    __device__ best_record warp_best() const
    {
        best_record b{best, best_col, best_row};
        for (int off = LANES / 2; off > 0; off /= 2) {
            const best_record o{__shfl_down_sync(FULL, b.score, off), __shfl_down_sync(FULL, b.col, off),
                                __shfl_down_sync(FULL, b.row, off)};
            if (better<ROWMAJOR>(o, b)) b = o;
        }
        return b;
    }
};

template <bool ANCHORED, bool ROWMAJOR = false, bool MASKED = false, bool ROWS = false>
__global__ void __launch_bounds__(WARPS_PER_BLOCK *LANES, BLOCKS_PER_SM) persistent_kernel(pair_args p)
{
    __shared__ warp_smem smem[WARPS_PER_BLOCK];
    const int w = threadIdx.x / LANES;
    const long long worker = (long long)blockIdx.x * WARPS_PER_BLOCK + w;
    if (worker >= p.workers) return;
    band_worker<ANCHORED, ROWMAJOR, MASKED, ROWS> bw(p, smem[w], threadIdx.x & (LANES - 1));
    for (long long k = worker; k < p.bands; k += p.workers) bw.run_band(k);
    if (!ANCHORED) {
        best_record r = bw.warp_best();
        if (r.score > 0) r.row += p.row_base;
        if ((threadIdx.x & (LANES - 1)) == 0) p.records[worker] = r;
    }
}

/* The best of `count` records into *out. */
template <bool ROWMAJOR = false> __global__ void reduce_kernel(const best_record *in, long long count, best_record *out)
{
    best_record b{0, -1, -1};
    for (long long i = threadIdx.x; i < count; i += blockDim.x)
        if (better<ROWMAJOR>(in[i], b)) b = in[i];
    __shared__ best_record all[256];
    all[threadIdx.x] = b;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int i = 1; i < (int)blockDim.x; ++i)
            if (better<ROWMAJOR>(all[i], b)) b = all[i];
        *out = b;
    }
}

} // namespace

#endif
