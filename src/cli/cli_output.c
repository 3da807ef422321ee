/* The -o output: descriptors and devices written in place, regular files
 * replaced by one rename after the run, the run's own inputs refused. */
#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sw_cleanup.h"

/* The kernel's own limit on symlinks followed in one lookup (ELOOP). */
enum { MAX_SYMLINKS = 40 };

/* `name` looked up in the directory that holds `entry`, as the kernel reads
 * a relative symlink; with name "." that directory itself. */
static char *beside(const char *entry, const char *name)
{
    const char *slash = strrchr(entry, '/');
    size_t keep = slash ? (size_t)(slash - entry) + 1 : 0, n = strlen(name);
    char *s = malloc(keep + n + 1);
    if (!s) return NULL;
    memcpy(s, entry, keep);
    memcpy(s + keep, name, n + 1);
    return s;
}

/* The descriptor a path names by itself (/dev/stdout, /dev/fd/3, ...), or
 * -1. Opening such a path would reopen the file behind the descriptor, or
 * fail for a pipe or socket; writing to the descriptor is what is meant. */
static int named_descriptor(const char *path)
{
    if (!strcmp(path, "/dev/stdout")) return STDOUT_FILENO;
    if (!strcmp(path, "/dev/stderr")) return STDERR_FILENO;
    char own[48];
    snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
    const char *dirs[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", own};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        size_t n = strlen(dirs[i]);
        if (strncmp(path, dirs[i], n)) continue;
        const char *p = path + n;
        long v = 0;
        if (!*p) return -1;
        for (; *p; p++) {
            if (*p < '0' || *p > '9' || v > 1000000) return -1;
            v = v * 10 + (*p - '0');
        }
        return (int)v;
    }
    return -1;
}

/* Follows the symlinks of the last component of `name`, every one of them,
 * to the name the kernel would open or create (*target), or stops at a name
 * of a descriptor (*fd >= 0). The directories on the way need no resolving:
 * a rename in the final directory goes through them as well. */
static int resolve(const char *option, const char *name, char **target, int *fd, sw_error *err)
{
    *target = NULL;
    *fd = -1;
    char *cur = strdup(name);
    if (!cur) return sw_error_set(err, SW_ENOMEM, "out of memory");
    for (int hops = 0;; hops++) {
        if ((*fd = named_descriptor(cur)) >= 0) {
            free(cur);
            return SW_OK;
        }
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) break;
        if (hops == MAX_SYMLINKS) {
            free(cur);
            return sw_error_set(err, SW_EINVAL, "%s %s: %s", option, name, strerror(ELOOP));
        }
        char link[4096];
        ssize_t n = readlink(cur, link, sizeof link);
        if (n < 0 || (size_t)n >= sizeof link) {
            int e = n < 0 ? errno : ENAMETOOLONG;
            free(cur);
            return sw_error_set(err, SW_EIO, "%s %s: cannot read a symlink: %s", option, name, strerror(e));
        }
        link[n] = '\0';
        char *next = link[0] == '/' ? strdup(link) : beside(cur, link);
        free(cur);
        if (!next) return sw_error_set(err, SW_ENOMEM, "out of memory");
        cur = next;
    }
    *target = cur;
    return SW_OK;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int refuse_inputs(const char *option, const char *name, const struct stat *out, const cli_input *inputs,
                         size_t num_inputs, sw_error *err)
{
    for (size_t i = 0; i < num_inputs; i++) {
        const cli_input *in = &inputs[i];
        if (!in->path) continue;
        if (in->db) {
            /* The files as the reader opened them, whatever the version. */
            sw_db_info info;
            if (sw_db_get_info(in->db, &info, NULL)) continue;
            const char *const files[] = {info.index_path, info.residue_path, info.header_path};
            for (int f = 0; f < 3; f++) {
                const char *file = files[f];
                struct stat st;
                if (!file || stat(file, &st) != 0 || !same_file(&st, out)) continue;
                if (!strcmp(file, name))
                    return sw_error_set(err, SW_EINVAL, "%s %s is a file of %s %s; refusing to overwrite an input",
                                        option, name, in->role, in->path);
                return sw_error_set(err, SW_EINVAL, "%s %s is %s, a file of %s %s; refusing to overwrite an input",
                                    option, name, file, in->role, in->path);
            }
            continue;
        }
        const int is_stdin = !strcmp(in->path, "-");
        struct stat st;
        if ((is_stdin ? fstat(STDIN_FILENO, &st) : stat(in->path, &st)) != 0 || !same_file(&st, out))
            continue;
        return sw_error_set(err, SW_EINVAL, "%s %s is %s %s; refusing to overwrite an input", option, name,
                            in->role, is_stdin ? "(standard input)" : in->path);
    }
    return SW_OK;
}

struct cli_output_sink {
    int fd;
    int owned; /* closed with the stream: every descriptor but standard output */
    int error; /* errno of the first failed write or close, 0 while none */
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    cli_output_sink *s = cookie;
    for (size_t done = 0; done < n;) {
        ssize_t w = write(s->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (!s->error) s->error = w < 0 ? errno : EIO;
            return -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int sink_close(void *cookie)
{
    cli_output_sink *s = cookie;
    if (!s->owned || close(s->fd) == 0 || errno == EINTR) return 0;
    if (!s->error) s->error = errno;
    return -1;
}

/* The stream over `fd` (which it owns, but for standard output), writing
 * through a sink that keeps the reason of a failure. */
static int open_stream(cli_output *o, int fd, cli_output_kind kind, sw_error *err)
{
    o->sink = calloc(1, sizeof *o->sink);
    if (o->sink) {
        o->sink->fd = fd;
        o->sink->owned = kind != CLI_OUT_STDOUT;
        o->file = fopencookie(o->sink, "w", (cookie_io_functions_t){.write = sink_write, .close = sink_close});
    }
    if (!o->file) {
        if (kind != CLI_OUT_STDOUT) close(fd);
        free(o->sink);
        o->sink = NULL;
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    /* As stdio buffers a descriptor: by lines on a terminal, else in blocks. */
    setvbuf(o->file, NULL, isatty(fd) ? _IOLBF : _IOFBF, (size_t)1 << 16);
    o->kind = kind;
    return SW_OK;
}

static int open_descriptor(cli_output *o, int n, sw_error *err)
{
    int flags = fcntl(n, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
        return sw_error_set(err, SW_EINVAL, "%s %s: descriptor %d is not open for writing", o->option, o->name, n);
    /* A copy, so that closing the output leaves the descriptor open. */
    int fd = fcntl(n, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return sw_error_set(err, SW_EIO, "%s %s: %s", o->option, o->name, strerror(errno));
    return open_stream(o, fd, CLI_OUT_IN_PLACE, err);
}

/* The unnamed file that becomes the target at commit. Without O_TMPFILE (an
 * old kernel, some file systems) or /proc to link it in by, a named file
 * beside the target, removed on failure and on a fatal signal. */
static int create_temp(cli_output *o, sw_error *err)
{
    char *dir = beside(o->target, ".");
    if (!dir) return sw_error_set(err, SW_ENOMEM, "out of memory");
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if (access(proc, F_OK) != 0) {
            close(fd);
            fd = -1;
            errno = EOPNOTSUPP;
        }
    }
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        size_t n = strlen(o->target);
        o->temp = malloc(n + 12);
        if (!o->temp) {
            free(dir);
            return sw_error_set(err, SW_ENOMEM, "out of memory");
        }
        snprintf(o->temp, n + 12, "%s.tmp.XXXXXX", o->target);
        fd = mkostemp(o->temp, O_CLOEXEC);
        if (fd >= 0) {
            o->temp_slot = sw_cleanup_add(o->temp);
        } else {
            int e = errno;
            free(o->temp);
            o->temp = NULL;
            errno = e;
        }
    }
    if (fd < 0) {
        int rc = sw_error_set(err, errno == ENOENT ? SW_ENOTFOUND : SW_EIO, "%s %s: cannot create a file in %s: %s",
                              o->option, o->name, dir, strerror(errno));
        free(dir);
        return rc;
    }
    free(dir);
    return fd;
}

/* A regular file, existing (st) or new (st NULL), to be replaced at commit. */
static int open_replacement(cli_output *o, const struct stat *st, sw_error *err)
{
    const char *base = strrchr(o->target, '/');
    base = base ? base + 1 : o->target;
    if (!*base) return sw_error_set(err, SW_EINVAL, "%s %s names a directory, not a file", o->option, o->name);
    mode_t mode;
    if (st) {
        /* As cp: a file the user may not write is not replaced either. */
        int probe = open(o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (probe < 0)
            return sw_error_set(err, SW_EIO, "%s %s: cannot write to %s: %s", o->option, o->name, o->target,
                                strerror(errno));
        close(probe);
        mode = st->st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    int fd = create_temp(o, err);
    if (fd < 0) return fd;
    /* The replacement keeps the old file's group (and owner, which only root
     * may give away) where it can; the mode is set after, since a change of
     * owner clears the set-id bits. */
    if (st && fchown(fd, geteuid() == 0 ? st->st_uid : (uid_t)-1, st->st_gid) != 0) {
        /* Not a member of the old group: the file gets ours, as a new file would. */
    }
    if (fchmod(fd, mode) != 0) {
        int rc = sw_error_set(err, SW_EIO, "%s %s: %s", o->option, o->name, strerror(errno));
        close(fd);
        return rc;
    }
    return open_stream(o, fd, CLI_OUT_REPLACE, err);
}

/* What cli_output_open does, with early returns; the caller cleans up. */
static int open_target(cli_output *o, const char *path, const cli_input *inputs, size_t num_inputs,
                       sw_error *err)
{
    int fd_named, rc;
    if ((rc = resolve(o->option, path, &o->target, &fd_named, err))) return rc;
    if (fd_named >= 0) return open_descriptor(o, fd_named, err);
    struct stat st;
    if (stat(o->target, &st) != 0) {
        if (errno == ENOENT) return open_replacement(o, NULL, err);
        return sw_error_set(err, SW_EIO, "%s %s: %s", o->option, path, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) return sw_error_set(err, SW_EINVAL, "%s %s is a directory", o->option, path);
    if (S_ISBLK(st.st_mode))
        return sw_error_set(err, SW_EINVAL, "%s %s is a block device; refusing to write to a disk", o->option,
                            path);
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
        /* A device, a pipe or a terminal: the data go to it as they are
         * written, and the node stays what it is. */
        int fd = open(o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            return sw_error_set(err, SW_EIO, "%s %s: cannot open for writing: %s", o->option, path, strerror(errno));
        return open_stream(o, fd, CLI_OUT_IN_PLACE, err);
    }
    if (!S_ISREG(st.st_mode))
        return sw_error_set(err, SW_EINVAL, "%s %s is not a regular file, device or pipe", o->option, path);
    if ((rc = refuse_inputs(o->option, path, &st, inputs, num_inputs, err))) return rc;
    if (sw_db_is_file(o->target))
        return sw_error_set(err, SW_EINVAL, "%s %s is a swsearch database file; refusing to overwrite it", o->option,
                            path);
    return open_replacement(o, &st, err);
}

int cli_output_open_option(cli_output *o, const char *option, const char *path, const cli_input *inputs,
                           size_t num_inputs, sw_error *err)
{
    memset(o, 0, sizeof *o);
    o->option = option;
    int rc;
    if (!path || !strcmp(path, "-")) {
        /* What stdout holds goes first; nothing else writes to it after. */
        fflush(stdout);
        rc = open_stream(o, STDOUT_FILENO, CLI_OUT_STDOUT, err);
    } else {
        o->name = path;
        rc = open_target(o, path, inputs, num_inputs, err);
    }
    if (rc) cli_output_abort(o);
    return rc;
}

int cli_output_open(cli_output *o, const char *path, const cli_input *inputs, size_t num_inputs,
                    sw_error *err)
{
    return cli_output_open_option(o, "-o", path, inputs, num_inputs, err);
}

/* "out.tsv: error writing results: No space left on device"; the output is
 * dropped. */
static int write_failed(cli_output *o, int e, sw_error *err)
{
    char what[64];
    if (!strcmp(o->option, "-o")) snprintf(what, sizeof what, "results");
    else snprintf(what, sizeof what, "the %s", o->option + strspn(o->option, "-"));
    int rc = sw_error_set(err, SW_EIO, "%s: error writing %s: %s", o->name ? o->name : "standard output", what,
                          e ? strerror(e) : "write error");
    cli_output_abort(o);
    return rc;
}

int cli_output_check(cli_output *o, int rc, sw_error *err)
{
    if (!o->file || (!o->sink->error && !ferror(o->file))) return rc;
    return write_failed(o, o->sink->error, err);
}

/* A name for the temporary link: six random characters, as mkstemp uses. */
static void temp_name(char *dst, size_t cap, const char *target, unsigned attempt)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    uint64_t x;
    if (getrandom(&x, sizeof x, GRND_NONBLOCK) != (ssize_t)sizeof x) {
        /* No entropy yet (early boot): the clock and the process differ
         * between runs, the attempt between tries. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        x = (uint64_t)ts.tv_nsec * 1000003u + (uint64_t)getpid() * 7919u + attempt;
    }
    char suffix[7];
    for (int k = 0; k < 6; k++, x /= 62) suffix[k] = digits[x % 62];
    suffix[6] = '\0';
    snprintf(dst, cap, "%s.tmp.%s", target, suffix);
}

/* Gives the unnamed file a name beside the target, for the rename. */
static int link_temp(cli_output *o)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->sink->fd);
    size_t cap = strlen(o->target) + 12;
    char *name = malloc(cap);
    if (!name) return -1;
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        temp_name(name, cap, o->target, attempt);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0) {
            o->temp = name;
            o->temp_slot = sw_cleanup_add(name);
            return 0;
        }
        if (errno != EEXIST) break;
    }
    int e = errno;
    free(name);
    errno = e;
    return -1;
}

static int commit_failed(cli_output *o, const char *what, int e, sw_error *err)
{
    int rc = sw_error_set(err, SW_EIO, "%s %s: %s: %s", o->option, o->name, what, e ? strerror(e) : "write error");
    cli_output_abort(o);
    return rc;
}

int cli_output_commit(cli_output *o, sw_error *err)
{
    if (fflush(o->file) != 0 || ferror(o->file)) return write_failed(o, o->sink->error, err);
    if (o->kind == CLI_OUT_REPLACE) {
        /* The data reach the disk before the name does, so a crash leaves
         * the old file or the new one, never an empty one. */
        if (fsync(o->sink->fd) != 0) return write_failed(o, errno, err);
        if (!o->temp && link_temp(o) != 0) return commit_failed(o, "cannot create a temporary name", errno, err);
    }
    int closed = fclose(o->file);
    o->file = NULL;
    if (closed != 0) return write_failed(o, o->sink->error, err);
    if (o->kind == CLI_OUT_REPLACE) {
        if (rename(o->temp, o->target) != 0) return commit_failed(o, "cannot replace", errno, err);
        sw_cleanup_remove(o->temp_slot);
        free(o->temp);
        o->temp = NULL;
    }
    free(o->target);
    free(o->sink);
    memset(o, 0, sizeof *o);
    return SW_OK;
}

void cli_output_abort(cli_output *o)
{
    if (o->file) fclose(o->file);
    free(o->sink);
    if (o->temp) {
        unlink(o->temp);
        sw_cleanup_remove(o->temp_slot);
        free(o->temp);
    }
    free(o->target);
    memset(o, 0, sizeof *o);
}
