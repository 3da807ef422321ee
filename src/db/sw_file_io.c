#include "sw_file_io.h"

#include <errno.h>
#include <unistd.h>

int sw_io_write_all(int fd, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int sw_io_pwrite_all(int fd, const void *data, size_t n, uint64_t offset)
{
    const uint8_t *p = data;
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, (off_t)offset);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
        offset += (uint64_t)k;
    }
    return 0;
}

int sw_io_pread_exact(int fd, void *buf, size_t n, uint64_t offset)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t k = pread(fd, p, n, (off_t)offset);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (k == 0) return 1;
        p += k;
        n -= (size_t)k;
        offset += (uint64_t)k;
    }
    return 0;
}
