/* The query sequences of a search, read whole from a FASTA file. */
#ifndef SW_QUERIES_H
#define SW_QUERIES_H

#include <stddef.h>
#include <stdint.h>

#include "sw_alphabet.h"
#include "sw_error.h"

typedef struct sw_query_set sw_query_set;

/* Reads every record of `path`; an input without sequences is an error. */
int sw_queries_load(const char *path, const sw_alphabet *alphabet, sw_warn_fn warn,
                    void *warn_user, sw_query_set **out, sw_error *err);
void sw_queries_free(sw_query_set *q);

size_t sw_queries_count(const sw_query_set *q);
const uint8_t *sw_queries_residues(const sw_query_set *q, size_t i, size_t *length);
/* The identifier (header up to the first blank), NUL-terminated. */
const char *sw_queries_id(const sw_query_set *q, size_t i);
uint64_t sw_queries_total_residues(const sw_query_set *q);

#endif
