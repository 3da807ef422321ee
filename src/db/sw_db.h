/* Reading a swsearch database: sequences sorted by length, residues as
 * alphabet codes in zstd chunks, every chunk and the index checksummed with
 * XXH3. The on-disk format is in docs/FORMAT.md. */
#ifndef SW_DB_H
#define SW_DB_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version sw_db_writer writes. Versions 1 and 2 share one layout and
 * differ only in the names of the data files (sw_db_file_name()); the reader
 * opens both. */
#define SW_DB_FORMAT_VERSION 2
#define SW_DB_FORMAT_VERSION_OLDEST 1

/* Layout constants, shared by the reader and sw_db_writer; docs/FORMAT.md is
 * the full description. */
#define SW_DB_MAGIC_SIZE 8
#define SW_DB_MAGIC_INDEX "\x89SWI\r\n\x1a\n"
#define SW_DB_MAGIC_RESIDUES "\x89SWR\r\n\x1a\n"
#define SW_DB_MAGIC_HEADERS "\x89SWH\r\n\x1a\n"
#define SW_DB_FILE_HEADER_SIZE 24   /* magic, version, flags, database id */
#define SW_DB_INDEX_FIXED_SIZE 96   /* file header and counts of the index */
#define SW_DB_CHUNK_ENTRY_SIZE 56   /* one row of a chunk table */

/* Byte offsets of the fields of the index's fixed part; the first four form
 * the file header that the residue and header files start with too. */
enum {
    SW_DB_IX_MAGIC = 0,
    SW_DB_IX_VERSION = 8,
    SW_DB_IX_FLAGS = 12,
    SW_DB_IX_ID = 16,
    SW_DB_IX_ALPHABET = 24,
    SW_DB_IX_MAX_LENGTH = 28,
    SW_DB_IX_NUM_SEQS = 32,
    SW_DB_IX_NUM_RESIDUES = 40,
    SW_DB_IX_HEADER_TEXT = 48,
    SW_DB_IX_NUM_RESIDUE_CHUNKS = 56,
    SW_DB_IX_NUM_HEADER_CHUNKS = 64,
    SW_DB_IX_RESIDUE_FILE_SIZE = 72,
    SW_DB_IX_HEADER_FILE_SIZE = 80,
    SW_DB_IX_INDEX_FILE_SIZE = 88
};

/* Byte offsets of the fields of a chunk table row. */
enum {
    SW_DB_CK_FIRST_SEQ = 0,
    SW_DB_CK_NUM_SEQS = 8,
    SW_DB_CK_SIZE = 16,
    SW_DB_CK_OFFSET = 24,
    SW_DB_CK_COMPRESSED_SIZE = 32,
    SW_DB_CK_HASH_COMPRESSED = 40,
    SW_DB_CK_HASH_DATA = 48
};

typedef struct sw_db sw_db;

/* The three files of a database. */
enum { SW_DB_FILE_INDEX, SW_DB_FILE_RESIDUES, SW_DB_FILE_HEADERS };

/* The name of file `which` of the database `prefix` whose index has format
 * `version` and database id `id`: PREFIX.swi; PREFIX.swr and PREFIX.swh in
 * version 1; PREFIX.<id>.swr and PREFIX.<id>.swh from version 2 on, the id as
 * 16 lowercase hex digits, so that a rebuild writes its data files beside
 * the ones in use and switches to them by replacing the index alone.
 * malloc'ed; NULL when out of memory. */
char *sw_db_file_name(const char *prefix, uint32_t version, uint64_t id, int which);

/* Opens the database written under `prefix`: checks magic numbers, format
 * version, the index checksum and that the index agrees with the sizes of
 * the data files. Chunk checksums are checked when chunks are read.
 * A rebuild that replaces the database while it is being opened makes the
 * open start again with the new index, so the result is the old database or
 * the new one, never a mix. Takes no lock: readers need no write access. */
int sw_db_open(const char *prefix, sw_db **out, sw_error *err);
/* Closes a database or a part (sw_db_part_open); closing a part frees only
 * the part, never the whole database's files or index. */
void sw_db_close(sw_db *db);

/* A run of consecutive sorted sequences of a database. */
typedef struct sw_db_range {
    uint64_t first, count;
} sw_db_range;

/* Opens a part of the open database `db`: the sorted sequences of the `n`
 * ranges (each non-empty, ascending and disjoint, inside the database),
 * numbered 0.. in range order. A part is what one MPI rank searches: every
 * sw_db_* function treats it as a database of these sequences alone (sorted
 * by length too, since the ranges ascend), and its residue chunks are
 * windows of the file's chunks, so reading it decodes only the file chunks
 * that hold its sequences, each checked as always. What belongs to the
 * files stays the whole's: sw_db_original_index() (the tie-break of hits),
 * paths, version, alphabet, sw_db_file_info(), sw_db_verify() and
 * sw_db_check_headers(); errors name the file's own chunk numbers.
 * `db` must be a whole database (a part of a part is SW_EINVAL) and must
 * outlive the part. Bad ranges or n == 0: SW_EINVAL, *out NULL. */
int sw_db_part_open(const sw_db *db, const sw_db_range *ranges, size_t n, sw_db **out,
                    sw_error *err);

/* The whole database's number of sequence `seq` of a part (of a whole
 * database: `seq` itself); UINT64_MAX if `seq` is out of range. */
uint64_t sw_db_whole_seq(const sw_db *db, uint64_t seq);

/* The path of file `which` (SW_DB_FILE_*) of an open database, as opened:
 * for checks that an output does not overwrite the database. NULL for an
 * unknown `which`. */
const char *sw_db_path(const sw_db *db, int which);

/* Reads the format version and database id of the index `prefix`.swi after
 * checking its magic number, version and checksum, without opening the data
 * files: how sw_db_writer learns which data files are in use. */
int sw_db_index_id(const char *prefix, uint32_t *version, uint64_t *id, sw_error *err);

uint32_t sw_db_format_version(const sw_db *db);
sw_alphabet_kind sw_db_alphabet(const sw_db *db);
uint64_t sw_db_num_seqs(const sw_db *db);
uint64_t sw_db_num_residues(const sw_db *db);
uint32_t sw_db_max_length(const sw_db *db);

/* Sequences are numbered 0..num_seqs-1 in ascending length order (ties keep
 * input order). */
const uint32_t *sw_db_lengths(const sw_db *db);
/* 0-based position of a sorted sequence in the input FASTA; UINT64_MAX if
 * `seq` is out of range. */
uint64_t sw_db_original_index(const sw_db *db, uint64_t seq);

typedef struct sw_db_chunk {
    uint64_t first_seq;      /* first sorted sequence in the chunk */
    uint64_t num_seqs;
    uint64_t num_residues;   /* decompressed size in bytes */
    /* Bytes read from the file to read the chunk: a part's chunk reads the
     * whole file chunk it is a window of. */
    uint64_t compressed_size;
} sw_db_chunk;

size_t sw_db_num_chunks(const sw_db *db);
void sw_db_chunk_info(const sw_db *db, size_t chunk, sw_db_chunk *info);

/* Reads, checks and decompresses one residue chunk into `residues`
 * (info.num_residues bytes): the sequences of the chunk back to back, in
 * sorted order. Safe to call from several threads at once. */
int sw_db_read_chunk(const sw_db *db, size_t chunk, uint8_t *residues, sw_error *err);

/* Reads every residue chunk into one malloc'ed buffer of sw_db_num_residues()
 * bytes (*out), in sorted order, chunks in parallel on `threads` threads
 * (<= 0: every online CPU). The error is the first failing chunk's. */
int sw_db_read_all_residues(const sw_db *db, int threads, uint8_t **out, sw_error *err);

/* The residues of the sorted sequences first .. first + count - 1, back to
 * back, into `dst` (room for their lengths' sum), decoding only the chunks
 * that hold them, chunks in parallel on `threads` threads (<= 0: every
 * online CPU): a part of a database too large to hold whole. */
int sw_db_read_range(const sw_db *db, uint64_t first, uint64_t count, uint8_t *dst, int threads, sw_error *err);

/* The header lines (without '>') of `n` sorted sequences (in any order,
 * repeats allowed) into headers[0..n-1], as malloc'ed NUL-terminated
 * strings, decoding each header chunk once: the fast way to report many
 * hits. On failure every headers[i] is NULL. Free each with free(). */
int sw_db_read_headers(const sw_db *db, const uint64_t *seqs, size_t n, char **headers,
                       sw_error *err);

/* The residues (codes) of `n` sorted sequences (in any order, repeats
 * allowed) into residues[0..n-1], each malloc'ed (sw_db_lengths() bytes, at
 * least 1 allocated), decoding each residue chunk once, chunks in parallel
 * on `threads` threads (<= 0: every online CPU): the subjects of the hits
 * to align. On failure every residues[i] is NULL. */
int sw_db_read_sequences(const sw_db *db, const uint64_t *seqs, size_t n, int threads,
                         uint8_t **residues, sw_error *err);

/* Checks every checksum and the consistency of every chunk; the error names
 * the first bad one. `progress` (may be NULL) gets done/total chunk counts. */
int sw_db_verify(const sw_db *db, void (*progress)(void *user, uint64_t done, uint64_t total),
                 void *user, sw_error *err);

/* Reads the header file once and checks the compressed checksum of every
 * header chunk; the error (SW_ECORRUPT) names the first damaged chunk and its
 * sequences. A search calls it before it starts, so that a damaged header
 * chunk stops it before any output rather than when a hit falls into that
 * chunk. Compressed checksums suffice: bytes equal to the ones written
 * decompress to what the writer compressed (zstd decoding is deterministic),
 * and the checksum of the decompressed bytes is still checked whenever a
 * chunk is decoded. Hashing without decompressing runs at the speed of
 * reading the file. Once it has passed for an open database, it returns at
 * once: a program that searches one database many times reads the file
 * once. */
int sw_db_check_headers(const sw_db *db, sw_error *err);

/* Sizes of the database files, for `swsearch info`. */
typedef struct sw_db_files {
    uint64_t index_bytes, residue_bytes, header_bytes;
    uint64_t num_header_chunks;
    uint64_t header_text_bytes;
} sw_db_files;
void sw_db_file_info(const sw_db *db, sw_db_files *info);

#ifdef __cplusplus
}
#endif

#endif
