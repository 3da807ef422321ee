/* The public pairwise DNA alignment (include/swsearch.h): the sequences
 * from memory or from FASTA files, the forward and start passes of sw_pair
 * (best-K, several GPUs, several MPI processes), each alignment's path, and
 * the result written as `swsearch align` writes it. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_alphabet.h"
#include "sw_clock.h"
#include "sw_pair.h"
#include "sw_pair_input.h"
#include "sw_pair_mpi.h"
#include "sw_pair_path.h"
#include "sw_pair_plot.h"
#include "sw_pair_report.h"
#include "sw_pair_view.h"
#include "sw_raster.h"
#include "sw_api_internal.h"
#include "swsearch.h"

/* The header's names for the engines' values and limits. */
_Static_assert(SW_ALIGN_ENGINE_AUTO == (int)SW_PAIR_ENGINE_AUTO && SW_ALIGN_ENGINE_CPU == (int)SW_PAIR_ENGINE_CPU &&
                   SW_ALIGN_ENGINE_CUDALIGN == (int)SW_PAIR_ENGINE_CUDALIGN &&
                   SW_ALIGN_ENGINE_OVERLAP == (int)SW_PAIR_ENGINE_OVERLAP,
               "sw_align_engine follows sw_pair_engine");
_Static_assert(SW_ALIGN_FORMAT_TSV == (int)SW_PAIR_REPORT_TSV && SW_ALIGN_FORMAT_JSON == (int)SW_PAIR_REPORT_JSON &&
                   SW_ALIGN_FORMAT_PAF == (int)SW_PAIR_REPORT_PAF && SW_ALIGN_FORMAT_MAF == (int)SW_PAIR_REPORT_MAF,
               "sw_align_format follows sw_pair_report_format");
_Static_assert(SW_ALIGN_PLOT_SVG == (int)SW_PAIR_PLOT_SVG && SW_ALIGN_PLOT_PNG == (int)SW_PAIR_PLOT_PNG,
               "sw_align_plot_format follows sw_pair_plot_format");
_Static_assert(SW_ALIGN_MAX_LENGTH == SW_PAIR_MAX_LENGTH && SW_ALIGN_MAX_SCORE == SW_PAIR_MAX_SCORE &&
                   SW_ALIGN_MAX_GAP == SW_PAIR_MAX_GAP,
               "the header's limits are sw_pair's");

#define SW_ALIGNER_MAX_GPUS 64
#define SW_ALIGNER_MAX_BEST 100000

/* The two sequences, shared by an aligner and the results it gave, which
 * write them (ids, and bases for MAF and --view). */
typedef struct align_seqs {
    atomic_int refs;
    sw_pair_seq x, y;
} align_seqs;

static void seqs_release(align_seqs *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
    sw_pair_seq_free(&s->x);
    sw_pair_seq_free(&s->y);
    free(s);
}

struct sw_aligner {
    sw_pair_scoring scoring;
    sw_device device;
    sw_align_engine engine;
    int engine_set; /* engine replaces device's choice */
    int gpus[SW_ALIGNER_MAX_GPUS];
    int num_gpus, gpus_listed;
    int threads, best, with_path, no_pruning, row_slices;
    sw_align_progress_fn progress;
    void *progress_user;
    double progress_interval;
    sw_message_fn message;
    void *message_user;
    sw_pair_mpi *mpi; /* NULL: one process */
    align_seqs *seqs; /* read by sw_aligner_read_files() */
};

struct sw_aligned {
    size_t count;
    sw_aligned_info *items;
    align_seqs *seqs;
    sw_pair_scoring scoring;
    /* results[0 .. passes - 1] ran, the first `found` found an alignment,
     * paths[k] is that of results[k] (NULL without paths). */
    sw_pair_result *results;
    sw_pair_path **paths;
    int slots, found, passes, listed, with_path;
    sw_aligned_stats stats;
};

int sw_aligner_create(sw_aligner **out, sw_error *err)
{
    sw_error_clear(err);
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_aligner_create: no place for the aligner");
    sw_aligner *a = calloc(1, sizeof *a);
    if (!a) return sw_error_set(err, SW_ENOMEM, "out of memory");
    a->scoring = (sw_pair_scoring){.match = SW_ALIGN_DEFAULT_MATCH,
                                   .mismatch = SW_ALIGN_DEFAULT_MISMATCH,
                                   .gap_open = SW_ALIGN_DEFAULT_GAP_OPEN,
                                   .gap_extend = SW_ALIGN_DEFAULT_GAP_EXTEND};
    a->device = SW_DEVICE_AUTO;
    a->best = 1;
    a->with_path = 1;
    *out = a;
    return SW_OK;
}

void sw_aligner_free(sw_aligner *a)
{
    if (!a) return;
    seqs_release(a->seqs);
    sw_pair_mpi_end(a->mpi);
    free(a);
}

int sw_aligner_set_scores(sw_aligner *a, int match, int mismatch, int gap_open, int gap_extend, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_scores", "aligner");
    sw_pair_scoring s = {.match = match, .mismatch = mismatch, .gap_open = gap_open, .gap_extend = gap_extend};
    /* Each alone here; against each other and the lengths once those are
     * known, where the program checks them (so its messages come in its
     * order). The largest length that passes is 1. */
    int rc = sw_pair_check_scoring(&(sw_pair_scoring){match, 0, 0, 1}, 1, 1, err);
    if (!rc && (mismatch > 0 || mismatch < -SW_PAIR_MAX_GAP))
        rc = sw_error_set(err, SW_EINVAL, "the mismatch score must be from %d to 0, not %d", -SW_PAIR_MAX_GAP, mismatch);
    if (!rc && (gap_open < 0 || gap_open >= SW_PAIR_MAX_GAP))
        rc = sw_error_set(err, SW_EINVAL, "the gap open penalty must be from 0 to %d, not %d", SW_PAIR_MAX_GAP - 1,
                          gap_open);
    if (!rc && (gap_extend <= 0 || gap_extend > SW_PAIR_MAX_GAP))
        rc = sw_error_set(err, SW_EINVAL, "the gap extension penalty must be from 1 to %d, not %d", SW_PAIR_MAX_GAP,
                          gap_extend);
    if (rc) return rc;
    a->scoring = s;
    return SW_OK;
}

int sw_aligner_set_device(sw_aligner *a, sw_device device, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_device", "aligner");
    if (device != SW_DEVICE_AUTO && device != SW_DEVICE_CPU && device != SW_DEVICE_GPU)
        return sw_error_set(err, SW_EINVAL, "unknown device %d", (int)device);
    a->device = device;
    a->engine_set = 0;
    return SW_OK;
}

int sw_aligner_set_gpus(sw_aligner *a, const int *gpus, int count, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_gpus", "aligner");
    if (count < 0 || count > SW_ALIGNER_MAX_GPUS)
        return sw_error_set(err, SW_EINVAL, "an alignment uses 1 to %d GPUs, not %d", SW_ALIGNER_MAX_GPUS, count);
    for (int i = 0; gpus && i < count; i++) {
        if (gpus[i] < 0) return sw_error_set(err, SW_EINVAL, "no GPU %d", gpus[i]);
        a->gpus[i] = gpus[i];
    }
    a->num_gpus = count;
    a->gpus_listed = gpus != NULL;
    return SW_OK;
}

int sw_aligner_set_threads(sw_aligner *a, int threads, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_threads", "aligner");
    if (threads < 0 || threads > 4096) return sw_error_set(err, SW_EINVAL, "threads must be from 0 to 4096, not %d", threads);
    a->threads = threads;
    return SW_OK;
}

int sw_aligner_set_best(sw_aligner *a, int k, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_best", "aligner");
    if (k < 1 || k > SW_ALIGNER_MAX_BEST)
        return sw_error_set(err, SW_EINVAL, "the number of best alignments must be from 1 to %d, not %d",
                            SW_ALIGNER_MAX_BEST, k);
    a->best = k;
    return SW_OK;
}

int sw_aligner_set_path(sw_aligner *a, int with_path, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_path", "aligner");
    a->with_path = with_path != 0;
    return SW_OK;
}

int sw_aligner_set_engine(sw_aligner *a, sw_align_engine engine, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_engine", "aligner");
    if (engine < SW_ALIGN_ENGINE_AUTO || engine > SW_ALIGN_ENGINE_OVERLAP)
        return sw_error_set(err, SW_EINVAL, "unknown engine %d", (int)engine);
    a->engine = engine;
    a->engine_set = 1;
    return SW_OK;
}

const char *sw_align_engine_name(sw_align_engine engine)
{
    if (engine < SW_ALIGN_ENGINE_AUTO || engine > SW_ALIGN_ENGINE_OVERLAP) return "?";
    return sw_pair_engine_name((sw_pair_engine)engine);
}

int sw_aligner_set_pruning(sw_aligner *a, int pruning, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_pruning", "aligner");
    a->no_pruning = !pruning;
    return SW_OK;
}

int sw_aligner_set_gpu_split(sw_aligner *a, sw_align_split split, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_gpu_split", "aligner");
    if (split != SW_ALIGN_SPLIT_COLUMNS && split != SW_ALIGN_SPLIT_ROWS)
        return sw_error_set(err, SW_EINVAL, "no split %d of the forward pass", (int)split);
    a->row_slices = split == SW_ALIGN_SPLIT_ROWS;
    return SW_OK;
}

int sw_aligner_set_progress(sw_aligner *a, sw_align_progress_fn fn, void *user, double interval, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_progress", "aligner");
    if (!(interval >= 0)) return sw_error_set(err, SW_EINVAL, "a progress interval of %g seconds", interval);
    a->progress = fn;
    a->progress_user = user;
    a->progress_interval = interval;
    return SW_OK;
}

int sw_aligner_set_messages(sw_aligner *a, sw_message_fn fn, void *user, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_messages", "aligner");
    a->message = fn;
    a->message_user = user;
    return SW_OK;
}

int sw_aligner_set_mpi(sw_aligner *a, int use, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_set_mpi", "aligner");
    if (!use || a->mpi || !sw_pair_mpi_launched()) return SW_OK;
    return sw_pair_mpi_start(&a->mpi, err);
}

int sw_aligner_get_rank(const sw_aligner *a, int *rank, int *ranks, int *local_rank, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_get_rank", "aligner");
    const sw_pair_slice_ops *ops = a->mpi ? sw_pair_mpi_ops(a->mpi) : NULL;
    if (rank) *rank = ops ? ops->rank : 0;
    if (ranks) *ranks = ops ? ops->ranks : 1;
    if (local_rank) *local_rank = a->mpi ? sw_pair_mpi_local_rank(a->mpi) : 0;
    return SW_OK;
}

int sw_aligner_agree(sw_aligner *a, int status, sw_error *err)
{
    if (!a || !a->mpi) return status;
    return sw_pair_split_agree(sw_pair_mpi_ops(a->mpi), status, err);
}

int sw_aligner_read_files(sw_aligner *a, const char *path_x, const char *path_y, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_read_files", "aligner");
    seqs_release(a->seqs);
    a->seqs = NULL;
    if (!path_x) return sw_error_set(err, SW_EINVAL, "sw_aligner_read_files: no file given");
    align_seqs *s = calloc(1, sizeof *s);
    if (!s) return sw_error_set(err, SW_ENOMEM, "out of memory");
    atomic_init(&s->refs, 1);
    int rc = sw_pair_read(path_x, path_y, &s->x, &s->y, a->message, a->message_user, err);
    if (!rc) rc = sw_pair_check_scoring(&a->scoring, s->x.length, s->y.length, err);
    if (rc) {
        seqs_release(s);
        return rc;
    }
    a->seqs = s;
    return SW_OK;
}

int sw_aligner_get_sequence(const sw_aligner *a, int which, const char **id, uint64_t *length, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_get_sequence", "aligner");
    if (which != 0 && which != 1) return sw_error_set(err, SW_EINVAL, "sequence %d: 0 (x) or 1 (y)", which);
    if (!a->seqs) return sw_error_set(err, SW_EINVAL, "no sequences read");
    const sw_pair_seq *s = which ? &a->seqs->y : &a->seqs->x;
    if (id) *id = s->id;
    if (length) *length = s->length;
    return SW_OK;
}

/* Letters to codes as the program's reader takes them: A, C, G, T either
 * case, other IUPAC codes as N; anything else is an error naming where. */
static int encode(const char *name, const char *s, size_t len, sw_pair_seq *out, sw_error *err)
{
    if (!s) return sw_error_set(err, SW_EINVAL, "sequence %s: none given", name);
    if (len == 0) len = strlen(s);
    if (len == 0) return sw_error_set(err, SW_EINVAL, "sequence %s is empty", name);
    if (len > SW_PAIR_MAX_LENGTH)
        return sw_error_set(err, SW_ELIMIT, "sequence %s: %zu bases, more than the %llu an alignment takes", name, len,
                            (unsigned long long)SW_PAIR_MAX_LENGTH);
    uint8_t *codes = malloc(len);
    char *id = strdup(name);
    if (!codes || !id) {
        free(codes);
        free(id);
        return sw_error_set(err, SW_ENOMEM, "out of memory holding sequence %s", name);
    }
    const sw_alphabet *dna = sw_alphabet_dna();
    for (size_t i = 0; i < len; i++) {
        uint8_t c = sw_alphabet_encode(dna, (unsigned char)s[i]);
        if (c == SW_CODE_INVALID) {
            char shown[16];
            sw_error_quote(shown, sizeof shown, &s[i], 1, 4);
            free(codes);
            free(id);
            return sw_error_set(err, SW_EFORMAT, "sequence %s: invalid base '%s' at position %zu", name, shown, i + 1);
        }
        codes[i] = c;
    }
    *out = (sw_pair_seq){id, codes, len};
    return SW_OK;
}

static char *cigar_of(const sw_pair_path *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return NULL;
    sw_pair_report_cigar(mem, p);
    if (fclose(mem)) {
        free(text);
        return NULL;
    }
    return text;
}

/* The engine asked for: by name, else by device. */
static sw_pair_engine engine_of(const sw_aligner *a, uint64_t x_len, uint64_t y_len, int parts)
{
    if (a->engine_set) return (sw_pair_engine)a->engine;
    if (a->device == SW_DEVICE_CPU) return SW_PAIR_ENGINE_CPU;
    if (a->device == SW_DEVICE_GPU) return sw_pair_choose_engine(x_len, y_len, parts);
    return SW_PAIR_ENGINE_AUTO;
}

/* Pass 3 of the aligner's progress: the paths. */
typedef struct path_progress {
    const sw_aligner *a;
} path_progress;

static void report_path(void *user, uint64_t done, uint64_t total)
{
    const sw_aligner *a = ((const path_progress *)user)->a;
    a->progress(a->progress_user, 3, done, total);
}

/* The items sw_aligned_get() hands out: one for a single alignment (score 0
 * too), else one an alignment found. */
static int fill_items(sw_aligned *r, size_t count, sw_error *err)
{
    if (!(r->items = calloc(count ? count : 1, sizeof *r->items))) return sw_error_set(err, SW_ENOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        sw_aligned_info *o = &r->items[i];
        const sw_pair_result *res = &r->results[i];
        r->count++;
        o->score = res->score;
        o->x_start = res->a_start;
        o->x_end = res->a_end;
        o->y_start = res->b_start;
        o->y_end = res->b_end;
        o->engine = sw_pair_engine_name(res->engine);
        o->cigar = "";
        if (!r->paths[i]) continue;
        const sw_pair_path_summary ps = sw_pair_path_get_summary(r->paths[i]);
        o->columns = ps.columns;
        o->matches = ps.matches;
        o->mismatches = ps.mismatches;
        o->gap_openings = ps.gap_openings;
        o->gap_bases = ps.gap_bases;
        o->identity = sw_pair_path_identity(&ps);
        char *c = cigar_of(r->paths[i]);
        if (!c) return sw_error_set(err, SW_ENOMEM, "out of memory writing a CIGAR");
        o->cigar = c;
    }
    return SW_OK;
}

/* The passes, then (on rank 0 of several processes) the paths, of the
 * sequences `s`, which the result keeps. */
static int align_seqs_run(sw_aligner *a, align_seqs *s, sw_aligned **out, sw_error *err)
{
    const uint64_t x_len = s->x.length, y_len = s->y.length;
    int rc = sw_pair_check_scoring(&a->scoring, x_len, y_len, err);
    if (rc) return rc;
    const sw_pair_slice_ops *slices = a->mpi ? sw_pair_mpi_ops(a->mpi) : NULL;
    const int ranks = slices ? slices->ranks : 1;
    const int device = a->gpus_listed && a->num_gpus ? a->gpus[0] : 0;
    sw_pair_options opt = {
        .engine = engine_of(a, x_len, y_len, ranks > 1 ? ranks : a->num_gpus > 1 ? a->num_gpus : 1),
        .threads = a->threads,
        .device = device,
        .progress = a->progress,
        .progress_user = a->progress_user,
        .progress_interval = a->progress_interval,
        .note = a->message,
        .note_user = a->message_user,
        .no_pruning = a->no_pruning,
        .row_slices = a->row_slices,
        .slices = slices,
        .gpus = a->num_gpus,
        .devices = a->gpus_listed && a->num_gpus > 1 ? a->gpus : NULL,
    };
    const int k = a->best;
    sw_aligned *r = calloc(1, sizeof *r);
    if (!r) return sw_error_set(err, SW_ENOMEM, "out of memory");
    atomic_fetch_add(&s->refs, 1);
    r->seqs = s;
    r->scoring = a->scoring;
    r->listed = k > 1;
    r->slots = k;
    r->results = calloc((size_t)k, sizeof *r->results);
    r->paths = calloc((size_t)k, sizeof *r->paths);
    if (!r->results || !r->paths) rc = sw_error_set(err, SW_ENOMEM, "out of memory for %d results", k);
    int found = 0;
    if (rc == SW_OK) {
        if (k > 1) {
            rc = sw_pair_align_best(s->x.codes, x_len, s->y.codes, y_len, &a->scoring, &opt, k, r->results, &found,
                                    err);
        } else {
            rc = sw_pair_align(s->x.codes, x_len, s->y.codes, y_len, &a->scoring, &opt, &r->results[0], err);
            found = r->results[0].score > 0;
        }
    }
    /* Every rank fails together. */
    if (slices) rc = sw_pair_split_agree(slices, rc, err);
    const int rank0 = !slices || slices->rank == 0;
    r->found = found;
    r->passes = found < k ? found + 1 : found;
    r->with_path = a->with_path && rank0;
    sw_aligned_stats *st = &r->stats;
    const double t_path = sw_clock_seconds();
    if (rc == SW_OK && r->with_path) {
        path_progress pp = {a};
        if (a->progress) a->progress(a->progress_user, 3, 0, 0);
        /* The k-th keeps out of the boxes of the better ones, as its passes did. */
        sw_pair_box *boxes = found > 1 ? malloc((size_t)found * sizeof *boxes) : NULL;
        if (found > 1 && !boxes) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
        for (int i = 0; rc == SW_OK && i < found; i++) {
            /* The splits' passes go where the result's passes went: a GPU
             * engine's result has its large splits done on that GPU. */
            const sw_pair_path_options po = {
                .threads = a->threads,
                .progress = a->progress ? report_path : NULL,
                .progress_user = &pp,
                .forbidden = boxes,
                .forbidden_count = i,
                .gpu = r->results[i].engine != SW_PAIR_ENGINE_CPU,
                .gpu_device = device,
            };
            const sw_pair_result *res = &r->results[i];
            rc = sw_pair_path_find(s->x.codes, x_len, s->y.codes, y_len, &a->scoring, res, &po, &r->paths[i], err);
            if (boxes) boxes[i] = (sw_pair_box){res->a_start, res->a_end, res->b_start, res->b_end};
            if (rc == SW_OK) {
                st->path_cells += sw_pair_path_cells(r->paths[i]);
                st->path_gpu_cells += sw_pair_path_gpu_cells(r->paths[i]);
                st->path_gpu_passes += sw_pair_path_gpu_passes(r->paths[i]);
                st->path_gpu_seconds += sw_pair_path_gpu_busy_seconds(r->paths[i]);
            }
        }
        free(boxes);
        st->path_seconds = sw_clock_seconds() - t_path;
    }
    if (rc == SW_OK) rc = fill_items(r, !rank0 ? 0 : k > 1 ? (size_t)found : 1, err);
    if (rc) {
        sw_aligned_free(r);
        return rc;
    }
    const sw_pair_result *first = &r->results[0];
    st->x_id = s->x.id;
    st->y_id = s->y.id;
    st->x_length = x_len;
    st->y_length = y_len;
    st->engine = (sw_align_engine)first->engine;
    st->found = found;
    st->passes = r->passes;
    st->processes = ranks;
    st->gpus = first->engine != SW_PAIR_ENGINE_CPU && a->num_gpus > 1 ? a->num_gpus : 1;
    st->forward_cells = first->forward_cells;
    st->forward_pruned = first->forward_pruned;
    st->forward_seconds = first->forward_seconds;
    st->start_cells = first->reverse_cells;
    st->start_pruned = first->reverse_pruned;
    st->start_seconds = first->reverse_seconds;
    st->rounds = first->rounds;
    st->chunks = first->chunks;
    st->recomputed = first->recomputed;
    st->strips = first->strips;
    *out = r;
    return SW_OK;
}

int sw_aligner_run(sw_aligner *a, const char *x, size_t x_len, const char *y, size_t y_len, sw_aligned **out,
                   sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_run", "aligner");
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_aligner_run: no place for the result");
    *out = NULL;
    align_seqs *s = calloc(1, sizeof *s);
    if (!s) return sw_error_set(err, SW_ENOMEM, "out of memory");
    atomic_init(&s->refs, 1);
    int rc = encode("x", x, x_len, &s->x, err);
    if (rc == SW_OK) rc = encode("y", y, y_len, &s->y, err);
    if (rc == SW_OK) rc = align_seqs_run(a, s, out, err);
    seqs_release(s);
    return rc;
}

int sw_aligner_align(sw_aligner *a, sw_aligned **out, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_align", "aligner");
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_aligner_align: no place for the result");
    *out = NULL;
    if (!a->seqs) return sw_error_set(err, SW_EINVAL, "sw_aligner_align: no sequences read");
    return align_seqs_run(a, a->seqs, out, err);
}

int sw_aligner_run_files(sw_aligner *a, const char *path_x, const char *path_y, sw_aligned **out, sw_error *err)
{
    SW_API_CHECK(a, "sw_aligner_run_files", "aligner");
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_aligner_run_files: no place for the result");
    *out = NULL;
    int rc = sw_aligner_read_files(a, path_x, path_y, err);
    return rc ? rc : sw_aligner_align(a, out, err);
}

size_t sw_aligned_count(const sw_aligned *r) { return r ? r->count : 0; }

int sw_aligned_get(const sw_aligned *r, size_t i, sw_aligned_info *out, sw_error *err)
{
    sw_error_clear(err);
    if (!r || !out) return sw_error_set(err, SW_EINVAL, "sw_aligned_get: missing argument");
    if (i >= r->count) return sw_error_set(err, SW_EINVAL, "alignment %zu of %zu: out of range", i, r->count);
    *out = r->items[i];
    return SW_OK;
}

int sw_aligned_get_stats(const sw_aligned *r, sw_aligned_stats *out, sw_error *err)
{
    sw_error_clear(err);
    if (!r || !out) return sw_error_set(err, SW_EINVAL, "sw_aligned_get_stats: missing argument");
    *out = r->stats;
    return SW_OK;
}

static int check_writer(const sw_aligned *r, FILE *out, int needs_path, const char *fn, sw_error *err)
{
    sw_error_clear(err);
    if (!r || !out) return sw_error_set(err, SW_EINVAL, "%s: missing argument", fn);
    if (needs_path && !r->with_path)
        return sw_error_set(err, SW_EINVAL, "%s: the alignments were found without their paths", fn);
    return SW_OK;
}

int sw_aligned_write(const sw_aligned *r, sw_align_format format, FILE *out, sw_error *err)
{
    const int known = format >= SW_ALIGN_FORMAT_TSV && format <= SW_ALIGN_FORMAT_MAF;
    int rc = check_writer(r, out, known && sw_pair_report_needs_paths((sw_pair_report_format)format),
                          "sw_aligned_write", err);
    if (rc) return rc;
    if (!known) return sw_error_set(err, SW_EINVAL, "unknown alignment format %d", (int)format);
    sw_pair_report_write(out, (sw_pair_report_format)format, &r->seqs->x, &r->seqs->y, &r->scoring, r->results,
                         r->with_path ? (const sw_pair_path *const *)r->paths : NULL, r->found, r->passes, r->listed);
    return SW_OK;
}

int sw_aligned_write_view(const sw_aligned *r, uint64_t from, uint64_t to, FILE *out, sw_error *err)
{
    int rc = check_writer(r, out, 1, "sw_aligned_write_view", err);
    if (rc) return rc;
    if (from < 1 || from > to)
        return sw_error_set(err, SW_EINVAL, "a view from %llu to %llu: 1 <= from <= to", (unsigned long long)from,
                            (unsigned long long)to);
    if (!r->found) fprintf(out, "Nothing aligns: no pair of bases scores above zero.\n");
    for (int k = 0; k < r->found; ++k) {
        if (k) fputc('\n', out);
        sw_pair_view_write(out, &r->seqs->x, &r->seqs->y, &r->results[k], r->paths[k], from, to);
    }
    return SW_OK;
}

sw_align_plot_format sw_align_plot_format_of(const char *path)
{
    return path ? (sw_align_plot_format)sw_pair_plot_format_of(path) : SW_ALIGN_PLOT_SVG;
}

int sw_align_png_supported(void) { return sw_raster_png_supported(); }

int sw_aligned_write_plot(const sw_aligned *r, sw_align_plot_format format, FILE *out, sw_error *err)
{
    int rc = check_writer(r, out, 1, "sw_aligned_write_plot", err);
    if (rc) return rc;
    if (format != SW_ALIGN_PLOT_SVG && format != SW_ALIGN_PLOT_PNG)
        return sw_error_set(err, SW_EINVAL, "unknown plot format %d", (int)format);
    return sw_pair_plot_write(out, (sw_pair_plot_format)format, &r->seqs->x, &r->seqs->y, r->results,
                              (const sw_pair_path *const *)r->paths, r->found, err);
}

void sw_aligned_free(sw_aligned *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->count; i++)
        if (r->items[i].cigar && *r->items[i].cigar) free((char *)r->items[i].cigar);
    for (int i = 0; r->paths && i < r->slots; i++) sw_pair_path_free(r->paths[i]);
    free(r->paths);
    free(r->results);
    free(r->items);
    seqs_release(r->seqs);
    free(r);
}
