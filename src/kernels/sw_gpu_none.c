/* GPU discovery for builds without the CUDA toolkit: there is never a GPU. */
#include "sw_gpu.h"

int sw_gpu_compiled(void) { return 0; }

int sw_gpu_list(sw_gpu_info *infos, int max, int *count, sw_error *err)
{
    (void)infos;
    (void)max;
    *count = 0;
    return sw_error_set(err, SW_ENODEV, "this swsearch was built without CUDA support");
}
