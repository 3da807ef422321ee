/* Loads queries into one residue arena and one identifier arena, a batch at
 * a time. */
#include "sw_queries.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_fasta.h"

typedef struct query_entry {
    size_t residue_offset, length, id_offset, description_offset;
    size_t rows_offset; /* a PSSM query's rows in the rows arena; NO_ROWS: none */
} query_entry;

#define NO_ROWS SIZE_MAX

struct sw_query_set {
    query_entry *entries;
    size_t count, cap;
    uint8_t *residues;
    size_t residues_len, residues_cap;
    char *ids;
    size_t ids_len, ids_cap;
    int8_t *rows; /* PSSM queries' position-specific scores */
    size_t rows_len, rows_cap;
};

struct sw_query_reader {
    sw_fasta *fasta;
    char *path;
    /* A record read past the end of a batch: it opens the next one. Its
     * pointers stay valid because the reader is not advanced until then. */
    sw_fasta_record pending;
    int have_pending, at_end;
    uint64_t queries_read; /* numbers the queries with a bare '>' */
    /* A reader of a set made in memory (PSSM queries): its queries, given
     * out a batch at a time from `next`; no file. */
    sw_query_set *set;
    size_t next;
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

int sw_queries_open(const char *path, const sw_alphabet *alphabet, sw_warn_fn warn,
                    void *warn_user, sw_query_reader **out, sw_error *err)
{
    sw_query_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return sw_error_set(err, SW_ENOMEM, "%s: out of memory", path);
    }
    sw_fasta_options opt = {.alphabet = alphabet, .warn = warn, .warn_user = warn_user};
    int rc = sw_fasta_open(path, &opt, &r->fasta, err);
    if (rc) {
        sw_queries_close(r);
        return rc;
    }
    *out = r;
    return SW_OK;
}

int sw_queries_open_fd(int fd, const char *name, const sw_alphabet *alphabet, uint64_t max_length, sw_warn_fn warn,
                       void *warn_user, sw_query_reader **out, sw_error *err)
{
    sw_query_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(name))) {
        free(r);
        return sw_error_set(err, SW_ENOMEM, "%s: out of memory", name);
    }
    sw_fasta_options opt = {.alphabet = alphabet, .max_length = max_length, .warn = warn, .warn_user = warn_user};
    int rc = sw_fasta_open_fd(fd, name, &opt, &r->fasta, err);
    if (rc) {
        sw_queries_close(r);
        return rc;
    }
    *out = r;
    return SW_OK;
}

int sw_queries_open_set(sw_query_set *set, const char *name, sw_query_reader **out, sw_error *err)
{
    sw_query_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(name))) {
        free(r);
        sw_queries_free(set);
        return sw_error_set(err, SW_ENOMEM, "%s: out of memory", name);
    }
    r->set = set;
    r->at_end = set->count == 0;
    *out = r;
    return SW_OK;
}

/* The next batch of a set's reader: its queries from `next` on. */
static int next_of_set(sw_query_reader *r, uint64_t max_residues, size_t max_queries, sw_query_set **out,
                       sw_error *err)
{
    const sw_query_set *s = r->set;
    if (r->next >= s->count) {
        r->at_end = 1;
        return r->queries_read ? 0 : sw_error_set(err, SW_EFORMAT, "%s: no sequences", r->path);
    }
    sw_query_set *q = NULL;
    int rc = sw_queries_create(&q, err);
    uint64_t residues = 0;
    while (rc == SW_OK && r->next < s->count && (!max_queries || q->count < max_queries)) {
        const query_entry *e = &s->entries[r->next];
        if (max_residues && q->count && residues + e->length > max_residues) break;
        rc = sw_queries_add_profile(q, s->ids + e->id_offset, s->ids + e->description_offset,
                                    s->residues + e->residue_offset, e->length, sw_queries_rows(s, r->next), err);
        residues += e->length;
        r->next++;
        r->queries_read++;
    }
    r->at_end = r->next >= s->count;
    if (rc) {
        sw_queries_free(q);
        return rc;
    }
    *out = q;
    return 1;
}

void sw_queries_close(sw_query_reader *r)
{
    if (!r) return;
    sw_queries_free(r->set);
    sw_fasta_close(r->fasta);
    free(r->path);
    free(r);
}

double sw_queries_fraction_read(const sw_query_reader *r)
{
    if (r->set) return r->set->count ? (double)r->next / (double)r->set->count : 1.0;
    uint64_t size = sw_fasta_file_size(r->fasta);
    if (!size) return -1.0;
    double f = (double)sw_fasta_file_offset(r->fasta) / (double)size;
    return f > 1.0 ? 1.0 : f;
}

static int add_query(sw_query_reader *r, sw_query_set *q, const sw_fasta_record *rec,
                     sw_error *err)
{
    size_t id_len;
    const char *desc;
    size_t desc_len;
    sw_fasta_split_header(rec->header, rec->header_len, &id_len, &desc, &desc_len);
    /* A bare '>' still needs a name in the output: its place in the file. */
    char fallback[32];
    const char *id = rec->header;
    r->queries_read++;
    if (id_len == 0) {
        snprintf(fallback, sizeof fallback, "query%llu", (unsigned long long)r->queries_read);
        id = fallback;
        id_len = strlen(fallback);
    }
    if (reserve((void **)&q->entries, &q->cap, q->count + 1, sizeof *q->entries) ||
        reserve((void **)&q->residues, &q->residues_cap, q->residues_len + rec->length, 1) ||
        reserve((void **)&q->ids, &q->ids_cap, q->ids_len + id_len + desc_len + 2, 1))
        return sw_error_set(err, SW_ENOMEM, "%s: out of memory reading queries", r->path);
    query_entry *e = &q->entries[q->count++];
    e->residue_offset = q->residues_len;
    e->length = rec->length;
    e->rows_offset = NO_ROWS;
    e->id_offset = q->ids_len;
    memcpy(q->residues + q->residues_len, rec->residues, rec->length);
    q->residues_len += rec->length;
    memcpy(q->ids + q->ids_len, id, id_len);
    q->ids[q->ids_len + id_len] = '\0';
    q->ids_len += id_len + 1;
    /* The description follows its identifier in the same arena. */
    e->description_offset = q->ids_len;
    if (desc_len) memcpy(q->ids + q->ids_len, desc, desc_len);
    q->ids[q->ids_len + desc_len] = '\0';
    q->ids_len += desc_len + 1;
    return SW_OK;
}

int sw_queries_next_batch(sw_query_reader *r, uint64_t max_residues, size_t max_queries,
                          sw_query_set **out, sw_error *err)
{
    if (r->set) return next_of_set(r, max_residues, max_queries, out, err);
    if (r->at_end && !r->have_pending) return 0;
    sw_query_set *q = calloc(1, sizeof *q);
    if (!q) return sw_error_set(err, SW_ENOMEM, "%s: out of memory", r->path);
    int rc = SW_OK;
    if (r->have_pending) {
        r->have_pending = 0;
        rc = add_query(r, q, &r->pending, err);
    }
    while (rc == SW_OK && !r->at_end && (!max_queries || q->count < max_queries)) {
        sw_fasta_record rec;
        rc = sw_fasta_next(r->fasta, &rec, err);
        if (rc < 0) break;
        if (rc == 0) {
            r->at_end = 1;
            break;
        }
        rc = SW_OK;
        if (max_residues && q->count && q->residues_len + rec.length > max_residues) {
            r->pending = rec;
            r->have_pending = 1;
            break;
        }
        rc = add_query(r, q, &rec, err);
    }
    if (rc == SW_OK && q->count == 0 && r->queries_read == 0)
        rc = sw_error_set(err, SW_EFORMAT, "%s: no sequences", r->path);
    if (rc < 0 || q->count == 0) {
        sw_queries_free(q);
        return rc;
    }
    *out = q;
    return 1;
}

int sw_queries_peek(sw_query_reader *r, sw_error *err)
{
    if (r->have_pending || r->at_end || r->set) return SW_OK;
    sw_fasta_record rec;
    int rc = sw_fasta_next(r->fasta, &rec, err);
    if (rc < 0) return rc;
    if (rc == 0) {
        r->at_end = 1;
        return SW_OK;
    }
    r->pending = rec;
    r->have_pending = 1;
    return SW_OK;
}

int sw_queries_at_end(const sw_query_reader *r) { return r->at_end && !r->have_pending; }

int sw_queries_load(const char *path, const sw_alphabet *alphabet, sw_warn_fn warn,
                    void *warn_user, sw_query_set **out, sw_error *err)
{
    sw_query_reader *r = NULL;
    int rc = sw_queries_open(path, alphabet, warn, warn_user, &r, err);
    if (rc) return rc;
    rc = sw_queries_next_batch(r, 0, 0, out, err);
    sw_queries_close(r);
    return rc < 0 ? rc : SW_OK;
}

void sw_queries_free(sw_query_set *q)
{
    if (!q) return;
    free(q->entries);
    free(q->residues);
    free(q->ids);
    free(q->rows);
    free(q);
}

int sw_queries_join(const sw_query_set *const *sets, size_t n, sw_query_set **out, sw_error *err)
{
    *out = NULL;
    size_t count = 0, rlen = 0, ilen = 0, plen = 0;
    for (size_t i = 0; i < n; i++) {
        count += sets[i]->count;
        rlen += sets[i]->residues_len;
        ilen += sets[i]->ids_len;
        plen += sets[i]->rows_len;
    }
    sw_query_set *q = calloc(1, sizeof *q);
    if (q) {
        q->entries = malloc(count ? count * sizeof *q->entries : 1);
        q->residues = malloc(rlen ? rlen : 1);
        q->ids = malloc(ilen ? ilen : 1);
        if (plen) q->rows = malloc(plen);
    }
    if (!q || !q->entries || !q->residues || !q->ids || (plen && !q->rows)) {
        sw_queries_free(q);
        return sw_error_set(err, SW_ENOMEM, "out of memory joining queries");
    }
    q->count = q->cap = count;
    q->residues_cap = rlen;
    q->ids_cap = ilen;
    q->rows_cap = plen;
    for (size_t i = 0; i < n; i++) {
        const sw_query_set *s = sets[i];
        for (size_t k = 0; k < s->count; k++) {
            query_entry e = s->entries[k];
            e.residue_offset += q->residues_len;
            e.id_offset += q->ids_len;
            e.description_offset += q->ids_len;
            if (e.rows_offset != NO_ROWS) e.rows_offset += q->rows_len;
            q->entries[q->count - count + k] = e;
        }
        count -= s->count;
        if (s->residues_len) memcpy(q->residues + q->residues_len, s->residues, s->residues_len);
        if (s->ids_len) memcpy(q->ids + q->ids_len, s->ids, s->ids_len);
        if (s->rows_len) memcpy(q->rows + q->rows_len, s->rows, s->rows_len);
        q->residues_len += s->residues_len;
        q->ids_len += s->ids_len;
        q->rows_len += s->rows_len;
    }
    *out = q;
    return SW_OK;
}

size_t sw_queries_count(const sw_query_set *q) { return q->count; }

const int8_t *sw_queries_rows(const sw_query_set *q, size_t i)
{
    const query_entry *e = &q->entries[i];
    return e->rows_offset == NO_ROWS ? NULL : q->rows + e->rows_offset;
}

int sw_queries_any_rows(const sw_query_set *q) { return q->rows_len > 0; }

int sw_queries_create(sw_query_set **out, sw_error *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory");
}

int sw_queries_add_profile(sw_query_set *q, const char *id, const char *description, const uint8_t *residues,
                           size_t length, const int8_t *rows, sw_error *err)
{
    const size_t id_len = strlen(id), desc_len = description ? strlen(description) : 0;
    if (length > (SIZE_MAX - q->rows_len) / SW_CODE_LIMIT)
        return sw_error_set(err, SW_ELIMIT, "query %s: too long", id);
    if (reserve((void **)&q->entries, &q->cap, q->count + 1, sizeof *q->entries) ||
        reserve((void **)&q->residues, &q->residues_cap, q->residues_len + length, 1) ||
        reserve((void **)&q->ids, &q->ids_cap, q->ids_len + id_len + desc_len + 2, 1) ||
        (rows && reserve((void **)&q->rows, &q->rows_cap, q->rows_len + length * SW_CODE_LIMIT, 1)))
        return sw_error_set(err, SW_ENOMEM, "out of memory keeping query %s", id);
    query_entry *e = &q->entries[q->count++];
    e->residue_offset = q->residues_len;
    e->length = length;
    e->rows_offset = NO_ROWS;
    if (length) memcpy(q->residues + q->residues_len, residues, length);
    q->residues_len += length;
    if (rows) {
        e->rows_offset = q->rows_len;
        if (length) memcpy(q->rows + q->rows_len, rows, length * SW_CODE_LIMIT);
        q->rows_len += length * SW_CODE_LIMIT;
    }
    e->id_offset = q->ids_len;
    memcpy(q->ids + q->ids_len, id, id_len + 1);
    q->ids_len += id_len + 1;
    e->description_offset = q->ids_len;
    if (desc_len) memcpy(q->ids + q->ids_len, description, desc_len);
    q->ids[q->ids_len + desc_len] = '\0';
    q->ids_len += desc_len + 1;
    return SW_OK;
}

const uint8_t *sw_queries_residues(const sw_query_set *q, size_t i, size_t *length)
{
    *length = q->entries[i].length;
    return q->residues + q->entries[i].residue_offset;
}

const char *sw_queries_id(const sw_query_set *q, size_t i) { return q->ids + q->entries[i].id_offset; }
const char *sw_queries_description(const sw_query_set *q, size_t i)
{
    return q->ids + q->entries[i].description_offset;
}

uint64_t sw_queries_total_residues(const sw_query_set *q) { return q->residues_len; }

/* Packed: the three sizes, then the entries, the residues and the
 * identifiers as they are in memory (the ranks of a job share one
 * architecture). */
int sw_queries_pack(const sw_query_set *q, uint8_t **out, size_t *bytes, sw_error *err)
{
    const uint64_t head[4] = {q->count, q->residues_len, q->ids_len, q->rows_len};
    const size_t n = sizeof head + q->count * sizeof *q->entries + q->residues_len + q->ids_len + q->rows_len;
    uint8_t *p = malloc(n);
    if (!p) return sw_error_set(err, SW_ENOMEM, "out of memory packing queries");
    uint8_t *at = p;
    memcpy(at, head, sizeof head);
    at += sizeof head;
    if (q->count) memcpy(at, q->entries, q->count * sizeof *q->entries);
    at += q->count * sizeof *q->entries;
    if (q->residues_len) memcpy(at, q->residues, q->residues_len);
    at += q->residues_len;
    if (q->ids_len) memcpy(at, q->ids, q->ids_len);
    at += q->ids_len;
    if (q->rows_len) memcpy(at, q->rows, q->rows_len);
    *out = p;
    *bytes = n;
    return SW_OK;
}

int sw_queries_unpack(const uint8_t *packed, size_t bytes, sw_query_set **out, sw_error *err)
{
    *out = NULL;
    uint64_t head[4];
    if (bytes < sizeof head) return sw_error_set(err, SW_ECORRUPT, "packed queries cut short");
    memcpy(head, packed, sizeof head);
    const uint64_t count = head[0], rlen = head[1], ilen = head[2], plen = head[3];
    if (count > bytes / sizeof(query_entry) || rlen > bytes || ilen > bytes || plen > bytes ||
        sizeof head + count * sizeof(query_entry) + rlen + ilen + plen != bytes)
        return sw_error_set(err, SW_ECORRUPT, "packed queries of the wrong size");
    sw_query_set *q = calloc(1, sizeof *q);
    if (!q) return sw_error_set(err, SW_ENOMEM, "out of memory unpacking queries");
    q->count = q->cap = (size_t)count;
    q->residues_len = q->residues_cap = (size_t)rlen;
    q->ids_len = q->ids_cap = (size_t)ilen;
    q->rows_len = q->rows_cap = (size_t)plen;
    q->entries = malloc(count ? count * sizeof *q->entries : 1);
    q->residues = malloc(rlen ? rlen : 1);
    q->ids = malloc(ilen ? ilen : 1);
    if (plen) q->rows = malloc(plen);
    if (!q->entries || !q->residues || !q->ids || (plen && !q->rows)) {
        sw_queries_free(q);
        return sw_error_set(err, SW_ENOMEM, "out of memory unpacking queries");
    }
    const uint8_t *at = packed + sizeof head;
    if (count) memcpy(q->entries, at, count * sizeof *q->entries);
    at += count * sizeof *q->entries;
    if (rlen) memcpy(q->residues, at, rlen);
    at += rlen;
    if (ilen) memcpy(q->ids, at, ilen);
    at += ilen;
    if (plen) memcpy(q->rows, at, plen);
    for (size_t i = 0; i < q->count; i++) {
        const query_entry *e = &q->entries[i];
        if (e->residue_offset > rlen || e->length > rlen - e->residue_offset || e->id_offset >= ilen ||
            e->description_offset >= ilen ||
            (e->rows_offset != NO_ROWS &&
             (e->rows_offset > plen || e->length > (plen - e->rows_offset) / SW_CODE_LIMIT))) {
            sw_queries_free(q);
            return sw_error_set(err, SW_ECORRUPT, "packed query %zu out of bounds", i);
        }
    }
    if (ilen && q->ids[ilen - 1] != '\0') {
        sw_queries_free(q);
        return sw_error_set(err, SW_ECORRUPT, "packed query names not terminated");
    }
    *out = q;
    return SW_OK;
}
