/* GPU discovery: which CUDA devices this build can use. Host code sees plain
 * C types only; the CUDA runtime stays inside src/kernels/. */
#ifndef SW_GPU_H
#define SW_GPU_H

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_gpu_info {
    int id;
    char name[256];
    int compute_major, compute_minor;
    int multiprocessors;
    unsigned long long global_memory; /* bytes */
} sw_gpu_info;

/* 1 if this build contains the CUDA engines, 0 otherwise. */
int sw_gpu_compiled(void);

/* Fills up to `max` entries and sets *count to the number of usable GPUs.
 * Without CUDA support, a driver or a device: SW_ENODEV with the reason. */
int sw_gpu_list(sw_gpu_info *infos, int max, int *count, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
