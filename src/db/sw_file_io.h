/* Whole-buffer reads and writes on file descriptors, retried on EINTR and
 * short transfers; shared by the database reader and writer. */
#ifndef SW_FILE_IO_H
#define SW_FILE_IO_H

#include <stddef.h>
#include <stdint.h>

/* 0, or -1 with errno set. */
int sw_io_write_all(int fd, const void *data, size_t n);
int sw_io_pwrite_all(int fd, const void *data, size_t n, uint64_t offset);
/* 0, or -1 with errno set, or 1 when the file ends early. */
int sw_io_pread_exact(int fd, void *buf, size_t n, uint64_t offset);

#endif
