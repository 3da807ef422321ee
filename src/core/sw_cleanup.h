/* Named temporary files to remove when the process is ended by a signal
 * (SIGINT, SIGTERM, SIGHUP, SIGPIPE), so that Ctrl-C or kill never leaves
 * half-written files behind. Files created unnamed (O_TMPFILE) need no entry:
 * the kernel drops them with the process. */
#ifndef SW_CLEANUP_H
#define SW_CLEANUP_H

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many paths are registered at once. */
#define SW_CLEANUP_MAX_PATHS 32

/* Registers `path` (copied) for removal on a fatal signal; installs the
 * handlers on first use, for each signal whose action is still the default
 * (a signal the caller ignores stays ignored). Returns a slot >= 0, or
 * SW_EINVAL (path NULL, empty or too long) or SW_ELIMIT (no free slot). */
int sw_cleanup_add(const char *path);

/* Forgets a slot once its file was renamed or removed; -1 is ignored. */
void sw_cleanup_remove(int slot);

#ifdef __cplusplus
}
#endif

#endif
