/* Fuzz target of the PSSM readers and builder (src/search/sw_pssm.h): a
 * PSSM file (swsearch's own format or PSI-BLAST's ASCII PSSM), as
 * `swsearch search --pssm` reads it, or an alignment (aligned FASTA,
 * Clustal, Stockholm, A3M) made into a PSSM, as `--msa` makes it.
 *
 * Input: one configuration byte, then the file's bytes.
 *   bit 0: the bytes are an alignment, read by sw_msa_parse (bit 1: as
 *          A3M) and, when at most 64 rows x 400 columns, made into a PSSM
 *          by sw_pssm_from_msa (bit 2: beta 10 for every column instead of
 *          each column's own; bit 3: no pseudocounts);
 *   otherwise the bytes are a PSSM, read by sw_pssm_parse with BLOSUM62
 *          (bit 1: without a matrix, as a saved profile needs none).
 * Every PSSM made or read has at least one position, a query code for each
 * and a label; a built one keeps its scores within [SW_PSSM_FLOOR, 127];
 * each is written (sw_pssm_write) and read back to the same scores and
 * query. Failures carry a code and a message, and leave nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "sw_matrix.h"
#include "sw_msa.h"
#include "sw_pssm.h"

enum { CFG_MSA = 1, CFG_A3M_OR_NO_MATRIX = 2, CFG_BETA10 = 4, CFG_NO_PSEUDO = 8 };

/* The promises every PSSM keeps, and its text reading back the same. */
static void check_pssm(const sw_pssm *p, int built)
{
    FUZZ_CHECK(p->length >= 1);
    FUZZ_CHECK(p->label != NULL);
    for (size_t i = 0; i < p->length; ++i) {
        FUZZ_CHECK(p->query[i] < SW_CODE_LIMIT);
        if (built)
            for (int c = 0; c < SW_CODE_LIMIT; ++c) FUZZ_CHECK(sw_pssm_row(p, i)[c] >= SW_PSSM_FLOOR);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    FUZZ_CHECK(mem != NULL);
    sw_error err;
    sw_error_clear(&err);
    FUZZ_CHECK(sw_pssm_write(p, mem, "fuzz", &err) == SW_OK);
    FUZZ_CHECK(fclose(mem) == 0);
    sw_pssm *again = NULL;
    const int rc = sw_pssm_parse(text, len, "fuzz", NULL, &again, &err);
    FUZZ_CHECK(rc == SW_OK);
    FUZZ_CHECK(again->length == p->length);
    FUZZ_CHECK(!memcmp(again->query, p->query, p->length));
    FUZZ_CHECK(!memcmp(again->scores, p->scores, p->length * SW_CODE_LIMIT));
    sw_pssm_free(again);
    free(text);
}

/* What a reader or the builder gave: a PSSM that keeps its promises, or a
 * failure that keeps its own. */
static void check_made(int rc, sw_pssm *p, const sw_error *err, int built)
{
    if (rc == SW_OK) {
        check_pssm(p, built);
        sw_pssm_free(p);
    } else {
        FUZZ_CHECK(p == NULL);
        fuzz_check_error(rc, err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const unsigned cfg = data[0];
    const char *text = (const char *)data + 1;
    const size_t len = size - 1;
    sw_error err;
    sw_error_clear(&err);
    sw_matrix *m = NULL;
    FUZZ_CHECK(sw_matrix_load("BLOSUM62", &m, &err) == SW_OK);
    if (cfg & CFG_MSA) {
        sw_msa *msa = NULL;
        int rc = sw_msa_parse(text, len, cfg & CFG_A3M_OR_NO_MATRIX ? "fuzz.a3m" : "fuzz.afa", &msa, &err);
        if (rc == SW_OK && sw_msa_rows(msa) <= 64 && sw_msa_columns(msa) <= 400) {
            sw_pssm_options o;
            sw_pssm_options_init(&o);
            if (cfg & CFG_BETA10) o.pseudocounts = SW_PSSM_PSEUDOCOUNTS;
            if (cfg & CFG_NO_PSEUDO) o.pseudocounts = 0;
            sw_pssm *p = NULL;
            rc = sw_pssm_from_msa(msa, m, &o, &p, &err);
            check_made(rc, p, &err, 1);
        } else if (rc != SW_OK) {
            FUZZ_CHECK(msa == NULL);
            fuzz_check_error(rc, &err);
        }
        sw_msa_free(msa);
    } else {
        sw_pssm *p = NULL;
        const int rc = sw_pssm_parse(text, len, "fuzz.pssm", cfg & CFG_A3M_OR_NO_MATRIX ? NULL : m, &p, &err);
        check_made(rc, p, &err, 0);
    }
    sw_matrix_free(m);
    return 0;
}
