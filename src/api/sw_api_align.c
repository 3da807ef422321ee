/* The public pairwise DNA alignment (include/swsearch.h): the forward and
 * start passes of sw_pair, best-K, and each alignment's path with its
 * CIGAR as `swsearch align` writes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_alphabet.h"
#include "sw_pair.h"
#include "sw_pair_path.h"
#include "sw_pair_report.h"
#include "swsearch.h"

#define SW_ALIGNER_MAX_GPUS 64
#define SW_ALIGNER_MAX_BEST 1000

struct sw_aligner {
    sw_pair_scoring scoring;
    sw_device device;
    int gpus[SW_ALIGNER_MAX_GPUS];
    int num_gpus, gpus_listed;
    int threads, best, with_path;
};

struct sw_aligned {
    size_t count;
    sw_aligned_info *items;
};

int sw_aligner_create(sw_aligner **out, sw_error *err)
{
    sw_error_clear(err);
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_aligner_create: no place for the aligner");
    sw_aligner *a = calloc(1, sizeof *a);
    if (!a) return sw_error_set(err, SW_ENOMEM, "out of memory");
    /* The program's defaults (`swsearch align`). */
    a->scoring = (sw_pair_scoring){.match = 1, .mismatch = -3, .gap_open = 3, .gap_extend = 2};
    a->device = SW_DEVICE_AUTO;
    a->best = 1;
    a->with_path = 1;
    *out = a;
    return SW_OK;
}

void sw_aligner_free(sw_aligner *a) { free(a); }

#define CHECK_ALIGNER(a, fn)                                                                                 \
    do {                                                                                                     \
        sw_error_clear(err);                                                                                 \
        if (!(a)) return sw_error_set(err, SW_EINVAL, fn ": no aligner given");                              \
    } while (0)

int sw_aligner_set_scores(sw_aligner *a, int match, int mismatch, int gap_open, int gap_extend, sw_error *err)
{
    CHECK_ALIGNER(a, "sw_aligner_set_scores");
    sw_pair_scoring s = {.match = match, .mismatch = mismatch, .gap_open = gap_open, .gap_extend = gap_extend};
    int rc = sw_pair_check_scoring(&s, 1, 1, err);
    if (rc) return rc;
    a->scoring = s;
    return SW_OK;
}

int sw_aligner_set_device(sw_aligner *a, sw_device device, sw_error *err)
{
    CHECK_ALIGNER(a, "sw_aligner_set_device");
    if (device != SW_DEVICE_AUTO && device != SW_DEVICE_CPU && device != SW_DEVICE_GPU)
        return sw_error_set(err, SW_EINVAL, "unknown device %d", (int)device);
    a->device = device;
    return SW_OK;
}

int sw_aligner_set_gpus(sw_aligner *a, const int *gpus, int count, sw_error *err)
{
    CHECK_ALIGNER(a, "sw_aligner_set_gpus");
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
    CHECK_ALIGNER(a, "sw_aligner_set_threads");
    if (threads < 0 || threads > 4096) return sw_error_set(err, SW_EINVAL, "threads must be from 0 to 4096, not %d", threads);
    a->threads = threads;
    return SW_OK;
}

int sw_aligner_set_best(sw_aligner *a, int k, sw_error *err)
{
    CHECK_ALIGNER(a, "sw_aligner_set_best");
    if (k < 1 || k > SW_ALIGNER_MAX_BEST)
        return sw_error_set(err, SW_EINVAL, "the number of best alignments must be from 1 to %d, not %d",
                            SW_ALIGNER_MAX_BEST, k);
    a->best = k;
    return SW_OK;
}

int sw_aligner_set_path(sw_aligner *a, int with_path, sw_error *err)
{
    CHECK_ALIGNER(a, "sw_aligner_set_path");
    a->with_path = with_path != 0;
    return SW_OK;
}

/* Letters to codes as the program's reader takes them: A, C, G, T either
 * case, other IUPAC codes as N; anything else is an error naming where. */
static int encode(const char *name, const char *s, size_t len, uint8_t **out, sw_error *err)
{
    if (!s) return sw_error_set(err, SW_EINVAL, "sequence %s: none given", name);
    if (len == 0) len = strlen(s);
    if (len == 0) return sw_error_set(err, SW_EINVAL, "sequence %s is empty", name);
    if (len > SW_PAIR_MAX_LENGTH)
        return sw_error_set(err, SW_ELIMIT, "sequence %s: %zu bases, more than the %llu an alignment takes", name, len,
                            (unsigned long long)SW_PAIR_MAX_LENGTH);
    uint8_t *codes = malloc(len);
    if (!codes) return sw_error_set(err, SW_ENOMEM, "out of memory holding sequence %s", name);
    const sw_alphabet *dna = sw_alphabet_dna();
    for (size_t i = 0; i < len; i++) {
        uint8_t c = sw_alphabet_encode(dna, (unsigned char)s[i]);
        if (c == SW_CODE_INVALID) {
            char shown[16];
            sw_error_quote(shown, sizeof shown, &s[i], 1, 4);
            free(codes);
            return sw_error_set(err, SW_EFORMAT, "sequence %s: invalid base '%s' at position %zu", name, shown, i + 1);
        }
        codes[i] = c;
    }
    *out = codes;
    return (int)SW_OK;
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

int sw_aligner_run(sw_aligner *a, const char *x, size_t x_len, const char *y, size_t y_len, sw_aligned **out,
                   sw_error *err)
{
    CHECK_ALIGNER(a, "sw_aligner_run");
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_aligner_run: no place for the result");
    *out = NULL;
    uint8_t *xc = NULL, *yc = NULL;
    int rc = encode("x", x, x_len, &xc, err);
    if (rc == SW_OK) rc = encode("y", y, y_len, &yc, err);
    if (rc) {
        free(xc);
        return rc;
    }
    x_len = x_len ? x_len : strlen(x);
    y_len = y_len ? y_len : strlen(y);
    rc = sw_pair_check_scoring(&a->scoring, x_len, y_len, err);
    sw_pair_engine engine = a->device == SW_DEVICE_CPU ? SW_PAIR_ENGINE_CPU
                            : a->device == SW_DEVICE_GPU
                                ? sw_pair_choose_engine(x_len, y_len, a->num_gpus > 1 ? a->num_gpus : 1)
                                : SW_PAIR_ENGINE_AUTO;
    sw_pair_options opt = {
        .engine = engine,
        .threads = a->threads,
        .device = a->gpus_listed && a->num_gpus ? a->gpus[0] : 0,
        .gpus = a->num_gpus,
        .devices = a->gpus_listed && a->num_gpus > 1 ? a->gpus : NULL,
    };
    int k = a->best, found = 0;
    sw_pair_result *results = calloc((size_t)k, sizeof *results);
    sw_pair_path **paths = calloc((size_t)k, sizeof *paths);
    sw_pair_box *boxes = calloc((size_t)k, sizeof *boxes);
    sw_aligned *r = calloc(1, sizeof *r);
    if (rc == SW_OK && (!results || !paths || !boxes || !r)) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    if (rc == SW_OK) {
        if (k > 1) {
            rc = sw_pair_align_best(xc, x_len, yc, y_len, &a->scoring, &opt, k, results, &found, err);
        } else {
            rc = sw_pair_align(xc, x_len, yc, y_len, &a->scoring, &opt, &results[0], err);
            found = 1; /* a score of 0 is reported too, as the program does */
        }
    }
    for (int i = 0; rc == SW_OK && a->with_path && i < found; i++) {
        /* The k-th keeps out of the boxes of the better ones, as its passes did. */
        const sw_pair_path_options po = {
            .threads = a->threads,
            .forbidden = boxes,
            .forbidden_count = i,
            .gpu = results[i].engine != SW_PAIR_ENGINE_CPU,
            .gpu_device = opt.device,
        };
        rc = sw_pair_path_find(xc, x_len, yc, y_len, &a->scoring, &results[i], &po, &paths[i], err);
        boxes[i] = (sw_pair_box){results[i].a_start, results[i].a_end, results[i].b_start, results[i].b_end};
    }
    if (rc == SW_OK && !(r->items = calloc(found ? (size_t)found : 1, sizeof *r->items)))
        rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    for (int i = 0; rc == SW_OK && i < found; i++) {
        sw_aligned_info *o = &r->items[i];
        const sw_pair_result *res = &results[i];
        r->count++;
        o->score = res->score;
        o->x_start = res->a_start;
        o->x_end = res->a_end;
        o->y_start = res->b_start;
        o->y_end = res->b_end;
        o->engine = sw_pair_engine_name(res->engine);
        o->cigar = "";
        if (!paths[i]) continue;
        const sw_pair_path_summary ps = sw_pair_path_get_summary(paths[i]);
        o->columns = ps.columns;
        o->matches = ps.matches;
        o->mismatches = ps.mismatches;
        o->gap_openings = ps.gap_openings;
        o->gap_bases = ps.gap_bases;
        o->identity = sw_pair_path_identity(&ps);
        char *c = cigar_of(paths[i]);
        if (!c) rc = sw_error_set(err, SW_ENOMEM, "out of memory writing a CIGAR");
        else o->cigar = c;
    }
    for (int i = 0; paths && i < k; i++) sw_pair_path_free(paths[i]);
    free(paths);
    free(results);
    free(boxes);
    free(xc);
    free(yc);
    if (rc) {
        sw_aligned_free(r);
        return rc;
    }
    *out = r;
    return SW_OK;
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

void sw_aligned_free(sw_aligned *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->count; i++)
        if (r->items[i].cigar && *r->items[i].cigar) free((char *)r->items[i].cigar);
    free(r->items);
    free(r);
}
