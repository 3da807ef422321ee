/* Fuzz target of the substitution matrix parser (src/core/sw_matrix.h),
 * through the path a user's `--matrix FILE` takes: the input is a file,
 * loaded by path, and the matrix then builds scoring schemes.
 * Input: the file's bytes. */
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "sw_matrix.h"

/* Valid and invalid penalties, edges included. */
static const int gaps[][2] = {{11, 1}, {0, 1}, {255, 255}, {-1, 1}, {10, 0}, {256, 1}, {1, 256}};

static void check_matrix(const sw_matrix *m)
{
    const sw_alphabet *alpha = sw_matrix_alphabet(m);
    FUZZ_CHECK(alpha == sw_alphabet_protein());
    const int8_t *t = sw_matrix_table(m);
    /* The last code is past the alphabet: it scores the minimum. */
    int lo = sw_matrix_score(t, SW_CODE_LIMIT - 1, SW_CODE_LIMIT - 1), hi = sw_matrix_max(m);
    FUZZ_CHECK(lo <= hi && lo >= -127 && hi <= 127);
    for (int i = 0; i < SW_CODE_LIMIT; i++) {
        for (int j = 0; j < SW_CODE_LIMIT; j++) {
            int v = sw_matrix_score(t, (uint8_t)i, (uint8_t)j);
            FUZZ_CHECK(v >= lo && v <= hi);
            /* sw_matrix.h: rows and columns beyond the alphabet hold the minimum. */
            if (i >= alpha->size || j >= alpha->size) FUZZ_CHECK(v == lo);
        }
    }
    for (size_t g = 0; g < sizeof gaps / sizeof *gaps; g++) {
        int open = gaps[g][0], extend = gaps[g][1];
        int valid = open >= 0 && open <= 255 && extend >= 1 && extend <= 255;
        sw_scoring s;
        sw_error err;
        sw_error_clear(&err);
        int rc = sw_scoring_init(&s, m, open, extend, &err);
        if (!valid) {
            FUZZ_CHECK(rc == SW_EINVAL);
            fuzz_check_error(rc, &err);
            continue;
        }
        FUZZ_CHECK(rc == SW_OK);
        FUZZ_CHECK(s.table == t && s.max_score == hi);
        FUZZ_CHECK(s.gap_open == open && s.gap_extend == extend);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_MAX];
    int fd = fuzz_memfile(data, size, path);
    sw_matrix *m = NULL;
    sw_error err;
    sw_error_clear(&err);
    int rc = sw_matrix_load(path, &m, &err);
    close(fd);
    if (rc == SW_OK) {
        FUZZ_CHECK(m != NULL);
        check_matrix(m);
        sw_matrix_free(m);
    } else {
        fuzz_check_error(rc, &err);
    }
    return 0;
}
