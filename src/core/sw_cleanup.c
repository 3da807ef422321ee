/* Removal of registered temporary files on a fatal signal. */
#include "sw_cleanup.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "sw_error.h"

enum { SLOT_FREE, SLOT_WRITING, SLOT_READY };

/* Process-wide by necessity: a signal handler receives no context, so the
 * paths it removes must be reachable from a static table. Slots change state
 * atomically, and the handler only reads slots that are fully written. */
static struct {
    atomic_int state;
    char path[PATH_MAX];
} slots[SW_CLEANUP_MAX_PATHS];

static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

static void on_fatal_signal(int sig)
{
    for (int i = 0; i < SW_CLEANUP_MAX_PATHS; i++)
        if (atomic_load_explicit(&slots[i].state, memory_order_acquire) == SLOT_READY)
            unlink(slots[i].path); /* async-signal-safe */
    /* Die of the same signal, so the parent sees the usual exit status. */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0) continue;
        /* A signal the caller ignores or handles itself is left alone. */
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL) continue;
        if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigfillset(&sa.sa_mask); /* no second signal interrupts the removal */
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

int sw_cleanup_add(const char *path)
{
    if (!path || !*path) return SW_EINVAL;
    size_t n = strlen(path);
    if (n >= PATH_MAX) return SW_EINVAL;
    pthread_once(&install_once, install_handlers);
    for (int i = 0; i < SW_CLEANUP_MAX_PATHS; i++) {
        int expected = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&slots[i].state, &expected, SLOT_WRITING)) continue;
        memcpy(slots[i].path, path, n + 1);
        atomic_store_explicit(&slots[i].state, SLOT_READY, memory_order_release);
        return i;
    }
    return SW_ELIMIT;
}

void sw_cleanup_remove(int slot)
{
    if (slot < 0 || slot >= SW_CLEANUP_MAX_PATHS) return;
    atomic_store_explicit(&slots[slot].state, SLOT_FREE, memory_order_release);
}
