/* The GPU tests' one check for a GPU (Criterion): skips the test when none
 * is usable, naming why, and otherwise says which GPU runs it. */
#ifndef GPU_REQUIRED_H
#define GPU_REQUIRED_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "sw_gpu.h"

static inline void gpu_required(void)
{
    sw_gpu_info info[4];
    int ngpu = 0;
    sw_error err = {0};
    if (sw_gpu_list(info, 4, &ngpu, &err) != SW_OK || ngpu == 0)
        cr_skip_test("%s", err.message[0] ? err.message : "no GPU");
    printf("GPU 0: %s (sm_%d%d, %d SMs)\n", info[0].name, info[0].compute_major, info[0].compute_minor,
           info[0].multiprocessors);
}

#endif
