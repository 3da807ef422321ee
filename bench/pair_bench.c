/* Pairwise GPU engine benchmark: times the forward (local) pass of a pair
 * of long DNA sequences on the GPU, on the CUDAlign engine (either layout,
 * with or without pruning) or the overlap engine, and prints one JSON line
 * per run. With --path, finds the best alignment (both passes, CUDAlign
 * engine) and then the alignment itself (sw_pair_path_find, splits on the
 * GPU) once for each smallest GPU split given, printing one JSON line each:
 * seconds, cells, GPU passes and their cells, and the seconds the GPU was
 * busy with them.
 *
 * usage: pair_bench A.fa [B.fa] [--engine cudalign|overlap]
 *                   [--layout persistent|diagonal] [--prune 0|1] [--warps W]
 *                   [--chunk-bands C] [--overlap-bands V] [--repeat K] [--gpu ID]
 *                   [--path CELLS[,CELLS...]] [--threads T]
 * GCUPS = length(A) x length(B) / kernel seconds / 1e9 (pruned cells
 * counted, as CUDAlign counts them); "computed" is the share of cells the
 * kernel did compute. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_clock.h"
#include "sw_pair.h"
#include "sw_pair_gpu.h"
#include "sw_pair_overlap.h"
#include "sw_pair_input.h"
#include "sw_pair_path.h"

static void warn(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "pair_bench: warning: %s\n", message);
}

/* The alignment of the pair's best result, once for each smallest GPU
 * split in the comma-separated `list`. */
static int time_paths(const sw_pair_seq *a, const sw_pair_seq *b, const sw_pair_scoring *scoring, int device,
                      int threads, int repeat, const char *list, sw_error *err)
{
    const sw_pair_options po = {.engine = SW_PAIR_ENGINE_CUDALIGN, .device = device};
    sw_pair_result r;
    double t0 = sw_clock_seconds();
    int rc = sw_pair_align(a->codes, a->length, b->codes, b->length, scoring, &po, &r, err);
    if (rc) return rc;
    printf("{\"score\": %d, \"a\": [%llu, %llu], \"b\": [%llu, %llu], \"passes_s\": %.3f}\n", r.score,
           (unsigned long long)r.a_start, (unsigned long long)r.a_end, (unsigned long long)r.b_start,
           (unsigned long long)r.b_end, sw_clock_seconds() - t0);
    for (const char *at = list; *at;) {
        char *end;
        const unsigned long long min_cells = strtoull(at, &end, 10);
        if (end == at || (*end && *end != ',')) return sw_error_set(err, SW_EINVAL, "--path: bad list '%s'", list);
        at = *end ? end + 1 : end;
        for (int k = 0; k < repeat; ++k) {
            const sw_pair_path_options o = {.threads = threads, .gpu = 1, .gpu_device = device, .gpu_min_cells = min_cells};
            sw_pair_path *path = NULL;
            t0 = sw_clock_seconds();
            if ((rc = sw_pair_path_find(a->codes, a->length, b->codes, b->length, scoring, &r, &o, &path, err)))
                return rc;
            printf("{\"min_cells\": %llu, \"path_s\": %.3f, \"cells\": %.4e, \"gpu_passes\": %llu, "
                   "\"gpu_cells\": %.4e, \"gpu_busy_s\": %.3f, \"columns\": %llu}\n",
                   min_cells, sw_clock_seconds() - t0, (double)sw_pair_path_cells(path),
                   (unsigned long long)sw_pair_path_gpu_passes(path), (double)sw_pair_path_gpu_cells(path),
                   sw_pair_path_gpu_busy_seconds(path), (unsigned long long)sw_pair_path_get_summary(path).columns);
            fflush(stdout);
            sw_pair_path_free(path);
        }
    }
    return SW_OK;
}

int main(int argc, char **argv)
{
    const char *path_list = NULL;
    int threads = 0;
    const char *paths[2] = {NULL, NULL};
    int npaths = 0, repeat = 1, overlap = 0;
    sw_pair_gpu_options opt = {0, 0, SW_PAIR_GPU_PERSISTENT, 0};
    sw_pair_overlap_options oopt = {0, 0, 0};
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--layout")) {
            opt.layout = !strcmp(v, "diagonal") ? SW_PAIR_GPU_DIAGONAL : SW_PAIR_GPU_PERSISTENT;
            ++i;
        } else if (!strcmp(argv[i], "--engine")) {
            overlap = !strcmp(v, "overlap");
            ++i;
        } else if (!strcmp(argv[i], "--chunk-bands")) oopt.chunk_bands = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--overlap-bands")) oopt.overlap_bands = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--prune")) opt.prune = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warps")) opt.warps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeat")) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gpu")) opt.device = oopt.device = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--path") && i + 1 < argc) path_list = argv[++i];
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[++i]);
        else if (npaths < 2) paths[npaths++] = argv[i];
        else {
            fprintf(stderr, "pair_bench: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!npaths) {
        fprintf(stderr, "usage: pair_bench A.fa [B.fa] [--engine cudalign|overlap] [--layout persistent|diagonal] "
                        "[--prune 0|1] [--warps W] [--chunk-bands C] [--overlap-bands V] [--repeat K] [--gpu ID] "
                        "[--path CELLS[,CELLS...]] [--threads T]\n");
        return 2;
    }
    sw_error err;
    sw_error_clear(&err);
    sw_pair_seq a, b;
    if (sw_pair_read(paths[0], paths[1], &a, &b, warn, NULL, &err)) {
        fprintf(stderr, "pair_bench: %s\n", err.message);
        return 1;
    }
    const sw_pair_scoring scoring = {1, -3, 3, 2};
    int status = 0;
    if (path_list) {
        status = time_paths(&a, &b, &scoring, opt.device, threads, repeat, path_list, &err) ? 1 : 0;
        if (status) fprintf(stderr, "pair_bench: %s\n", err.message);
        repeat = 0;
    }
    for (int r = 0; r < repeat && !status; ++r) {
        sw_pair_pass pass = {a.codes, a.length, b.codes, b.length, scoring, SW_PAIR_LOCAL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0};
        sw_pair_hit hit;
        sw_pair_gpu_stats st;
        sw_pair_overlap_stats ost;
        const double t0 = sw_clock_seconds();
        const int rc = overlap ? sw_pair_overlap_run(&pass, &oopt, &hit, &ost, &err)
                               : sw_pair_gpu_run(&pass, &opt, &hit, &st, &err);
        if (rc) {
            fprintf(stderr, "pair_bench: %s\n", err.message);
            status = 1;
            break;
        }
        const double wall = sw_clock_seconds() - t0;
        const double matrix = (double)a.length * (double)b.length;
        const double kernel = overlap ? ost.kernel_seconds : st.kernel_seconds;
        printf("{\"engine\": \"%s\", \"m\": %llu, \"n\": %llu, \"score\": %d, \"a_end\": %llu, \"b_end\": %llu, "
               "\"kernel_s\": %.4f, \"wall_s\": %.4f, \"gcups\": %.1f, \"auto\": \"%s\", ",
               overlap ? "overlap" : "cudalign", (unsigned long long)a.length, (unsigned long long)b.length, hit.score,
               (unsigned long long)hit.a_end, (unsigned long long)hit.b_end, kernel, wall, matrix / kernel / 1e9,
               sw_pair_engine_name(sw_pair_choose_engine(a.length, b.length, 1)));
        if (overlap)
            printf("\"chunks\": %lld, \"chunk_rows\": %lld, \"overlap_rows\": %lld, \"transposed\": %d, "
                   "\"inexact_first\": %lld, \"rounds\": %d, \"recomputed\": %lld, \"recompute_s\": %.4f, "
                   "\"extra_cells\": %.4f}\n",
                   (long long)ost.chunks, (long long)ost.chunk_rows, (long long)ost.overlap_rows, ost.transposed,
                   (long long)ost.inexact_first, ost.rounds, (long long)ost.recomputed, ost.recompute_seconds,
                   (double)hit.cells / matrix - 1.0);
        else
            printf("\"layout\": \"%s\", \"transposed\": %d, \"prune\": %d, \"warps\": %d, \"launches\": %lld, "
                   "\"computed\": %.4f}\n",
                   opt.layout == SW_PAIR_GPU_DIAGONAL ? "diagonal" : "persistent", st.transposed, opt.prune, st.warps,
                   (long long)st.launches, (double)hit.cells / matrix);
        fflush(stdout);
    }
    sw_pair_seq_free(&a);
    sw_pair_seq_free(&b);
    return status;
}
