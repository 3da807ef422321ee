/* Row slices of a local pass (sw_pair_split.h) on threads of one process,
 * one a member: the GPUs of one machine, one thread driving each, or the
 * CPU engine in tests of the method. */
#ifndef SW_PAIR_TEAM_H
#define SW_PAIR_TEAM_H

#include "sw_pair_split.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs `members` slices, member k calling `engine` with engine_users[k]. */
int sw_pair_team_run(const sw_pair_pass *pass, int members, uint64_t overlap, sw_pair_slice_engine engine,
                     void *const *engine_users, sw_pair_hit *out, sw_pair_split_stats *stats, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
