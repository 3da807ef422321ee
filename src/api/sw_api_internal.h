/* What the files of the public API (include/swsearch.h) share: a search's
 * default scoring, BLAST's blastp (BLOSUM62, a gap of k residues costing
 * 11 + k), which calibrations are measured with too. */
#ifndef SW_API_INTERNAL_H
#define SW_API_INTERNAL_H

#define SW_API_DEFAULT_MATRIX "BLOSUM62"
#define SW_API_DEFAULT_GAP_OPEN 11
#define SW_API_DEFAULT_GAP_EXTEND 1

#endif
