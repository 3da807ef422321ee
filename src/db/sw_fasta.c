/* Streaming FASTA reader: plain or zstd input read in large blocks, lines
 * found with memchr and residues encoded through the alphabet's table. */
#include "sw_fasta.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

/* The largest zstd window (log2 of bytes) that the reader accepts. */
#define SW_FASTA_ZSTD_WINDOW_LOG 27

/* Large blocks keep read() and ZSTD_decompressStream() calls rare; lines of
 * any length are carried across block boundaries, so the size only affects
 * speed. */
#define TEXT_BLOCK ((size_t)4 << 20)
#define RAW_BLOCK ((size_t)1 << 20)
/* Identifiers and bytes quoted in messages are cut to this many bytes. */
#define SHOWN_MAX 200

/* The encoder ORs the codes of a whole line and tests one bit, which works
 * because every valid code is below 0x80 and the invalid code is not. */
_Static_assert(SW_CODE_LIMIT <= 0x80 && (SW_CODE_INVALID & 0x80) != 0, "code ranges");

enum { ST_START, ST_HEADER, ST_EOF, ST_FAILED };

struct sw_fasta {
    char *name;                 /* for messages: the path, or "<stdin>" */
    int fd;
    int own_fd;
    const uint8_t *encode;      /* the alphabet's byte -> code table */
    sw_warn_fn warn;
    void *warn_user;
    uint64_t max_length;

    /* Input text (plain, or decompressed); [pos, end) is not yet parsed. */
    uint8_t *text;
    size_t pos, end;
    int text_eof;

    /* zstd input only. */
    ZSTD_DStream *zds;
    uint8_t *raw;
    ZSTD_inBuffer zin;
    int raw_eof;
    size_t zret;                /* last ZSTD_decompressStream() result: 0 at a frame end */

    uint64_t text_total;        /* text bytes produced so far */
    uint64_t raw_total;         /* file bytes read so far */
    uint64_t file_size;

    uint64_t line;              /* number of the line that holds text[pos] */
    size_t nl_at;               /* the next '\n' at or after pos, end for none, SIZE_MAX: not sought */
    int cr_pending;             /* a '\r' ended the last block: a '\n' first in the next is its pair */
    int state;                  /* ST_HEADER: text[pos] is the '>' of the next record */
    int failed;                 /* the code of an earlier error, repeated */

    char *header;
    size_t header_len, header_cap;
    uint64_t header_line;
    uint8_t *res;
    size_t res_len, res_cap;
};

static int is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void quote_bytes(char *dst, size_t cap, const char *s, size_t n)
{
    sw_error_quote(dst, cap, s, n, SHOWN_MAX);
}

/* The identifier of the current record, quoted for a message. */
static void current_id(const sw_fasta *f, char *dst, size_t cap)
{
    size_t id_len;
    sw_fasta_split_header(f->header, f->header_len, &id_len, NULL, NULL);
    quote_bytes(dst, cap, f->header, id_len);
}

static ssize_t read_some(int fd, void *buf, size_t cap)
{
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n >= 0 || errno != EINTR) return n;
    }
}

static int read_error(const sw_fasta *f, sw_error *err)
{
    return sw_error_set(err, SW_EIO, "%s: %s", f->name, strerror(errno));
}

/* Replaces the (fully parsed) text block with the next one: returns 1, 0 at
 * the end of the input, or a negative code. */
static int refill_block(sw_fasta *f, sw_error *err)
{
    f->pos = f->end = 0;
    f->nl_at = SIZE_MAX;
    if (f->text_eof) return 0;
    if (!f->zds) {
        ssize_t n = read_some(f->fd, f->text, TEXT_BLOCK);
        if (n < 0) return read_error(f, err);
        if (n == 0) {
            f->text_eof = 1;
            return 0;
        }
        f->end = (size_t)n;
        f->text_total += (uint64_t)n;
        f->raw_total += (uint64_t)n;
        return 1;
    }

    ZSTD_outBuffer out = {f->text, TEXT_BLOCK, 0};
    for (;;) {
        if (f->zin.pos == f->zin.size && !f->raw_eof) {
            ssize_t n = read_some(f->fd, f->raw, RAW_BLOCK);
            if (n < 0) return read_error(f, err);
            f->zin.src = f->raw;
            f->zin.size = (size_t)n;
            f->zin.pos = 0;
            f->raw_total += (uint64_t)n;
            if (n == 0) f->raw_eof = 1;
        }
        int drained = f->zin.pos == f->zin.size && f->raw_eof;
        /* A frame that ended exactly at the end of the file is a clean end;
         * zstd has flushed everything by the time it reports 0. */
        if (drained && f->zret == 0) break;
        size_t r = ZSTD_decompressStream(f->zds, &out, &f->zin);
        if (ZSTD_isError(r) && ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
            return sw_error_set(err, SW_EFORMAT,
                                "%s: the zstd stream asks for a window of more than %d MB (zstd --long=N "
                                "with N > %d); recompress it with a smaller one (zstd --long) or "
                                "decompress it first",
                                f->name, (1 << SW_FASTA_ZSTD_WINDOW_LOG) >> 20, SW_FASTA_ZSTD_WINDOW_LOG);
        if (ZSTD_isError(r))
            return sw_error_set(err, SW_EFORMAT, "%s: corrupt zstd stream: %s", f->name,
                                ZSTD_getErrorName(r));
        f->zret = r;
        if (out.pos > 0) break;
        /* Without input zstd can only flush; nothing flushed in the middle
         * of a frame means the file was cut short. */
        if (drained)
            return sw_error_set(err, SW_EFORMAT,
                                "%s: corrupt zstd stream: truncated (the file ends inside a frame)",
                                f->name);
    }
    if (out.pos == 0) {
        f->text_eof = 1;
        return 0;
    }
    f->end = out.pos;
    f->text_total += out.pos;
    return 1;
}

/* The next block with text not yet parsed, past the '\n' of a "\r\n" that
 * the previous block's end cut in two: 1, 0 at the end, or a negative code. */
static int refill(sw_fasta *f, sw_error *err)
{
    for (;;) {
        int rc = refill_block(f, err);
        if (rc <= 0) return rc;
        if (f->cr_pending && f->text[0] == '\n') f->pos = 1;
        f->cr_pending = 0;
        if (f->pos < f->end) return 1;
    }
}

/* Where the line at text[pos] ends within the block: its first '\r' or
 * '\n' (a line ends in "\n", "\r\n" or a lone "\r", as old Mac files end
 * them), or NULL. The next '\n' is sought once a block and line, so that a
 * block of CR-only lines is not searched to its end for every line. */
static const uint8_t *line_end(sw_fasta *f)
{
    if (f->nl_at == SIZE_MAX || f->nl_at < f->pos) {
        const uint8_t *nl = memchr(f->text + f->pos, '\n', f->end - f->pos);
        f->nl_at = nl ? (size_t)(nl - f->text) : f->end;
    }
    const uint8_t *cr = memchr(f->text + f->pos, '\r', f->nl_at - f->pos);
    if (cr) return cr;
    return f->nl_at < f->end ? f->text + f->nl_at : NULL;
}

/* Steps over the line end at text[pos] ("\n", "\r\n" or "\r") and counts
 * the line. */
static void end_line(sw_fasta *f)
{
    const uint8_t c = f->text[f->pos++];
    f->line++;
    if (c != '\r') return;
    if (f->pos == f->end) f->cr_pending = 1;
    else if (f->text[f->pos] == '\n') f->pos++;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 4096;
    while (n < need) n = n > SIZE_MAX / 2 ? need : n * 2;
    void *q = realloc(*p, n * elem);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Skips the blank lines before the first header: returns 1 with text[pos] ==
 * '>', 0 for input without records, or a negative code. */
static int find_first_header(sw_fasta *f, sw_error *err)
{
    for (;;) {
        if (f->pos == f->end) {
            int rc = refill(f, err);
            if (rc <= 0) return rc;
        }
        /* A UTF-8 byte order mark from a Windows editor is not data. */
        if (sw_fasta_bytes_read(f) == 0 && f->end - f->pos >= 3 &&
            memcmp(f->text + f->pos, "\xEF\xBB\xBF", 3) == 0) {
            f->pos += 3;
            /* The mark may end a piece of text (a zstd frame of its own):
             * the first line starts with the next piece. */
            continue;
        }
        if (f->pos < f->end && f->text[f->pos] == '>') return 1;

        int line_done = 0;
        while (!line_done) {
            for (; f->pos < f->end; f->pos++) {
                unsigned char c = f->text[f->pos];
                if (c == '\n' || c == '\r') {
                    end_line(f);
                    line_done = 1;
                    break;
                }
                if (!is_blank(c))
                    return sw_error_set(err, SW_EFORMAT,
                                        "%s:%llu: sequence data before the first '>' header",
                                        f->name, (unsigned long long)f->line);
            }
            if (!line_done) {
                int rc = refill(f, err);
                if (rc <= 0) return rc;
            }
        }
    }
}

/* Reads the header line whose '>' is at text[pos]. */
static int read_header(sw_fasta *f, sw_error *err)
{
    f->pos++;
    f->header_len = 0;
    f->header_line = f->line;
    for (;;) {
        if (f->pos == f->end) {
            int rc = refill(f, err);
            if (rc < 0) return rc;
            if (rc == 0) break;
        }
        const uint8_t *s = f->text + f->pos;
        const uint8_t *nl = line_end(f);
        size_t n = nl ? (size_t)(nl - s) : f->end - f->pos;
        if (f->header_len + n > SW_FASTA_MAX_HEADER)
            return sw_error_set(err, SW_ELIMIT, "%s:%llu: header line longer than %zu bytes", f->name,
                                (unsigned long long)f->header_line, SW_FASTA_MAX_HEADER);
        if (grow((void **)&f->header, &f->header_cap, f->header_len + n + 1, 1))
            return sw_error_set(err, SW_ENOMEM, "%s:%llu: out of memory for a header", f->name,
                                (unsigned long long)f->header_line);
        memcpy(f->header + f->header_len, s, n);
        f->header_len += n;
        f->pos += n;
        if (nl) {
            end_line(f);
            break;
        }
    }
    if (!f->header && grow((void **)&f->header, &f->header_cap, 1, 1))
        return sw_error_set(err, SW_ENOMEM, "%s: out of memory", f->name);
    f->header[f->header_len] = '\0';
    /* Headers travel as C strings (identifiers, database headers): a NUL
     * would silently cut one short, or leave an empty identifier. */
    if (memchr(f->header, '\0', f->header_len))
        return sw_error_set(err, SW_EFORMAT, "%s:%llu: NUL byte in a header line", f->name,
                            (unsigned long long)f->header_line);
    return 0;
}

static int invalid_residue(const sw_fasta *f, unsigned char c, sw_error *err)
{
    char shown[8], id[4 * SHOWN_MAX + 8];
    quote_bytes(shown, sizeof shown, (const char *)&c, 1);
    current_id(f, id, sizeof id);
    if (id[0])
        return sw_error_set(err, SW_EFORMAT, "%s:%llu: invalid residue '%s' in sequence %s",
                            f->name, (unsigned long long)f->line, shown, id);
    return sw_error_set(err, SW_EFORMAT,
                        "%s:%llu: invalid residue '%s' in the sequence with the empty header "
                        "at line %llu",
                        f->name, (unsigned long long)f->line, shown,
                        (unsigned long long)f->header_line);
}

/* Appends the residues of one piece of a sequence line. Blanks are dropped,
 * anything else outside the alphabet is an error. */
static int encode_piece(sw_fasta *f, const uint8_t *s, size_t n, sw_error *err)
{
    /* Nothing to add, and f->res may still be NULL (no pointer arithmetic on it). */
    if (n == 0) return 0;
    if (grow((void **)&f->res, &f->res_cap, f->res_len + n, 1)) {
        char id[4 * SHOWN_MAX + 8];
        current_id(f, id, sizeof id);
        return sw_error_set(err, SW_ENOMEM, "%s:%llu: out of memory for sequence %s", f->name,
                            (unsigned long long)f->line, id);
    }
    const uint8_t *enc = f->encode;
    uint8_t *o = f->res + f->res_len;
    unsigned bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t v = enc[s[i]];
        o[i] = v;
        bad |= v;
    }
    if (!(bad & 0x80)) {
        f->res_len += n;
    } else {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            uint8_t v = enc[s[i]];
            if (v != SW_CODE_INVALID) o[k++] = v;
            else if (!is_blank(s[i])) return invalid_residue(f, s[i], err);
        }
        f->res_len += k;
    }
    if (f->max_length && f->res_len > f->max_length) {
        char id[4 * SHOWN_MAX + 8];
        current_id(f, id, sizeof id);
        return sw_error_set(err, SW_ELIMIT, "%s:%llu: sequence %s is longer than %llu residues",
                            f->name, (unsigned long long)f->line, id,
                            (unsigned long long)f->max_length);
    }
    return 0;
}

/* Reads sequence lines up to the next header or the end of the input. */
static int read_sequence(sw_fasta *f, sw_error *err)
{
    int line_start = 1;
    f->res_len = 0;
    for (;;) {
        if (f->pos == f->end) {
            int rc = refill(f, err);
            if (rc < 0) return rc;
            if (rc == 0) {
                f->state = ST_EOF;
                return 0;
            }
        }
        if (line_start && f->text[f->pos] == '>') {
            f->state = ST_HEADER;
            return 0;
        }
        const uint8_t *s = f->text + f->pos;
        const uint8_t *nl = line_end(f);
        size_t n = nl ? (size_t)(nl - s) : f->end - f->pos;
        int rc = encode_piece(f, s, n, err);
        if (rc < 0) return rc;
        f->pos += n;
        line_start = nl != NULL;
        if (nl) end_line(f);
    }
}

/* Opens `path`, or reads `given_fd` (>= 0; not closed) naming it `path`. */
static int fasta_open(const char *path, int given_fd, const sw_fasta_options *options, sw_fasta **out,
                      sw_error *err)
{
    *out = NULL;
    int is_stdin = given_fd < 0 && strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    sw_fasta *f = calloc(1, sizeof *f);
    if (!f) return sw_error_set(err, SW_ENOMEM, "%s: out of memory", name);
    f->fd = -1;
    int rc = SW_OK;
    f->name = strdup(name);
    f->text = malloc(TEXT_BLOCK);
    if (!f->name || !f->text) {
        rc = sw_error_set(err, SW_ENOMEM, "%s: out of memory", name);
        goto fail;
    }
    const sw_alphabet *alpha =
        options && options->alphabet ? options->alphabet : sw_alphabet_protein();
    f->encode = alpha->encode;
    if (options) {
        f->warn = options->warn;
        f->warn_user = options->warn_user;
        f->max_length = options->max_length;
    }
    f->line = 1;
    f->nl_at = SIZE_MAX;
    f->state = ST_START;
    f->zret = 1;

    if (given_fd >= 0) {
        f->fd = given_fd;
    } else if (is_stdin) {
        f->fd = STDIN_FILENO;
    } else {
        f->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (f->fd < 0) {
            rc = sw_error_set(err, errno == ENOENT ? SW_ENOTFOUND : SW_EIO, "%s: %s", name,
                              strerror(errno));
            goto fail;
        }
        f->own_fd = 1;
    }
    struct stat st;
    if (fstat(f->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            rc = sw_error_set(err, SW_EIO, "%s: %s", name, strerror(EISDIR));
            goto fail;
        }
        if (S_ISREG(st.st_mode)) {
            f->file_size = (uint64_t)st.st_size;
            posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        }
#ifdef F_SETPIPE_SZ
        /* The default 64 KiB pipe costs a context switch per 64 KiB when
         * reading `zstdcat db.fa.zst | makedb - db`; a failure is harmless. */
        if (S_ISFIFO(st.st_mode)) fcntl(f->fd, F_SETPIPE_SZ, 1 << 20);
#endif
    }

    /* The format is told by the first bytes; a pipe may deliver fewer than
     * asked, so keep reading until there are enough to compare. */
    size_t n = 0;
    while (n < 6) {
        ssize_t r = read_some(f->fd, f->text + n, TEXT_BLOCK - n);
        if (r < 0) {
            rc = read_error(f, err);
            goto fail;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    const uint8_t *m = f->text;
    if (n >= 4 && m[0] == 0x28 && m[1] == 0xB5 && m[2] == 0x2F && m[3] == 0xFD) {
        f->zds = ZSTD_createDStream();
        f->raw = malloc(n > RAW_BLOCK ? n : RAW_BLOCK);
        if (!f->zds || !f->raw) {
            rc = sw_error_set(err, SW_ENOMEM, "%s: out of memory", name);
            goto fail;
        }
        /* A frame's window is memory taken before any of its data is
         * checked: up to 2 GB for seven bytes of header. 2^27 bytes is
         * zstd's own limit, and `zstd --long` stays within it; a larger
         * window gets a clear error (refill). */
        ZSTD_DCtx_setParameter(f->zds, ZSTD_d_windowLogMax, SW_FASTA_ZSTD_WINDOW_LOG);
        memcpy(f->raw, f->text, n);
        f->zin.src = f->raw;
        f->zin.size = n;
        f->zin.pos = 0;
        f->raw_total = n;
    } else if (n >= 2 && m[0] == 0x1F && m[1] == 0x8B) {
        rc = sw_error_set(err, SW_EFORMAT,
                          "%s: gzip-compressed input is not supported; decompress it first or "
                          "recompress with zstd",
                          name);
        goto fail;
    } else if (n >= 6 && memcmp(m, "\xFD" "7zXZ\0", 6) == 0) {
        rc = sw_error_set(err, SW_EFORMAT,
                          "%s: xz-compressed input is not supported; decompress it first or "
                          "recompress with zstd",
                          name);
        goto fail;
    } else if (n >= 4 && memcmp(m, "BZh", 3) == 0 && m[3] >= '1' && m[3] <= '9') {
        rc = sw_error_set(err, SW_EFORMAT,
                          "%s: bzip2-compressed input is not supported; decompress it first or "
                          "recompress with zstd",
                          name);
        goto fail;
    } else {
        f->end = n;
        f->text_total = f->raw_total = n;
        if (n == 0) f->text_eof = 1;
    }
    *out = f;
    return SW_OK;

fail:
    sw_fasta_close(f);
    return rc;
}

int sw_fasta_open(const char *path, const sw_fasta_options *options, sw_fasta **out, sw_error *err)
{
    return fasta_open(path, -1, options, out, err);
}

int sw_fasta_open_fd(int fd, const char *name, const sw_fasta_options *options, sw_fasta **out,
                     sw_error *err)
{
    if (fd < 0 || !name) return sw_error_set(err, SW_EINVAL, "no input to read");
    return fasta_open(name, fd, options, out, err);
}

int sw_fasta_next(sw_fasta *f, sw_fasta_record *rec, sw_error *err)
{
    for (;;) {
        int rc = 0;
        switch (f->state) {
        case ST_EOF:
            return 0;
        case ST_FAILED:
            return sw_error_set(err, f->failed, "%s: cannot read on after an earlier error",
                                f->name);
        case ST_START:
            rc = find_first_header(f, err);
            if (rc == 0) {
                f->state = ST_EOF;
                return 0;
            }
            if (rc < 0) goto fail;
            f->state = ST_HEADER;
            break;
        default:
            break;
        }
        if ((rc = read_header(f, err)) < 0) goto fail;
        if ((rc = read_sequence(f, err)) < 0) goto fail;
        if (f->res_len == 0) {
            if (f->warn) {
                char id[4 * SHOWN_MAX + 8], msg[1024];
                current_id(f, id, sizeof id);
                snprintf(msg, sizeof msg, "%s:%llu: empty sequence '%s' skipped", f->name,
                         (unsigned long long)f->header_line, id);
                f->warn(f->warn_user, msg);
            }
            continue;
        }
        rec->header = f->header;
        rec->header_len = f->header_len;
        rec->residues = f->res;
        rec->length = f->res_len;
        rec->line = f->header_line;
        return 1;
    fail:
        f->state = ST_FAILED;
        f->failed = rc;
        return rc;
    }
}

uint64_t sw_fasta_bytes_read(const sw_fasta *f)
{
    return f->text_total - (f->end - f->pos);
}

uint64_t sw_fasta_file_size(const sw_fasta *f) { return f->file_size; }

uint64_t sw_fasta_file_offset(const sw_fasta *f)
{
    if (f->zds) return f->raw_total - (f->zin.size - f->zin.pos);
    return f->raw_total - (f->end - f->pos);
}

int sw_fasta_fd(const sw_fasta *f) { return f->fd; }

void sw_fasta_close(sw_fasta *f)
{
    if (!f) return;
    if (f->own_fd && f->fd >= 0) close(f->fd);
    ZSTD_freeDStream(f->zds);
    free(f->raw);
    free(f->text);
    free(f->header);
    free(f->res);
    free(f->name);
    free(f);
}

void sw_fasta_split_header(const char *header, size_t len, size_t *id_len,
                           const char **description, size_t *description_len)
{
    size_t i = 0;
    while (i < len && header[i] != ' ' && header[i] != '\t') i++;
    if (id_len) *id_len = i;
    while (i < len && (header[i] == ' ' || header[i] == '\t')) i++;
    if (description) *description = header + i;
    if (description_len) *description_len = len - i;
}
