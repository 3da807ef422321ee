/* Messages, number parsing, progress lines and atomic output files. */
#include "cli_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("swsearch: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_warn(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "swsearch: warning: %s\n", message);
}

int cli_parse_long(const char *option, const char *text, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno == ERANGE || v < min || v > max) {
        cli_error("%s needs a whole number from %ld to %ld, not '%s'", option, min, max, text);
        return -1;
    }
    *out = v;
    return 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_init(cli_progress *p, const char *label)
{
    p->enabled = isatty(STDERR_FILENO);
    p->start = cli_now();
    p->last_draw = 0;
    p->label = label;
}

void cli_progress_draw(cli_progress *p, uint64_t done, uint64_t total)
{
    if (!p->enabled) return;
    double t = cli_now();
    if (t - p->last_draw < 0.2 && done < total) return;
    p->last_draw = t;
    double frac = total ? (double)done / (double)total : 1.0;
    double elapsed = t - p->start;
    fprintf(stderr, "\r%s: %5.1f%%", p->label, 100.0 * frac);
    if (frac > 0.01 && frac < 1.0) fprintf(stderr, ", about %.0f s left", elapsed * (1 - frac) / frac);
    fputs("   ", stderr);
    fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
    if (p->enabled) fputs("\r\033[K", stderr);
}

int cli_output_open(cli_output *o, const char *path, sw_error *err)
{
    memset(o, 0, sizeof *o);
    if (!path || !strcmp(path, "-")) {
        o->file = stdout;
        return SW_OK;
    }
    size_t n = strlen(path);
    o->final_path = strdup(path);
    o->temp_path = malloc(n + 16);
    if (!o->final_path || !o->temp_path) {
        cli_output_abort(o);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    snprintf(o->temp_path, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->temp_path);
    if (fd < 0) {
        int e = errno;
        free(o->temp_path);
        o->temp_path = NULL;
        cli_output_abort(o);
        return sw_error_set(err, SW_EIO, "%s: cannot create output file: %s", path, strerror(e));
    }
    /* mkstemp creates mode 0600; results are ordinary files. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->file = fdopen(fd, "w");
    if (!o->file) {
        close(fd);
        cli_output_abort(o);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    return SW_OK;
}

int cli_output_commit(cli_output *o, sw_error *err)
{
    if (o->file == stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            return sw_error_set(err, SW_EIO, "error writing to standard output");
        return SW_OK;
    }
    int bad = fflush(o->file) != 0 || ferror(o->file);
    bad |= fclose(o->file) != 0;
    o->file = NULL;
    if (bad || rename(o->temp_path, o->final_path) != 0) {
        int e = errno;
        sw_error_set(err, SW_EIO, "%s: cannot write output file: %s", o->final_path, strerror(e));
        cli_output_abort(o);
        return SW_EIO;
    }
    free(o->temp_path);
    free(o->final_path);
    memset(o, 0, sizeof *o);
    return SW_OK;
}

void cli_output_abort(cli_output *o)
{
    if (o->file && o->file != stdout) fclose(o->file);
    if (o->temp_path) unlink(o->temp_path);
    free(o->temp_path);
    free(o->final_path);
    memset(o, 0, sizeof *o);
}
