/* Writing a swsearch database (docs/FORMAT.md). Memory stays bounded by the
 * per-sequence metadata: residues and headers are spilled to unlinked
 * temporary files while reading, then gathered in sorted order. One writer
 * per prefix at a time (a lock on PREFIX.swlock); the new database replaces
 * the old one by a single rename of the index, so readers and a killed
 * writer see the old database or the new one, never a mix. */
#ifndef SW_DB_WRITER_H
#define SW_DB_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_db_writer sw_db_writer;

typedef struct sw_db_writer_options {
    int alphabet;            /* an sw_alphabet_kind */
    int threads;             /* compression threads; <= 0: all cores */
    int compression_level;   /* zstd level; 0: the default */
    /* Called from the thread running sw_db_writer_finish(), never concurrently,
     * with the phases "sorting", "compressing residues", "compressing headers"
     * and "writing index"; each phase ends with done == total. */
    void (*progress)(void *user, const char *phase, uint64_t done, uint64_t total);
    void *progress_user;
} sw_db_writer_options;

typedef struct sw_db_build_stats {
    uint64_t num_seqs, num_residues;
    uint64_t residue_bytes, header_bytes, index_bytes; /* file sizes written */
} sw_db_build_stats;

/* Refuses (SW_EINVAL, naming both paths) when the open file `fd`, the
 * input of a build read under the name `input_name`, is one of the files
 * that building `prefix` would create, replace or remove: the index, the
 * lock file, data files of either format version, leftovers of killed runs.
 * Devices and inodes are compared, not names. Call it before
 * sw_db_writer_create(), which already takes the lock file. */
int sw_db_writer_check_input(const char *prefix, int fd, const char *input_name, sw_error *err);

/* Takes the lock of `prefix` (failing at once, with a message saying so,
 * while another writer holds it), removes what killed runs of this prefix
 * left, and makes the spill files. Refuses a prefix that is a directory, a
 * device, FIFO or socket, or whose last component is empty, "." or "..". */
int sw_db_writer_create(const char *prefix, const sw_db_writer_options *options,
                        sw_db_writer **out, sw_error *err);

/* Adds one sequence: its header (without '>') and its residues as codes. */
int sw_db_writer_add(sw_db_writer *w, const char *header, size_t header_len,
                     const uint8_t *residues, size_t length, sw_error *err);

/* Sorts, compresses, writes, switches to the new database and removes the
 * files of the one it replaced; releases the lock, whatever the outcome.
 * `stats` may be NULL. */
int sw_db_writer_finish(sw_db_writer *w, sw_db_build_stats *stats, sw_error *err);

/* Frees the writer; if sw_db_writer_finish() did not succeed, removes every
 * file it made, so no partial database is left, and releases the lock. */
void sw_db_writer_free(sw_db_writer *w);

#ifdef __cplusplus
}
#endif

#endif
