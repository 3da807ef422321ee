/* The database cut into slices of equal work, one for each GPU of a search.
 * The database is sorted by length; it is read as length bands (lengths
 * within a factor of the square root of 2), each band's sequences are cut
 * into as many runs of equal residues as there are slices, and each slice
 * takes one run of every band (the first run of each band going to the
 * next slice in turn). A slice is then sorted by length like the
 * database and holds the same share of every length, so GPUs given one
 * slice each finish together whatever the database's length mix. */
#ifndef SW_SLICES_H
#define SW_SLICES_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"

/* A run of consecutive database sequences in a slice. */
typedef struct sw_slice_run {
    uint64_t first;   /* first database sequence (sorted numbering) */
    uint64_t count;
    uint64_t local;   /* the slice's number of `first`: its sequences in the runs before */
    uint64_t residue; /* where `first` starts among the database's residues, back to back */
    uint64_t residues;/* the run's residues */
} sw_slice_run;

typedef struct sw_slicing sw_slicing;

#define SW_SLICES_MAX 4096

/* Cuts the `num_seqs` sequences of `lengths` (ascending) into `slices`
 * slices (1 to SW_SLICES_MAX). A slice may be empty when there are fewer sequences
 * than slices. */
int sw_slicing_make(const uint32_t *lengths, uint64_t num_seqs, int slices, sw_slicing **out, sw_error *err);
void sw_slicing_free(sw_slicing *s);

int sw_slicing_count(const sw_slicing *s);
uint64_t sw_slice_num_seqs(const sw_slicing *s, int slice);
uint64_t sw_slice_num_residues(const sw_slicing *s, int slice);
/* The slice's runs, by ascending database sequence; *count of them. */
const sw_slice_run *sw_slice_runs(const sw_slicing *s, int slice, size_t *count);
/* The database sequence that is the slice's sequence `local`. */
uint64_t sw_slice_seq(const sw_slicing *s, int slice, uint64_t local);
/* The run that holds the slice's sequence `local` (an index into
 * sw_slice_runs()). */
size_t sw_slice_run_of(const sw_slicing *s, int slice, uint64_t local);

/* The length band of a sequence: floor(2 log2(length)). */
int sw_slice_band(uint32_t length);

#endif
