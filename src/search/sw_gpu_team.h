/* A database search on several GPUs: the database cut into slices of equal
 * work (sw_slices.h), one GPU engine for each, each engine on a thread of
 * its own with its own streams and its own top hits. A query's hits are the
 * best of its hits in every slice: merged by score, then by position in the
 * database FASTA, they are exactly those of one engine over the whole
 * database. Several slices may share one GPU (for tests: slices on GPU 0
 * must give what one slice gives). */
#ifndef SW_GPU_TEAM_H
#define SW_GPU_TEAM_H

#include <stddef.h>
#include <stdint.h>

#include "sw_db.h"
#include "sw_error.h"
#include "sw_gpu_engine.h"
#include "sw_matrix.h"
#include "sw_topn.h"

#define SW_GPU_TEAM_MAX 64

typedef struct sw_gpu_team sw_gpu_team;

typedef struct sw_gpu_team_config {
    /* The GPUs: `gpus`, num_gpus CUDA device numbers, a slice each (a
     * number may repeat); or, with gpus NULL, the first num_gpus GPUs of
     * the machine (0: all of them). At most SW_GPU_TEAM_MAX slices. */
    const int *gpus;
    int num_gpus;
    const sw_scoring *scoring;
    size_t top_n;
    /* Every engine's options. intra_threshold 0: each GPU's calibration
     * (sw_calibrate.h, per GPU model) picks it for its slice's lengths.
     * device_share is set by the team; a tuning is copied. */
    sw_gpu_engine_options engine;
    /* Device memory each GPU gives the search, in bytes (shared by the
     * slices on it); 0: its free memory less a margin. A slice larger than
     * its share stays on the GPU as far as it fits and is streamed beyond
     * (sw_gpu_parts.h). */
    uint64_t gpu_memory;
    /* Threads that decode the parts of a streamed database (<= 0: every
     * CPU, divided among the slices). */
    int threads;
    /* Nonzero: the team will be given no decoded database and reads the
     * file itself, as a team that streams does, even where it fits. */
    int read_files;
    /* Hears of a calibration before it runs; may be NULL. */
    void (*note)(void *user, const char *message);
    void *note_user;
} sw_gpu_team_config;

/* The CUDA devices that `gpus` and `num_gpus` name (as in
 * sw_gpu_team_config), a slice each, into devices[0 .. *n - 1]; `infos`
 * (room for SW_GPU_TEAM_MAX) receives every GPU of the machine. SW_ENODEV
 * without the GPUs asked for. */
struct sw_gpu_info;
int sw_gpu_team_devices(const int *gpus, int num_gpus, struct sw_gpu_info *infos, int *devices, int *n,
                        sw_error *err);

/* Plans a team: resolves the GPUs, slices `db` (its lengths alone are
 * read), picks each slice's threshold and shares each GPU's memory among
 * its slices. `db` must outlive the team. SW_ENODEV without the GPUs asked
 * for. */
int sw_gpu_team_plan(const sw_db *db, const sw_gpu_team_config *config, sw_gpu_team **out, sw_error *err);

/* Starts an engine for each slice (or the engines of its parts where the
 * team streams), the GPUs in parallel. */
int sw_gpu_team_start(sw_gpu_team *t, sw_error *err);

/* 1 when some slice is larger than its share of its GPU and streams: the
 * team then reads the database file itself, a part at a time, and need not
 * be given the decoded database. */
int sw_gpu_team_streams(const sw_gpu_team *t);

/* Hands every engine its slice of the decoded database, in parallel:
 * `residues`, every sequence's codes back to back in database order, and
 * `tiebreak`, each sequence's position in the database FASTA; `tiebreak`
 * may go once it returns, `residues` too unless the team streams (it then
 * reads the parts from it, and it must outlive the team). A team that
 * streams takes NULL for both: it reads the database file. */
int sw_gpu_team_load(sw_gpu_team *t, const uint8_t *residues, const uint32_t *tiebreak, sw_error *err);

/* Told of query `query` as soon as every slice has finished it, in query
 * order, on the thread that called sw_gpu_team_search(), which waits for
 * it; hits and scores as sw_gpu_team_search() will hold them. */
typedef void (*sw_gpu_team_done_fn)(void *user, size_t query, const sw_hit *hits, size_t count,
                                    const int32_t *scores);

/* Aligns every query against the database on every slice (rows: PSSM
 * queries as sw_gpu_engine_search_rows() takes them, or NULL). Query q's hits
 * go to hits[q * top_n ..], counts[q] of them (scores > 0, best first: by
 * score, then FASTA position). `scores` (NULL, or with
 * engine.keep_all_scores num_queries x sw_db_num_seqs() entries) receives
 * every score, query q's at scores[q * num_seqs + s] for database sequence
 * s. `done` may be NULL; `stats` (may be NULL) sums the engines' figures,
 * the buckets those of the first slice, total_seconds the wall clock. */
int sw_gpu_team_search(sw_gpu_team *t, const uint8_t *const *queries, const int8_t *const *rows,
                       const size_t *lengths, size_t num_queries, sw_hit *hits, size_t *counts, int32_t *scores, sw_gpu_team_done_fn done, void *done_user,
                       sw_gpu_stats *stats, sw_error *err);

/* Asked by every slice's engine before each query, and between streamed
 * parts, during the following searches (from their threads: `fn` must be
 * safe to call from any); nonzero stops a search with SW_ECANCELED. NULL:
 * never. */
void sw_gpu_team_set_stop(sw_gpu_team *t, sw_gpu_stop_fn fn, void *user);

/* "GPU 0 (NVIDIA H100 80GB HBM3)", "GPUs 0,1 (NVIDIA H100 80GB HBM3)", or
 * each GPU with its model when the models differ. */
const char *sw_gpu_team_name(const sw_gpu_team *t);
int sw_gpu_team_size(const sw_gpu_team *t);
/* Slice k's intra-task threshold. */
uint32_t sw_gpu_team_threshold(const sw_gpu_team *t, int slice);
/* 1 when a calibration ran for this team (none was cached). */
int sw_gpu_team_calibrated_now(const sw_gpu_team *t);
/* 1 when a slice's threshold came from a calibration (run now or cached);
 * 0 when no slice holds a sequence beyond the query-across-threads
 * kernels' length, so that none needed one. */
int sw_gpu_team_calibration_used(const sw_gpu_team *t);

/* 1 when `t` was started for this configuration (the same GPUs as asked,
 * scoring, top N and options): a resident database keeps its team while
 * searches ask for what it is. */
int sw_gpu_team_matches(const sw_gpu_team *t, const sw_gpu_team_config *config);

void sw_gpu_team_free(sw_gpu_team *t);

#endif
