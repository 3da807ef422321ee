/* A database kept ready between searches, for a server answering one query
 * after another: its residues decoded in host memory and, once a GPU search
 * has run, uploaded to the GPU with the engine that searched it. A search
 * given the resident database (sw_search_options.resident) skips the
 * decoding and the upload; an engine made for other scoring, another top-N
 * or another GPU is replaced (and the database uploaded again). */
#ifndef SW_RESIDENT_H
#define SW_RESIDENT_H

#include <stddef.h>
#include <stdint.h>

#include "sw_db.h"
#include "sw_error.h"
#include "sw_matrix.h"

typedef struct sw_resident sw_resident;

/* Decodes every residue of `db` on `threads` threads (<= 0: all). `db`
 * must outlive the resident copy. */
int sw_resident_create(const sw_db *db, int threads, sw_resident **out, sw_error *err);
void sw_resident_free(sw_resident *r);

const sw_db *sw_resident_db(const sw_resident *r);
/* Every sequence's residues back to back, in database order. */
const uint8_t *sw_resident_residues(const sw_resident *r);
/* Where each sequence starts in sw_resident_residues(). */
const uint64_t *sw_resident_offsets(const sw_resident *r);
/* Each sequence's position in the database's FASTA (the order of ties). */
const uint32_t *sw_resident_tiebreak(const sw_resident *r);

/* The GPU engine for these settings, with the database on the GPU: the one
 * kept from an earlier search when it was made for the same settings, else
 * a new one (the old one freed). The engine stays the resident copy's. */
struct sw_gpu_engine;
struct sw_gpu_engine_options;
int sw_resident_gpu_engine(sw_resident *r, int gpu_id, const sw_scoring *scoring, size_t top_n,
                           const struct sw_gpu_engine_options *options, struct sw_gpu_engine **engine,
                           sw_error *err);

/* The GPU `gpu_id` as a search found it, and the intra-task threshold its
 * calibration picked for this database (0: none picked yet); 0 when not
 * remembered. */
struct sw_gpu_info;
int sw_resident_gpu_known(const sw_resident *r, int gpu_id, struct sw_gpu_info *info, uint32_t *threshold);
void sw_resident_gpu_remember(sw_resident *r, int gpu_id, const struct sw_gpu_info *info, uint32_t threshold);

/* Forgets the kept GPU engine (after a GPU error, so that the next search
 * starts afresh). */
void sw_resident_drop_engine(sw_resident *r);

#endif
