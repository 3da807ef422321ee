/* A database kept ready between searches, for a server answering one query
 * after another: its residues decoded in host memory and, once a GPU search
 * has run, uploaded to the GPU with the engine that searched it. A search
 * given the resident database (sw_search_options.resident) skips the
 * decoding and the upload; a team of GPU engines made for other scoring,
 * another top-N or other GPUs is replaced (and the database uploaded
 * again). */
#ifndef SW_RESIDENT_H
#define SW_RESIDENT_H

#include <stddef.h>
#include <stdint.h>

#include "sw_db.h"
#include "sw_error.h"
#include "sw_matrix.h"

typedef struct sw_resident sw_resident;

/* Decodes every residue of `db` on `threads` threads (<= 0: all), unless
 * `keep_residues` is 0: then only the GPUs' team is kept between
 * searches, for a database streamed to them (sw_resident_residues() is
 * then NULL). `db` must outlive the resident copy. */
int sw_resident_create(const sw_db *db, int threads, int keep_residues, sw_resident **out, sw_error *err);
void sw_resident_free(sw_resident *r);

const sw_db *sw_resident_db(const sw_resident *r);
/* Every sequence's residues back to back, in database order (NULL without
 * keep_residues). */
const uint8_t *sw_resident_residues(const sw_resident *r);
/* Where each sequence starts in sw_resident_residues(). */
const uint64_t *sw_resident_offsets(const sw_resident *r);
/* Each sequence's position in the database's FASTA (the order of ties). */
const uint32_t *sw_resident_tiebreak(const sw_resident *r);

/* The GPU team for this configuration, with the database loaded on its
 * GPUs: the one kept from an earlier search when it was started for the
 * same configuration (sw_gpu_team_matches), else a new one (the old one
 * freed first, so that its GPU memory is free for the new one). The team
 * stays the resident copy's. */
struct sw_gpu_team;
struct sw_gpu_team_config;
int sw_resident_gpu_team(sw_resident *r, const struct sw_gpu_team_config *config, struct sw_gpu_team **team,
                         sw_error *err);

/* Forgets the kept GPU team (after a GPU error, so that the next search
 * starts afresh). */
void sw_resident_drop_team(sw_resident *r);

#endif
