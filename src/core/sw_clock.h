/* Wall-clock time for statistics and progress, and the number of CPUs. */
#ifndef SW_CLOCK_H
#define SW_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds on a monotonic clock (only differences mean anything). */
double sw_clock_seconds(void);
/* Online CPUs, at least 1. */
int sw_clock_online_cpus(void);

#ifdef __cplusplus
}
#endif

#endif
