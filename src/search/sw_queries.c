/* Loads queries into one residue arena and one identifier arena. */
#include "sw_queries.h"

#include <stdlib.h>
#include <string.h>

#include "sw_fasta.h"

typedef struct query_entry {
    size_t residue_offset, length, id_offset;
} query_entry;

struct sw_query_set {
    query_entry *entries;
    size_t count, cap;
    uint8_t *residues;
    size_t residues_len, residues_cap;
    char *ids;
    size_t ids_len, ids_cap;
};

static int reserve(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *p = realloc(*buf, n * elem);
    if (!p) return -1;
    *buf = p;
    *cap = n;
    return 0;
}

int sw_queries_load(const char *path, const sw_alphabet *alphabet, sw_warn_fn warn,
                    void *warn_user, sw_query_set **out, sw_error *err)
{
    sw_fasta_options opt = {.alphabet = alphabet, .warn = warn, .warn_user = warn_user};
    sw_fasta *f;
    int rc = sw_fasta_open(path, &opt, &f, err);
    if (rc) return rc;
    sw_query_set *q = calloc(1, sizeof *q);
    if (!q) {
        sw_fasta_close(f);
        return sw_error_set(err, SW_ENOMEM, "%s: out of memory", path);
    }
    sw_fasta_record rec;
    while ((rc = sw_fasta_next(f, &rec, err)) == 1) {
        size_t id_len;
        const char *desc;
        size_t desc_len;
        sw_fasta_split_header(rec.header, rec.header_len, &id_len, &desc, &desc_len);
        if (reserve((void **)&q->entries, &q->cap, q->count + 1, sizeof *q->entries) ||
            reserve((void **)&q->residues, &q->residues_cap, q->residues_len + rec.length, 1) ||
            reserve((void **)&q->ids, &q->ids_cap, q->ids_len + id_len + 1, 1)) {
            rc = sw_error_set(err, SW_ENOMEM, "%s: out of memory reading queries", path);
            break;
        }
        query_entry *e = &q->entries[q->count++];
        e->residue_offset = q->residues_len;
        e->length = rec.length;
        e->id_offset = q->ids_len;
        memcpy(q->residues + q->residues_len, rec.residues, rec.length);
        q->residues_len += rec.length;
        memcpy(q->ids + q->ids_len, rec.header, id_len);
        q->ids[q->ids_len + id_len] = '\0';
        q->ids_len += id_len + 1;
    }
    sw_fasta_close(f);
    if (rc == 0 && q->count == 0) rc = sw_error_set(err, SW_EFORMAT, "%s: no sequences", path);
    if (rc < 0) {
        sw_queries_free(q);
        return rc;
    }
    *out = q;
    return SW_OK;
}

void sw_queries_free(sw_query_set *q)
{
    if (!q) return;
    free(q->entries);
    free(q->residues);
    free(q->ids);
    free(q);
}

size_t sw_queries_count(const sw_query_set *q) { return q->count; }

const uint8_t *sw_queries_residues(const sw_query_set *q, size_t i, size_t *length)
{
    *length = q->entries[i].length;
    return q->residues + q->entries[i].residue_offset;
}

const char *sw_queries_id(const sw_query_set *q, size_t i) { return q->ids + q->entries[i].id_offset; }

uint64_t sw_queries_total_residues(const sw_query_set *q) { return q->residues_len; }
