/* The merged multiple alignment of two profiles as text: aligned FASTA
 * (every row of the first alignment, then every row of the second, each
 * with its name and its residues, a '-' where the other alignment's column
 * stands against a gap), Clustal, or the column mapping. */
#ifndef SW_PROFILE_REPORT_H
#define SW_PROFILE_REPORT_H

#include <stdio.h>

#include "sw_msa.h"
#include "sw_profile_align.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { SW_PROFILE_FASTA = 0, SW_PROFILE_CLUSTAL = 1 } sw_profile_format;

/* Errors of `out` are left to the caller (ferror). */
void sw_profile_write_merged(FILE *out, sw_profile_format format, const sw_msa *a, const sw_msa *b,
                             const sw_profile_alignment *x);

/* "#score S", then a header line and one line a merged column: the 1-based
 * column of each input alignment, '-' for a gap. */
void sw_profile_write_map(FILE *out, const sw_profile_alignment *x);

#ifdef __cplusplus
}
#endif

#endif
