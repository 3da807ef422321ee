/* Engines on several GPUs, one for each slice of the database, and the
 * exact merge of their hits (sw_gpu_team.h). */
#include "sw_gpu_team.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_calibrate.h"
#include "sw_clock.h"
#include "sw_gpu.h"
#include "sw_gpu_parts.h"
#include "sw_gpu_tuning.h"
#include "sw_pool.h"
#include "sw_slices.h"

/* One slice and its engine, or its parts where the team streams. */
typedef struct member {
    int device;
    uint64_t num_seqs;
    uint32_t *lengths; /* the slice's, until it is loaded (kept where it streams) */
    uint32_t threshold;
    size_t budget;     /* its share of the GPU's memory; 0: the engine's own rule */
    sw_gpu_engine *engine;
    sw_gpu_parts *parts;
    /* A search's: the engine's hits, counts and (keep_all_scores) scores;
     * the parts' hits (database numbering) and counts. */
    sw_gpu_hit *hits;
    size_t *counts;
    int32_t *sink;
    sw_hit *best;
    size_t *best_counts;
    sw_gpu_stats stats;
    int rc;
    sw_error err;
} member;

struct sw_gpu_team {
    const sw_db *db;
    sw_slicing *slicing;
    int size;
    member *m;
    /* What was asked for (sw_gpu_team_matches). */
    int asked[SW_GPU_TEAM_MAX];
    int num_asked, asked_list;
    size_t top_n;
    int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
    sw_scoring scoring; /* its table is `table` */
    sw_gpu_engine_options options;
    sw_gpu_tuning tuning; /* a copy of the tuning asked for, which options.tuning then points at */
    uint64_t gpu_memory;
    int threads;
    int read_files;
    int streams; /* every slice is a sw_gpu_parts, reading the file or the decoded database */
    int calibrated_now;
    int calibration_used; /* a slice's threshold came from a calibration */
    char name[160];
    sw_gpu_stop_fn stop; /* sw_gpu_team_set_stop */
    void *stop_user;
};

/* No tuning is the zero tuning: the engine's defaults. */
static int same_tuning(const sw_gpu_tuning *a, const sw_gpu_tuning *b)
{
    static const sw_gpu_tuning none;
    if (!a) a = &none;
    if (!b) b = &none;
    return a->bucket_streams == b->bucket_streams && a->profile == b->profile &&
           a->max_columns_per_thread == b->max_columns_per_thread && a->intra_tile == b->intra_tile &&
           a->intra_warps == b->intra_warps && a->timeline == b->timeline && a->device_launch == b->device_launch &&
           a->qp_group_size == b->qp_group_size && a->qp_columns == b->qp_columns;
}

static int same_options(const sw_gpu_engine_options *a, const sw_gpu_engine_options *b)
{
    return a->max_device_bytes == b->max_device_bytes && a->intra_threshold == b->intra_threshold &&
           a->keep_all_scores == b->keep_all_scores && a->qp_max_length == b->qp_max_length &&
           a->qp_giants == b->qp_giants && same_tuning(a->tuning, b->tuning);
}

int sw_gpu_team_matches(const sw_gpu_team *t, const sw_gpu_team_config *c)
{
    const int list = c->gpus != NULL;
    if (list != t->asked_list || c->num_gpus != t->num_asked) return 0;
    for (int i = 0; list && i < c->num_gpus; i++)
        if (c->gpus[i] != t->asked[i]) return 0;
    return c->top_n == t->top_n && c->gpu_memory == t->gpu_memory && !c->read_files == !t->read_files &&
           c->scoring->gap_open == t->scoring.gap_open && c->scoring->gap_extend == t->scoring.gap_extend &&
           !memcmp(c->scoring->table, t->table, sizeof t->table) && same_options(&c->engine, &t->options);
}

int sw_gpu_team_devices(const int *gpus, int num_gpus, sw_gpu_info *infos, int *devices, int *n, sw_error *err)
{
    *n = 0;
    int count = 0;
    int rc = sw_gpu_list(infos, SW_GPU_TEAM_MAX, &count, err);
    if (rc) return rc;
    if (count > SW_GPU_TEAM_MAX) count = SW_GPU_TEAM_MAX;
    if (num_gpus < 0 || num_gpus > SW_GPU_TEAM_MAX)
        return sw_error_set(err, SW_EINVAL, "a search uses 1 to %d GPUs, not %d", SW_GPU_TEAM_MAX, num_gpus);
    if (gpus) {
        if (num_gpus < 1) return sw_error_set(err, SW_EINVAL, "an empty list of GPUs");
        for (int i = 0; i < num_gpus; i++) {
            if (gpus[i] < 0 || gpus[i] >= count)
                return sw_error_set(err, SW_ENODEV, "no GPU %d: this machine has %d (0 to %d)", gpus[i], count,
                                    count - 1);
            devices[i] = gpus[i];
        }
        *n = num_gpus;
        return SW_OK;
    }
    const int want = num_gpus ? num_gpus : count;
    if (want > count) return sw_error_set(err, SW_ENODEV, "%d GPUs asked for: this machine has %d", want, count);
    for (int i = 0; i < want; i++) devices[i] = infos[i].id;
    *n = want;
    return SW_OK;
}

static void make_name(sw_gpu_team *t, const sw_gpu_info *infos)
{
    const member *m = t->m;
    if (t->size == 1) {
        snprintf(t->name, sizeof t->name, "GPU %d (%.80s)", m[0].device, infos[m[0].device].name);
        return;
    }
    int same = 1;
    for (int i = 1; i < t->size; i++) same &= !strcmp(infos[m[i].device].name, infos[m[0].device].name);
    size_t at = (size_t)snprintf(t->name, sizeof t->name, "GPUs ");
    for (int i = 0; i < t->size && at < sizeof t->name; i++) {
        if (same)
            at += (size_t)snprintf(t->name + at, sizeof t->name - at, "%s%d", i ? "," : "", m[i].device);
        else
            at += (size_t)snprintf(t->name + at, sizeof t->name - at, "%s%d (%.40s)", i ? ", " : "", m[i].device,
                                   infos[m[i].device].name);
    }
    if (same && at < sizeof t->name) snprintf(t->name + at, sizeof t->name - at, " (%.80s)", infos[m[0].device].name);
}

/* Each slice's threshold: asked for, or picked from its GPU's calibration
 * for the slice's lengths (a calibration per device, cached per model). */
static int pick_thresholds(sw_gpu_team *t, const sw_gpu_team_config *c, const sw_gpu_info *infos, sw_error *err)
{
    sw_calibration *cal = NULL; /* of each slice's device, measured or read once a device */
    uint8_t *got = NULL;        /* of each slice: cal holds its device's */
    int rc = SW_OK;
    for (int i = 0; i < t->size && rc == SW_OK; i++) {
        member *m = &t->m[i];
        if (c->engine.intra_threshold || !m->num_seqs) {
            m->threshold = c->engine.intra_threshold ? c->engine.intra_threshold : SW_GPU_NO_INTRA;
            continue;
        }
        /* The kernels with the query across the threads take every
         * sequence up to their length, whatever the threshold: a slice
         * with none longer never reaches the kernels that a calibration
         * weighs, and a small database's first search does not pay for
         * one (the first search of a larger one does). */
        uint32_t longest = 0;
        for (uint64_t s = 0; s < m->num_seqs; s++) longest = m->lengths[s] > longest ? m->lengths[s] : longest;
        const uint32_t qp = c->engine.qp_max_length ? c->engine.qp_max_length : SW_GPU_DEFAULT_QP_LENGTH;
        if (longest <= qp) {
            m->threshold = SW_GPU_NO_INTRA;
            continue;
        }
        t->calibration_used = 1;
        if (!cal && (!(cal = malloc((size_t)t->size * sizeof *cal)) || !(got = calloc((size_t)t->size, 1)))) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory");
            break;
        }
        int same = -1; /* an earlier slice of this device, calibrated already */
        for (int k = 0; k < i && same < 0; k++)
            if (t->m[k].device == m->device && got[k]) same = k;
        if (same >= 0) {
            cal[i] = cal[same];
        } else {
            int measured = 0;
            if ((rc = sw_calibration_get(m->device, infos[m->device].name, c->scoring, c->note, c->note_user, &cal[i],
                                         &measured, err)))
                break;
            t->calibrated_now |= measured;
        }
        got[i] = 1;
        m->threshold = sw_calibration_pick(&cal[i], m->lengths, m->num_seqs, NULL);
    }
    free(cal);
    free(got);
    return rc;
}

/* Each slice's share of its GPU's memory (the GPU's, or what
 * config.gpu_memory grants, divided among the slices on it), and whether
 * the team streams: once one slice is larger than its share, every slice
 * reads the database file (or the decoded database) itself, a part at a
 * time. Without gpu_memory the engines keep their own rule (free memory at
 * their creation, shared) unless the team streams. */
static int share_memory(sw_gpu_team *t, const sw_gpu_team_config *c, sw_error *err)
{
    for (int i = 0; i < t->size; i++) {
        member *m = &t->m[i];
        int same = -1; /* an earlier slice of this device, whose share this one has too */
        for (int k = 0; k < i && same < 0; k++)
            if (t->m[k].device == m->device) same = k;
        if (same >= 0) {
            m->budget = t->m[same].budget;
        } else {
            unsigned long long free_bytes = 0, total_bytes = 0;
            int rc = sw_gpu_memory(m->device, &free_bytes, &total_bytes, err);
            if (rc) return rc;
            size_t budget = sw_gpu_engine_default_budget(free_bytes, total_bytes);
            if (c->gpu_memory && c->gpu_memory < budget) budget = (size_t)c->gpu_memory;
            int share = 0;
            for (int k = 0; k < t->size; k++) share += t->m[k].device == m->device;
            m->budget = budget / (size_t)share;
        }
        if (m->num_seqs && !sw_gpu_engine_fits(m->num_seqs, sw_slice_num_residues(t->slicing, i), m->budget))
            t->streams = 1;
    }
    if (c->read_files) t->streams = 1;
    for (int i = 0; i < t->size; i++)
        if (!t->streams && !c->gpu_memory) t->m[i].budget = 0;
    if (t->streams && t->threads <= 0) t->threads = sw_clock_online_cpus();
    if (t->streams && t->size > 1) t->threads = t->threads / t->size > 0 ? t->threads / t->size : 1;
    return SW_OK;
}

/* Engine creation: one worker a device, which makes the engines of its
 * slices one after another, so that each sees the memory the ones before
 * left and takes its share of it. */
typedef struct create_ctx {
    sw_gpu_team *t;
    int devices[SW_GPU_TEAM_MAX]; /* distinct */
    int num_devices;
} create_ctx;

static void create_worker(void *arg, int index)
{
    create_ctx *x = arg;
    sw_gpu_team *t = x->t;
    const int device = x->devices[index];
    int share = 0;
    for (int i = 0; i < t->size; i++) share += t->m[i].device == device;
    const int members = share;
    for (int i = 0; i < t->size; i++) {
        member *m = &t->m[i];
        if (m->device != device || !m->num_seqs) continue;
        sw_gpu_engine_options opt = t->options;
        opt.intra_threshold = m->threshold;
        opt.device_share = m->budget ? 0 : share;
        share--;
        /* The working buffers of every slice on the device come out of its
         * free memory. A streamed slice's three engines each take the
         * slice's share: one of them runs its longest sequences, which
         * need the full grids, and the others' needs are smaller. */
        opt.work_share = members;
        if (m->budget) opt.max_device_bytes = m->budget;
        sw_error_clear(&m->err);
        if (t->streams) {
            const sw_gpu_parts_config pc = {device,     &t->scoring, t->top_n,   opt,       t->db,
                                            t->slicing, i,           m->lengths, t->threads};
            if ((m->rc = sw_gpu_parts_create(&pc, &m->parts, &m->err))) return;
        } else if ((m->rc = sw_gpu_engine_create(device, &t->scoring, t->top_n, &opt, &m->engine, &m->err))) {
            return;
        }
    }
}

/* The first failure among the members, or SW_OK. */
static int first_failure(const sw_gpu_team *t, sw_error *err)
{
    for (int i = 0; i < t->size; i++)
        if (t->m[i].rc) {
            if (err) *err = t->m[i].err;
            return t->m[i].rc;
        }
    return SW_OK;
}

int sw_gpu_team_plan(const sw_db *db, const sw_gpu_team_config *c, sw_gpu_team **out, sw_error *err)
{
    *out = NULL;
    sw_gpu_info infos[SW_GPU_TEAM_MAX];
    int devices[SW_GPU_TEAM_MAX], n = 0;
    int rc = sw_gpu_team_devices(c->gpus, c->num_gpus, infos, devices, &n, err);
    if (rc) return rc;
    sw_gpu_team *t = calloc(1, sizeof *t);
    if (!t) return sw_error_set(err, SW_ENOMEM, "out of memory");
    t->db = db;
    t->size = n;
    t->asked_list = c->gpus != NULL;
    t->num_asked = c->num_gpus;
    for (int i = 0; c->gpus && i < c->num_gpus; i++) t->asked[i] = c->gpus[i];
    t->top_n = c->top_n;
    memcpy(t->table, c->scoring->table, sizeof t->table);
    t->scoring = *c->scoring;
    t->scoring.table = t->table;
    t->options = c->engine;
    if (c->engine.tuning) {
        t->tuning = *c->engine.tuning;
        t->options.tuning = &t->tuning;
    }
    t->m = calloc((size_t)n, sizeof *t->m);
    if (!t->m) {
        free(t);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    const uint32_t *lengths = sw_db_lengths(db);
    if ((rc = sw_slicing_make(lengths, sw_db_num_seqs(db), n, &t->slicing, err))) goto fail;
    for (int i = 0; i < n; i++) {
        member *m = &t->m[i];
        m->device = devices[i];
        m->num_seqs = sw_slice_num_seqs(t->slicing, i);
        m->lengths = malloc((m->num_seqs ? m->num_seqs : 1) * sizeof *m->lengths);
        if (!m->lengths) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory slicing the database");
            goto fail;
        }
        size_t nr;
        const sw_slice_run *runs = sw_slice_runs(t->slicing, i, &nr);
        for (size_t r = 0; r < nr; r++)
            memcpy(m->lengths + runs[r].local, lengths + runs[r].first, runs[r].count * sizeof *lengths);
    }
    make_name(t, infos);
    if ((rc = pick_thresholds(t, c, infos, err))) goto fail;
    t->gpu_memory = c->gpu_memory;
    t->threads = c->threads;
    t->read_files = c->read_files;
    if ((rc = share_memory(t, c, err))) goto fail;
    *out = t;
    return SW_OK;

fail:
    sw_gpu_team_free(t);
    return rc;
}

int sw_gpu_team_start(sw_gpu_team *t, sw_error *err)
{
    create_ctx x;
    memset(&x, 0, sizeof x);
    x.t = t;
    for (int i = 0; i < t->size; i++) {
        int seen = 0;
        for (int k = 0; k < x.num_devices; k++) seen |= x.devices[k] == t->m[i].device;
        if (!seen) x.devices[x.num_devices++] = t->m[i].device;
    }
    int started = 0;
    sw_pool_run(x.num_devices, create_worker, &x, &started);
    for (int d = started; d < x.num_devices; d++) create_worker(&x, d); /* what no thread took */
    return first_failure(t, err);
}

/* Loading: one worker a slice, the uploads to different GPUs side by side. */
typedef struct load_ctx {
    sw_gpu_team *t;
    const uint8_t *residues;
    const uint32_t *tiebreak;
} load_ctx;

static void load_worker(void *arg, int index)
{
    load_ctx *x = arg;
    member *m = &x->t->m[index];
    if (m->parts) {
        sw_error_clear(&m->err);
        m->rc = sw_gpu_parts_load(m->parts, x->residues, &m->err);
        return;
    }
    if (!m->engine) return;
    if (!x->residues) {
        m->rc = sw_error_set(&m->err, SW_EINVAL, "the team was given no database");
        return;
    }
    size_t nr;
    const sw_slice_run *runs = sw_slice_runs(x->t->slicing, index, &nr);
    sw_gpu_db_piece *pieces = malloc((nr ? nr : 1) * sizeof *pieces);
    uint32_t *tiebreak = malloc((m->num_seqs ? m->num_seqs : 1) * sizeof *tiebreak);
    sw_error_clear(&m->err);
    if (!pieces || !tiebreak) {
        m->rc = sw_error_set(&m->err, SW_ENOMEM, "out of memory loading the database");
    } else {
        for (size_t r = 0; r < nr; r++) {
            pieces[r] = (sw_gpu_db_piece){x->residues + runs[r].residue, runs[r].residues};
            memcpy(tiebreak + runs[r].local, x->tiebreak + runs[r].first, runs[r].count * sizeof *tiebreak);
        }
        m->rc = sw_gpu_engine_set_db_pieces(m->engine, pieces, nr, m->lengths, tiebreak, m->num_seqs, &m->err);
    }
    free(pieces);
    free(tiebreak);
}

int sw_gpu_team_load(sw_gpu_team *t, const uint8_t *residues, const uint32_t *tiebreak, sw_error *err)
{
    load_ctx x = {t, residues, tiebreak};
    int started = 0;
    sw_pool_run(t->size, load_worker, &x, &started);
    for (int i = started; i < t->size; i++) load_worker(&x, i);
    int rc = first_failure(t, err);
    if (rc) return rc;
    for (int i = 0; i < t->size && !t->streams; i++) {
        free(t->m[i].lengths);
        t->m[i].lengths = NULL;
    }
    return SW_OK;
}

int sw_gpu_team_streams(const sw_gpu_team *t) { return t->streams; }

/* A search: every slice's engine on a worker of its own, whose finished
 * queries are counted here; the calling thread merges each query once
 * every slice has finished it. */
typedef struct search_ctx {
    sw_gpu_team *t;
    const uint8_t *const *queries;
    const int8_t *const *rows;
    const size_t *lengths;
    size_t num_queries;
    int32_t *scores; /* the caller's, every score, or NULL */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t *finished; /* slices that finished query q */
    int failed;       /* a slice's search failed */
} search_ctx;

typedef struct relay {
    search_ctx *x;
    int slice;
} relay;

static void slice_query_done(void *user, size_t query, const sw_gpu_hit *hits, size_t count, const int32_t *scores)
{
    (void)hits;
    (void)count;
    relay *r = user;
    search_ctx *x = r->x;
    const sw_gpu_team *t = x->t;
    const member *m = &t->m[r->slice];
    if (x->scores && scores && m->sink != x->scores) {
        /* Slices own disjoint sequences: no lock for their scores. */
        const uint64_t total = sw_db_num_seqs(t->db);
        size_t nr;
        const sw_slice_run *runs = sw_slice_runs(t->slicing, r->slice, &nr);
        for (size_t k = 0; k < nr; k++)
            memcpy(x->scores + query * total + runs[k].first, scores + runs[k].local,
                   runs[k].count * sizeof *scores);
    }
    pthread_mutex_lock(&x->lock);
    x->finished[query]++;
    pthread_cond_broadcast(&x->changed);
    pthread_mutex_unlock(&x->lock);
}

static void search_worker(void *arg, int index)
{
    search_ctx *x = arg;
    member *m = &x->t->m[index];
    sw_error_clear(&m->err);
    m->rc = SW_OK;
    memset(&m->stats, 0, sizeof m->stats);
    if (m->parts) {
        sw_gpu_parts_set_stop(m->parts, x->t->stop, x->t->stop_user);
        m->rc = sw_gpu_parts_search(m->parts, x->queries, x->rows, x->lengths, x->num_queries, m->best, m->best_counts,
                                    x->scores, &m->stats, &m->err);
    } else if (m->engine) {
        relay r = {x, index};
        m->rc = sw_gpu_engine_set_query_done(m->engine, slice_query_done, &r, &m->err);
        if (!m->rc) m->rc = sw_gpu_engine_set_stop(m->engine, x->t->stop, x->t->stop_user, &m->err);
        if (!m->rc)
            m->rc = sw_gpu_engine_search_rows(m->engine, x->queries, x->rows, x->lengths, x->num_queries, m->hits, m->counts,
                                         &m->stats, &m->err);
        /* A kept engine must not point at this search afterwards. */
        sw_gpu_engine_set_query_done(m->engine, NULL, NULL, NULL);
        sw_gpu_engine_set_stop(m->engine, NULL, NULL, NULL);
    }
    /* An engine told of each query as it finished; parts finish them all
     * at the end, and an empty slice at once. */
    pthread_mutex_lock(&x->lock);
    if (m->rc) x->failed = 1;
    else if (!m->engine)
        for (size_t q = 0; q < x->num_queries; q++) x->finished[q]++;
    pthread_cond_broadcast(&x->changed);
    pthread_mutex_unlock(&x->lock);
}

static void free_search_buffers(sw_gpu_team *t, const int32_t *scores)
{
    for (int i = 0; i < t->size; i++) {
        member *m = &t->m[i];
        if (m->engine && m->sink) sw_gpu_engine_set_score_sink(m->engine, NULL, NULL);
        free(m->hits);
        free(m->counts);
        if (m->sink != scores) free(m->sink);
        free(m->best);
        free(m->best_counts);
        m->hits = NULL;
        m->counts = NULL;
        m->sink = NULL;
        m->best = NULL;
        m->best_counts = NULL;
    }
}

int sw_gpu_team_search(sw_gpu_team *t, const uint8_t *const *queries, const int8_t *const *rows,
                       const size_t *lengths, size_t num_queries, sw_hit *hits, size_t *counts, int32_t *scores, sw_gpu_team_done_fn done, void *done_user,
                       sw_gpu_stats *stats, sw_error *err)
{
    const double t0 = sw_clock_seconds();
    const size_t top_n = t->top_n;
    const uint64_t total = sw_db_num_seqs(t->db);
    if (scores && !t->options.keep_all_scores)
        return sw_error_set(err, SW_EINVAL, "every score is kept only by a team made to keep them");
    search_ctx x;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.queries = queries;
    x.rows = rows;
    x.lengths = lengths;
    x.num_queries = num_queries;
    x.scores = scores;
    x.finished = calloc(num_queries ? num_queries : 1, sizeof *x.finished);
    sw_hit *lists = malloc((size_t)t->size * (top_n ? top_n : 1) * sizeof *lists);
    int rc = x.finished && lists ? SW_OK : SW_ENOMEM;
    for (int i = 0; i < t->size && rc == SW_OK; i++) {
        member *m = &t->m[i];
        if (m->parts) {
            const size_t room = num_queries * top_n;
            m->best = malloc((room ? room : 1) * sizeof *m->best);
            m->best_counts = calloc(num_queries ? num_queries : 1, sizeof *m->best_counts);
            if (!m->best || !m->best_counts) rc = SW_ENOMEM;
            continue;
        }
        if (!m->engine) continue;
        const size_t room = num_queries * top_n;
        m->hits = malloc((room ? room : 1) * sizeof *m->hits);
        m->counts = calloc(num_queries ? num_queries : 1, sizeof *m->counts);
        if (!m->hits || !m->counts) rc = SW_ENOMEM;
        if (rc == SW_OK && scores) {
            /* One slice of the whole database scores into the caller's array. */
            const size_t own = num_queries * m->num_seqs;
            m->sink = m->num_seqs == total ? scores : malloc((own ? own : 1) * sizeof *m->sink);
            if (!m->sink) rc = SW_ENOMEM;
            else if ((rc = sw_gpu_engine_set_score_sink(m->engine, m->sink, err))) break;
        }
    }
    if (rc == SW_ENOMEM) sw_error_set(err, SW_ENOMEM, "out of memory preparing the GPU search");
    if (rc) {
        free_search_buffers(t, scores);
        free(x.finished);
        free(lists);
        return rc;
    }
    pthread_mutex_init(&x.lock, NULL);
    pthread_cond_init(&x.changed, NULL);

    sw_pool *pool = NULL;
    int started = 0;
    sw_pool_start(t->size, search_worker, &x, &pool, &started);
    /* Without threads for them all, the slices left run here, after which
     * every query is finished. */
    for (int i = started; i < t->size; i++) search_worker(&x, i);

    for (size_t q = 0; q < num_queries; q++) {
        pthread_mutex_lock(&x.lock);
        while (x.finished[q] < (size_t)t->size && !x.failed) pthread_cond_wait(&x.changed, &x.lock);
        const int failed = x.failed;
        pthread_mutex_unlock(&x.lock);
        if (failed) break;
        const sw_hit *heads[SW_GPU_TEAM_MAX];
        size_t sizes[SW_GPU_TEAM_MAX];
        for (int i = 0; i < t->size; i++) {
            const member *m = &t->m[i];
            if (m->parts) {
                heads[i] = m->best + q * top_n;
                sizes[i] = m->best_counts[q];
                continue;
            }
            sw_hit *l = lists + (size_t)i * top_n;
            sizes[i] = m->engine ? m->counts[q] : 0;
            for (size_t k = 0; k < sizes[i]; k++) {
                const sw_gpu_hit *g = &m->hits[q * top_n + k];
                l[k].score = g->score;
                l[k].seq = t->size == 1 ? g->seq : sw_slice_seq(t->slicing, i, g->seq);
                l[k].original = sw_db_original_index(t->db, l[k].seq);
            }
            heads[i] = l;
        }
        counts[q] = sw_topn_merge_sorted(heads, sizes, (size_t)t->size, top_n, hits + q * top_n);
        if (done) done(done_user, q, hits + q * top_n, counts[q], scores ? scores + q * total : NULL);
    }
    sw_pool_join(pool);
    pthread_mutex_destroy(&x.lock);
    pthread_cond_destroy(&x.changed);
    rc = first_failure(t, err);
    if (rc == SW_OK && stats) {
        memset(stats, 0, sizeof *stats);
        int first = 1;
        for (int i = 0; i < t->size; i++) {
            if (!t->m[i].engine && !t->m[i].parts) continue;
            sw_gpu_parts_add_stats(stats, &t->m[i].stats, first);
            first = 0;
        }
        stats->total_seconds = sw_clock_seconds() - t0;
    }
    free_search_buffers(t, scores);
    free(x.finished);
    free(lists);
    return rc;
}

void sw_gpu_team_set_stop(sw_gpu_team *t, sw_gpu_stop_fn fn, void *user)
{
    t->stop = fn;
    t->stop_user = user;
}

const char *sw_gpu_team_name(const sw_gpu_team *t) { return t->name; }
int sw_gpu_team_size(const sw_gpu_team *t) { return t->size; }
uint32_t sw_gpu_team_threshold(const sw_gpu_team *t, int slice) { return t->m[slice].threshold; }
int sw_gpu_team_calibrated_now(const sw_gpu_team *t) { return t->calibrated_now; }

int sw_gpu_team_calibration_used(const sw_gpu_team *t) { return t->calibration_used; }

void sw_gpu_team_free(sw_gpu_team *t)
{
    if (!t) return;
    for (int i = 0; i < t->size; i++) {
        sw_gpu_engine_free(t->m[i].engine);
        sw_gpu_parts_free(t->m[i].parts);
        free(t->m[i].lengths);
    }
    free(t->m);
    sw_slicing_free(t->slicing);
    free(t);
}
