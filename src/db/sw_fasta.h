/* Streaming FASTA reader for plain or zstd-compressed files (detected by the
 * zstd magic number, not the file name). Residues come back encoded. */
#ifndef SW_FASTA_H
#define SW_FASTA_H

#include <stddef.h>
#include <stdint.h>

#include "sw_alphabet.h"
#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_fasta sw_fasta;

/* The longest header line accepted, in bytes: far above any real one (the
 * merged headers of NCBI's nr reach some hundred kilobytes), and what keeps
 * one line without an end from filling the memory of a reader, a server's
 * above all. */
#define SW_FASTA_MAX_HEADER ((size_t)1 << 24)

typedef struct sw_fasta_options {
    const sw_alphabet *alphabet; /* NULL: protein */
    sw_warn_fn warn;             /* NULL: warnings are dropped */
    void *warn_user;
    /* 0: no limit; a longer sequence fails with SW_ELIMIT as soon as it
     * passes the limit, before its residues are all held in memory. */
    uint64_t max_length;
} sw_fasta_options;

/* One record; the pointers stay valid until the next sw_fasta_next() call. */
typedef struct sw_fasta_record {
    const char *header;       /* the '>' line without '>' and line end; may be "" */
    size_t header_len;
    const uint8_t *residues;  /* alphabet codes */
    size_t length;            /* > 0: empty sequences are skipped with a warning */
    uint64_t line;            /* line number of the header */
} sw_fasta_record;

/* Opens `path` ("-" is standard input). `options` may be NULL. */
int sw_fasta_open(const char *path, const sw_fasta_options *options, sw_fasta **out,
                  sw_error *err);

/* Reads the open descriptor `fd` (left open), named `name` in messages:
 * for input that arrives over a socket. */
int sw_fasta_open_fd(int fd, const char *name, const sw_fasta_options *options, sw_fasta **out,
                     sw_error *err);

/* Returns 1 with the next record, 0 at the end of input, or a negative code.
 * Errors name the file, the line and the problem:
 * "q.fa:12: invalid residue '#' in sequence P12345". */
int sw_fasta_next(sw_fasta *f, sw_fasta_record *rec, sw_error *err);

/* Bytes of (decompressed) input consumed so far, for progress reports. */
uint64_t sw_fasta_bytes_read(const sw_fasta *f);
/* Size of the input file in bytes (compressed size for .zst), 0 if unknown. */
uint64_t sw_fasta_file_size(const sw_fasta *f);
/* Bytes of the input file consumed so far (compressed bytes for .zst). */
uint64_t sw_fasta_file_offset(const sw_fasta *f);
/* The descriptor being read (0 for "-"), so that a caller can fstat() it and
 * refuse to write over its own input. */
int sw_fasta_fd(const sw_fasta *f);

void sw_fasta_close(sw_fasta *f);

/* Splits a header into its identifier (up to the first blank) and the
 * description after the blanks. */
void sw_fasta_split_header(const char *header, size_t len, size_t *id_len,
                           const char **description, size_t *description_len);

#ifdef __cplusplus
}
#endif

#endif
