/* Opens, reads and verifies a database (docs/FORMAT.md); every number read from
 * disk is checked before use, so damaged files give errors, never wrong data. */
#include "sw_db.h"
#include "sw_file_io.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>
#include <zstd.h>

#include "sw_alphabet.h"
#include "sw_clock.h"
#include "sw_pool.h"

enum { DATA_RESIDUES, DATA_HEADERS, NUM_DATA };

/* Every chunk is a window of a chunk of the file: `size` bytes from byte
 * `skip` of the decoded file chunk `file_chunk`. A whole database's chunk
 * is a window of itself (skip 0, full size); a part's chunk is the piece of
 * one of its ranges inside one file chunk. */
typedef struct chunk {
    uint64_t first_seq, num_seqs, size, offset, compressed_size;
    uint64_t hash_compressed, hash_data;
    size_t file_chunk;
    uint64_t skip;
} chunk;

/* A part's sequences part_first.. (up to the next run's part_first or the
 * end of the part) are the whole's first.. */
typedef struct part_run {
    uint64_t first, part_first;
} part_run;

struct sw_db {
    char *path_index;
    char *path[NUM_DATA];
    int fd[NUM_DATA];
    uint8_t *index; /* the whole index file; arrays point into it */
    uint64_t index_bytes;
    uint64_t id;
    uint32_t version;
    int alphabet;
    int alphabet_size;
    uint32_t max_length;
    uint64_t num_seqs, num_residues, header_text_bytes;
    const uint32_t *lengths, *positions, *header_lengths;
    chunk *chunks[NUM_DATA];
    size_t num_chunks[NUM_DATA];
    uint64_t file_bytes[NUM_DATA];
    /* sw_db_check_headers passed: a later search of this open database
     * need not read the header file again (a chunk decoded later is still
     * checked as it is decoded). */
    atomic_int headers_checked;
    /* A part (sw_db_part_open) has its own sequences, lengths, positions
     * and residue chunk table (windows of the whole's); it reads through
     * `whole` the files, paths and header chunks, which it neither opens
     * nor owns: its fds are -1, its paths NULL and it has no header
     * chunks. NULL for a whole database. */
    const sw_db *whole;
    part_run *runs;
    size_t num_runs;
    uint32_t *part_arrays; /* lengths and positions, when copied */
};

/* The database whose files hold `db`'s chunks. */
static const sw_db *whole_of(const sw_db *db) { return db->whole ? db->whole : db; }

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* The per-sequence arrays are used in place; only a big-endian host has to
 * convert them. */
static void u32_array_from_le(uint32_t *a, uint64_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (uint64_t i = 0; i < n; i++) a[i] = __builtin_bswap32(a[i]);
#else
    (void)a;
    (void)n;
#endif
}

static int open_file(const char *path, const char *hint, int *fd_out, uint64_t *size_out,
                     sw_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT)
            return sw_error_set(err, SW_ENOTFOUND, "%s: %s; %s", path, strerror(e), hint);
        return sw_error_set(err, SW_EIO, "%s: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return sw_error_set(err, SW_EIO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return sw_error_set(err, SW_EFORMAT, "%s: not a regular file", path);
    }
    *fd_out = fd;
    *size_out = (uint64_t)st.st_size;
    return SW_OK;
}

/* Checks the file header common to the three files: magic, then version
 * (so that a future version is named as such, whatever else it changed),
 * then the reserved flags. `have` bytes of the header are in `h`. */
static int check_file_header(const char *path, const uint8_t *h, uint64_t have, const char *magic,
                             const char *what, sw_error *err)
{
    size_t m = have < SW_DB_MAGIC_SIZE ? (size_t)have : SW_DB_MAGIC_SIZE;
    if (have == 0 || memcmp(h, magic, m) != 0)
        return sw_error_set(err, SW_EFORMAT, "%s: not a swsearch database %s", path, what);
    if (have < SW_DB_FILE_HEADER_SIZE)
        return sw_error_set(err, SW_ECORRUPT,
                            "%s: truncated (%llu bytes); rebuild the database with makedb", path,
                            (unsigned long long)have);
    uint32_t version = get_u32(h + SW_DB_IX_VERSION);
    if (version < SW_DB_FORMAT_VERSION_OLDEST || version > SW_DB_FORMAT_VERSION)
        return sw_error_set(err, SW_EVERSION,
                            "%s: database format version %u is not supported (this swsearch reads "
                            "versions %u to %u); rebuild it with makedb",
                            path, version, SW_DB_FORMAT_VERSION_OLDEST, SW_DB_FORMAT_VERSION);
    if (get_u32(h + SW_DB_IX_FLAGS) != 0)
        return sw_error_set(err, SW_ECORRUPT,
                            "%s: unknown flags %#x; the file is corrupt, rebuild the database "
                            "with makedb",
                            path, get_u32(h + SW_DB_IX_FLAGS));
    return SW_OK;
}

static int inconsistent(const sw_db *db, const char *problem, sw_error *err)
{
    return sw_error_set(err, SW_ECORRUPT,
                        "%s: inconsistent index (%s); rebuild the database with makedb",
                        db->path_index, problem);
}

/* Reads a chunk table and checks that its chunks tile the sequences and the
 * data file exactly: consecutive, non-empty, sizes equal to the sums of the
 * sequences' sizes, and the last chunk ending at the recorded file size. */
static int load_chunks(sw_db *db, int which, const uint8_t *table, const uint32_t *sizes,
                       sw_error *err)
{
    size_t n = db->num_chunks[which];
    chunk *c = malloc((n ? n : 1) * sizeof *c);
    if (!c) return sw_error_set(err, SW_ENOMEM, "%s: out of memory", db->path_index);
    db->chunks[which] = c;
    uint64_t seq = 0, offset = SW_DB_FILE_HEADER_SIZE, file_bytes = db->file_bytes[which];
    const char *name = which == DATA_RESIDUES ? "residue chunk table" : "header chunk table";
    char problem[160];
    for (size_t i = 0; i < n; i++, table += SW_DB_CHUNK_ENTRY_SIZE) {
        c[i].first_seq = get_u64(table + SW_DB_CK_FIRST_SEQ);
        c[i].num_seqs = get_u64(table + SW_DB_CK_NUM_SEQS);
        c[i].size = get_u64(table + SW_DB_CK_SIZE);
        c[i].offset = get_u64(table + SW_DB_CK_OFFSET);
        c[i].compressed_size = get_u64(table + SW_DB_CK_COMPRESSED_SIZE);
        c[i].hash_compressed = get_u64(table + SW_DB_CK_HASH_COMPRESSED);
        c[i].hash_data = get_u64(table + SW_DB_CK_HASH_DATA);
        c[i].file_chunk = i;
        c[i].skip = 0;
        const char *bad = NULL;
        if (c[i].first_seq != seq) {
            bad = "does not start where the previous chunk ends";
        } else if (c[i].num_seqs == 0 || c[i].num_seqs > db->num_seqs - seq) {
            bad = "has a wrong number of sequences";
        } else if (c[i].offset != offset) {
            bad = "does not follow the previous chunk in the file";
        } else if (c[i].compressed_size == 0 || c[i].compressed_size > file_bytes - offset ||
                   c[i].compressed_size > SIZE_MAX) {
            bad = "extends past the end of the file";
        } else {
            uint64_t sum = 0;
            for (uint64_t s = seq; s < seq + c[i].num_seqs; s++) sum += sizes[s];
            if (sum != c[i].size || sum > SIZE_MAX)
                bad = "has a size that differs from its sequences";
        }
        if (bad) {
            snprintf(problem, sizeof problem, "%s: chunk %zu %s", name, i, bad);
            return inconsistent(db, problem, err);
        }
        seq += c[i].num_seqs;
        offset += c[i].compressed_size;
    }
    if (seq != db->num_seqs || offset != file_bytes) {
        snprintf(problem, sizeof problem, "%s does not cover every sequence and byte", name);
        return inconsistent(db, problem, err);
    }
    return SW_OK;
}

static int check_sequences(sw_db *db, sw_error *err)
{
    uint64_t n = db->num_seqs, residues = 0, header_text = 0;
    uint32_t max_length = 0;
    /* Input positions must be a permutation of 0..n-1 for
     * sw_db_original_index() to be meaningful. */
    uint64_t *seen = calloc((size_t)(n / 64 + 1), sizeof *seen);
    if (!seen) return sw_error_set(err, SW_ENOMEM, "%s: out of memory", db->path_index);
    const char *bad = NULL;
    for (uint64_t i = 0; i < n && !bad; i++) {
        uint32_t len = db->lengths[i], pos = db->positions[i];
        if (len == 0) {
            bad = "empty sequence";
        } else if (i > 0 && (len < db->lengths[i - 1] ||
                             (len == db->lengths[i - 1] && pos <= db->positions[i - 1]))) {
            bad = "sequences not sorted by length and input position";
        } else if (pos >= n || (seen[pos / 64] >> (pos % 64) & 1)) {
            bad = "input positions are not a permutation";
        } else {
            seen[pos / 64] |= (uint64_t)1 << (pos % 64);
            residues += len;
            header_text += db->header_lengths[i];
            if (len > max_length) max_length = len;
        }
    }
    free(seen);
    if (bad) return inconsistent(db, bad, err);
    if (residues != db->num_residues) return inconsistent(db, "residue count", err);
    if (header_text != db->header_text_bytes) return inconsistent(db, "header text size", err);
    if (max_length != db->max_length) return inconsistent(db, "maximum length", err);
    return SW_OK;
}

static int load_index(sw_db *db, sw_error *err)
{
    int fd = -1;
    uint64_t size = 0;
    int rc = open_file(db->path_index, "build the database with makedb", &fd, &size, err);
    if (rc != SW_OK) return rc;
    uint8_t head[SW_DB_INDEX_FIXED_SIZE];
    uint64_t have = size < sizeof head ? size : sizeof head;
    int r = sw_io_pread_exact(fd, head, (size_t)have, 0);
    if (r != 0) {
        close(fd);
        return sw_error_set(err, SW_EIO, "%s: read failed: %s", db->path_index,
                            r < 0 ? strerror(errno) : "file shrank while reading");
    }
    rc = check_file_header(db->path_index, head, have, SW_DB_MAGIC_INDEX, "index", err);
    if (rc == SW_OK && size < SW_DB_INDEX_FIXED_SIZE + 8)
        rc = sw_error_set(err, SW_ECORRUPT,
                          "%s: truncated (%llu bytes); rebuild the database with makedb",
                          db->path_index, (unsigned long long)size);
    if (rc == SW_OK && size > SIZE_MAX)
        rc = sw_error_set(err, SW_ELIMIT, "%s: index too large for this machine", db->path_index);
    if (rc != SW_OK) {
        close(fd);
        return rc;
    }
    db->index = malloc((size_t)size);
    if (!db->index) {
        close(fd);
        return sw_error_set(err, SW_ENOMEM, "%s: out of memory reading the index", db->path_index);
    }
    r = sw_io_pread_exact(fd, db->index, (size_t)size, 0);
    int read_errno = errno;
    close(fd);
    if (r != 0)
        return sw_error_set(err, r < 0 ? SW_EIO : SW_ECORRUPT, "%s: read failed: %s",
                            db->path_index,
                            r < 0 ? strerror(read_errno) : "file shrank while reading");
    db->index_bytes = size;
    const uint8_t *p = db->index;
    if (XXH3_64bits(p, (size_t)size - 8) != get_u64(p + size - 8))
        return sw_error_set(err, SW_ECORRUPT,
                            "%s: index checksum mismatch; the index is corrupt, rebuild the "
                            "database with makedb",
                            db->path_index);

    /* From here the bytes are as written, but a writer bug or a forged file
     * must still not make us index out of bounds: check everything. */
    db->version = get_u32(p + SW_DB_IX_VERSION);
    db->id = get_u64(p + SW_DB_IX_ID);
    uint32_t alphabet = get_u32(p + SW_DB_IX_ALPHABET);
    db->max_length = get_u32(p + SW_DB_IX_MAX_LENGTH);
    db->num_seqs = get_u64(p + SW_DB_IX_NUM_SEQS);
    db->num_residues = get_u64(p + SW_DB_IX_NUM_RESIDUES);
    db->header_text_bytes = get_u64(p + SW_DB_IX_HEADER_TEXT);
    uint64_t nr = get_u64(p + SW_DB_IX_NUM_RESIDUE_CHUNKS);
    uint64_t nh = get_u64(p + SW_DB_IX_NUM_HEADER_CHUNKS);
    db->file_bytes[DATA_RESIDUES] = get_u64(p + SW_DB_IX_RESIDUE_FILE_SIZE);
    db->file_bytes[DATA_HEADERS] = get_u64(p + SW_DB_IX_HEADER_FILE_SIZE);
    uint64_t recorded_size = get_u64(p + SW_DB_IX_INDEX_FILE_SIZE);

    if (alphabet == SW_ALPHABET_PROTEIN) {
        db->alphabet_size = SW_PROTEIN_CODES;
    } else if (alphabet == SW_ALPHABET_DNA) {
        db->alphabet_size = SW_DNA_CODES;
    } else {
        return inconsistent(db, "unknown alphabet", err);
    }
    db->alphabet = (int)alphabet;
    if (recorded_size != size) return inconsistent(db, "recorded index size", err);
    /* Bounding every count by the file size first keeps the products below
     * from overflowing. */
    uint64_t body = size - SW_DB_INDEX_FIXED_SIZE - 8;
    if (db->num_seqs > UINT32_MAX || db->num_seqs > body / 12 ||
        nr > body / SW_DB_CHUNK_ENTRY_SIZE || nh > body / SW_DB_CHUNK_ENTRY_SIZE)
        return inconsistent(db, "counts exceed the index size", err);
    uint64_t arrays = (db->num_seqs * 12 + 7) / 8 * 8;
    if (SW_DB_INDEX_FIXED_SIZE + arrays + (nr + nh) * SW_DB_CHUNK_ENTRY_SIZE + 8 != size)
        return inconsistent(db, "counts do not match the index size", err);
    if (db->file_bytes[DATA_RESIDUES] < SW_DB_FILE_HEADER_SIZE ||
        db->file_bytes[DATA_HEADERS] < SW_DB_FILE_HEADER_SIZE)
        return inconsistent(db, "data file sizes", err);

    uint32_t *lengths = (uint32_t *)(db->index + SW_DB_INDEX_FIXED_SIZE);
    uint32_t *positions = lengths + db->num_seqs;
    uint32_t *header_lengths = positions + db->num_seqs;
    u32_array_from_le(lengths, db->num_seqs * 3);
    db->lengths = lengths;
    db->positions = positions;
    db->header_lengths = header_lengths;
    if ((rc = check_sequences(db, err)) != SW_OK) return rc;

    db->num_chunks[DATA_RESIDUES] = (size_t)nr;
    db->num_chunks[DATA_HEADERS] = (size_t)nh;
    const uint8_t *tables = db->index + SW_DB_INDEX_FIXED_SIZE + arrays;
    if ((rc = load_chunks(db, DATA_RESIDUES, tables, db->lengths, err)) != SW_OK) return rc;
    return load_chunks(db, DATA_HEADERS, tables + nr * SW_DB_CHUNK_ENTRY_SIZE, db->header_lengths,
                       err);
}

/* A data file belongs to the index only if its id and size match: files of
 * two builds, or a file cut short, are refused here rather than when a
 * chunk fails its checksum in the middle of a search. `*replaced` is set
 * when the failure may come from a rebuild that replaced the index after it
 * was read (the file is gone, or is another build's). */
static int open_data(sw_db *db, int which, int *replaced, sw_error *err)
{
    static const char *const magic[NUM_DATA] = {SW_DB_MAGIC_RESIDUES, SW_DB_MAGIC_HEADERS};
    static const char *const what[NUM_DATA] = {"residue file", "header file"};
    const char *path = db->path[which];
    uint64_t size = 0;
    int rc = open_file(path, "the database is incomplete, rebuild it with makedb", &db->fd[which],
                       &size, err);
    if (rc == SW_ENOTFOUND) *replaced = 1;
    if (rc != SW_OK) return rc;
    uint8_t h[SW_DB_FILE_HEADER_SIZE];
    uint64_t have = size < sizeof h ? size : sizeof h;
    int r = sw_io_pread_exact(db->fd[which], h, (size_t)have, 0);
    if (r != 0)
        return sw_error_set(err, SW_EIO, "%s: read failed: %s", path,
                            r < 0 ? strerror(errno) : "file shrank while reading");
    if ((rc = check_file_header(path, h, have, magic[which], what[which], err)) != SW_OK) return rc;
    if (get_u32(h + SW_DB_IX_VERSION) != db->version)
        return sw_error_set(err, SW_ECORRUPT,
                            "%s: format version %u, but %s has version %u; rebuild the database "
                            "with makedb",
                            path, get_u32(h + SW_DB_IX_VERSION), db->path_index, db->version);
    if (get_u64(h + SW_DB_IX_ID) != db->id) {
        *replaced = 1;
        return sw_error_set(err, SW_ECORRUPT,
                            "%s: belongs to a different database than %s (database ids differ); "
                            "rebuild the database with makedb",
                            path, db->path_index);
    }
    if (size != db->file_bytes[which])
        return sw_error_set(err, SW_ECORRUPT,
                            "%s: %llu bytes, but the index expects %llu (truncated or damaged); "
                            "rebuild the database with makedb",
                            path, (unsigned long long)size,
                            (unsigned long long)db->file_bytes[which]);
    return SW_OK;
}

char *sw_db_file_name(const char *prefix, uint32_t version, uint64_t id, int which)
{
    static const char *const ext[] = {"swi", "swr", "swh"};
    if (!prefix || which < SW_DB_FILE_INDEX || which > SW_DB_FILE_HEADERS) return NULL;
    size_t n = strlen(prefix) + 1 + 16 + 1 + 3 + 1;
    char *s = malloc(n);
    if (!s) return NULL;
    if (which == SW_DB_FILE_INDEX || version < 2)
        snprintf(s, n, "%s.%s", prefix, ext[which]);
    else
        snprintf(s, n, "%s.%016llx.%s", prefix, (unsigned long long)id, ext[which]);
    return s;
}

/* An empty database object for `prefix` with its index path set. */
static int new_db(const char *prefix, sw_db **out, sw_error *err)
{
    *out = NULL;
    sw_db *db = calloc(1, sizeof *db);
    if (!db) return sw_error_set(err, SW_ENOMEM, "out of memory");
    db->fd[DATA_RESIDUES] = db->fd[DATA_HEADERS] = -1;
    db->path_index = sw_db_file_name(prefix, SW_DB_FORMAT_VERSION, 0, SW_DB_FILE_INDEX);
    if (!db->path_index) {
        sw_db_close(db);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    *out = db;
    return SW_OK;
}

/* One attempt at opening: the index, then the data files it names. */
static int open_once(const char *prefix, sw_db **out, int *replaced, uint32_t *version,
                     uint64_t *id, sw_error *err)
{
    sw_db *db;
    int rc = new_db(prefix, &db, err);
    if (rc != SW_OK) return rc;
    rc = load_index(db, err);
    *version = db->version;
    *id = db->id;
    for (int d = 0; rc == SW_OK && d < NUM_DATA; d++) {
        int which = d == DATA_RESIDUES ? SW_DB_FILE_RESIDUES : SW_DB_FILE_HEADERS;
        db->path[d] = sw_db_file_name(prefix, db->version, db->id, which);
        if (!db->path[d]) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    if (rc == SW_OK) rc = open_data(db, DATA_RESIDUES, replaced, err);
    if (rc == SW_OK) rc = open_data(db, DATA_HEADERS, replaced, err);
    if (rc != SW_OK) {
        sw_db_close(db);
        return rc;
    }
    *out = db;
    return SW_OK;
}

/* Version and id from the file header of the index, unchecked: only to learn
 * whether the index was replaced. 0 on success. */
static int index_identity(const char *prefix, uint32_t *version, uint64_t *id)
{
    char *path = sw_db_file_name(prefix, SW_DB_FORMAT_VERSION, 0, SW_DB_FILE_INDEX);
    if (!path) return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (fd < 0) return -1;
    uint8_t h[SW_DB_FILE_HEADER_SIZE];
    int r = sw_io_pread_exact(fd, h, sizeof h, 0);
    close(fd);
    if (r != 0) return -1;
    *version = get_u32(h + SW_DB_IX_VERSION);
    *id = get_u64(h + SW_DB_IX_ID);
    return 0;
}

/* Rebuilds that commit while one open is in progress; each one replaces the
 * index, so more than a few in a row means something else is wrong. */
#define MAX_OPEN_ATTEMPTS 16

int sw_db_open(const char *prefix, sw_db **out, sw_error *err)
{
    if (out) *out = NULL;
    if (!prefix || !*prefix || !out) return sw_error_set(err, SW_EINVAL, "no database name given");
    /* A rebuild writes its data files under new names and then replaces the
     * index, so an index read just before that names data files that the
     * rebuild deletes next. When a data file is missing or of another build,
     * and the index now names another build, the open starts again. */
    for (int attempt = 1;; attempt++) {
        int replaced = 0;
        uint32_t version = 0, now_version;
        uint64_t id = 0, now_id;
        int rc = open_once(prefix, out, &replaced, &version, &id, err);
        if (rc == SW_OK || !replaced || attempt == MAX_OPEN_ATTEMPTS) return rc;
        if (index_identity(prefix, &now_version, &now_id) != 0 ||
            (now_version == version && now_id == id))
            return rc;
    }
}

const char *sw_db_path(const sw_db *db, int which)
{
    if (!db) return NULL;
    db = whole_of(db);
    switch (which) {
    case SW_DB_FILE_INDEX: return db->path_index;
    case SW_DB_FILE_RESIDUES: return db->path[DATA_RESIDUES];
    case SW_DB_FILE_HEADERS: return db->path[DATA_HEADERS];
    default: return NULL;
    }
}

int sw_db_index_id(const char *prefix, uint32_t *version, uint64_t *id, sw_error *err)
{
    if (!prefix || !*prefix || !version || !id)
        return sw_error_set(err, SW_EINVAL, "no database name given");
    sw_db *db;
    int rc = new_db(prefix, &db, err);
    if (rc != SW_OK) return rc;
    rc = load_index(db, err);
    if (rc == SW_OK) {
        *version = db->version;
        *id = db->id;
    }
    sw_db_close(db);
    return rc;
}

void sw_db_close(sw_db *db)
{
    if (!db) return;
    for (int d = 0; d < NUM_DATA; d++) {
        if (db->fd[d] >= 0) close(db->fd[d]);
        free(db->path[d]);
        free(db->chunks[d]);
    }
    free(db->path_index);
    free(db->index);
    free(db->runs);
    free(db->part_arrays);
    free(db);
}

static size_t chunk_of(const sw_db *db, int which, uint64_t seq);

/* The number of sequences of run `r` of part `p`. */
static uint64_t run_count(const sw_db *p, size_t r)
{
    return (r + 1 < p->num_runs ? p->runs[r + 1].part_first : p->num_seqs) - p->runs[r].part_first;
}

/* The part's residue chunks: for each run, one window of every file chunk
 * the run touches; a window is the file chunk itself where the run covers
 * it. */
static int part_chunks(sw_db *p, sw_error *err)
{
    const sw_db *db = p->whole;
    const chunk *fc = db->chunks[DATA_RESIDUES];
    size_t n = 0;
    for (size_t r = 0; r < p->num_runs; r++) {
        const uint64_t last = p->runs[r].first + run_count(p, r) - 1;
        n += chunk_of(db, DATA_RESIDUES, last) - chunk_of(db, DATA_RESIDUES, p->runs[r].first) + 1;
    }
    chunk *c = malloc(n * sizeof *c);
    if (!c) return sw_error_set(err, SW_ENOMEM, "out of memory");
    p->chunks[DATA_RESIDUES] = c;
    p->num_chunks[DATA_RESIDUES] = n;
    const uint32_t *len = db->lengths;
    for (size_t r = 0; r < p->num_runs; r++) {
        const uint64_t first = p->runs[r].first, part_first = p->runs[r].part_first;
        const uint64_t end = first + run_count(p, r);
        for (size_t f = chunk_of(db, DATA_RESIDUES, first);
             f < db->num_chunks[DATA_RESIDUES] && fc[f].first_seq < end; f++) {
            const uint64_t f_end = fc[f].first_seq + fc[f].num_seqs;
            const uint64_t lo = fc[f].first_seq > first ? fc[f].first_seq : first;
            const uint64_t hi = f_end < end ? f_end : end;
            *c = fc[f];
            c->first_seq = part_first + (lo - first);
            c->num_seqs = hi - lo;
            c->file_chunk = f;
            if (lo != fc[f].first_seq || hi != f_end) {
                c->skip = c->size = 0;
                for (uint64_t s = fc[f].first_seq; s < lo; s++) c->skip += len[s];
                for (uint64_t s = lo; s < hi; s++) c->size += len[s];
            }
            c++;
        }
    }
    return SW_OK;
}

/* The part's lengths and positions: the whole's own arrays for one run,
 * else copies. */
static int part_arrays(sw_db *p, sw_error *err)
{
    const sw_db *db = p->whole;
    if (p->num_runs == 1) {
        p->lengths = db->lengths + p->runs[0].first;
        p->positions = db->positions + p->runs[0].first;
        return SW_OK;
    }
    if (p->num_seqs > SIZE_MAX / (2 * sizeof(uint32_t)))
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    uint32_t *a = malloc((size_t)p->num_seqs * 2 * sizeof *a);
    if (!a) return sw_error_set(err, SW_ENOMEM, "out of memory");
    p->part_arrays = a;
    for (size_t r = 0; r < p->num_runs; r++) {
        const uint64_t at = p->runs[r].part_first, count = run_count(p, r);
        memcpy(a + at, db->lengths + p->runs[r].first, (size_t)count * sizeof *a);
        memcpy(a + p->num_seqs + at, db->positions + p->runs[r].first, (size_t)count * sizeof *a);
    }
    p->lengths = a;
    p->positions = a + p->num_seqs;
    return SW_OK;
}

int sw_db_part_open(const sw_db *db, const sw_db_range *ranges, size_t n, sw_db **out,
                    sw_error *err)
{
    if (out) *out = NULL;
    if (!db || !out || !ranges || n == 0)
        return sw_error_set(err, SW_EINVAL, "no database or ranges given");
    /* Supporting parts of parts would mean mapping ranges through runs; no
     * caller needs it. */
    if (db->whole)
        return sw_error_set(err, SW_EINVAL, "a part of a part of a database is not supported");
    for (size_t i = 0; i < n; i++) {
        const uint64_t first = ranges[i].first, count = ranges[i].count;
        const uint64_t prev_end = i ? ranges[i - 1].first + ranges[i - 1].count : 0;
        if (count == 0 || first >= db->num_seqs || count > db->num_seqs - first || first < prev_end)
            return sw_error_set(err, SW_EINVAL,
                                "range %zu (sequences %llu + %llu) of a part of %s is empty, "
                                "outside the database's %llu sequences or not after the "
                                "previous range",
                                i, (unsigned long long)first, (unsigned long long)count,
                                db->path_index, (unsigned long long)db->num_seqs);
    }
    sw_db *p = calloc(1, sizeof *p);
    part_run *runs = malloc(n * sizeof *runs);
    if (!p || !runs) {
        free(p);
        free(runs);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    p->whole = db;
    p->runs = runs;
    p->fd[DATA_RESIDUES] = p->fd[DATA_HEADERS] = -1;
    p->version = db->version;
    p->id = db->id;
    p->alphabet = db->alphabet;
    p->alphabet_size = db->alphabet_size;
    /* Adjacent ranges join into one run, so that a file chunk they share
     * is one window of the part, decoded once. */
    for (size_t i = 0; i < n; i++) {
        const part_run *last = p->num_runs ? &runs[p->num_runs - 1] : NULL;
        if (!last || last->first + (p->num_seqs - last->part_first) != ranges[i].first)
            runs[p->num_runs++] = (part_run){ranges[i].first, p->num_seqs};
        p->num_seqs += ranges[i].count;
    }
    int rc = part_arrays(p, err);
    if (rc == SW_OK) rc = part_chunks(p, err);
    if (rc != SW_OK) {
        sw_db_close(p);
        return rc;
    }
    for (uint64_t s = 0; s < p->num_seqs; s++) p->num_residues += p->lengths[s];
    /* Sorted by length, as the whole is. */
    p->max_length = p->lengths[p->num_seqs - 1];
    *out = p;
    return SW_OK;
}

uint64_t sw_db_whole_seq(const sw_db *db, uint64_t seq)
{
    if (seq >= db->num_seqs) return UINT64_MAX;
    if (!db->whole) return seq;
    size_t lo = 0, hi = db->num_runs;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (db->runs[mid].part_first <= seq)
            lo = mid;
        else
            hi = mid;
    }
    return db->runs[lo].first + (seq - db->runs[lo].part_first);
}

uint32_t sw_db_format_version(const sw_db *db) { return db->version; }
sw_alphabet_kind sw_db_alphabet(const sw_db *db) { return (sw_alphabet_kind)db->alphabet; }
uint64_t sw_db_num_seqs(const sw_db *db) { return db->num_seqs; }
uint64_t sw_db_num_residues(const sw_db *db) { return db->num_residues; }
uint32_t sw_db_max_length(const sw_db *db) { return db->max_length; }
const uint32_t *sw_db_lengths(const sw_db *db) { return db->lengths; }

uint64_t sw_db_original_index(const sw_db *db, uint64_t seq)
{
    return seq < db->num_seqs ? db->positions[seq] : UINT64_MAX;
}

size_t sw_db_num_chunks(const sw_db *db) { return db->num_chunks[DATA_RESIDUES]; }

void sw_db_chunk_info(const sw_db *db, size_t c, sw_db_chunk *info)
{
    memset(info, 0, sizeof *info);
    if (c >= db->num_chunks[DATA_RESIDUES]) return;
    const chunk *k = &db->chunks[DATA_RESIDUES][c];
    info->first_seq = k->first_seq;
    info->num_seqs = k->num_seqs;
    info->num_residues = k->size;
    info->compressed_size = k->compressed_size;
}

void sw_db_file_info(const sw_db *db, sw_db_files *info)
{
    db = whole_of(db);
    info->index_bytes = db->index_bytes;
    info->residue_bytes = db->file_bytes[DATA_RESIDUES];
    info->header_bytes = db->file_bytes[DATA_HEADERS];
    info->num_header_chunks = db->num_chunks[DATA_HEADERS];
    info->header_text_bytes = db->header_text_bytes;
}

/* Reads, checks and decompresses chunk `c` of data file `which` into `dst`
 * (chunk size bytes). On failure `reason` says why, for the caller's
 * message. The compressed checksum is checked before zstd sees the bytes;
 * the checksum of the result guards against anything the first missed.
 * A window of part of a file chunk needs the whole file chunk decoded, and
 * checked, beside `dst`, then copied. */
static int decode_chunk(const sw_db *db, int which, size_t c, uint8_t *dst, ZSTD_DCtx *dctx,
                        char *reason, size_t reason_size)
{
    const chunk *w = &db->chunks[which][c];
    const sw_db *file = whole_of(db);
    const chunk *k = &file->chunks[which][w->file_chunk];
    const int windowed = w->skip != 0 || w->size != k->size;
    uint8_t *src = malloc(k->compressed_size);
    uint8_t *data = windowed ? malloc(k->size ? (size_t)k->size : 1) : dst;
    if (!src || !data) {
        free(src);
        if (windowed) free(data);
        snprintf(reason, reason_size, "out of memory");
        return SW_ENOMEM;
    }
    int rc = SW_OK;
    int r = sw_io_pread_exact(file->fd[which], src, (size_t)k->compressed_size, k->offset);
    if (r != 0) {
        rc = r < 0 ? SW_EIO : SW_ECORRUPT;
        snprintf(reason, reason_size, "%s", r < 0 ? strerror(errno) : "the file was cut short");
    } else if (XXH3_64bits(src, (size_t)k->compressed_size) != k->hash_compressed) {
        rc = SW_ECORRUPT;
        snprintf(reason, reason_size, "checksum mismatch");
    } else if (ZSTD_getFrameContentSize(src, (size_t)k->compressed_size) != k->size) {
        rc = SW_ECORRUPT;
        snprintf(reason, reason_size, "size mismatch");
    } else {
        size_t got =
            ZSTD_decompressDCtx(dctx, data, (size_t)k->size, src, (size_t)k->compressed_size);
        if (ZSTD_isError(got)) {
            rc = SW_ECORRUPT;
            snprintf(reason, reason_size, "decompression failed: %s", ZSTD_getErrorName(got));
        } else if (got != k->size) {
            rc = SW_ECORRUPT;
            snprintf(reason, reason_size, "size mismatch");
        } else if (XXH3_64bits(data, got) != k->hash_data) {
            rc = SW_ECORRUPT;
            snprintf(reason, reason_size, "checksum mismatch after decompression");
        }
    }
    free(src);
    if (rc == SW_OK && which == DATA_RESIDUES) {
        /* Engines index score tables with these codes. */
        uint8_t m = 0;
        for (uint64_t i = 0; i < k->size; i++) m = data[i] > m ? data[i] : m;
        if (m >= db->alphabet_size) {
            rc = SW_ECORRUPT;
            snprintf(reason, reason_size, "residue code %u outside the alphabet", m);
        }
    }
    if (windowed) {
        if (rc == SW_OK) memcpy(dst, data + w->skip, (size_t)w->size);
        free(data);
    }
    return rc;
}

/* Names the file's own chunk, as 'swsearch verify' would. */
static int chunk_error(const sw_db *db, int which, size_t c, int rc, const char *reason,
                       sw_error *err)
{
    c = db->chunks[which][c].file_chunk;
    const char *path = whole_of(db)->path[which];
    if (rc == SW_ECORRUPT)
        return sw_error_set(err, rc, "%s: chunk %zu is corrupt (%s); run 'swsearch verify'", path,
                            c, reason);
    return sw_error_set(err, rc, "%s: reading chunk %zu failed: %s", path, c, reason);
}

int sw_db_read_chunk(const sw_db *db, size_t c, uint8_t *residues, sw_error *err)
{
    if (!db || c >= db->num_chunks[DATA_RESIDUES] || !residues)
        return sw_error_set(err, SW_EINVAL, "no such residue chunk");
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    if (!dctx) return sw_error_set(err, SW_ENOMEM, "out of memory");
    char reason[160];
    int rc = decode_chunk(db, DATA_RESIDUES, c, residues, dctx, reason, sizeof reason);
    ZSTD_freeDCtx(dctx);
    return rc == SW_OK ? SW_OK : chunk_error(db, DATA_RESIDUES, c, rc, reason, err);
}

typedef struct load_ctx {
    const sw_db *db;
    uint8_t *residues;
    uint64_t *chunk_offsets;
} load_ctx;

static int load_chunk(void *arg, int worker, size_t chunk, sw_error *err)
{
    (void)worker;
    load_ctx *c = arg;
    return sw_db_read_chunk(c->db, chunk, c->residues + c->chunk_offsets[chunk], err);
}

int sw_db_read_all_residues(const sw_db *db, int threads, uint8_t **out, sw_error *err)
{
    load_ctx c;
    memset(&c, 0, sizeof c);
    c.db = db;
    const size_t num_chunks = sw_db_num_chunks(db);
    c.residues = malloc(sw_db_num_residues(db) ? sw_db_num_residues(db) : 1);
    c.chunk_offsets = malloc((num_chunks ? num_chunks : 1) * sizeof *c.chunk_offsets);
    if (!c.residues || !c.chunk_offsets) {
        free(c.residues);
        free(c.chunk_offsets);
        return sw_error_set(err, SW_ENOMEM, "out of memory loading the database");
    }
    uint64_t offset = 0;
    for (size_t i = 0; i < num_chunks; i++) {
        sw_db_chunk info;
        sw_db_chunk_info(db, i, &info);
        c.chunk_offsets[i] = offset;
        offset += info.num_residues;
    }
    const sw_pool_tasks tasks = {num_chunks, load_chunk, NULL, NULL};
    const int rc = sw_pool_each(threads > 0 ? threads : sw_clock_online_cpus(), &tasks, &c, NULL, err);
    free(c.chunk_offsets);
    if (rc) {
        free(c.residues);
        return rc;
    }
    *out = c.residues;
    return SW_OK;
}

/* The chunk of data file `which` that holds sorted sequence `seq`. */
static size_t chunk_of(const sw_db *db, int which, uint64_t seq)
{
    const chunk *c = db->chunks[which];
    size_t lo = 0, hi = db->num_chunks[which];
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c[mid].first_seq <= seq)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static char *copy_header(const sw_db *db, const chunk *k, const uint8_t *text, uint64_t seq)
{
    uint64_t at = 0;
    for (uint64_t s = k->first_seq; s < seq; s++) at += db->header_lengths[s];
    size_t len = db->header_lengths[seq];
    char *h = malloc(len + 1);
    if (h) {
        if (len > 0) memcpy(h, text + at, len);
        h[len] = '\0';
    }
    return h;
}

typedef struct seq_slot {
    uint64_t seq;
    size_t slot;
} seq_slot;

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const seq_slot *)a)->seq, y = ((const seq_slot *)b)->seq;
    return (x > y) - (x < y);
}

/* sw_db_read_sequences: each task is one residue chunk and the requested
 * sequences in it (a run of the sorted request list). */
typedef struct seq_task {
    size_t chunk;
    size_t first, end; /* into the sorted request list */
} seq_task;

/* A worker's decompression context and chunk buffer, kept across its tasks. */
typedef struct seq_reader {
    ZSTD_DCtx *dctx;
    uint8_t *buf;
    size_t capacity;
} seq_reader;

/* The contexts of the readers' tasks start with the readers, one a
 * worker, so that one pair of functions starts and ends them all. */
typedef struct seq_read_ctx {
    seq_reader *readers;
    const sw_db *db;
    const seq_slot *order;
    uint8_t **out;
    const seq_task *tasks;
} seq_read_ctx;

static int seq_reader_begin(void *arg, int worker, sw_error *err)
{
    seq_reader *r = &(*(seq_reader **)arg)[worker];
    r->dctx = ZSTD_createDCtx();
    return r->dctx ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory");
}

static void seq_reader_end(void *arg, int worker)
{
    seq_reader *r = &(*(seq_reader **)arg)[worker];
    free(r->buf);
    ZSTD_freeDCtx(r->dctx);
    *r = (seq_reader){0};
}

static int seq_read_task(void *arg, int worker, size_t t, sw_error *err)
{
    seq_read_ctx *c = arg;
    seq_reader *r = &c->readers[worker];
    const sw_db *db = c->db;
    const seq_task *task = &c->tasks[t];
    const chunk *k = &db->chunks[DATA_RESIDUES][task->chunk];
    char reason[160] = "out of memory";
    if (k->size + 1 > r->capacity) {
        uint8_t *b = realloc(r->buf, (size_t)k->size + 1);
        if (!b) return chunk_error(db, DATA_RESIDUES, task->chunk, SW_ENOMEM, reason, err);
        r->buf = b;
        r->capacity = (size_t)k->size + 1;
    }
    const int rc = decode_chunk(db, DATA_RESIDUES, task->chunk, r->buf, r->dctx, reason, sizeof reason);
    if (rc) return chunk_error(db, DATA_RESIDUES, task->chunk, rc, reason, err);
    /* The requests are sorted, so one walk over the chunk's lengths finds
     * every offset. */
    uint64_t s = k->first_seq, at = 0;
    for (size_t i = task->first; i < task->end; i++) {
        for (; s < c->order[i].seq; s++) at += db->lengths[s];
        size_t len = db->lengths[s];
        uint8_t *copy = malloc(len ? len : 1);
        if (!copy) return chunk_error(db, DATA_RESIDUES, task->chunk, SW_ENOMEM, "out of memory", err);
        memcpy(copy, r->buf + at, len);
        c->out[c->order[i].slot] = copy;
    }
    return SW_OK;
}

int sw_db_read_sequences(const sw_db *db, const uint64_t *seqs, size_t n, int threads,
                         uint8_t **residues, sw_error *err)
{
    if (!db || (n > 0 && (!seqs || !residues)))
        return sw_error_set(err, SW_EINVAL, "no sequences given");
    for (size_t i = 0; i < n; i++) residues[i] = NULL;
    for (size_t i = 0; i < n; i++)
        if (seqs[i] >= db->num_seqs) return sw_error_set(err, SW_EINVAL, "no such sequence");
    seq_slot *order = malloc((n ? n : 1) * sizeof *order);
    seq_task *tasks = malloc((n ? n : 1) * sizeof *tasks);
    if (!order || !tasks) {
        free(order);
        free(tasks);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) order[i] = (seq_slot){seqs[i], i};
    qsort(order, n, sizeof *order, by_seq);
    size_t num_tasks = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = chunk_of(db, DATA_RESIDUES, order[i].seq);
        if (num_tasks && tasks[num_tasks - 1].chunk == c) {
            tasks[num_tasks - 1].end = i + 1;
        } else {
            tasks[num_tasks++] = (seq_task){c, i, i + 1};
        }
    }
    if (threads <= 0) threads = sw_clock_online_cpus();
    seq_read_ctx c = {calloc((size_t)threads, sizeof(seq_reader)), db, order, residues, tasks};
    int rc = c.readers ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory");
    if (!rc) {
        const sw_pool_tasks work = {num_tasks, seq_read_task, seq_reader_begin, seq_reader_end};
        rc = sw_pool_each(threads, &work, &c, NULL, err);
    }
    free(c.readers);
    free(order);
    free(tasks);
    if (rc) {
        for (size_t i = 0; i < n; i++) {
            free(residues[i]);
            residues[i] = NULL;
        }
        return rc;
    }
    return SW_OK;
}

/* sw_db_read_range: each task is one residue chunk and the part of the
 * range in it, which goes to dst + at. */
typedef struct range_task {
    size_t chunk;
    uint64_t lo, hi; /* sequences of the range in the chunk */
    uint64_t at;     /* where in dst */
} range_task;

typedef struct range_ctx {
    seq_reader *readers; /* first: seq_reader_begin and _end */
    const sw_db *db;
    uint8_t *dst;
    const range_task *tasks;
} range_ctx;

static int range_read_task(void *arg, int worker, size_t t, sw_error *err)
{
    range_ctx *c = arg;
    seq_reader *r = &c->readers[worker];
    const sw_db *db = c->db;
    const range_task *task = &c->tasks[t];
    const chunk *k = &db->chunks[DATA_RESIDUES][task->chunk];
    char reason[160] = "out of memory";
    int rc;
    if (task->lo == k->first_seq && task->hi == k->first_seq + k->num_seqs) {
        /* The whole chunk: straight into place. */
        rc = decode_chunk(db, DATA_RESIDUES, task->chunk, c->dst + task->at, r->dctx, reason, sizeof reason);
        return rc ? chunk_error(db, DATA_RESIDUES, task->chunk, rc, reason, err) : SW_OK;
    }
    if (k->size + 1 > r->capacity) {
        uint8_t *b = realloc(r->buf, (size_t)k->size + 1);
        if (!b) return chunk_error(db, DATA_RESIDUES, task->chunk, SW_ENOMEM, reason, err);
        r->buf = b;
        r->capacity = (size_t)k->size + 1;
    }
    rc = decode_chunk(db, DATA_RESIDUES, task->chunk, r->buf, r->dctx, reason, sizeof reason);
    if (rc) return chunk_error(db, DATA_RESIDUES, task->chunk, rc, reason, err);
    uint64_t from = 0, bytes = 0;
    for (uint64_t s = k->first_seq; s < task->lo; s++) from += db->lengths[s];
    for (uint64_t s = task->lo; s < task->hi; s++) bytes += db->lengths[s];
    memcpy(c->dst + task->at, r->buf + from, bytes);
    return SW_OK;
}

int sw_db_read_range(const sw_db *db, uint64_t first, uint64_t count, uint8_t *dst, int threads, sw_error *err)
{
    if (!db || first > db->num_seqs || count > db->num_seqs - first || (count && !dst))
        return sw_error_set(err, SW_EINVAL, "no such range of sequences");
    if (!count) return SW_OK;
    const uint64_t end = first + count;
    const size_t c0 = chunk_of(db, DATA_RESIDUES, first), c1 = chunk_of(db, DATA_RESIDUES, end - 1);
    range_task *tasks = malloc((c1 - c0 + 1) * sizeof *tasks);
    if (!tasks) return sw_error_set(err, SW_ENOMEM, "out of memory");
    uint64_t at = 0;
    for (size_t c = c0; c <= c1; c++) {
        const chunk *k = &db->chunks[DATA_RESIDUES][c];
        range_task *t = &tasks[c - c0];
        t->chunk = c;
        t->lo = k->first_seq > first ? k->first_seq : first;
        t->hi = k->first_seq + k->num_seqs < end ? k->first_seq + k->num_seqs : end;
        t->at = at;
        for (uint64_t s = t->lo; s < t->hi; s++) at += db->lengths[s];
    }
    if (threads <= 0) threads = sw_clock_online_cpus();
    range_ctx c = {calloc((size_t)threads, sizeof(seq_reader)), db, dst, tasks};
    int rc = c.readers ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory");
    if (!rc) {
        const sw_pool_tasks work = {c1 - c0 + 1, range_read_task, seq_reader_begin, seq_reader_end};
        rc = sw_pool_each(threads, &work, &c, NULL, err);
    }
    free(c.readers);
    free(tasks);
    return rc;
}

/* A part's headers are the whole's, under the whole's numbers. */
static int part_read_headers(const sw_db *db, const uint64_t *seqs, size_t n, char **headers,
                             sw_error *err)
{
    uint64_t *whole_seqs = malloc((n ? n : 1) * sizeof *whole_seqs);
    if (!whole_seqs) return sw_error_set(err, SW_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) whole_seqs[i] = sw_db_whole_seq(db, seqs[i]);
    int rc = sw_db_read_headers(db->whole, whole_seqs, n, headers, err);
    free(whole_seqs);
    return rc;
}

int sw_db_read_headers(const sw_db *db, const uint64_t *seqs, size_t n, char **headers,
                       sw_error *err)
{
    if (!db || (n > 0 && (!seqs || !headers)))
        return sw_error_set(err, SW_EINVAL, "no sequences given");
    for (size_t i = 0; i < n; i++) headers[i] = NULL;
    for (size_t i = 0; i < n; i++)
        if (seqs[i] >= db->num_seqs) return sw_error_set(err, SW_EINVAL, "no such sequence");
    if (db->whole) return part_read_headers(db, seqs, n, headers, err);
    seq_slot *order = malloc((n ? n : 1) * sizeof *order);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    if (!order || !dctx) {
        free(order);
        ZSTD_freeDCtx(dctx);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) order[i] = (seq_slot){seqs[i], i};
    qsort(order, n, sizeof *order, by_seq);
    uint8_t *text = NULL;
    size_t capacity = 0, have = SIZE_MAX, c = 0;
    int rc = SW_OK;
    char reason[160];
    for (size_t i = 0; i < n && rc == SW_OK; i++) {
        c = chunk_of(db, DATA_HEADERS, order[i].seq);
        const chunk *k = &db->chunks[DATA_HEADERS][c];
        if (c != have) {
            if (k->size + 1 > capacity) {
                uint8_t *t = realloc(text, (size_t)k->size + 1);
                if (!t) {
                    rc = SW_ENOMEM;
                    snprintf(reason, sizeof reason, "out of memory");
                    break;
                }
                text = t;
                capacity = (size_t)k->size + 1;
            }
            rc = decode_chunk(db, DATA_HEADERS, c, text, dctx, reason, sizeof reason);
            if (rc != SW_OK) break;
            have = c;
        }
        if (!(headers[order[i].slot] = copy_header(db, k, text, order[i].seq))) {
            rc = SW_ENOMEM;
            snprintf(reason, sizeof reason, "out of memory");
        }
    }
    free(text);
    free(order);
    ZSTD_freeDCtx(dctx);
    if (rc != SW_OK) {
        for (size_t i = 0; i < n; i++) {
            free(headers[i]);
            headers[i] = NULL;
        }
        return chunk_error(db, DATA_HEADERS, c, rc, reason, err);
    }
    return SW_OK;
}

/* Header chunks hashed per read: enough to amortise the read call, small
 * enough not to matter next to a search's memory. */
#define CHECK_BLOCK_BYTES (4u << 20)

int sw_db_check_headers(const sw_db *db, sw_error *err)
{
    if (!db) return sw_error_set(err, SW_EINVAL, "no database");
    db = whole_of(db); /* a part's header chunks are the whole's */
    if (atomic_load(&((sw_db *)db)->headers_checked)) return SW_OK;
    const chunk *c = db->chunks[DATA_HEADERS];
    size_t n = db->num_chunks[DATA_HEADERS];
    size_t cap = CHECK_BLOCK_BYTES;
    for (size_t i = 0; i < n; i++)
        if (c[i].compressed_size > cap) cap = (size_t)c[i].compressed_size;
    uint8_t *buf = malloc(cap);
    if (!buf) return sw_error_set(err, SW_ENOMEM, "out of memory");
    int rc = SW_OK;
    /* The chunks tile the file (checked at open), so consecutive chunks are
     * read together and hashed one by one. */
    for (size_t first = 0; first < n && rc == SW_OK;) {
        size_t last = first;
        uint64_t bytes = c[first].compressed_size;
        while (last + 1 < n && bytes + c[last + 1].compressed_size <= cap)
            bytes += c[++last].compressed_size;
        int r = sw_io_pread_exact(db->fd[DATA_HEADERS], buf, (size_t)bytes, c[first].offset);
        if (r != 0) {
            rc = sw_error_set(err, r < 0 ? SW_EIO : SW_ECORRUPT, "%s: reading chunk %zu failed: %s",
                              db->path[DATA_HEADERS], first,
                              r < 0 ? strerror(errno) : "the file was cut short");
            break;
        }
        for (size_t k = first; k <= last; k++) {
            if (XXH3_64bits(buf + (c[k].offset - c[first].offset), (size_t)c[k].compressed_size) !=
                c[k].hash_compressed) {
                rc = sw_error_set(err, SW_ECORRUPT,
                                  "%s: header chunk %zu of %zu (sequences %llu-%llu) is corrupt: "
                                  "checksum mismatch; run 'swsearch verify'",
                                  db->path[DATA_HEADERS], k, n,
                                  (unsigned long long)c[k].first_seq,
                                  (unsigned long long)(c[k].first_seq + c[k].num_seqs - 1));
                break;
            }
        }
        first = last + 1;
    }
    free(buf);
    if (rc == SW_OK) atomic_store(&((sw_db *)db)->headers_checked, 1);
    return rc;
}

int sw_db_verify(const sw_db *db, void (*progress)(void *user, uint64_t done, uint64_t total),
                 void *user, sw_error *err)
{
    if (!db) return sw_error_set(err, SW_EINVAL, "no database");
    db = whole_of(db); /* the files, whichever part of them is open */
    uint64_t largest = 0;
    for (int d = 0; d < NUM_DATA; d++)
        for (size_t c = 0; c < db->num_chunks[d]; c++)
            if (db->chunks[d][c].size > largest) largest = db->chunks[d][c].size;
    uint8_t *buf = malloc(largest ? (size_t)largest : 1);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    if (!buf || !dctx) {
        free(buf);
        ZSTD_freeDCtx(dctx);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    uint64_t total = db->num_chunks[DATA_RESIDUES] + db->num_chunks[DATA_HEADERS], done = 0;
    int rc = SW_OK;
    char reason[160];
    if (progress) progress(user, 0, total);
    for (int d = 0; d < NUM_DATA && rc == SW_OK; d++) {
        for (size_t c = 0; c < db->num_chunks[d] && rc == SW_OK; c++) {
            rc = decode_chunk(db, d, c, buf, dctx, reason, sizeof reason);
            if (rc != SW_OK) {
                const chunk *k = &db->chunks[d][c];
                sw_error_set(err, rc, "%s: chunk %zu of %zu (sequences %llu-%llu) %s: %s",
                             db->path[d], c, db->num_chunks[d], (unsigned long long)k->first_seq,
                             (unsigned long long)(k->first_seq + k->num_seqs - 1),
                             rc == SW_ECORRUPT ? "is corrupt" : "cannot be read", reason);
                break;
            }
            if (progress) progress(user, ++done, total);
        }
    }
    free(buf);
    ZSTD_freeDCtx(dctx);
    return rc;
}

int sw_db_is_file(const char *path)
{
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) : -1;
    if (fd < 0) return 0;
    char magic[SW_DB_MAGIC_SIZE];
    int found = sw_io_pread_exact(fd, magic, sizeof magic, 0) == 0 &&
                (!memcmp(magic, SW_DB_MAGIC_INDEX, sizeof magic) || !memcmp(magic, SW_DB_MAGIC_RESIDUES, sizeof magic) ||
                 !memcmp(magic, SW_DB_MAGIC_HEADERS, sizeof magic));
    close(fd);
    return found;
}
