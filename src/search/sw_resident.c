/* The resident database: decoded once, uploaded to the GPUs once for each
 * team configuration in a row. */
#include "sw_resident.h"

#include <stdlib.h>
#include <string.h>

#include "sw_gpu_team.h"

struct sw_resident {
    const sw_db *db;
    uint8_t *residues;
    uint64_t *offsets;
    uint32_t *tiebreak;
    /* The team kept from the last GPU search. */
    sw_gpu_team *team;
};

int sw_resident_create(const sw_db *db, int threads, int keep_residues, sw_resident **out, sw_error *err)
{
    *out = NULL;
    uint64_t n = sw_db_num_seqs(db);
    if (n > UINT32_MAX)
        return sw_error_set(err, SW_ELIMIT, "a resident database holds at most %u sequences", UINT32_MAX);
    sw_resident *r = calloc(1, sizeof *r);
    if (!r) return sw_error_set(err, SW_ENOMEM, "out of memory");
    r->db = db;
    r->tiebreak = malloc((n ? n : 1) * sizeof *r->tiebreak);
    if (!r->tiebreak) {
        free(r);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    for (uint64_t s = 0; s < n; s++) r->tiebreak[s] = (uint32_t)sw_db_original_index(db, s);
    r->offsets = malloc((n ? n : 1) * sizeof *r->offsets);
    if (!r->offsets) {
        sw_resident_free(r);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    uint64_t at = 0;
    for (uint64_t s = 0; s < n; s++) {
        r->offsets[s] = at;
        at += sw_db_lengths(db)[s];
    }
    int rc = keep_residues ? sw_db_read_all_residues(db, threads, &r->residues, err) : SW_OK;
    if (rc) {
        sw_resident_free(r);
        return rc;
    }
    *out = r;
    return SW_OK;
}

void sw_resident_free(sw_resident *r)
{
    if (!r) return;
    sw_gpu_team_free(r->team);
    free(r->residues);
    free(r->offsets);
    free(r->tiebreak);
    free(r);
}

const sw_db *sw_resident_db(const sw_resident *r) { return r->db; }
const uint8_t *sw_resident_residues(const sw_resident *r) { return r->residues; }
const uint32_t *sw_resident_tiebreak(const sw_resident *r) { return r->tiebreak; }
const uint64_t *sw_resident_offsets(const sw_resident *r) { return r->offsets; }

int sw_resident_gpu_team(sw_resident *r, const sw_gpu_team_config *asked, sw_gpu_team **team, sw_error *err)
{
    /* Without a decoded copy the team reads the database file. */
    sw_gpu_team_config c = *asked;
    c.read_files = !r->residues;
    const sw_gpu_team_config *config = &c;
    if (r->team && sw_gpu_team_matches(r->team, config)) {
        *team = r->team;
        return SW_OK;
    }
    sw_resident_drop_team(r);
    sw_gpu_team *t = NULL;
    int rc = sw_gpu_team_plan(r->db, config, &t, err);
    if (rc == SW_OK) rc = sw_gpu_team_start(t, err);
    /* A team that streams reads its parts from the decoded copy. */
    if (rc == SW_OK) rc = sw_gpu_team_load(t, r->residues, r->tiebreak, err);
    if (rc) {
        sw_gpu_team_free(t);
        return rc;
    }
    r->team = t;
    *team = t;
    return SW_OK;
}

void sw_resident_drop_team(sw_resident *r)
{
    sw_gpu_team_free(r->team);
    r->team = NULL;
}
