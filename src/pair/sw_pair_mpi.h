/* Multi-process runs of `swsearch align` under an MPI launcher (Open MPI's
 * mpirun): the slice operations of sw_pair_split.h over MPI, one rank a
 * slice. Builds without MPI say so when launched that way. */
#ifndef SW_PAIR_MPI_H
#define SW_PAIR_MPI_H

#include "sw_pair_split.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_pair_mpi sw_pair_mpi;

/* Whether an MPI launcher started this process as one of several. */
int sw_pair_mpi_launched(void);

/* Joins the job (MPI_Init). */
int sw_pair_mpi_start(sw_pair_mpi **out, sw_error *err);

const sw_pair_slice_ops *sw_pair_mpi_ops(sw_pair_mpi *m);

/* This rank's number among the ranks of its machine. */
int sw_pair_mpi_local_rank(const sw_pair_mpi *m);

/* Leaves the job (MPI_Finalize) and frees m; may be NULL. */
void sw_pair_mpi_end(sw_pair_mpi *m);

#ifdef __cplusplus
}
#endif

#endif
