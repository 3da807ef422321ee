/* Fuzz target of the multiple-alignment reader (src/profile/sw_msa.h):
 * aligned FASTA, Clustal and Stockholm, as `swsearch profile` reads them.
 *
 * Input: one configuration byte, then the file's bytes.
 *   bit 0: when the alignment is read and small (at most 64 rows x 300
 *          columns), make its profile (bit 1: Henikoff-weighted) and align
 *          it against itself, which must succeed and re-score exactly */
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "sw_matrix.h"
#include "sw_profile_align.h"

enum { CFG_ALIGN = 1, CFG_WEIGHTS = 2 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const unsigned cfg = data[0];
    char path[FUZZ_PATH_MAX];
    const int fd = fuzz_memfile(data + 1, size - 1, path);
    sw_msa *m = NULL;
    sw_error err;
    sw_error_clear(&err);
    const int rc = sw_msa_read(path, &m, &err);
    if (rc == SW_OK) {
        const size_t rows = sw_msa_rows(m), cols = sw_msa_columns(m);
        FUZZ_CHECK(rows >= 1 && cols >= 1);
        for (size_t r = 0; r < rows; ++r) {
            FUZZ_CHECK(sw_msa_name(m, r) != NULL);
            for (size_t c = 0; c < cols; ++c) FUZZ_CHECK(sw_msa_row(m, r)[c] <= SW_MSA_GAP);
        }
        if ((cfg & CFG_ALIGN) && rows <= 64 && cols <= 300) {
            sw_matrix *mx = NULL;
            FUZZ_CHECK(sw_matrix_load("BLOSUM62", &mx, &err) == SW_OK);
            sw_profile *p = NULL;
            const int prc = cfg & CFG_WEIGHTS ? sw_profile_from_msa_weighted(m, &p, &err) : sw_profile_from_msa(m, &p, &err);
            FUZZ_CHECK(prc == SW_OK);
            const sw_profile_scoring s = {SW_PROFILE_EXPECTED, sw_matrix_table(mx), 11, 1};
            sw_profile_alignment *x = NULL;
            FUZZ_CHECK(sw_profile_align(p, p, &s, &x, &err) == SW_OK);
            FUZZ_CHECK(sw_profile_alignment_length(x) >= cols);
            sw_profile_alignment_free(x);
            sw_profile_free(p);
            sw_matrix_free(mx);
        }
        sw_msa_free(m);
    } else {
        FUZZ_CHECK(m == NULL);
        fuzz_check_error(rc, &err);
    }
    close(fd);
    return 0;
}
