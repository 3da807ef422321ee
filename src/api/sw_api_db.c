/* What the public API (include/swsearch.h) tells of an open database:
 * counts, length statistics and the files, as `swsearch info` prints them. */
#include <string.h>

#include "swsearch.h"
#include "sw_db.h"
#include "sw_error.h"

int sw_db_get_info(const sw_db *db, sw_db_info *out, sw_error *err)
{
    sw_error_clear(err);
    if (!db || !out) return sw_error_set(err, SW_EINVAL, "sw_db_get_info: a database and an sw_db_info are needed");
    memset(out, 0, sizeof *out);
    out->format_version = sw_db_format_version(db);
    out->alphabet = sw_db_alphabet(db);
    out->sequences = sw_db_num_seqs(db);
    out->residues = sw_db_num_residues(db);
    /* Lengths are sorted (checked at open), so order statistics are direct
     * reads and each power of two's bin is one run. */
    const uint32_t *len = sw_db_lengths(db);
    const uint64_t n = out->sequences;
    if (n) {
        out->min_length = len[0];
        out->median_length = len[n / 2];
        out->max_length = len[n - 1];
    }
    uint64_t i = 0;
    for (int k = 0; k < 32 && i < n; k++) {
        const uint64_t hi = ((uint64_t)2 << k) - 1;
        while (i < n && len[i] <= hi) {
            out->length_histogram[k]++;
            i++;
        }
    }
    sw_db_files files;
    sw_db_file_info(db, &files);
    out->residue_chunks = sw_db_num_chunks(db);
    out->header_chunks = files.num_header_chunks;
    out->index_path = sw_db_path(db, SW_DB_FILE_INDEX);
    out->residue_path = sw_db_path(db, SW_DB_FILE_RESIDUES);
    out->header_path = sw_db_path(db, SW_DB_FILE_HEADERS);
    out->index_bytes = files.index_bytes;
    out->residue_bytes = files.residue_bytes;
    out->header_bytes = files.header_bytes;
    out->header_text_bytes = files.header_text_bytes;
    return SW_OK;
}
