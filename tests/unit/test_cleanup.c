/* Registered temporary files disappear when the process dies of a signal,
 * and only then. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sw_cleanup.h"
#include "sw_error.h"
#include "test_tmpdir.h"

static char dir[] = "/tmp/sw_cleanup_XXXXXX";

static void make_dir(void)
{
    temp_dir_make(dir);
}

static void remove_dir(void)
{
    cr_assert_eq(temp_dir_remove(dir), 0, "%s stayed", dir);
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0);
    close(fd);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Runs `body` in a child and returns its wait status. */
static int in_child(void (*body)(const char *), const char *path)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        body(path);
        _exit(0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return status;
}

static void register_and_die(const char *path)
{
    if (sw_cleanup_add(path) < 0) _exit(3);
    raise(SIGTERM);
    _exit(4); /* not reached: the signal ends the process */
}

static void register_forget_and_die(const char *path)
{
    int slot = sw_cleanup_add(path);
    if (slot < 0) _exit(3);
    sw_cleanup_remove(slot);
    raise(SIGINT);
    _exit(4);
}

static void ignore_then_register(const char *path)
{
    signal(SIGTERM, SIG_IGN);
    if (sw_cleanup_add(path) < 0) _exit(3);
    raise(SIGTERM); /* ignored: the process lives on */
    _exit(5);
}

TestSuite(cleanup, .init = make_dir, .fini = remove_dir);

Test(cleanup, removes_registered_file_on_sigterm_and_dies_of_it)
{
    char path[128];
    snprintf(path, sizeof path, "%s/out.tmp", dir);
    touch(path);
    int status = in_child(register_and_die, path);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    cr_assert_not(exists(path));
}

Test(cleanup, keeps_a_file_that_was_removed_from_the_list)
{
    char path[128];
    snprintf(path, sizeof path, "%s/kept", dir);
    touch(path);
    int status = in_child(register_forget_and_die, path);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
    cr_assert(exists(path));
}

Test(cleanup, leaves_an_ignored_signal_ignored)
{
    char path[128];
    snprintf(path, sizeof path, "%s/ignored", dir);
    touch(path);
    int status = in_child(ignore_then_register, path);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 5);
    cr_assert(exists(path));
}

Test(cleanup, refuses_empty_path_and_runs_out_of_slots)
{
    cr_assert_eq(sw_cleanup_add(""), SW_EINVAL);
    cr_assert_eq(sw_cleanup_add(NULL), SW_EINVAL);
    int slots[SW_CLEANUP_MAX_PATHS];
    for (int i = 0; i < SW_CLEANUP_MAX_PATHS; i++) {
        slots[i] = sw_cleanup_add("/nonexistent/a");
        cr_assert_geq(slots[i], 0);
    }
    cr_assert_eq(sw_cleanup_add("/nonexistent/b"), SW_ELIMIT);
    for (int i = 0; i < SW_CLEANUP_MAX_PATHS; i++) sw_cleanup_remove(slots[i]);
    int again = sw_cleanup_add("/nonexistent/c");
    cr_assert_geq(again, 0);
    sw_cleanup_remove(again);
}
