/* Helpers shared by the fuzz targets: the input as a file, private
 * temporary directories, and checks of what every failure promises. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"

/* Room for the paths below: a directory under $TMPDIR and a file name. */
#define FUZZ_PATH_MAX 4096

/* A broken promise of the code under test: aborts, so libFuzzer keeps the
 * input as a crash. Not assert(): it stays on in every build type. */
#define FUZZ_CHECK(cond) ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))
_Noreturn void fuzz_fail(const char *file, int line, const char *what);

/* An anonymous file in memory (memfd) holding `data`; `path` receives a
 * name that open() accepts (/proc/self/fd/N). Returns the descriptor:
 * closing it frees the file. */
int fuzz_memfile(const void *data, size_t size, char path[FUZZ_PATH_MAX]);

/* A new private directory under $TMPDIR (or /tmp). */
void fuzz_dir_make(char path[FUZZ_PATH_MAX]);
/* Removes the directory and everything in it. */
void fuzz_dir_remove(const char *path);
void fuzz_write_file(const char *path, const void *data, size_t size);

/* What every failing library call promises: a negative SW_E* code, the
 * same code in `err`, and a message that is not empty and holds no control
 * characters (messages quote input bytes, escaped). With SW_FUZZ_VERBOSE
 * set, prints the message. */
void fuzz_check_error(int rc, const sw_error *err);

/* Bytes 0..3 as a little-endian u32 (the framing of multi-part inputs). */
static inline uint32_t fuzz_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t fuzz_get_u64(const uint8_t *p)
{
    return (uint64_t)fuzz_get_u32(p) | (uint64_t)fuzz_get_u32(p + 4) << 32;
}

static inline void fuzz_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

#endif
