/* Threshold calibration without a GPU: the prediction and the choice of a
 * threshold from given kernel rates, and the cache file's round trip and
 * errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sw_calibrate.h"
#include "sw_gpu_engine.h"
#include "test_tmpdir.h"

/* Inter-task fast for short subjects, slow for long ones; intra-task flat. */
static sw_calibration two_kernels(void)
{
    sw_calibration c;
    memset(&c, 0, sizeof c);
    snprintf(c.gpu_name, sizeof c.gpu_name, "Test GPU");
    snprintf(c.version, sizeof c.version, "%s", SW_VERSION);
    c.query_length = 1024;
    const uint32_t lens[] = {256, 512, 1024, 2048, 4096};
    const double inter[] = {4000, 4000, 2000, 1500, 1500};
    c.num_points = 5;
    for (size_t i = 0; i < 5; i++) {
        c.length[i] = lens[i];
        c.inter_gcups[i] = inter[i];
        c.intra_gcups[i] = 3000;
    }
    return c;
}

Test(calibrate, picks_the_crossing)
{
    sw_calibration c = two_kernels();
    uint32_t lengths[1000];
    for (int i = 0; i < 1000; i++) lengths[i] = 100 + 5 * (uint32_t)i; /* 100 .. 5095 */
    double t = 0;
    uint32_t th = sw_calibration_pick(&c, lengths, 1000, &t);
    /* Inter-task wins up to 512 (4000 > 3000), intra-task from 1024 on
     * (2000 < 3000); between them the rates are interpolated. */
    cr_assert(th == 512 || th == 1024, "threshold %u", th);
    cr_assert(t < sw_calibration_predict(&c, lengths, 1000, SW_GPU_NO_INTRA));
    cr_assert(t < sw_calibration_predict(&c, lengths, 1000, 256));
}

Test(calibrate, short_database_needs_no_intra_task)
{
    sw_calibration c = two_kernels();
    uint32_t lengths[100];
    for (int i = 0; i < 100; i++) lengths[i] = 256;
    cr_assert_eq(sw_calibration_pick(&c, lengths, 100, NULL), SW_GPU_NO_INTRA);
}

Test(calibrate, prediction_is_cells_over_rate)
{
    sw_calibration c = two_kernels();
    uint32_t lengths[2] = {256, 4096};
    /* Per query residue: 256 / 4000e9 + 4096 / 3000e9 above 1024. */
    double t = sw_calibration_predict(&c, lengths, 2, 1024);
    cr_assert_float_eq(t, 256 / 4000e9 + 4096 / 3000e9, 1e-15);
}

Test(calibrate, cache_round_trip_and_errors)
{
    char dir[] = "/tmp/sw_calibrate_XXXXXX";
    temp_dir_make(dir);
    char path[256];
    snprintf(path, sizeof path, "%s/sub/cal.txt", dir);
    sw_calibration c = two_kernels(), back;
    sw_error err;
    cr_assert_eq(sw_calibration_save(path, &c, &err), SW_OK, "%s", err.message);
    cr_assert_eq(sw_calibration_load(path, "Test GPU", &back, &err), SW_OK, "%s", err.message);
    cr_assert_eq(back.num_points, 5);
    cr_assert_eq(back.length[4], 4096);
    cr_assert_float_eq(back.inter_gcups[2], 2000, 0.05);
    cr_assert_str_eq(back.gpu_name, "Test GPU");
    /* Another GPU model: not this cache. */
    cr_assert_eq(sw_calibration_load(path, "Other GPU", &back, &err), SW_ENOTFOUND);
    /* A damaged line is named. */
    FILE *f = fopen(path, "a");
    fputs("8192 fast\n", f);
    fclose(f);
    cr_assert_eq(sw_calibration_load(path, "Test GPU", &back, &err), SW_EFORMAT);
    cr_assert(strstr(err.message, ":11:") != NULL, "%s", err.message);
    snprintf(path, sizeof path, "%s/missing.txt", dir);
    cr_assert_eq(sw_calibration_load(path, NULL, &back, &err), SW_ENOTFOUND);
    cr_assert_eq(temp_dir_remove(dir), 0, "%s stayed", dir);
}
