/* Helpers shared by the fuzz targets. Any failure of the harness itself
 * (no memory, no temporary directory) aborts: it is not a finding, but a
 * harness that went on would test nothing. */
#include "fuzz_common.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

_Noreturn void fuzz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    abort();
}

static _Noreturn void harness_error(const char *what, const char *path)
{
    fprintf(stderr, "fuzz harness: %s %s: %s\n", what, path, strerror(errno));
    abort();
}

static void write_all(int fd, const void *data, size_t size, const char *path)
{
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) harness_error("cannot write", path);
        p += n;
        size -= (size_t)n;
    }
}

static const char *tmp_dir(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

int fuzz_memfile(const void *data, size_t size, char path[FUZZ_PATH_MAX])
{
    int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
    if (fd < 0) {
        /* Without memfd (old kernels, some sandboxes): a file unlinked at
         * once, still reachable through /proc while the descriptor lives. */
        snprintf(path, FUZZ_PATH_MAX, "%s/fuzz-input.XXXXXX", tmp_dir());
        fd = mkstemp(path);
        if (fd < 0) harness_error("cannot create", path);
        unlink(path);
    }
    write_all(fd, data, size, "the input file");
    snprintf(path, FUZZ_PATH_MAX, "/proc/self/fd/%d", fd);
    return fd;
}

void fuzz_dir_make(char path[FUZZ_PATH_MAX])
{
    snprintf(path, FUZZ_PATH_MAX, "%s/fuzz-dir.XXXXXX", tmp_dir());
    if (!mkdtemp(path)) harness_error("cannot create a directory like", path);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    if (remove(path) != 0) harness_error("cannot remove", path);
    return 0;
}

void fuzz_dir_remove(const char *path)
{
    if (nftw(path, remove_entry, 8, FTW_DEPTH | FTW_PHYS) != 0) harness_error("cannot remove", path);
}

void fuzz_write_file(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) harness_error("cannot create", path);
    write_all(fd, data, size, path);
    if (close(fd) != 0) harness_error("cannot write", path);
}

void fuzz_check_error(int rc, const sw_error *err)
{
    FUZZ_CHECK(rc < 0);
    FUZZ_CHECK(err->code == rc);
    size_t n = strnlen(err->message, sizeof err->message);
    FUZZ_CHECK(n > 0 && n < sizeof err->message);
    /* To see why seeds or regression inputs are refused. */
    if (getenv("SW_FUZZ_VERBOSE")) fprintf(stderr, "error %d: %s\n", rc, err->message);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)err->message[i];
        if (c < 0x20 || c == 0x7F) {
            fprintf(stderr, "error message with control character 0x%02X at %zu: %s\n", c, i,
                    err->message);
            FUZZ_CHECK(!"control character in an error message");
        }
    }
}
