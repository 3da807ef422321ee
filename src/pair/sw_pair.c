/* The two passes of a megabase pairwise alignment on the engine chosen, with
 * progress reported from the calling thread while an engine works. */
#include "sw_pair.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sw_clock.h"
#include "sw_pair_cpu.h"
#include "sw_pair_gpu.h"
#include "sw_pair_overlap.h"
#include "sw_pair_ranks.h"
#include "sw_pair_strips.h"
#include "sw_pair_team.h"
#include "sw_pool.h"

const char *sw_pair_engine_name(sw_pair_engine engine)
{
    switch (engine) {
    case SW_PAIR_ENGINE_AUTO: return "auto";
    case SW_PAIR_ENGINE_CPU: return "cpu";
    case SW_PAIR_ENGINE_CUDALIGN: return "cudalign";
    case SW_PAIR_ENGINE_OVERLAP: return "overlap";
    }
    return "?";
}



typedef struct pass_job {
    const sw_pair_pass *pass;
    sw_pair_engine engine;
    const sw_pair_options *opt;
    const sw_pair_gpu_strips *strips; /* the forward pass in column strips; NULL: on one engine */
    sw_pair_hit hit;
    sw_pair_overlap_stats overlap;
    int rc;
    sw_error err;
    atomic_int done;
} pass_job;

static int run_engine(pass_job *job)
{
    if (job->strips) return sw_pair_gpu_strips_run(job->pass, job->strips, &job->hit, NULL, &job->err);
    switch (job->engine) {
    case SW_PAIR_ENGINE_CPU: return sw_pair_cpu_run(job->pass, job->opt->threads, &job->hit, &job->err);
    case SW_PAIR_ENGINE_OVERLAP: {
        sw_pair_overlap_options oo = {.device = job->opt->device};
        return sw_pair_overlap_run(job->pass, &oo, &job->hit, &job->overlap, &job->err);
    }
    default: {
        sw_pair_gpu_options go = {.device = job->opt->device, .prune = !job->opt->no_pruning,
                                  .layout = SW_PAIR_GPU_PERSISTENT};
        sw_pair_gpu_stats stats;
        int rc = sw_pair_gpu_run(job->pass, &go, &job->hit, &stats, &job->err);
        job->hit.pruned = stats.pruned;
        return rc;
    }
    }
}

sw_pair_engine sw_pair_choose_engine(uint64_t rows, uint64_t cols, int parts)
{
    /* Slices are rows of the first sequence, which the overlap engine
     * cannot turn: with several, a slice's own shape decides, and only a
     * slice taller than wide goes to it. */
    if (parts > 1) rows /= (uint64_t)parts;
    const int turn = parts <= 1 && cols > rows;
    const uint64_t longer = turn ? cols : rows, shorter = turn ? rows : cols;
    return longer / SW_PAIR_OVERLAP_RATIO >= shorter ? SW_PAIR_ENGINE_OVERLAP : SW_PAIR_ENGINE_CUDALIGN;
}

int sw_pair_best_allowed(int k, const sw_pair_slice_ops *slices)
{
    return k <= 1 || !slices || slices->ranks <= 1;
}

/* One slice of a forward pass cut between processes. The overlap engine
 * takes boundary rows only where the slice has more rows than columns; a
 * flatter slice goes to the CUDAlign engine. */
static int run_slice(void *user, const sw_pair_pass *pass, sw_pair_hit *out, sw_error *err)
{
    pass_job job = *(const pass_job *)user;
    job.pass = pass;
    if (job.engine == SW_PAIR_ENGINE_OVERLAP && pass->a_len < pass->b_len) job.engine = SW_PAIR_ENGINE_CUDALIGN;
    sw_error_clear(&job.err);
    const int rc = run_engine(&job);
    *out = job.hit;
    if (rc && err) *err = job.err;
    return rc;
}

static void run_job(void *arg, int index)
{
    (void)index;
    pass_job *job = arg;
    job->rc = run_engine(job);
    atomic_store(&job->done, 1);
}

/* Runs one pass; with a progress callback, in a thread of its own while
 * this one reports. */
static int run_pass(pass_job *job, int index, uint64_t total, sw_error *err)
{
    const sw_pair_options *o = job->opt;
    sw_error_clear(&job->err);
    atomic_init(&job->done, 0);
    sw_pool *pool = NULL;
    int started = 0;
    if (o->progress) sw_pool_start(1, run_job, job, &pool, &started);
    if (!started) {
        job->rc = run_engine(job);
    } else {
        const double interval = o->progress_interval > 0 ? o->progress_interval : 1.0;
        double next = sw_clock_seconds() + interval;
        while (!atomic_load(&job->done)) {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
            if (sw_clock_seconds() >= next) {
                o->progress(o->progress_user, index, __atomic_load_n(job->pass->cells_done, __ATOMIC_RELAXED),
                            total);
                next += interval;
            }
        }
        sw_pool_join(pool);
        if (job->rc == SW_OK) o->progress(o->progress_user, index, total, total);
    }
    if (job->rc && err) *err = job->err;
    return job->rc;
}

/* How far back from the end cell, along the sequence of length `len` whose
 * end is at `end`, an alignment of score `score` can start, the other
 * sequence's end being at `other_end`: it spans x bases of this one and y
 * of the other, with y <= other_end; it has at most min(x, y) matches and,
 * where x > y, gaps of x - y bases at least, so
 * score <= match * y - gap_open - gap_extend * (x - y). */
static uint64_t reach(uint64_t end, uint64_t other_end, int32_t score, const sw_pair_scoring *s)
{
    uint64_t x = other_end;
    const int64_t spare = (int64_t)s->match * (int64_t)other_end - score - s->gap_open;
    if (spare > 0) x += (uint64_t)(spare / s->gap_extend);
    return x < end ? x : end;
}

/* The device of slice k of a pass cut between the GPUs of this process. */
static int slice_device(const sw_pair_options *o, int k)
{
    return o->devices ? o->devices[k] : o->device + k;
}

/* Column strips for a pass on `parts` GPUs (`o`'s devices), their widths
 * from each device's capacity (sw_pair_strips.h); fewer strips where the
 * pass is too short for so many. A local pass is cut by its shorter
 * sequence, an anchored one by b (sw_pair_gpu_strips_run). */
static int plan_strips(const sw_pair_pass *pass, const sw_pair_options *o, int parts, int *devices,
                       uint64_t *widths, sw_pair_gpu_strips *out, sw_error *err)
{
    const uint64_t a_len = pass->a_len, b_len = pass->b_len;
    const int by_b = pass->mode == SW_PAIR_ANCHORED || a_len >= b_len;
    const uint64_t rows = by_b ? a_len : b_len, cols = by_b ? b_len : a_len;
    int count = parts < SW_PAIR_GPU_MAX_STRIPS ? parts : SW_PAIR_GPU_MAX_STRIPS;
    if ((uint64_t)count > cols) count = cols ? (int)cols : 1;
    for (;;) {
        double speed[SW_PAIR_GPU_MAX_STRIPS];
        uint64_t held[SW_PAIR_GPU_MAX_STRIPS];
        for (int k = 0; k < count; ++k) {
            devices[k] = slice_device(o, k);
            int share = 0;
            for (int j = 0; j < count; ++j) share += slice_device(o, j) == devices[k];
            const int rc = sw_pair_gpu_strip_capacity(devices[k], share, &held[k], &speed[k], err);
            if (rc) return rc;
        }
        const int used = sw_pair_strip_widths(rows, cols, count, speed, held, widths);
        if (used < 1) return sw_error_set(err, SW_EINVAL, "pairwise alignment: no strips for %llu columns",
                                          (unsigned long long)cols);
        if (used == count) break;
        count = used;
    }
    *out = (sw_pair_gpu_strips){count, devices, widths, !o->no_pruning};
    return SW_OK;
}

/* Progress of this rank's strip, for sw_pair_ranks_run. */
typedef struct rank_progress {
    const sw_pair_options *o;
    int pass;
    uint64_t total;
} rank_progress;

static void report_rank(void *user, uint64_t done)
{
    const rank_progress *r = user;
    r->o->progress(r->o->progress_user, r->pass, done, r->total);
}

/* A pass (1 forward, 2 start) in column strips across the ranks of
 * o->slices, one a rank, on this rank's engine (`job`'s: a GPU strip or
 * the CPU engine); widths from every rank's speed (sw_pair_strips.h).
 * *strips: how many ranks had columns. */
static int run_ranks(pass_job *job, int index, int *strips, sw_error *err)
{
    const sw_pair_options *o = job->opt;
    const sw_pair_slice_ops *ops = o->slices;
    const sw_pair_pass *pass = job->pass;
    const int gpu = job->engine != SW_PAIR_ENGINE_CPU;
    /* This rank's speed and rows in flight, then every rank's. */
    double speed = 0;
    uint64_t held = 0;
    if (gpu) {
        const int rc = sw_pair_gpu_strip_capacity(o->device, 1, &held, &speed, err);
        if (rc) return rc;
    } else {
        const int threads = o->threads > 0 ? o->threads : 0;
        held = sw_pair_cpu_rows_in_flight(threads);
        speed = (double)held; /* threads, in a unit common to the CPU ranks */
    }
    const int ranks = ops->ranks;
    int64_t mine[SW_PAIR_SPLIT_FIELDS] = {(int64_t)(speed * 1000.0), (int64_t)held, 0, 0, 0};
    int64_t *all = malloc((size_t)ranks * SW_PAIR_SPLIT_FIELDS * sizeof *all);
    double *speeds = malloc((size_t)ranks * sizeof *speeds);
    uint64_t *helds = malloc((size_t)ranks * sizeof *helds), *widths = malloc((size_t)ranks * sizeof *widths);
    if (!all || !speeds || !helds || !widths) {
        free(all);
        free(speeds);
        free(helds);
        free(widths);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    int rc = ops->gather_all(ops->user, mine, all, err);
    int used = 0;
    for (int k = 0; !rc && k < ranks; ++k) {
        speeds[k] = (double)all[(size_t)k * SW_PAIR_SPLIT_FIELDS] / 1000.0;
        helds[k] = (uint64_t)all[(size_t)k * SW_PAIR_SPLIT_FIELDS + 1];
        if (!(speeds[k] > 0)) speeds[k] = 1;
    }
    if (!rc && pass->a_len && pass->b_len) used = sw_pair_strip_widths(pass->a_len, pass->b_len, ranks, speeds, helds, widths);
    const int r = ops->rank;
    uint64_t first = 0, width = 0;
    for (int k = 0; k < used; ++k) {
        if (k < r) first += widths[k];
        if (k == r) width = widths[k];
    }
    /* The columns between this rank and its neighbours: GPU ranks' in
     * host memory mapped into the GPU. */
    sw_pair_column *left = NULL, *right = NULL;
    const uint64_t bytes = sw_pair_column_bytes(pass->a_len);
    if (!rc && r > 0 && r < used) {
        if (gpu) rc = sw_pair_gpu_column_alloc(pass->a_len, &left, err);
        else if (!(left = calloc(1, bytes))) rc = sw_error_set(err, SW_ENOMEM, "out of memory for a column");
    }
    if (!rc && r + 1 < used) {
        if (gpu) rc = sw_pair_gpu_column_alloc(pass->a_len, &right, err);
        else if (!(right = calloc(1, bytes))) rc = sw_error_set(err, SW_ENOMEM, "out of memory for a column");
    }
    /* Every rank goes on to the relay, which carries a failure to the
     * others, and the agreement at its end. */
    uint64_t done = 0;
    sw_pair_pass strip = *pass;
    strip.b = pass->b + first;
    strip.b_len = rc ? 0 : width;
    strip.col_base = first;
    strip.cols_after = pass->b_len - first - width;
    strip.left = left;
    strip.right = right;
    strip.cells_done = &done;
    int device = o->device;
    sw_pair_gpu_strips one = {1, &device, &width, !o->no_pruning};
    pass_job local = *job;
    local.strips = gpu ? &one : NULL;
    rank_progress rp = {o, index, pass->a_len * width};
    sw_error rerr;
    const int rrc = sw_pair_ranks_run(&strip, ops, run_slice, &local, o->progress ? report_rank : NULL, &rp,
                                      o->progress_interval, &job->hit, &rerr);
    if (!rc && rrc) {
        rc = rrc;
        if (err) *err = rerr;
    }
    if (!rc && o->progress) o->progress(o->progress_user, index, rp.total, rp.total);
    if (gpu) {
        sw_pair_gpu_column_free(left);
        sw_pair_gpu_column_free(right);
    } else {
        free(left);
        free(right);
    }
    free(all);
    free(speeds);
    free(helds);
    free(widths);
    *strips = used;
    return rc;
}

static uint8_t *reversed_prefix(const uint8_t *s, uint64_t len)
{
    uint8_t *r = malloc(len ? len : 1);
    if (r)
        for (uint64_t i = 0; i < len; ++i) r[i] = s[len - 1 - i];
    return r;
}

int sw_pair_align(const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                  const sw_pair_scoring *scoring, const sw_pair_options *options, sw_pair_result *out,
                  sw_error *err)
{
    memset(out, 0, sizeof *out);
    if (!scoring || (a_len && !a) || (b_len && !b))
        return sw_error_set(err, SW_EINVAL, "pairwise alignment: invalid arguments");
    int rc = sw_pair_check_scoring(scoring, a_len, b_len, err);
    if (rc) return rc;
    sw_pair_options opt;
    memset(&opt, 0, sizeof opt);
    if (options) opt = *options;
    sw_pair_engine engine = opt.engine;
    sw_error why;
    sw_error_clear(&why);
    const int sliced = opt.slices && opt.slices->ranks > 1;
    /* Forbidden boxes mean a later round of best-K. */
    if (!sw_pair_best_allowed(opt.forbidden_count ? 2 : 1, opt.slices))
        return sw_error_set(err, SW_EINVAL, "best-K alignments run in one process, not across processes");
    if (opt.gpus > 1) {
        if (sliced)
            return sw_error_set(err, SW_EINVAL, "several GPUs in one process and several processes do not mix");
        if (engine == SW_PAIR_ENGINE_CPU)
            return sw_error_set(err, SW_EINVAL, "several GPUs need a GPU engine, not the CPU engine");
        if (opt.forbidden_count) return sw_error_set(err, SW_EINVAL, "best-K alignments run on one GPU");
    }
    if (opt.gpus > 1) opt.device = slice_device(&opt, 0);
    if (engine != SW_PAIR_ENGINE_CPU && !sw_pair_gpu_usable(opt.device, &why)) {
        if (engine != SW_PAIR_ENGINE_AUTO) {
            if (err) *err = why;
            return why.code ? why.code : SW_ENODEV;
        }
        engine = SW_PAIR_ENGINE_CPU;
        opt.gpus = 1;
        if (opt.note) {
            char line[sizeof why.message + 64];
            snprintf(line, sizeof line, "GPU engine unavailable (%s): running on the CPU engine", why.message);
            opt.note(opt.note_user, line);
        }
    }
    for (int k = 1; k < opt.gpus; ++k)
        if (!sw_pair_gpu_usable(slice_device(&opt, k), err)) return SW_ENODEV;
    const int parts = sliced ? opt.slices->ranks : opt.gpus > 1 ? opt.gpus : 1;
    if (engine == SW_PAIR_ENGINE_AUTO) engine = sw_pair_choose_engine(a_len, b_len, parts);
    out->engine = engine;

    uint64_t cells_done = 0;
    sw_pair_pass pass = {a, a_len, b, b_len, *scoring, SW_PAIR_LOCAL, 0, &cells_done, NULL, NULL,
                         opt.forbidden, opt.forbidden_count, 0, NULL, NULL, 0, 0};
    pass_job job;
    memset(&job, 0, sizeof job);
    job.pass = &pass;
    job.engine = engine;
    job.opt = &opt;
    double t0 = sw_clock_seconds();
    int strip_devices[SW_PAIR_GPU_MAX_STRIPS];
    uint64_t strip_widths[SW_PAIR_GPU_MAX_STRIPS];
    sw_pair_gpu_strips strips;
    const int in_strips = parts > 1 && !sliced && engine == SW_PAIR_ENGINE_CUDALIGN && !opt.row_slices;
    /* Ranks run strips too, on the CPU engine or the CUDAlign engine. */
    const int ranks_in_strips = sliced && engine != SW_PAIR_ENGINE_OVERLAP && !opt.row_slices;
    if (ranks_in_strips) {
        if ((rc = run_ranks(&job, 1, &out->strips, err))) return rc;
        out->chunks = out->strips;
    } else if (in_strips) {
        if ((rc = plan_strips(&pass, &opt, parts, strip_devices, strip_widths, &strips, err))) return rc;
        job.strips = &strips;
        rc = run_pass(&job, 1, a_len * b_len, err);
        job.strips = NULL;
        if (rc) return rc;
        out->strips = strips.count;
        out->chunks = strips.count;
    } else if (parts > 1) {
        sw_pair_split_stats split;
        pass.cells_done = NULL;
        if (sliced) {
            rc = sw_pair_split_run(&pass, 0, opt.slices, run_slice, &job, &job.hit, &split, err);
        } else {
            /* One thread a GPU, each with its own device. */
            pass_job *jobs = calloc((size_t)parts, sizeof *jobs);
            sw_pair_options *opts = calloc((size_t)parts, sizeof *opts);
            void **users = calloc((size_t)parts, sizeof *users);
            if (!jobs || !opts || !users) {
                rc = sw_error_set(err, SW_ENOMEM, "out of memory");
            } else {
                for (int k = 0; k < parts; ++k) {
                    opts[k] = opt;
                    opts[k].device = slice_device(&opt, k);
                    jobs[k].engine = engine;
                    jobs[k].opt = &opts[k];
                    users[k] = &jobs[k];
                }
                rc = sw_pair_team_run(&pass, parts, SW_PAIR_SPLIT_OVERLAP, run_slice, users, &job.hit, &split, err);
            }
            free(jobs);
            free(opts);
            free(users);
        }
        if (rc) return rc;
        job.hit.pruned = 0;
        out->rounds = split.rounds;
        out->chunks = parts;
        out->recomputed = split.recomputed;
    } else if ((rc = run_pass(&job, 1, a_len * b_len, err))) {
        return rc;
    }
    out->forward_seconds = sw_clock_seconds() - t0;
    out->forward_cells = job.hit.cells;
    out->forward_pruned = job.hit.pruned;
    if (engine == SW_PAIR_ENGINE_OVERLAP && parts == 1) {
        out->rounds = job.overlap.rounds;
        out->chunks = job.overlap.chunks;
        out->recomputed = job.overlap.recomputed;
    }
    if (job.hit.score <= 0) return SW_OK;
    out->score = job.hit.score;
    out->a_end = job.hit.a_end;
    out->b_end = job.hit.b_end;
    if (sliced && !ranks_in_strips && opt.slices->rank != 0) return SW_OK;

    /* The start: the first cell, counted back from the end cell, that an
     * alignment anchored at the end cell reaches with the best score. It
     * lies within reach() of the end cell, which keeps the pass small when
     * one sequence is much longer than the other. */
    const uint64_t a_span = reach(out->a_end, out->b_end, out->score, scoring);
    const uint64_t b_span = reach(out->b_end, out->a_end, out->score, scoring);
    uint8_t *ra = reversed_prefix(a + (out->a_end - a_span), a_span);
    uint8_t *rb = reversed_prefix(b + (out->b_end - b_span), b_span);
    if (!ra || !rb) {
        free(ra);
        free(rb);
        return sw_error_set(err, SW_ENOMEM, "out of memory for the reversed sequences");
    }
    /* The forbidden boxes in the reversed prefixes: row i of the pass is
     * row a_end + 1 - i of the matrix, column j column b_end + 1 - j. */
    sw_pair_box *boxes = NULL;
    int box_count = 0;
    if (opt.forbidden_count) {
        boxes = malloc((size_t)opt.forbidden_count * sizeof *boxes);
        if (!boxes) {
            free(ra);
            free(rb);
            return sw_error_set(err, SW_ENOMEM, "out of memory for the forbidden boxes");
        }
        for (int k = 0; k < opt.forbidden_count; ++k) {
            const sw_pair_box x = opt.forbidden[k];
            if (x.a_lo > out->a_end || x.b_lo > out->b_end) continue;
            const uint64_t a_hi = out->a_end + 1 - x.a_lo, b_hi = out->b_end + 1 - x.b_lo;
            const uint64_t a_lo = x.a_hi >= out->a_end ? 1 : out->a_end + 1 - x.a_hi;
            const uint64_t b_lo = x.b_hi >= out->b_end ? 1 : out->b_end + 1 - x.b_hi;
            if (a_lo > a_span || b_lo > b_span) continue;
            boxes[box_count++] = (sw_pair_box){a_lo, a_hi < a_span ? a_hi : a_span, b_lo, b_hi < b_span ? b_hi : b_span};
        }
    }
    cells_done = 0;
    pass = (sw_pair_pass){ra, a_span, rb, b_span, *scoring, SW_PAIR_ANCHORED, out->score, &cells_done, NULL, NULL,
                          boxes, box_count, 1, NULL, NULL, 0, 0};
    /* The overlap engine runs local passes only: the start pass goes to
     * the CUDAlign engine, on the same GPU. */
    if (engine == SW_PAIR_ENGINE_OVERLAP) job.engine = SW_PAIR_ENGINE_CUDALIGN;
    /* After a forward pass in strips the start pass runs in strips too. */
    if (in_strips && !box_count && (rc = plan_strips(&pass, &opt, parts, strip_devices, strip_widths, &strips, err))) {
        free(ra);
        free(rb);
        free(boxes);
        return rc;
    }
    job.strips = in_strips && !box_count ? &strips : NULL;
    t0 = sw_clock_seconds();
    if (ranks_in_strips) {
        int ignored = 0;
        rc = run_ranks(&job, 2, &ignored, err);
    } else {
        rc = run_pass(&job, 2, a_span * b_span, err);
    }
    job.strips = NULL;
    free(ra);
    free(rb);
    free(boxes);
    if (rc) return rc;
    out->reverse_seconds = sw_clock_seconds() - t0;
    out->reverse_cells = job.hit.cells;
    out->reverse_pruned = job.hit.pruned;
    if (job.hit.score != out->score)
        return sw_error_set(err, SW_EINVAL,
                            "pairwise alignment: no start found for the score %d ending at %llu/%llu (engine %s)",
                            out->score, (unsigned long long)out->a_end, (unsigned long long)out->b_end,
                            sw_pair_engine_name(engine));
    out->a_start = out->a_end - job.hit.a_end + 1;
    out->b_start = out->b_end - job.hit.b_end + 1;
    return SW_OK;
}

int sw_pair_align_best(const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                       const sw_pair_scoring *scoring, const sw_pair_options *options, int k, sw_pair_result *out,
                       int *found, sw_error *err)
{
    *found = 0;
    if (k < 1 || !out) return sw_error_set(err, SW_EINVAL, "best-K alignments: invalid arguments");
    sw_pair_options opt;
    memset(&opt, 0, sizeof opt);
    if (options) opt = *options;
    if (!sw_pair_best_allowed(k, opt.slices))
        return sw_error_set(err, SW_EINVAL, "best-K alignments run in one process, not across processes");
    sw_pair_box *boxes = malloc((size_t)k * sizeof *boxes);
    if (!boxes) return sw_error_set(err, SW_ENOMEM, "out of memory");
    int rc = SW_OK;
    for (int r = 0; r < k; ++r) {
        opt.forbidden = boxes;
        opt.forbidden_count = r;
        /* The first alignment's note (engine fallback) is enough. */
        if (r > 0) opt.note = NULL;
        if ((rc = sw_pair_align(a, a_len, b, b_len, scoring, &opt, &out[r], err))) break;
        if (out[r].score <= 0) break;
        boxes[r] = (sw_pair_box){out[r].a_start, out[r].a_end, out[r].b_start, out[r].b_end};
        *found = r + 1;
    }
    free(boxes);
    return rc;
}
