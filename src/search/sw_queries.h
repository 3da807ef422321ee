/* The query sequences of a search, read from a FASTA file whole or in
 * batches, so that a search's memory is bounded by a batch. */
#ifndef SW_QUERIES_H
#define SW_QUERIES_H

#include <stddef.h>
#include <stdint.h>

#include "sw_alphabet.h"
#include "sw_error.h"

typedef struct sw_query_set sw_query_set;
typedef struct sw_query_reader sw_query_reader;

/* Opens `path` ("-" is standard input) for sw_queries_next_batch(). */
int sw_queries_open(const char *path, const sw_alphabet *alphabet, sw_warn_fn warn,
                    void *warn_user, sw_query_reader **out, sw_error *err);
/* The same from the open descriptor `fd` (left open), named `name` in
 * messages; a query longer than `max_length` residues (0: no bound) fails
 * with SW_ELIMIT as soon as it passes it, before it is all in memory. */
int sw_queries_open_fd(int fd, const char *name, const sw_alphabet *alphabet, uint64_t max_length, sw_warn_fn warn,
                       void *warn_user, sw_query_reader **out, sw_error *err);
/* A reader that gives out the queries of `set` (made in memory: PSSM
 * queries), which it takes (freed on close, or here on failure); `name`
 * names it in messages. */
int sw_queries_open_set(sw_query_set *set, const char *name, sw_query_reader **out, sw_error *err);
/* Reads the next queries in file order: as many as fit in `max_residues`
 * residues and `max_queries` queries (0: no bound), but at least one, so a
 * query longer than the bound makes a batch of its own. Returns 1 with a
 * batch, 0 at the end of the input, or a negative code; an input without
 * sequences is an error at the first call. */
int sw_queries_next_batch(sw_query_reader *r, uint64_t max_residues, size_t max_queries,
                          sw_query_set **out, sw_error *err);
/* Fraction of the input file read so far, from 0 to 1; -1 when its size is
 * unknown (a pipe). */
double sw_queries_fraction_read(const sw_query_reader *r);
/* Reads the next record ahead, unless one is read already, so that
 * sw_queries_at_end() knows: 0, or the error that the next batch would
 * have met. */
int sw_queries_peek(sw_query_reader *r, sw_error *err);
/* 1 when no query is left to read (known once a batch or a peek has met
 * the end). */
int sw_queries_at_end(const sw_query_reader *r);
void sw_queries_close(sw_query_reader *r);

/* Reads every record of `path`; an input without sequences is an error. */
int sw_queries_load(const char *path, const sw_alphabet *alphabet, sw_warn_fn warn,
                    void *warn_user, sw_query_set **out, sw_error *err);
void sw_queries_free(sw_query_set *q);

size_t sw_queries_count(const sw_query_set *q);
const uint8_t *sw_queries_residues(const sw_query_set *q, size_t i, size_t *length);
/* The identifier (header up to the first blank), NUL-terminated; a query
 * whose header is empty or blank is named "query<N>", N its 1-based number
 * among the queries of the file. */
const char *sw_queries_id(const sw_query_set *q, size_t i);
/* The rest of the header after the identifier and the blanks that follow
 * it; "" when there is none. */
const char *sw_queries_description(const sw_query_set *q, size_t i);
uint64_t sw_queries_total_residues(const sw_query_set *q);
/* A PSSM query's position-specific scores (length x SW_CODE_LIMIT, row i
 * scoring position i, in the matrix's units); NULL for a plain query. */
const int8_t *sw_queries_rows(const sw_query_set *q, size_t i);
/* 1 when some query of the set has rows. */
int sw_queries_any_rows(const sw_query_set *q);

/* An empty set, and a query added to it: its identifier (no blanks),
 * description ("" or NULL: none), residues (codes) and, for a PSSM query,
 * its rows (NULL: a plain query). */
int sw_queries_create(sw_query_set **out, sw_error *err);
int sw_queries_add_profile(sw_query_set *q, const char *id, const char *description, const uint8_t *residues,
                           size_t length, const int8_t *rows, sw_error *err);

/* One set of the queries of `n` sets, in their order (a scan shared by
 * several searches, sw_report.h). */
int sw_queries_join(const sw_query_set *const *sets, size_t n, sw_query_set **out, sw_error *err);

/* A batch as bytes, to hand it to another process of an MPI job
 * (sw_search_ranks.h): *out malloc'ed, *bytes long. sw_queries_unpack()
 * makes the same batch from them, checking every offset. */
int sw_queries_pack(const sw_query_set *q, uint8_t **out, size_t *bytes, sw_error *err);
int sw_queries_unpack(const uint8_t *packed, size_t bytes, sw_query_set **out, sw_error *err);

#endif
