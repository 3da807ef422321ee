/* GPU engine benchmark: loads a database made by makedb, then times the GPU
 * engine on each query alone, on all queries in one pipelined call (the
 * figure to compare with other tools), and per length bucket.
 *
 * usage: gpu_bench DB_PREFIX QUERIES.fa [--top N] [--columns R] [--streams S]
 *                  [--repeat K] [--gap-open G] [--gap-extend E] [--matrix M]
 *                  [--threshold N|none] [--sweep N,N,...] [--single 0|1]
 *                  [--intra-tile 8|16] [--intra-warps W] [--timeline FILE]
 *                  [--device-launch 0|1] [--device-mb M] [--qp N|none]
 *                  [--qp-group G] [--qp-columns R] [--qp-giants 0|1]
 * --threshold: database sequences longer than N go to the intra-task kernel
 * (none: never; 0, the default: the calibrated threshold, as swsearch search
 * picks it). --sweep: only the all-queries time for each threshold listed.
 * --single 0: skip the single-query runs.
 * --timeline: one more all-queries call with every launch and copy timed by
 * events on its stream; the spans go to FILE (TSV) and a summary of what
 * overlapped, with a chart of the first queries, to stdout.
 * --device-launch 1: the kernels of each query are launched by a parent
 * kernel on the GPU (needs a build with SW_ENABLE_DEVICE_LAUNCH).
 * --device-mb: device memory the engine may use (forces database batches).
 * --qp: database sequences up to N go to the kernels with the query across
 * the threads (none: never; 0, the default: the engine's default);
 * --qp-group, --qp-columns: their shape (0: the engine's rule).
 * --qp-giants 0: the intra-task kernel keeps its sequences for every query
 * (1, the default: 32-thread groups of those kernels take them for queries
 * of up to 1,024 residues).
 * GCUPS = query residues x database residues / seconds / 1e9. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_calibrate.h"
#include "sw_clock.h"
#include "sw_db.h"
#include "sw_gpu.h"
#include "sw_gpu_engine.h"
#include "sw_gpu_tuning.h"
#include "sw_matrix.h"
#include "sw_queries.h"

static uint32_t parse_threshold(const char *s)
{
    return !strncmp(s, "none", 4) && (s[4] == 0 || s[4] == ',') ? SW_GPU_NO_INTRA
                                                                  : (uint32_t)strtoul(s, NULL, 10);
}

static int fail(const sw_error *err)
{
    fprintf(stderr, "gpu_bench: %s\n", err->message);
    return 1;
}

typedef struct interval {
    double start, end;
} interval;

static int by_start(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The union of the spans whose kind is in `kinds` (a bit per kind), as
 * disjoint sorted intervals; returns how many. */
static size_t span_union(const sw_gpu_span *sp, size_t n, unsigned kinds, interval *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
        if (kinds >> sp[i].kind & 1u) out[k++] = (interval){sp[i].start, sp[i].end};
    if (!k) return 0;
    qsort(out, k, sizeof *out, by_start);
    size_t m = 0;
    for (size_t i = 1; i < k; ++i) {
        if (out[i].start <= out[m].end) {
            if (out[i].end > out[m].end) out[m].end = out[i].end;
        } else out[++m] = out[i];
    }
    return m + 1;
}

static double total_length(const interval *a, size_t n)
{
    double t = 0;
    for (size_t i = 0; i < n; ++i) t += a[i].end - a[i].start;
    return t;
}

/* Length of the intersection of two disjoint sorted interval lists. */
static double overlap_length(const interval *a, size_t na, const interval *b, size_t nb)
{
    double t = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        const double lo = a[i].start > b[j].start ? a[i].start : b[j].start;
        const double hi = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (hi > lo) t += hi - lo;
        if (a[i].end < b[j].end) ++i;
        else ++j;
    }
    return t;
}

#define KIND(k) (1u << (k))

/* The spans to `path`, and to stdout what ran beside what: busy time of each
 * kind of work, the time the intra-task kernel shared with inter-task
 * kernels and uploads with kernels, and a chart of the first queries, one
 * line per stream. */
static int report_timeline(const sw_gpu_span *sp, size_t n, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gpu_bench: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "query\tkind\tbucket\tstream\tstart_ms\tend_ms\n");
    for (size_t i = 0; i < n; ++i)
        fprintf(f, "%zu\t%s\t%d\t%d\t%.4f\t%.4f\n", sp[i].query, sw_gpu_span_name(sp[i].kind), sp[i].bucket,
                sp[i].stream, sp[i].start * 1e3, sp[i].end * 1e3);
    if (fclose(f)) {
        fprintf(stderr, "gpu_bench: cannot write %s\n", path);
        return 1;
    }
    interval *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "gpu_bench: out of memory\n");
        return 1;
    }
    double first = 1e30, last = 0;
    for (size_t i = 0; i < n; ++i) {
        if (sp[i].start < first) first = sp[i].start;
        if (sp[i].end > last) last = sp[i].end;
    }
    printf("\ntimeline: %zu spans over %.4f s (spans in %s)\n", n, n ? last - first : 0.0, path);
    printf("%-10s %6s %10s   (busy time: union of its spans)\n", "work", "spans", "seconds");
    for (int k = SW_GPU_SPAN_PROFILE; k <= SW_GPU_SPAN_LAUNCHER; ++k) {
        size_t count = 0;
        for (size_t i = 0; i < n; ++i) count += sp[i].kind == k;
        if (!count) continue;
        printf("%-10s %6zu %10.4f\n", sw_gpu_span_name(k), count, total_length(a, span_union(sp, n, KIND(k), a)));
    }
    const size_t na = span_union(sp, n, KIND(SW_GPU_SPAN_INTRA), a);
    const size_t nb = span_union(sp, n, KIND(SW_GPU_SPAN_INTER), b);
    const double intra = total_length(a, na);
    if (intra > 0)
        printf("intra-task kernel running: %.4f s, of which beside inter-task kernels %.4f s (%.1f%%)\n", intra,
               overlap_length(a, na, b, nb), 100.0 * overlap_length(a, na, b, nb) / intra);
    const size_t nu = span_union(sp, n, KIND(SW_GPU_SPAN_UPLOAD), a);
    const size_t nk = span_union(sp, n, KIND(SW_GPU_SPAN_INTER) | KIND(SW_GPU_SPAN_INTRA) | KIND(SW_GPU_SPAN_WIDE) |
                                            KIND(SW_GPU_SPAN_LAUNCHER), b);
    const double up = total_length(a, nu);
    if (up > 0)
        printf("uploads running: %.4f s, of which beside alignment kernels %.4f s (%.1f%%)\n", up,
               overlap_length(a, nu, b, nk), 100.0 * overlap_length(a, nu, b, nk) / up);
    printf("any alignment kernel running: %.4f s of %.4f s\n", total_length(b, nk), n ? last - first : 0.0);

    /* Chart of the first three queries: one character per time step, the
     * letter of the work on that stream at the step's middle. */
    double end = first;
    for (size_t i = 0; i < n; ++i)
        if (sp[i].query < 3 && sp[i].end > end) end = sp[i].end;
    enum { WIDTH = 100 };
    const double step = (end - first) / WIDTH;
    const char letters[] = "pbIwsudL";
    int max_stream = 0;
    for (size_t i = 0; i < n; ++i)
        if (sp[i].stream > max_stream) max_stream = sp[i].stream;
    printf("\nqueries 0-2, %.2f ms per character; p profile, b inter-task bucket, I intra-task, w 32-bit "
           "recomputation, s top-N, u upload, d download, L launcher; digits: query\n",
           step * 1e3);
    for (int st = 0; st <= max_stream && step > 0; ++st) {
        char line[WIDTH + 1], qline[WIDTH + 1];
        memset(line, ' ', WIDTH);
        memset(qline, ' ', WIDTH);
        line[WIDTH] = qline[WIDTH] = 0;
        int used = 0;
        for (size_t i = 0; i < n; ++i) {
            if (sp[i].stream != st || sp[i].query >= 3) continue;
            used = 1;
            for (int c = 0; c < WIDTH; ++c) {
                const double t = first + (c + 0.5) * step;
                if (t >= sp[i].start && t < sp[i].end) {
                    line[c] = letters[sp[i].kind];
                    qline[c] = (char)('0' + (int)sp[i].query);
                }
            }
        }
        if (!used) continue;
        const char *name = st == 0 ? "scan" : st == 1 ? "select" : st == 2 ? "copy" : "bucket";
        char label[32];
        if (st >= SW_GPU_STREAM_GIANTS0) snprintf(label, sizeof label, "giants %d", st - SW_GPU_STREAM_GIANTS0);
        else if (st >= SW_GPU_STREAM_BUCKET0) snprintf(label, sizeof label, "%s %d", name, st - SW_GPU_STREAM_BUCKET0);
        else snprintf(label, sizeof label, "%s", name);
        printf("%-9s |%s|\n%-9s |%s|\n", label, line, "", qline);
    }
    free(a);
    free(b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gpu_bench DB_PREFIX QUERIES.fa [--top N] [--columns R] [--streams S] "
                        "[--repeat K] [--gap-open G] [--gap-extend E] [--matrix M] [--threshold N|none] "
                        "[--sweep N,N,...] [--single 0|1] [--intra-tile 8|16] [--intra-warps W] [--timeline FILE] "
                        "[--device-launch 0|1] [--device-mb M] [--qp N|none] [--qp-group G] [--qp-columns R] [--qp-giants 0|1]\n");
        return 2;
    }
    size_t top_n = 10;
    int columns = 0, streams = 0, repeat = 3, gap_open = 11, gap_extend = 1;
    const char *matrix = "BLOSUM62";
    uint32_t threshold = 0;
    const char *sweep = NULL;
    int single = 1, intra_tile = 0, intra_warps = 0, device_launch = 0;
    const char *timeline = NULL;
    size_t device_mb = 0;
    uint32_t qp_max = 0;
    int qp_group = 0, qp_columns = 0, qp_giants = 1;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--top")) top_n = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--columns")) columns = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--streams")) streams = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--repeat")) repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--gap-open")) gap_open = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--gap-extend")) gap_extend = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--matrix")) matrix = argv[i + 1];
        else if (!strcmp(argv[i], "--threshold")) threshold = parse_threshold(argv[i + 1]);
        else if (!strcmp(argv[i], "--sweep")) sweep = argv[i + 1];
        else if (!strcmp(argv[i], "--single")) single = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--intra-tile")) intra_tile = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--intra-warps")) intra_warps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--timeline")) timeline = argv[i + 1];
        else if (!strcmp(argv[i], "--device-launch")) device_launch = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--device-mb")) device_mb = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--qp")) qp_max = parse_threshold(argv[i + 1]);
        else if (!strcmp(argv[i], "--qp-group")) qp_group = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--qp-columns")) qp_columns = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--qp-giants")) qp_giants = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "gpu_bench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (repeat < 1) repeat = 1;
    sw_error err = {0};
    sw_gpu_info gpu;
    int ngpu = 0;
    if (sw_gpu_list(&gpu, 1, &ngpu, &err) != SW_OK || ngpu == 0) return fail(&err);

    double t0 = sw_clock_seconds();
    sw_db *db = NULL;
    if (sw_db_open(argv[1], &db, &err) != SW_OK) return fail(&err);
    uint64_t nseqs = sw_db_num_seqs(db), nres = sw_db_num_residues(db);
    uint8_t *residues = malloc(nres ? nres : 1);
    uint32_t *tiebreak = malloc((nseqs ? nseqs : 1) * sizeof *tiebreak);
    if (!residues || !tiebreak) {
        fprintf(stderr, "gpu_bench: out of memory\n");
        return 1;
    }
    uint64_t at = 0;
    for (size_t c = 0; c < sw_db_num_chunks(db); ++c) {
        sw_db_chunk info;
        sw_db_chunk_info(db, c, &info);
        if (sw_db_read_chunk(db, c, residues + at, &err) != SW_OK) return fail(&err);
        at += info.num_residues;
    }
    for (uint64_t s = 0; s < nseqs; ++s) tiebreak[s] = (uint32_t)sw_db_original_index(db, s);
    double t_read = sw_clock_seconds() - t0;

    sw_matrix *m = NULL;
    sw_scoring sc;
    sw_query_set *qs = NULL;
    if (sw_matrix_load(matrix, &m, &err) != SW_OK || sw_scoring_init(&sc, m, gap_open, gap_extend, &err) != SW_OK ||
        sw_queries_load(argv[2], sw_matrix_alphabet(m), NULL, NULL, &qs, &err) != SW_OK)
        return fail(&err);
    size_t nq = sw_queries_count(qs);
    const uint8_t **qp = malloc(nq * sizeof *qp);
    size_t *ql = malloc(nq * sizeof *ql), *counts = malloc(nq * sizeof *counts);
    sw_gpu_hit *hits = malloc(nq * (top_n ? top_n : 1) * sizeof *hits);
    if (!qp || !ql || !counts || !hits) {
        fprintf(stderr, "gpu_bench: out of memory\n");
        return 1;
    }
    uint64_t qres = 0;
    for (size_t q = 0; q < nq; ++q) {
        qp[q] = sw_queries_residues(qs, q, &ql[q]);
        qres += ql[q];
    }

    printf("GPU: %s, %d SMs\n", gpu.name, gpu.multiprocessors);
    printf("database: %s, %llu sequences, %llu residues, longest %u\n", argv[1], (unsigned long long)nseqs,
           (unsigned long long)nres, sw_db_max_length(db));
    printf("queries: %zu, %llu residues; %s %d/%d; top %zu\n", nq, (unsigned long long)qres, matrix, gap_open,
           gap_extend, top_n);
    printf("database read and decompressed: %.3f s\n", t_read);

    sw_gpu_tuning tune;
    memset(&tune, 0, sizeof tune);
    tune.max_columns_per_thread = columns;
    tune.bucket_streams = streams;
    sw_gpu_engine_options opt;
    memset(&opt, 0, sizeof opt);
    opt.tuning = &tune;
    /* 0: what swsearch search would take. */
    uint32_t calibrated = 0;
    {
        sw_calibration cal;
        int measured = 0;
        if (sw_calibration_get(0, NULL, &sc, NULL, NULL, &cal, &measured, &err) != SW_OK) return fail(&err);
        calibrated = sw_calibration_pick(&cal, sw_db_lengths(db), nseqs, NULL);
        if (calibrated == SW_GPU_NO_INTRA)
            printf("calibrated threshold: none%s\n", measured ? " (measured now)" : " (from the cache)");
        else
            printf("calibrated threshold: %u%s\n", calibrated, measured ? " (measured now)" : " (from the cache)");
    }
    opt.intra_threshold = threshold ? threshold : calibrated;
    tune.intra_tile = intra_tile;
    tune.intra_warps = intra_warps;
    tune.device_launch = device_launch;
    opt.max_device_bytes = device_mb << 20;
    opt.qp_max_length = qp_max;
    tune.qp_group_size = qp_group;
    tune.qp_columns = qp_columns;
    opt.qp_giants = qp_giants ? 0 : SW_GPU_NO_GIANTS;
    printf("kernel launches: %s\n", device_launch ? "from the GPU (dynamic parallelism)" : "from the host, over streams");
    sw_gpu_engine *e = NULL;
    if (sweep) {
        /* Each threshold: a fresh engine, a warm-up, then the best of
         * `repeat` all-query calls. */
        printf("\n%16s %10s %8s %10s\n", "threshold", "seconds", "TCUPS", "intra seqs");
        const double cells = (double)qres * (double)nres;
        for (const char *at = sweep; *at;) {
            opt.intra_threshold = parse_threshold(at);
            if (opt.intra_threshold == 0) opt.intra_threshold = calibrated;
            sw_gpu_stats st;
            if (sw_gpu_engine_create(0, &sc, top_n, &opt, &e, &err) != SW_OK ||
                sw_gpu_engine_set_db(e, residues, sw_db_lengths(db), tiebreak, nseqs, &err) != SW_OK ||
                sw_gpu_engine_search(e, qp, ql, 1, hits, counts, &st, &err) != SW_OK)
                return fail(&err);
            double best = 1e30;
            for (int r = 0; r < repeat; ++r) {
                if (sw_gpu_engine_search(e, qp, ql, nq, hits, counts, &st, &err) != SW_OK) return fail(&err);
                if (st.total_seconds < best) best = st.total_seconds;
            }
            uint64_t intra = 0;
            for (size_t b = 0; b < st.num_buckets; ++b)
                if (st.buckets[b].intra) intra += st.buckets[b].seqs;
            char name[32];
            size_t len = strcspn(at, ",");
            if (parse_threshold(at) == 0 && calibrated == SW_GPU_NO_INTRA)
                snprintf(name, sizeof name, "none (calibrated)");
            else if (parse_threshold(at) == 0)
                snprintf(name, sizeof name, "%u (calibrated)", calibrated);
            else snprintf(name, sizeof name, "%.*s", (int)(len < 15 ? len : 15), at);
            printf("%16s %10.4f %8.3f %10llu\n", name, best, cells / best / 1e12, (unsigned long long)intra);
            fflush(stdout);
            sw_gpu_engine_free(e);
            at += len;
            if (*at == ',') ++at;
        }
        return 0;
    }
    t0 = sw_clock_seconds();
    if (sw_gpu_engine_create(0, &sc, top_n, &opt, &e, &err) != SW_OK) return fail(&err);
    double t_create = sw_clock_seconds() - t0;
    t0 = sw_clock_seconds();
    if (sw_gpu_engine_set_db(e, residues, sw_db_lengths(db), tiebreak, nseqs, &err) != SW_OK) return fail(&err);
    double t_upload = sw_clock_seconds() - t0;
    printf("engine created: %.3f s; database to the GPU: %.3f s\n", t_create, t_upload);

    sw_gpu_stats st;
    /* Warm-up: loads the kernels and sizes the buffers. */
    if (sw_gpu_engine_search(e, qp, ql, 1, hits, counts, &st, &err) != SW_OK) return fail(&err);

    printf("\n%-12s %6s %10s %8s   (each query alone, best of %d)\n", "query", "length", "seconds", "GCUPS",
           repeat);
    double sum_alone = 0;
    for (size_t q = 0; q < (single ? nq : 0); ++q) {
        double best = 1e30;
        for (int r = 0; r < repeat; ++r) {
            if (sw_gpu_engine_search(e, qp + q, ql + q, 1, hits, counts, &st, &err) != SW_OK) return fail(&err);
            if (st.total_seconds < best) best = st.total_seconds;
        }
        sum_alone += best;
        printf("%-12s %6zu %10.4f %8.1f\n", sw_queries_id(qs, q), ql[q], best, (double)ql[q] * nres / best / 1e9);
    }
    double best_all = 1e30, kernel_all = 0;
    uint64_t recomputed = 0;
    for (int r = 0; r < repeat; ++r) {
        if (sw_gpu_engine_search(e, qp, ql, nq, hits, counts, &st, &err) != SW_OK) return fail(&err);
        if (st.total_seconds < best_all) {
            best_all = st.total_seconds;
            kernel_all = st.kernel_seconds;
            recomputed = st.recomputed;
        }
    }
    double cells = (double)qres * (double)nres;
    printf("%-12s %6llu %10.4f %8.1f   (sum of the single-query runs)\n", "sum", (unsigned long long)qres,
           sum_alone, cells / sum_alone / 1e9);
    printf("\nall %zu queries in one call (best of %d): %.4f s = %.1f GCUPS (%.3e cells); "
           "16-bit kernels %.4f s; %llu scores recomputed in 32 bits; %d batch(es)\n",
           nq, repeat, best_all, cells / best_all / 1e9, cells, kernel_all, (unsigned long long)recomputed,
           st.batches);
    sw_gpu_engine_free(e);

    if (timeline) {
        tune.timeline = 1;
        const sw_gpu_span *spans = NULL;
        size_t nspans = 0;
        if (sw_gpu_engine_create(0, &sc, top_n, &opt, &e, &err) != SW_OK ||
            sw_gpu_engine_set_db(e, residues, sw_db_lengths(db), tiebreak, nseqs, &err) != SW_OK ||
            sw_gpu_engine_search(e, qp, ql, 1, hits, counts, &st, &err) != SW_OK ||
            sw_gpu_engine_search(e, qp, ql, nq, hits, counts, &st, &err) != SW_OK ||
            sw_gpu_engine_timeline(e, &spans, &nspans, &err) != SW_OK)
            return fail(&err);
        printf("\nall queries with timing events on every stream: %.4f s\n", st.total_seconds);
        if (report_timeline(spans, nspans, timeline)) return 1;
        sw_gpu_engine_free(e);
        tune.timeline = 0;
    }
    /* The profiled run times buckets from the host. */
    if (!device_launch) {
        /* Where the time goes: every bucket timed alone, one stream. */
        tune.profile = 1;
        if (sw_gpu_engine_create(0, &sc, top_n, &opt, &e, &err) != SW_OK ||
            sw_gpu_engine_set_db(e, residues, sw_db_lengths(db), tiebreak, nseqs, &err) != SW_OK ||
            sw_gpu_engine_search(e, qp, ql, nq, hits, counts, &st, &err) != SW_OK)
            return fail(&err);
        printf("\nper length bucket (profiled run, buckets one after another: %.4f s in all)\n", st.total_seconds);
        printf("%10s %6s %7s %9s %9s %13s %13s %9s %8s %8s\n", "max len", "group", "columns", "kernel", "seqs",
               "residues", "padded", "seconds", "share", "GCUPS");
        double bucket_sum = 0;
        for (size_t b = 0; b < st.num_buckets; ++b) bucket_sum += st.buckets[b].seconds;
        for (size_t b = 0; b < st.num_buckets; ++b) {
            const sw_gpu_bucket_stats *k = &st.buckets[b];
            if (!k->seqs) continue;
            printf("%10u %6d %7d %9s %9llu %13llu %13llu %9.4f %7.1f%% %8.1f\n", k->max_length, k->group_size, k->columns,
                   k->intra ? "intra" : k->qp ? (k->multipass ? "qp-multi" : "qp") : k->multipass ? "multipass" : "single", (unsigned long long)k->seqs, (unsigned long long)k->residues,
                   (unsigned long long)k->padded_residues, k->seconds, 100.0 * k->seconds / bucket_sum,
                   k->seconds > 0 ? (double)qres * k->residues / k->seconds / 1e9 : 0.0);
        }
        printf("%10s %6s %7s %9s %9s %13s %13s %9.4f\n", "sum", "", "", "", "", "", "", bucket_sum);
        sw_gpu_engine_free(e);
    }
    sw_queries_free(qs);
    sw_matrix_free(m);
    sw_db_close(db);
    free(residues);
    free(tiebreak);
    free(qp);
    free(ql);
    free(counts);
    free(hits);
    return 0;
}
