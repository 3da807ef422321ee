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

/* The free and total memory of GPU `device` now, in bytes. */
int sw_gpu_memory(int device, unsigned long long *free_bytes, unsigned long long *total_bytes, sw_error *err);

/* Starting the CUDA driver and a device's context is a noticeable part of
 * a short command (bench/gpu_start; bench/JOURNAL.md, 2026-11-28). A
 * program that is about to use GPUs `devices` (`count` of them; count 0:
 * every GPU of the machine) can have that done on threads of their own,
 * one a device, while it reads its input. Never fails: without a thread, a
 * driver or the device it does nothing, and any error shows where the GPU
 * is then used. sw_gpu_warm_up_finish waits for the threads and frees them
 * (NULL is fine). */
typedef struct sw_gpu_warm_up sw_gpu_warm_up;
sw_gpu_warm_up *sw_gpu_warm_up_start(const int *devices, int count);
/* The same for this process's share of the machine's GPUs (of the first
 * `first` of them; 0: all), sw_gpu_share(), found on the warm-up's thread,
 * since counting the GPUs starts the driver. */
sw_gpu_warm_up *sw_gpu_warm_up_start_share(int first, int local, int k);

/* The GPUs of process `local` of `k` processes that share a machine of
 * `count` GPUs: every k-th GPU from `local` (a GPU each when there are as
 * many), or GPU local % count where there are fewer GPUs than processes.
 * Into out[] (room for count, at least 1); returns how many. */
static inline int sw_gpu_share(int count, int local, int k, int *out)
{
    int n = 0;
    if (count <= 0 || k <= 0) return 0;
    if (count < k) {
        out[n++] = local % count;
        return n;
    }
    for (int g = local % k; g < count; g += k) out[n++] = g;
    return n;
}
void sw_gpu_warm_up_finish(sw_gpu_warm_up *w);

#ifdef __cplusplus
}
#endif

#endif
