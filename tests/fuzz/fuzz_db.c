/* Fuzz target of the database reader (src/db/sw_db.h): writes the three
 * files of a database, opens it, and when it opens, reads everything a
 * search and `swsearch verify` read.
 *
 * Input: [flags: 1 byte] [index size: u32 LE] [residue file size: u32 LE]
 *        [index] [residue file] [header file: the rest]
 * Sizes past the end of the input are cut to what is there. The data files
 * are written under both namings (format version 1: PREFIX.swr, .swh;
 * version 2: PREFIX.<id>.swr, .swh with the id at offset 16 of the index),
 * so either version finds them.
 *
 * Checksums would stop nearly every mutation at the first check, so flags
 * ask the harness to repair what a mutation broke, reaching the checks
 * behind them (docs/FORMAT.md):
 *   bit 0: the XXH3 at the end of the index
 *   bit 1: the recorded sizes of the three files and the database id and
 *          version in the data files' headers
 *   bit 2: the compressed and decompressed XXH3 of every chunk whose bytes
 *          lie inside its data file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>
#include <zstd.h>

#include "fuzz_common.h"
#include "sw_alphabet.h"
#include "sw_db.h"

enum { FIX_INDEX_HASH = 1, FIX_LINKS = 2, FIX_CHUNK_HASHES = 4 };

/* Larger claims are refused before reading: a forged index may claim
 * chunks of gigabytes that the reader would allocate before zstd sees that
 * the frame is small, and libFuzzer counts big allocations as crashes. */
#define MAX_CLAIMED_BYTES ((uint64_t)64 << 20)
/* Chunks larger than this keep their (wrong) data checksum. */
#define MAX_REPAIR_BYTES ((size_t)4 << 20)

typedef struct part {
    uint8_t *data;
    size_t size;
} part;

static void repair_chunk_table(uint8_t *row, uint64_t rows, part *file)
{
    for (uint64_t r = 0; r < rows; r++, row += SW_DB_CHUNK_ENTRY_SIZE) {
        uint64_t offset = fuzz_get_u64(row + SW_DB_CK_OFFSET);
        uint64_t size = fuzz_get_u64(row + SW_DB_CK_COMPRESSED_SIZE);
        if (offset > file->size || size > file->size - offset) continue;
        const uint8_t *src = file->data + offset;
        fuzz_put_u64(row + SW_DB_CK_HASH_COMPRESSED, XXH3_64bits(src, (size_t)size));
        unsigned long long want = ZSTD_getFrameContentSize(src, (size_t)size);
        if (want == ZSTD_CONTENTSIZE_ERROR || want == ZSTD_CONTENTSIZE_UNKNOWN ||
            want > MAX_REPAIR_BYTES)
            continue;
        uint8_t *dst = malloc(want ? (size_t)want : 1);
        FUZZ_CHECK(dst != NULL);
        size_t got = ZSTD_decompress(dst, (size_t)want, src, (size_t)size);
        if (!ZSTD_isError(got)) fuzz_put_u64(row + SW_DB_CK_HASH_DATA, XXH3_64bits(dst, got));
        free(dst);
    }
}

static void repair(unsigned flags, part *index, part *residues, part *headers)
{
    uint8_t *ix = index->data;
    size_t n = index->size;
    if (n < SW_DB_INDEX_FIXED_SIZE + 8) return;
    if (flags & FIX_LINKS) {
        fuzz_put_u64(ix + SW_DB_IX_RESIDUE_FILE_SIZE, residues->size);
        fuzz_put_u64(ix + SW_DB_IX_HEADER_FILE_SIZE, headers->size);
        fuzz_put_u64(ix + SW_DB_IX_INDEX_FILE_SIZE, n);
        /* Version, flags and id: bytes 8..23 of the file header. */
        part *data[2] = {residues, headers};
        for (int d = 0; d < 2; d++)
            if (data[d]->size >= SW_DB_FILE_HEADER_SIZE)
                memcpy(data[d]->data + SW_DB_IX_VERSION, ix + SW_DB_IX_VERSION,
                       SW_DB_FILE_HEADER_SIZE - SW_DB_IX_VERSION);
    }
    if (flags & FIX_CHUNK_HASHES) {
        uint64_t seqs = fuzz_get_u64(ix + SW_DB_IX_NUM_SEQS);
        uint64_t nr = fuzz_get_u64(ix + SW_DB_IX_NUM_RESIDUE_CHUNKS);
        uint64_t nh = fuzz_get_u64(ix + SW_DB_IX_NUM_HEADER_CHUNKS);
        uint64_t body = n - SW_DB_INDEX_FIXED_SIZE - 8;
        if (seqs <= body / 12) {
            uint64_t tables = SW_DB_INDEX_FIXED_SIZE + (seqs * 12 + 7) / 8 * 8;
            uint64_t room = n - 8 > tables ? (n - 8 - tables) / SW_DB_CHUNK_ENTRY_SIZE : 0;
            if (nr > room) nr = room;
            if (nh > room - nr) nh = room - nr;
            repair_chunk_table(ix + tables, nr, residues);
            repair_chunk_table(ix + tables + nr * SW_DB_CHUNK_ENTRY_SIZE, nh, headers);
        }
    }
    if (flags & FIX_INDEX_HASH) fuzz_put_u64(ix + n - 8, XXH3_64bits(ix, n - 8));
}

static void write_db(const char *dir, const part *index, const part *residues,
                     const part *headers)
{
    char path[FUZZ_PATH_MAX];
    snprintf(path, sizeof path, "%s/db.swi", dir);
    fuzz_write_file(path, index->data, index->size);
    snprintf(path, sizeof path, "%s/db.swr", dir);
    fuzz_write_file(path, residues->data, residues->size);
    snprintf(path, sizeof path, "%s/db.swh", dir);
    fuzz_write_file(path, headers->data, headers->size);
    if (index->size >= SW_DB_FILE_HEADER_SIZE) {
        unsigned long long id = fuzz_get_u64(index->data + SW_DB_IX_ID);
        snprintf(path, sizeof path, "%s/db.%016llx.swr", dir, id);
        fuzz_write_file(path, residues->data, residues->size);
        snprintf(path, sizeof path, "%s/db.%016llx.swh", dir, id);
        fuzz_write_file(path, headers->data, headers->size);
    }
}

static void check_progress(void *user, uint64_t done, uint64_t total)
{
    uint64_t *last = user;
    FUZZ_CHECK(done <= total && done >= *last);
    *last = done;
}

/* What a search and `swsearch verify` do with an open database; every
 * promise of sw_db.h that the open made is checked on the way. */
static void read_everything(sw_db *db)
{
    uint64_t n = sw_db_num_seqs(db);
    int alphabet = sw_db_alphabet(db);
    FUZZ_CHECK(alphabet == SW_ALPHABET_PROTEIN || alphabet == SW_ALPHABET_DNA);
    int codes = alphabet == SW_ALPHABET_PROTEIN ? SW_PROTEIN_CODES : SW_DNA_CODES;
    uint32_t version = sw_db_format_version(db);
    FUZZ_CHECK(version >= SW_DB_FORMAT_VERSION_OLDEST && version <= SW_DB_FORMAT_VERSION);
    for (int which = SW_DB_FILE_INDEX; which <= SW_DB_FILE_HEADERS; which++)
        FUZZ_CHECK(sw_db_path(db, which) != NULL);

    const uint32_t *lengths = sw_db_lengths(db);
    uint64_t residues = 0;
    uint32_t longest = 0;
    for (uint64_t s = 0; s < n; s++) {
        FUZZ_CHECK(lengths[s] >= 1);
        if (s > 0) FUZZ_CHECK(lengths[s] >= lengths[s - 1]);
        FUZZ_CHECK(sw_db_original_index(db, s) < n);
        residues += lengths[s];
        longest = lengths[s] > longest ? lengths[s] : longest;
    }
    FUZZ_CHECK(sw_db_original_index(db, n) == UINT64_MAX);
    FUZZ_CHECK(residues == sw_db_num_residues(db));
    FUZZ_CHECK(longest == sw_db_max_length(db));

    size_t chunks = sw_db_num_chunks(db);
    uint64_t next_seq = 0;
    for (size_t c = 0; c < chunks; c++) {
        sw_db_chunk info;
        sw_db_chunk_info(db, c, &info);
        FUZZ_CHECK(info.first_seq == next_seq && info.num_seqs >= 1);
        FUZZ_CHECK(info.num_seqs <= n - info.first_seq);
        uint64_t sum = 0;
        for (uint64_t s = info.first_seq; s < info.first_seq + info.num_seqs; s++) sum += lengths[s];
        FUZZ_CHECK(sum == info.num_residues);
        next_seq += info.num_seqs;
    }
    FUZZ_CHECK(next_seq == n);

    sw_db_files files;
    sw_db_file_info(db, &files);
    if (residues > MAX_CLAIMED_BYTES || files.header_text_bytes > MAX_CLAIMED_BYTES) return;

    sw_error err;
    sw_error_clear(&err);
    uint64_t last = 0;
    int verified = sw_db_verify(db, check_progress, &last, &err);
    if (verified != SW_OK) fuzz_check_error(verified, &err);
    if (getenv("SW_FUZZ_VERBOSE"))
        fprintf(stderr, "opened: version %u, %llu sequences, %zu residue chunks, verify %d\n",
                (unsigned)version, (unsigned long long)n, chunks, verified);

    int headers_ok = sw_db_check_headers(db, &err);
    if (headers_ok != SW_OK) fuzz_check_error(headers_ok, &err);
    /* verify checks everything check_headers checks, and more. */
    if (verified == SW_OK) FUZZ_CHECK(headers_ok == SW_OK);

    for (size_t c = 0; c < chunks; c++) {
        sw_db_chunk info;
        sw_db_chunk_info(db, c, &info);
        uint8_t *buf = malloc(info.num_residues ? (size_t)info.num_residues : 1);
        FUZZ_CHECK(buf != NULL);
        int rc = sw_db_read_chunk(db, c, buf, &err);
        if (rc == SW_OK) {
            for (uint64_t i = 0; i < info.num_residues; i++) FUZZ_CHECK(buf[i] < codes);
        } else {
            fuzz_check_error(rc, &err);
            FUZZ_CHECK(verified != SW_OK);
        }
        free(buf);
    }
    uint8_t byte;
    FUZZ_CHECK(sw_db_read_chunk(db, chunks, &byte, &err) == SW_EINVAL);

    if (n > 0) {
        /* Both ends, the middle, and a repeat, in no particular order. */
        uint64_t seqs[4] = {n - 1, 0, n / 2, n - 1};
        char *many[4];
        int rc = sw_db_read_headers(db, seqs, 4, many, &err);
        if (rc != SW_OK) {
            fuzz_check_error(rc, &err);
            FUZZ_CHECK(verified != SW_OK);
            for (int i = 0; i < 4; i++) FUZZ_CHECK(many[i] == NULL);
        }
        for (int i = 0; i < 4; i++) {
            char *one;
            int rc1 = sw_db_read_headers(db, &seqs[i], 1, &one, &err);
            if (rc1 != SW_OK) {
                fuzz_check_error(rc1, &err);
                FUZZ_CHECK(one == NULL);
            }
            /* The batch decoded this header's chunk among others. */
            if (rc == SW_OK) FUZZ_CHECK(rc1 == SW_OK && strcmp(one, many[i]) == 0);
            free(one);
            free(many[i]);
        }
    }
    char *none;
    FUZZ_CHECK(sw_db_read_headers(db, &n, 1, &none, &err) == SW_EINVAL && none == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 9) return 0;
    unsigned flags = data[0];
    size_t rest = size - 9;
    size_t index_size = fuzz_get_u32(data + 1), residue_size = fuzz_get_u32(data + 5);
    if (index_size > rest) index_size = rest;
    if (residue_size > rest - index_size) residue_size = rest - index_size;

    /* One writable copy, cut into the three files. */
    uint8_t *copy = malloc(rest ? rest : 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, data + 9, rest);
    part index = {copy, index_size};
    part residues = {copy + index_size, residue_size};
    part headers = {copy + index_size + residue_size, rest - index_size - residue_size};
    repair(flags, &index, &residues, &headers);

    char dir[FUZZ_PATH_MAX], prefix[FUZZ_PATH_MAX];
    fuzz_dir_make(dir);
    write_db(dir, &index, &residues, &headers);
    free(copy);
    snprintf(prefix, sizeof prefix, "%s/db", dir);

    sw_error err;
    sw_error_clear(&err);
    uint32_t version;
    uint64_t id;
    int id_rc = sw_db_index_id(prefix, &version, &id, &err);
    if (id_rc != SW_OK) fuzz_check_error(id_rc, &err);

    sw_db *db = NULL;
    int rc = sw_db_open(prefix, &db, &err);
    if (rc == SW_OK) {
        FUZZ_CHECK(db != NULL);
        /* The open checked all that sw_db_index_id checks. */
        FUZZ_CHECK(id_rc == SW_OK);
        FUZZ_CHECK(sw_db_format_version(db) == version);
        /* The data files opened are the ones of that id. */
        char *residues = sw_db_file_name(prefix, version, id, SW_DB_FILE_RESIDUES);
        FUZZ_CHECK(residues && strcmp(residues, sw_db_path(db, SW_DB_FILE_RESIDUES)) == 0);
        free(residues);
        read_everything(db);
        sw_db_close(db);
    } else {
        fuzz_check_error(rc, &err);
        FUZZ_CHECK(db == NULL);
    }
    fuzz_dir_remove(dir);
    return 0;
}
