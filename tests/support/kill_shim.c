/* Preloaded (LD_PRELOAD) into makedb by test_makedb_kill.sh: ends the process
 * with SIGKILL just before its N-th file system step, N from SW_KILL_AT, so
 * that a build can be killed at every step of its commit. The steps counted
 * are the calls that create, name, rename, remove, sync or lock files.
 * SW_KILL_NO_TMPFILE=1 also makes O_TMPFILE fail with EOPNOTSUPP, as on a file
 * system without it, to test the writer's named-file fallback. */
#undef _FORTIFY_SOURCE /* this file defines open() itself */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Process-wide by necessity: an interposed libc call has no context. */
static atomic_long steps;

static long env_long(const char *name)
{
    const char *v = getenv(name);
    return v ? strtol(v, NULL, 10) : 0;
}

static void step(void)
{
    long n = atomic_fetch_add(&steps, 1) + 1;
    if (n == env_long("SW_KILL_AT")) raise(SIGKILL);
}

static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "kill_shim: no %s\n", name);
        abort();
    }
    return f;
}

static int creates(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

/* Counts a creating open and applies SW_KILL_NO_TMPFILE; 0 to go on. */
static int before_open(int flags)
{
    if (!creates(flags)) return 0;
    step();
    if ((flags & O_TMPFILE) == O_TMPFILE && env_long("SW_KILL_NO_TMPFILE")) {
        errno = EOPNOTSUPP;
        return -1;
    }
    return 0;
}

static mode_t mode_arg(int flags, va_list ap)
{
    return creates(flags) ? (mode_t)va_arg(ap, int) : 0;
}

#define OPEN_LIKE(name)                                                                    \
    int name(const char *path, int flags, ...)                                             \
    {                                                                                      \
        va_list ap;                                                                        \
        va_start(ap, flags);                                                               \
        mode_t mode = mode_arg(flags, ap);                                                 \
        va_end(ap);                                                                        \
        if (before_open(flags)) return -1;                                                 \
        return ((int (*)(const char *, int, ...))real(#name))(path, flags, mode);          \
    }
#define OPENAT_LIKE(name)                                                                  \
    int name(int dirfd, const char *path, int flags, ...)                                  \
    {                                                                                      \
        va_list ap;                                                                        \
        va_start(ap, flags);                                                               \
        mode_t mode = mode_arg(flags, ap);                                                 \
        va_end(ap);                                                                        \
        if (before_open(flags)) return -1;                                                 \
        return ((int (*)(int, const char *, int, ...))real(#name))(dirfd, path, flags, mode); \
    }
OPEN_LIKE(open)
OPEN_LIKE(open64)
OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)

int rename(const char *a, const char *b)
{
    step();
    return ((int (*)(const char *, const char *))real("rename"))(a, b);
}

int renameat(int da, const char *a, int db, const char *b)
{
    step();
    return ((int (*)(int, const char *, int, const char *))real("renameat"))(da, a, db, b);
}

int link(const char *a, const char *b)
{
    step();
    return ((int (*)(const char *, const char *))real("link"))(a, b);
}

int linkat(int da, const char *a, int db, const char *b, int flags)
{
    step();
    return ((int (*)(int, const char *, int, const char *, int))real("linkat"))(da, a, db, b,
                                                                                 flags);
}

int unlink(const char *p)
{
    step();
    return ((int (*)(const char *))real("unlink"))(p);
}

int unlinkat(int d, const char *p, int flags)
{
    step();
    return ((int (*)(int, const char *, int))real("unlinkat"))(d, p, flags);
}

int fsync(int fd)
{
    step();
    return ((int (*)(int))real("fsync"))(fd);
}

int fdatasync(int fd)
{
    step();
    return ((int (*)(int))real("fdatasync"))(fd);
}

int flock(int fd, int op)
{
    step();
    return ((int (*)(int, int))real("flock"))(fd, op);
}
