/* Temporary folders for the Criterion tests: made from a mkdtemp template,
 * removed with everything under them. */
#ifndef TEST_TMPDIR_H
#define TEST_TMPDIR_H

#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Makes the folder `tmpl` names ("/tmp/name.XXXXXX"; the X's are replaced
 * in place); the test fails when it cannot. */
static inline void temp_dir_make(char *tmpl)
{
    cr_assert_not_null(mkdtemp(tmpl), "mkdtemp %s: %s", tmpl, strerror(errno));
}

static inline int temp_dir_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes `dir` and everything under it, links not followed; 0 on
 * success, -1 when something stayed. */
static inline int temp_dir_remove(const char *dir)
{
    return nftw(dir, temp_dir_remove_entry, 8, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

#endif
