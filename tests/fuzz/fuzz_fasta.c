/* Fuzz target of the FASTA reader (src/db/sw_fasta.h): opens the input as a
 * file and reads every record, as makedb and the query reader do.
 *
 * Input: one configuration byte, then the file's bytes.
 *   bit 0: give the reader a zstd-compressed copy too (the decompression
 *          path), and check that it reads what the plain text gives
 *   bit 1: DNA alphabet (else protein)
 *   bit 2: compress as two zstd frames, cut in the middle: the reader gets
 *          the text in two pieces, so lines are carried across pieces
 *   bit 3: a length limit (max_length) of 1 + 16 * (bits 4-7) residues */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>
#include <zstd.h>

#include "fuzz_common.h"
#include "sw_fasta.h"

enum { CFG_ZSTD = 1, CFG_DNA = 2, CFG_TWO_FRAMES = 4, CFG_LIMIT = 8 };

/* What a pass over the records saw, to compare the plain and the zstd
 * reading of one text. */
typedef struct outcome {
    int rc;               /* 0, or the error code */
    uint64_t records, warnings;
    XXH64_hash_t digest;  /* of headers, residues and line numbers */
} outcome;

static void count_warning(void *user, const char *message)
{
    size_t n = strlen(message);
    FUZZ_CHECK(n > 0);
    ((outcome *)user)->warnings++;
}

/* The text size of a file that is itself compressed. */
#define UNKNOWN SIZE_MAX

static void read_all(const char *path, size_t file_size, size_t text_size,
                     const sw_fasta_options *base, outcome *out)
{
    memset(out, 0, sizeof *out);
    sw_fasta_options opt = *base;
    opt.warn = count_warning;
    opt.warn_user = out;
    const sw_alphabet *alpha = opt.alphabet;
    XXH3_state_t *digest = XXH3_createState();
    FUZZ_CHECK(digest != NULL);
    XXH3_64bits_reset(digest);

    sw_error err;
    sw_error_clear(&err);
    sw_fasta *f = NULL;
    int rc = sw_fasta_open(path, &opt, &f, &err);
    if (rc != SW_OK) {
        fuzz_check_error(rc, &err);
        FUZZ_CHECK(f == NULL);
        out->rc = rc;
        XXH3_freeState(digest);
        return;
    }
    FUZZ_CHECK(sw_fasta_file_size(f) == file_size);
    uint64_t last_line = 0, last_bytes = 0;
    sw_fasta_record rec;
    while ((rc = sw_fasta_next(f, &rec, &err)) == 1) {
        out->records++;
        FUZZ_CHECK(rec.length > 0);
        if (opt.max_length) FUZZ_CHECK(rec.length <= opt.max_length);
        FUZZ_CHECK(rec.line > last_line);
        last_line = rec.line;
        FUZZ_CHECK(rec.header[rec.header_len] == '\0');
        for (size_t i = 0; i < rec.length; i++) FUZZ_CHECK(rec.residues[i] < alpha->size);

        size_t id_len, description_len;
        const char *description;
        sw_fasta_split_header(rec.header, rec.header_len, &id_len, &description,
                              &description_len);
        FUZZ_CHECK(id_len <= rec.header_len);
        FUZZ_CHECK(description >= rec.header + id_len);
        FUZZ_CHECK(description + description_len == rec.header + rec.header_len);
        FUZZ_CHECK(memchr(rec.header, ' ', id_len) == NULL);

        uint64_t bytes = sw_fasta_bytes_read(f);
        FUZZ_CHECK(bytes >= last_bytes && bytes <= text_size);
        last_bytes = bytes;
        FUZZ_CHECK(sw_fasta_file_offset(f) <= file_size);

        XXH3_64bits_update(digest, &rec.line, sizeof rec.line);
        XXH3_64bits_update(digest, &rec.header_len, sizeof rec.header_len);
        XXH3_64bits_update(digest, rec.header, rec.header_len);
        XXH3_64bits_update(digest, &rec.length, sizeof rec.length);
        XXH3_64bits_update(digest, rec.residues, rec.length);
    }
    if (rc < 0) {
        fuzz_check_error(rc, &err);
        /* A failed reader stays failed. */
        sw_error again;
        FUZZ_CHECK(sw_fasta_next(f, &rec, &again) == rc);
        out->rc = rc;
    } else {
        FUZZ_CHECK(rc == 0);
        FUZZ_CHECK(sw_fasta_next(f, &rec, &err) == 0);
        if (text_size != UNKNOWN) FUZZ_CHECK(sw_fasta_bytes_read(f) == text_size);
        FUZZ_CHECK(sw_fasta_file_offset(f) == file_size);
    }
    sw_fasta_close(f);
    out->digest = XXH3_64bits_digest(digest);
    XXH3_freeState(digest);
}

/* Compresses `text` as one frame, or as two cut in the middle (a reader
 * must go on past the end of the first, and gets the text in two pieces). */
static uint8_t *compress(const uint8_t *text, size_t size, int two_frames, size_t *out_size)
{
    /* The cut keeps a byte order mark (3 bytes) whole: a BOM split across
     * frames is not recognised, a case no real file has. */
    size_t cut = two_frames ? size / 2 : size;
    if (cut < 3) cut = size < 3 ? size : 3;
    size_t cap = ZSTD_compressBound(cut) + ZSTD_compressBound(size - cut);
    uint8_t *z = malloc(cap);
    FUZZ_CHECK(z != NULL);
    size_t n = ZSTD_compress(z, cap, text, cut, 1);
    FUZZ_CHECK(!ZSTD_isError(n));
    if (two_frames) {
        size_t m = ZSTD_compress(z + n, cap - n, text + cut, size - cut, 1);
        FUZZ_CHECK(!ZSTD_isError(m));
        n += m;
    }
    *out_size = n;
    return z;
}

/* Text that starts like a compressed file is read as one (or refused) in
 * the plain pass, but as text once compressed: the passes may differ. */
static int looks_compressed(const uint8_t *text, size_t size)
{
    return size > 0 && (text[0] == 0x28 || text[0] == 0x1F || text[0] == 0xFD || text[0] == 'B');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned cfg = data[0];
    const uint8_t *text = data + 1;
    size_t text_size = size - 1;

    sw_fasta_options opt = {0};
    opt.alphabet = cfg & CFG_DNA ? sw_alphabet_dna() : sw_alphabet_protein();
    if (cfg & CFG_LIMIT) opt.max_length = 1 + 16 * (uint64_t)(cfg >> 4);

    char path[FUZZ_PATH_MAX];
    outcome plain;
    int fd = fuzz_memfile(text, text_size, path);
    read_all(path, text_size, looks_compressed(text, text_size) ? UNKNOWN : text_size, &opt,
             &plain);
    close(fd);

    if (cfg & CFG_ZSTD) {
        size_t z_size;
        uint8_t *z = compress(text, text_size, (cfg & CFG_TWO_FRAMES) != 0, &z_size);
        outcome packed;
        fd = fuzz_memfile(z, z_size, path);
        read_all(path, z_size, text_size, &opt, &packed);
        close(fd);
        free(z);
        if (!looks_compressed(text, text_size)) {
            /* Decompressed text arrives in pieces (each frame is one), and
             * the length limit is checked after each piece of a line, the
             * residues within it: a line both too long and holding an
             * invalid residue gives either error, after the same records. */
            int either = packed.rc < 0 && plain.rc < 0 && opt.max_length;
            FUZZ_CHECK(packed.rc == plain.rc || either);
            FUZZ_CHECK(packed.records == plain.records);
            FUZZ_CHECK(packed.warnings == plain.warnings);
            FUZZ_CHECK(packed.digest == plain.digest);
        }
    }
    return 0;
}
