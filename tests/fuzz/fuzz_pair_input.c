/* Fuzz target of the pair-mode input reader (src/pair/sw_pair_input.h):
 * the two DNA sequences of `swsearch align`, from one file or two.
 *
 * Input: one configuration byte, then
 *   bit 0 clear: the bytes of one file that must hold two records;
 *   bit 0 set:   [size of file a: u16 LE] [file a] [file b: the rest].
 *   bit 1: the files are given zstd-compressed. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "fuzz_common.h"
#include "sw_alphabet.h"
#include "sw_pair_input.h"

enum { CFG_TWO_FILES = 1, CFG_ZSTD = 2 };

/* A file holding `data`, compressed when asked; returns its descriptor. */
static int input_file(const uint8_t *data, size_t size, int zstd, char path[FUZZ_PATH_MAX])
{
    if (!zstd) return fuzz_memfile(data, size, path);
    size_t cap = ZSTD_compressBound(size);
    uint8_t *z = malloc(cap);
    FUZZ_CHECK(z != NULL);
    size_t n = ZSTD_compress(z, cap, data, size, 1);
    FUZZ_CHECK(!ZSTD_isError(n));
    int fd = fuzz_memfile(z, n, path);
    free(z);
    return fd;
}

static void count_warning(void *user, const char *message)
{
    FUZZ_CHECK(message[0] != '\0');
    ++*(int *)user;
}

static void check_seq(const sw_pair_seq *s)
{
    FUZZ_CHECK(s->id != NULL && s->id[0] != '\0');
    FUZZ_CHECK(strpbrk(s->id, " \t") == NULL);
    FUZZ_CHECK(s->length >= 1 && s->length <= SW_PAIR_MAX_LENGTH);
    for (uint64_t i = 0; i < s->length; i++) FUZZ_CHECK(s->codes[i] < SW_DNA_CODES);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned cfg = data[0];
    data++;
    size--;
    int zstd = (cfg & CFG_ZSTD) != 0;
    char path_a[FUZZ_PATH_MAX], path_b[FUZZ_PATH_MAX];
    int fd_a, fd_b = -1;
    if (cfg & CFG_TWO_FILES) {
        if (size < 2) return 0;
        size_t size_a = (size_t)data[0] | (size_t)data[1] << 8;
        data += 2;
        size -= 2;
        if (size_a > size) size_a = size;
        fd_a = input_file(data, size_a, zstd, path_a);
        fd_b = input_file(data + size_a, size - size_a, zstd, path_b);
    } else {
        fd_a = input_file(data, size, zstd, path_a);
    }

    sw_pair_seq a, b;
    sw_error err;
    sw_error_clear(&err);
    int warnings = 0;
    int rc = sw_pair_read(path_a, fd_b >= 0 ? path_b : NULL, &a, &b, count_warning, &warnings,
                          &err);
    if (rc == SW_OK) {
        check_seq(&a);
        check_seq(&b);
    } else {
        fuzz_check_error(rc, &err);
    }
    sw_pair_seq_free(&a);
    sw_pair_seq_free(&b);
    close(fd_a);
    if (fd_b >= 0) close(fd_b);
    return 0;
}
