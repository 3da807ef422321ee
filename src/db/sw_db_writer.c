/* Builds a database (docs/FORMAT.md): locks the prefix, removes what killed
 * builds left, spills input to unlinked files, sorts by length, compresses
 * chunks on all cores into unnamed files, names them, and switches to the
 * new database by one rename of the index. */
#include "sw_db_writer.h"
#include "sw_file_io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>
#include <zstd.h>

#include "sw_alphabet.h"
#include "sw_cleanup.h"
#include "sw_db.h"
#include "sw_pool.h"

/* Residue chunks are large so that decompression streams at full speed;
 * header chunks are small because headers are read one hit at a time. */
#define RESIDUE_CHUNK_BYTES (2u << 20)
#define HEADER_CHUNK_BYTES (64u << 10)
/* Bounds the per-call work of finding a header inside its chunk. */
#define HEADER_CHUNK_MAX_SEQS 65536u
/* Level 1 already reaches the entropy of amino-acid text (about 1.9x);
 * higher levels only slow down. Headers repeat a lot and profit from 3. */
#define DEFAULT_RESIDUE_LEVEL 1
#define DEFAULT_HEADER_LEVEL 3
#define SPILL_BUFFER_BYTES (4u << 20)
#define MAX_THREADS 256

enum { FILE_INDEX = SW_DB_FILE_INDEX, FILE_RESIDUES = SW_DB_FILE_RESIDUES,
       FILE_HEADERS = SW_DB_FILE_HEADERS, NUM_FILES };
/* Tries at taking the lock while other runs remove and recreate the lock
 * file under us; each retry means another run finished meanwhile. */
#define MAX_LOCK_ATTEMPTS 100

enum { STATE_ADDING, STATE_FINISHED, STATE_FAILED };

/* Append-only temporary file with a write buffer. Once every sequence has
 * been added it is read back with pread() in sorted order: mapping it would
 * be faster but would make the whole input resident in this process. */
typedef struct spill {
    int fd;
    uint8_t *buf;
    size_t fill;
    uint64_t size; /* bytes added, buffered ones included */
} spill;

struct sw_db_writer {
    char *prefix;
    char *dir;                 /* directory of the prefix's files */
    char *path[NUM_FILES];     /* final names: PREFIX.swi, PREFIX.<id>.swr, PREFIX.<id>.swh */
    char *tmp_index;           /* PREFIX.swi.tmp<hex>: the index before the switch */
    /* Names this build created and must remove if it fails before the
     * switch: [FILE_INDEX] stands for tmp_index. */
    int named[NUM_FILES];
    int slot[NUM_FILES];       /* sw_cleanup slots of those names, or -1 */
    char *lock_path;           /* PREFIX.swlock */
    int lock_fd;               /* -1: not held */
    int lock_slot;
    int alphabet;
    int alphabet_size;
    int threads;
    int residue_level, header_level;
    void (*progress)(void *user, const char *phase, uint64_t done, uint64_t total);
    void *progress_user;
    spill residues, headers;
    uint32_t *lengths; /* by input position */
    uint32_t *header_lengths;
    uint64_t num_seqs, capacity;
    uint64_t num_residues, header_text_bytes;
    uint32_t max_length;
    uint64_t id;
    int state;
};

/* One row of a chunk table, filled while compressing. */
typedef struct chunk_entry {
    uint64_t first_seq, num_seqs, size, offset, compressed_size;
    uint64_t hash_compressed, hash_data;
} chunk_entry;

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static char *concat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

/* The database id only has to differ between builds, so a clock-based
 * fallback is good enough where getrandom() is unavailable. */
static uint64_t random_id(void)
{
    uint64_t id;
    if (getrandom(&id, sizeof id, GRND_NONBLOCK) == (ssize_t)sizeof id) return id;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed[3] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)getpid()};
    return XXH3_64bits(seed, sizeof seed);
}

/* The directory that will hold the files of `prefix`. */
static char *directory_of(const char *prefix)
{
    const char *slash = strrchr(prefix, '/');
    if (!slash) return strdup(".");
    if (slash == prefix) return strdup("/");
    return strndup(prefix, (size_t)(slash - prefix));
}

static const char *base_of(const char *prefix)
{
    const char *slash = strrchr(prefix, '/');
    return slash ? slash + 1 : prefix;
}

/* A prefix names files "PREFIX.swi" and so on: one that ends in a directory
 * would make hidden files inside it ("dbs/" made "dbs/.swi"), and one that
 * is a device or FIFO ("/dev/null") would put the database beside it. */
static int check_prefix(const char *prefix, sw_error *err)
{
    if (!prefix || !*prefix) return sw_error_set(err, SW_EINVAL, "no database name given");
    const char *base = base_of(prefix);
    if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
        return sw_error_set(err, SW_EINVAL,
                            "%s: the database name ends in a directory; give a file name "
                            "prefix inside it, such as %s%sdb",
                            prefix, prefix, *base || prefix[strlen(prefix) - 1] != '/' ? "/" : "");
    struct stat st;
    if (stat(prefix, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return sw_error_set(err, SW_EINVAL,
                                "%s: is a directory; give a file name prefix inside it, such as "
                                "%s/db",
                                prefix, prefix);
        if (!S_ISREG(st.st_mode))
            return sw_error_set(err, SW_EINVAL,
                                "%s: is a device, FIFO or socket; give a file name prefix for "
                                "the database files",
                                prefix);
    }
    return SW_OK;
}

/* What a directory entry is to the database `base` (the prefix's last
 * component). Only exact patterns count, so that the files of another
 * prefix are never taken for ours: "db.v2.swi" and "db.v2.<id>.swr" belong
 * to "db.v2", not to "db". */
enum {
    NAME_OTHER,
    NAME_INDEX,      /* PREFIX.swi */
    NAME_LOCK,       /* PREFIX.swlock */
    NAME_LEGACY,     /* PREFIX.swr, PREFIX.swh: data files of format version 1 */
    NAME_GENERATION, /* PREFIX.<16 hex>.swr, PREFIX.<16 hex>.swh */
    NAME_TEMPORARY   /* PREFIX.sw[irh].tmp<16 hex>, PREFIX.spill<6 characters> */
};

/* Reads n lowercase hex digits (the writer's spelling) into *v; 0 if any
 * character is not one. */
static int parse_hex(const char *s, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        int d;
        if (s[i] >= '0' && s[i] <= '9')
            d = s[i] - '0';
        else if (s[i] >= 'a' && s[i] <= 'f')
            d = s[i] - 'a' + 10;
        else
            return 0;
        x = x << 4 | (uint64_t)d;
    }
    *v = x;
    return 1;
}

/* `which` gets the data file (SW_DB_FILE_*) and `id` the database id of a
 * generation name. */
static int classify_name(const char *base, const char *name, int *which, uint64_t *id)
{
    size_t nb = strlen(base);
    if (strncmp(name, base, nb) != 0 || name[nb] != '.') return NAME_OTHER;
    const char *r = name + nb + 1;
    size_t n = strlen(r);
    if (!strcmp(r, "swi")) return NAME_INDEX;
    if (!strcmp(r, "swlock")) return NAME_LOCK;
    if (!strcmp(r, "swr") || !strcmp(r, "swh")) {
        *which = r[2] == 'r' ? SW_DB_FILE_RESIDUES : SW_DB_FILE_HEADERS;
        return NAME_LEGACY;
    }
    uint64_t v;
    if (n == 16 + 4 && (!strcmp(r + 16, ".swr") || !strcmp(r + 16, ".swh")) &&
        parse_hex(r, 16, id)) {
        *which = r[19] == 'r' ? SW_DB_FILE_RESIDUES : SW_DB_FILE_HEADERS;
        return NAME_GENERATION;
    }
    if (n == 3 + 4 + 16 && r[0] == 's' && r[1] == 'w' &&
        (r[2] == 'i' || r[2] == 'r' || r[2] == 'h') && !strncmp(r + 3, ".tmp", 4) &&
        parse_hex(r + 7, 16, &v))
        return NAME_TEMPORARY;
    if (n == 5 + 6 && !strncmp(r, "spill", 5)) {
        for (size_t i = 5; i < n; i++)
            if (!((r[i] >= '0' && r[i] <= '9') || (r[i] >= 'a' && r[i] <= 'z') ||
                  (r[i] >= 'A' && r[i] <= 'Z')))
                return NAME_OTHER;
        return NAME_TEMPORARY;
    }
    return NAME_OTHER;
}

/* Whether the data file `name` in `dirfd` is a database file of kind
 * `which` that can go: its magic matches and, for a generation name, its
 * file header carries the id of its name (so a version-1 file of a prefix
 * that happens to end in 16 hex digits is left alone). A generation file
 * shorter than a file header is a write cut short by a kill. */
static int removable_data_file(int dirfd, const char *name, int which, int generation, uint64_t id)
{
    static const char *const magic[] = {SW_DB_MAGIC_INDEX, SW_DB_MAGIC_RESIDUES,
                                        SW_DB_MAGIC_HEADERS};
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    uint8_t h[SW_DB_FILE_HEADER_SIZE];
    int ok = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if (st.st_size < SW_DB_FILE_HEADER_SIZE) {
            ok = generation;
        } else if (sw_io_pread_exact(fd, h, sizeof h, 0) == 0 &&
                   memcmp(h, magic[which], SW_DB_MAGIC_SIZE) == 0) {
            uint64_t file_id = 0;
            for (int i = 7; i >= 0; i--) file_id = file_id << 8 | h[SW_DB_IX_ID + i];
            ok = !generation || file_id == id;
        }
    }
    close(fd);
    return ok;
}

/* Which data files the index in place names. */
enum { INDEX_NONE, INDEX_VALID, INDEX_INVALID };

/* Opens directory `dir` twice: for listing, and as *dirfd for the *at()
 * calls on its entries. NULL if it cannot be read. */
static DIR *open_listing(const char *dir, int *dirfd)
{
    *dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*dirfd < 0) return NULL;
    int listfd = dup(*dirfd);
    DIR *d = listfd >= 0 ? fdopendir(listfd) : NULL;
    if (!d) {
        if (listfd >= 0) close(listfd);
        close(*dirfd);
        *dirfd = -1;
    }
    return d;
}

/* Removes what earlier builds of this prefix left: temporary files of
 * killed runs, and data files that the index does not name (those of the
 * database just replaced, or of a run killed after naming its data files but
 * before switching the index). With an index that cannot be read, no data
 * file is removed: which are in use is unknown. Runs under the lock, so no
 * other writer's files are in the way. Best effort: what cannot be removed
 * now is tried again next time. */
static void remove_leftovers(const sw_db_writer *w, int index_state, uint32_t version, uint64_t id)
{
    int dirfd;
    DIR *d = open_listing(w->dir, &dirfd);
    if (!d) return;
    const char *base = base_of(w->prefix);
    struct dirent *e;
    while ((e = readdir(d))) {
        int which = 0;
        uint64_t name_id = 0;
        int kind = classify_name(base, e->d_name, &which, &name_id);
        int remove = 0;
        struct stat st;
        if (kind == NAME_TEMPORARY) {
            remove = fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                     S_ISREG(st.st_mode);
        } else if (kind == NAME_GENERATION && index_state != INDEX_INVALID) {
            int in_use = index_state == INDEX_VALID && version >= 2 && name_id == id;
            remove = !in_use && removable_data_file(dirfd, e->d_name, which, 1, name_id);
        } else if (kind == NAME_LEGACY && index_state != INDEX_INVALID) {
            int in_use = index_state == INDEX_VALID && version < 2;
            remove = !in_use && removable_data_file(dirfd, e->d_name, which, 0, 0);
        }
        if (remove) unlinkat(dirfd, e->d_name, 0);
    }
    closedir(d);
    close(dirfd);
}

/* Signals that would end the process through sw_cleanup are held back
 * while a registered name and the file system disagree for an instant
 * (between forgetting a name and renaming or removing it). Only the calling
 * thread's mask changes: at these moments the writer runs no other thread
 * (the compression workers have ended), so a signal for the process waits
 * unless the program has threads of its own that accept it. */
static void block_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

/* One writer per prefix at a time: an flock()ed PREFIX.swlock. The file is
 * removed when the lock is released, so a run that opened it meanwhile may
 * hold a lock on a file that no longer has the name; it notices by
 * comparing the file it locked with the one under the name, and tries
 * again. */
static int take_lock(sw_db_writer *w, sw_error *err)
{
    for (int attempt = 0; attempt < MAX_LOCK_ATTEMPTS; attempt++) {
        sigset_t old;
        block_signals(&old);
        int fd = open(w->lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0) {
            int e = errno;
            restore_signals(&old);
            return sw_error_set(err, e == ENOENT ? SW_ENOTFOUND : SW_EIO,
                                "%s: cannot create the lock file: %s", w->lock_path, strerror(e));
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            restore_signals(&old);
            if (e == EWOULDBLOCK)
                return sw_error_set(err, SW_EBUSY,
                                    "%s: another makedb is writing this database (%s is locked); "
                                    "wait until it ends",
                                    w->prefix, w->lock_path);
            return sw_error_set(err, SW_EIO, "%s: cannot lock: %s", w->lock_path, strerror(e));
        }
        struct stat held, named;
        if (fstat(fd, &held) == 0 && stat(w->lock_path, &named) == 0 &&
            held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
            w->lock_fd = fd;
            w->lock_slot = sw_cleanup_add(w->lock_path);
            restore_signals(&old);
            if (w->lock_slot < 0)
                return sw_error_set(err, SW_ELIMIT, "%s: too many files to remove on a signal",
                                    w->lock_path);
            return SW_OK;
        }
        close(fd);
        restore_signals(&old);
    }
    return sw_error_set(err, SW_EIO, "%s: cannot lock: the lock file keeps being replaced",
                        w->lock_path);
}

/* Removes the lock file while still holding the lock, then releases it: no
 * lock file stays behind, and a run waiting on the removed file retries. */
static void release_lock(sw_db_writer *w)
{
    if (w->lock_fd < 0) return;
    sigset_t old;
    block_signals(&old);
    sw_cleanup_remove(w->lock_slot);
    w->lock_slot = -1;
    unlink(w->lock_path);
    close(w->lock_fd);
    w->lock_fd = -1;
    restore_signals(&old);
}

/* An unnamed file (O_TMPFILE) in the output directory with mode `mode` &
 * ~umask, so that its data lands on the file system of the result and
 * disappears on any exit. -1 with errno set; errno EOPNOTSUPP (or EISDIR,
 * EINVAL on kernels before 3.11) means the file system or kernel has no
 * O_TMPFILE, and the caller falls back to a named file. */
static int open_unnamed(const char *dir, mode_t mode)
{
    return open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
}

static int unnamed_unsupported(int e)
{
    return e != ENOENT && e != EACCES && e != EROFS && e != ENOSPC && e != EDQUOT && e != EMFILE &&
           e != ENFILE && e != ENOMEM && e != EPERM;
}

/* An unnamed file in the output directory for spilled input. */
static int open_spill(const sw_db_writer *w, spill *s, sw_error *err)
{
    int fd = open_unnamed(w->dir, 0600);
    if (fd < 0 && unnamed_unsupported(errno)) {
        /* A named file, unlinked at once; a run killed in between leaves it
         * for the next run of this prefix to remove. */
        char *name = concat(w->prefix, ".spillXXXXXX");
        if (!name) return sw_error_set(err, SW_ENOMEM, "out of memory");
        fd = mkostemp(name, O_CLOEXEC);
        if (fd >= 0) unlink(name);
        free(name);
    }
    if (fd < 0) {
        int e = errno;
        return sw_error_set(err, e == ENOENT ? SW_ENOTFOUND : SW_EIO,
                            "%s: cannot create a temporary file in this directory: %s", w->dir,
                            strerror(e));
    }
    s->buf = malloc(SPILL_BUFFER_BYTES);
    if (!s->buf) {
        close(fd);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    s->fd = fd;
    return SW_OK;
}

static int spill_flush(spill *s)
{
    if (s->fill > 0 && sw_io_write_all(s->fd, s->buf, s->fill) != 0) return -1;
    s->fill = 0;
    return 0;
}

static int spill_add(spill *s, const void *data, size_t n)
{
    if (n > SPILL_BUFFER_BYTES - s->fill) {
        if (spill_flush(s) != 0) return -1;
        if (n >= SPILL_BUFFER_BYTES) {
            if (sw_io_write_all(s->fd, data, n) != 0) return -1;
            s->size += n;
            return 0;
        }
    }
    if (n > 0) memcpy(s->buf + s->fill, data, n);
    s->fill += n;
    s->size += n;
    return 0;
}

static void spill_close(spill *s)
{
    if (s->fd >= 0) close(s->fd);
    free(s->buf);
    s->fd = -1;
    s->buf = NULL;
}

int sw_db_writer_check_input(const char *prefix, int fd, const char *input_name, sw_error *err)
{
    int rc = check_prefix(prefix, err);
    if (rc != SW_OK) return rc;
    struct stat in;
    if (fstat(fd, &in) != 0) return SW_OK;
    char *dir = directory_of(prefix);
    if (!dir) return sw_error_set(err, SW_ENOMEM, "out of memory");
    int dirfd;
    DIR *d = open_listing(dir, &dirfd);
    free(dir);
    if (!d) return SW_OK; /* nothing there yet; creating will say why it fails */
    const char *base = base_of(prefix);
    struct dirent *e;
    while (rc == SW_OK && (e = readdir(d))) {
        int which;
        uint64_t id;
        struct stat st;
        if (classify_name(base, e->d_name, &which, &id) == NAME_OTHER) continue;
        /* The entry itself, not what a symbolic link points to: renaming
         * over or removing a link leaves its target alone. */
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == in.st_dev &&
            st.st_ino == in.st_ino)
            rc = sw_error_set(err, SW_EINVAL,
                              "%s: this input is %s%s, a file that building the database %s "
                              "would replace or remove; give another input or database name",
                              input_name, prefix, e->d_name + strlen(base), prefix);
    }
    closedir(d);
    close(dirfd);
    return rc;
}

int sw_db_writer_create(const char *prefix, const sw_db_writer_options *options, sw_db_writer **out,
                        sw_error *err)
{
    if (out) *out = NULL;
    if (!prefix || !*prefix || !out) return sw_error_set(err, SW_EINVAL, "no database name given");
    int alphabet = options ? options->alphabet : SW_ALPHABET_PROTEIN;
    if (alphabet != SW_ALPHABET_PROTEIN && alphabet != SW_ALPHABET_DNA)
        return sw_error_set(err, SW_EINVAL, "%s: unknown alphabet %d", prefix, alphabet);
    int level = options ? options->compression_level : 0;
    if (level != 0 && (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()))
        return sw_error_set(err, SW_EINVAL, "compression level %d is outside %d..%d", level,
                            ZSTD_minCLevel(), ZSTD_maxCLevel());
    int rc = check_prefix(prefix, err);
    if (rc != SW_OK) return rc;

    sw_db_writer *w = calloc(1, sizeof *w);
    if (!w) return sw_error_set(err, SW_ENOMEM, "out of memory");
    w->residues.fd = w->headers.fd = -1;
    w->lock_fd = -1;
    w->lock_slot = -1;
    for (int f = 0; f < NUM_FILES; f++) w->slot[f] = -1;
    w->state = STATE_FAILED;
    w->alphabet = alphabet;
    w->alphabet_size = alphabet == SW_ALPHABET_DNA ? SW_DNA_CODES : SW_PROTEIN_CODES;
    w->residue_level = level ? level : DEFAULT_RESIDUE_LEVEL;
    w->header_level = level ? level : DEFAULT_HEADER_LEVEL;
    int threads = options ? options->threads : 0;
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)(n < MAX_THREADS ? n : MAX_THREADS) : 1;
    }
    w->threads = threads < MAX_THREADS ? threads : MAX_THREADS;
    if (options) {
        w->progress = options->progress;
        w->progress_user = options->progress_user;
    }
    w->id = random_id();

    w->prefix = strdup(prefix);
    w->dir = directory_of(prefix);
    w->lock_path = concat(prefix, ".swlock");
    w->tmp_index = malloc(strlen(prefix) + sizeof ".swi.tmp" + 16);
    if (!w->prefix || !w->dir || !w->lock_path || !w->tmp_index)
        rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    for (int f = 0; rc == SW_OK && f < NUM_FILES; f++) {
        w->path[f] = sw_db_file_name(prefix, SW_DB_FORMAT_VERSION, w->id, f);
        if (!w->path[f]) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    if (rc == SW_OK)
        sprintf(w->tmp_index, "%s.swi.tmp%016llx", prefix, (unsigned long long)random_id());
    if (rc == SW_OK) rc = take_lock(w, err);
    if (rc == SW_OK) {
        uint32_t version = 0;
        uint64_t id = 0;
        int r = sw_db_index_id(prefix, &version, &id, NULL);
        int state = r == SW_OK ? INDEX_VALID : r == SW_ENOTFOUND ? INDEX_NONE : INDEX_INVALID;
        remove_leftovers(w, state, version, id);
    }
    if (rc == SW_OK) rc = open_spill(w, &w->residues, err);
    if (rc == SW_OK) rc = open_spill(w, &w->headers, err);
    if (rc != SW_OK) {
        sw_db_writer_free(w);
        return rc;
    }
    w->state = STATE_ADDING;
    *out = w;
    return SW_OK;
}

static uint8_t max_code(const uint8_t *r, size_t n)
{
    /* A branch-free maximum, which the compiler vectorises. */
    uint8_t m = 0;
    for (size_t i = 0; i < n; i++) m = r[i] > m ? r[i] : m;
    return m;
}

int sw_db_writer_add(sw_db_writer *w, const char *header, size_t header_len,
                     const uint8_t *residues, size_t length, sw_error *err)
{
    if (!w || w->state != STATE_ADDING)
        return sw_error_set(err, SW_EINVAL, "database writer is not accepting sequences");
    if ((header_len > 0 && !header) || !residues)
        return sw_error_set(err, SW_EINVAL, "no sequence given");
    uint64_t seq = w->num_seqs;
    if (length == 0)
        return sw_error_set(err, SW_EINVAL, "sequence %llu is empty", (unsigned long long)seq + 1);
    /* Lengths, header lengths and input positions are 32-bit in the index. */
    if (length > UINT32_MAX)
        return sw_error_set(err, SW_ELIMIT, "sequence %llu is longer than %u residues",
                            (unsigned long long)seq + 1, UINT32_MAX);
    if (header_len > UINT32_MAX)
        return sw_error_set(err, SW_ELIMIT, "the header of sequence %llu is longer than %u bytes",
                            (unsigned long long)seq + 1, UINT32_MAX);
    if (seq >= UINT32_MAX)
        return sw_error_set(err, SW_ELIMIT, "a database holds at most %u sequences", UINT32_MAX);
    uint8_t m = max_code(residues, length);
    if (m >= w->alphabet_size)
        return sw_error_set(err, SW_EINVAL,
                            "sequence %llu holds residue code %u outside the alphabet",
                            (unsigned long long)seq + 1, m);

    if (seq == w->capacity) {
        uint64_t cap = w->capacity ? w->capacity * 2 : 4096;
        if (cap > UINT32_MAX) cap = UINT32_MAX;
        uint32_t *l = realloc(w->lengths, cap * sizeof *l);
        if (l) w->lengths = l;
        uint32_t *h = l ? realloc(w->header_lengths, cap * sizeof *h) : NULL;
        if (h) w->header_lengths = h;
        if (!l || !h) return sw_error_set(err, SW_ENOMEM, "out of memory");
        w->capacity = cap;
    }
    if (spill_add(&w->residues, residues, length) != 0 ||
        spill_add(&w->headers, header, header_len) != 0) {
        w->state = STATE_FAILED;
        return sw_error_set(err, SW_EIO, "%s: writing temporary data failed: %s", w->prefix,
                            strerror(errno));
    }
    w->lengths[seq] = (uint32_t)length;
    w->header_lengths[seq] = (uint32_t)header_len;
    w->num_seqs = seq + 1;
    w->num_residues += length;
    w->header_text_bytes += header_len;
    if (length > w->max_length) w->max_length = (uint32_t)length;
    return SW_OK;
}

static void report(const sw_db_writer *w, const char *phase, uint64_t done, uint64_t total)
{
    if (w->progress) w->progress(w->progress_user, phase, done, total);
}

/* Input positions in ascending length order, ties in input order: a stable
 * LSD radix sort on the 32-bit length, 16 bits per pass. */
static int sort_by_length(const sw_db_writer *w, uint32_t **out)
{
    uint64_t n = w->num_seqs;
    uint32_t *a = malloc((n ? n : 1) * sizeof *a);
    uint32_t *b = malloc((n ? n : 1) * sizeof *b);
    uint64_t *count = malloc(65536 * sizeof *count);
    if (!a || !b || !count) {
        free(a);
        free(b);
        free(count);
        return SW_ENOMEM;
    }
    for (uint64_t i = 0; i < n; i++) a[i] = (uint32_t)i;
    for (int shift = 0; shift < 32; shift += 16) {
        if (shift > 0 && (w->max_length >> shift) == 0) break;
        memset(count, 0, 65536 * sizeof *count);
        for (uint64_t i = 0; i < n; i++) count[(w->lengths[a[i]] >> shift) & 0xFFFF]++;
        uint64_t sum = 0;
        for (size_t k = 0; k < 65536; k++) {
            uint64_t c = count[k];
            count[k] = sum;
            sum += c;
        }
        for (uint64_t i = 0; i < n; i++) b[count[(w->lengths[a[i]] >> shift) & 0xFFFF]++] = a[i];
        uint32_t *t = a;
        a = b;
        b = t;
    }
    free(b);
    free(count);
    *out = a;
    return SW_OK;
}

/* Cuts the sorted sequences into chunks of whole sequences of about
 * `target` bytes; a sequence larger than that gets a chunk of its own. */
static int plan_chunks(const uint32_t *sizes, const uint32_t *order, uint64_t n, uint64_t target,
                       uint64_t max_seqs, chunk_entry **out, size_t *num_out)
{
    size_t cap = 64, num = 0;
    chunk_entry *c = malloc(cap * sizeof *c);
    if (!c) return SW_ENOMEM;
    uint64_t i = 0;
    while (i < n) {
        uint64_t first = i, bytes = 0;
        while (i < n && i - first < max_seqs) {
            uint64_t s = sizes[order[i]];
            if (i > first && bytes + s > target) break;
            bytes += s;
            i++;
        }
        if (num == cap) {
            cap *= 2;
            chunk_entry *g = realloc(c, cap * sizeof *g);
            if (!g) {
                free(c);
                return SW_ENOMEM;
            }
            c = g;
        }
        memset(&c[num], 0, sizeof c[num]);
        c[num].first_seq = first;
        c[num].num_seqs = i - first;
        c[num].size = bytes;
        num++;
    }
    *out = c;
    *num_out = num;
    return SW_OK;
}

/* Compression of one file's chunks. Workers claim chunks in order, compress
 * them independently and append them in chunk order: a worker that finishes
 * early waits for its turn, which costs little as chunks are of equal size. */
typedef struct compress_job {
    const char *path; /* output name for messages */
    int fd;
    int source_fd;                 /* spill file */
    const uint64_t *source_offset; /* by input position */
    const uint32_t *source_size;
    const uint32_t *order;
    chunk_entry *chunks;
    size_t num_chunks;
    size_t max_chunk_bytes;
    int level;
    pthread_mutex_t lock;
    pthread_cond_t turn;
    size_t next_claim, next_commit;
    uint64_t file_offset;
    int rc;
    sw_error err;
} compress_job;

/* Records the first failure; the others stop at their next claim or turn. */
static void job_fail(compress_job *job, int rc, const char *what, const char *detail)
{
    pthread_mutex_lock(&job->lock);
    if (job->rc == SW_OK) {
        job->rc = rc;
        job->err.code = rc;
        snprintf(job->err.message, sizeof job->err.message, "%s: %s: %s", job->path, what, detail);
    }
    pthread_cond_broadcast(&job->turn);
    pthread_mutex_unlock(&job->lock);
}

static void compress_worker(void *arg, int index)
{
    (void)index;
    compress_job *job = arg;
    size_t out_cap = ZSTD_compressBound(job->max_chunk_bytes);
    uint8_t *in = malloc(job->max_chunk_bytes ? job->max_chunk_bytes : 1);
    uint8_t *out = malloc(out_cap);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    if (!in || !out || !cctx) {
        job_fail(job, SW_ENOMEM, "compressing", "out of memory");
        goto done;
    }
    for (;;) {
        pthread_mutex_lock(&job->lock);
        if (job->rc != SW_OK || job->next_claim == job->num_chunks) {
            pthread_mutex_unlock(&job->lock);
            break;
        }
        size_t c = job->next_claim++;
        pthread_mutex_unlock(&job->lock);

        chunk_entry *e = &job->chunks[c];
        uint8_t *p = in;
        const char *failure = NULL;
        for (uint64_t s = e->first_seq; s < e->first_seq + e->num_seqs && !failure; s++) {
            uint32_t pos = job->order[s];
            uint32_t len = job->source_size[pos];
            int r = len ? sw_io_pread_exact(job->source_fd, p, len, job->source_offset[pos]) : 0;
            if (r != 0) failure = r < 0 ? strerror(errno) : "temporary file ended early";
            p += len;
        }
        if (failure) {
            job_fail(job, SW_EIO, "reading temporary data failed", failure);
            break;
        }
        size_t csize = ZSTD_compressCCtx(cctx, out, out_cap, in, (size_t)e->size, job->level);
        if (ZSTD_isError(csize)) {
            job_fail(job, SW_EIO, "compression failed", ZSTD_getErrorName(csize));
            break;
        }
        e->compressed_size = csize;
        e->hash_data = XXH3_64bits(in, (size_t)e->size);
        e->hash_compressed = XXH3_64bits(out, csize);

        pthread_mutex_lock(&job->lock);
        while (job->next_commit != c && job->rc == SW_OK) pthread_cond_wait(&job->turn, &job->lock);
        int failed = job->rc != SW_OK;
        uint64_t offset = job->file_offset;
        pthread_mutex_unlock(&job->lock);
        if (failed) break;
        /* Only the worker whose turn it is writes, so no lock is needed. */
        if (sw_io_pwrite_all(job->fd, out, csize, offset) != 0) {
            job_fail(job, SW_EIO, "write failed", strerror(errno));
            break;
        }
        e->offset = offset;
        pthread_mutex_lock(&job->lock);
        job->file_offset = offset + csize;
        job->next_commit++;
        pthread_cond_broadcast(&job->turn);
        pthread_mutex_unlock(&job->lock);
    }
done:
    ZSTD_freeCCtx(cctx);
    free(in);
    free(out);
}

static int compress_file(const sw_db_writer *w, compress_job *job, const char *phase, sw_error *err)
{
    job->max_chunk_bytes = 0;
    for (size_t c = 0; c < job->num_chunks; c++) {
        uint64_t s = job->chunks[c].size;
        if (s > job->max_chunk_bytes) job->max_chunk_bytes = (size_t)s;
    }
    if (pthread_mutex_init(&job->lock, NULL) != 0)
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    if (pthread_cond_init(&job->turn, NULL) != 0) {
        pthread_mutex_destroy(&job->lock);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    job->rc = SW_OK;
    job->next_claim = job->next_commit = 0;
    job->file_offset = SW_DB_FILE_HEADER_SIZE;

    report(w, phase, 0, job->num_chunks);
    size_t want = (size_t)w->threads < job->num_chunks ? (size_t)w->threads : job->num_chunks;
    sw_pool *pool;
    int started;
    sw_pool_start((int)want, compress_worker, job, &pool, &started);
    if (started == 0 && job->num_chunks > 0) {
        compress_worker(job, 0);
    } else {
        /* This thread only reports progress, so the callback never runs
         * concurrently with itself. */
        pthread_mutex_lock(&job->lock);
        size_t reported = 0;
        while (job->next_commit < job->num_chunks && job->rc == SW_OK) {
            pthread_cond_wait(&job->turn, &job->lock);
            if (job->next_commit != reported && job->next_commit < job->num_chunks &&
                job->rc == SW_OK) {
                reported = job->next_commit;
                pthread_mutex_unlock(&job->lock);
                report(w, phase, reported, job->num_chunks);
                pthread_mutex_lock(&job->lock);
            }
        }
        pthread_mutex_unlock(&job->lock);
    }
    sw_pool_join(pool);
    pthread_cond_destroy(&job->turn);
    pthread_mutex_destroy(&job->lock);
    if (job->rc != SW_OK) {
        if (err) *err = job->err;
        return job->rc;
    }
    report(w, phase, job->num_chunks, job->num_chunks);
    return SW_OK;
}

static int flush_spill(const sw_db_writer *w, spill *s, sw_error *err)
{
    if (spill_flush(s) == 0) return SW_OK;
    return sw_error_set(err, SW_EIO, "%s: writing temporary data failed: %s", w->prefix,
                        strerror(errno));
}

/* Opens output file `f` for writing: unnamed when the file system allows,
 * so that nothing named exists while the long compression runs and a kill
 * leaves nothing behind; otherwise under its final name (the temporary name
 * for the index), created exclusively and registered for removal on a
 * signal. The mode is the usual 0666 & ~umask. */
static int create_output(sw_db_writer *w, int f, int *fd_out, sw_error *err)
{
    int fd = open_unnamed(w->dir, 0666);
    if (fd < 0 && unnamed_unsupported(errno)) {
        const char *name = f == FILE_INDEX ? w->tmp_index : w->path[f];
        w->slot[f] = sw_cleanup_add(name);
        if (w->slot[f] < 0)
            return sw_error_set(err, SW_ELIMIT, "%s: too many files to remove on a signal", name);
        fd = open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0666);
        if (fd >= 0) w->named[f] = 1;
    }
    if (fd < 0) {
        int e = errno;
        return sw_error_set(err, e == ENOENT ? SW_ENOTFOUND : SW_EIO, "%s: cannot create: %s",
                            w->path[f], strerror(e));
    }
    *fd_out = fd;
    return SW_OK;
}

/* Gives the unnamed output file `fd` its name (the temporary name for the
 * index); a file created named already has it. The name is registered for
 * removal on a signal before it exists, so no instant is uncovered. */
static int name_output(sw_db_writer *w, int f, int fd, sw_error *err)
{
    if (w->named[f]) return SW_OK;
    const char *name = f == FILE_INDEX ? w->tmp_index : w->path[f];
    w->slot[f] = sw_cleanup_add(name);
    if (w->slot[f] < 0)
        return sw_error_set(err, SW_ELIMIT, "%s: too many files to remove on a signal", name);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int r = linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
    /* Without /proc, AT_EMPTY_PATH does the same for a privileged process. */
    if (r != 0 && errno == ENOENT) r = linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
    if (r != 0)
        return sw_error_set(err, SW_EIO, "%s: cannot name the new file: %s", name,
                            strerror(errno));
    w->named[f] = 1;
    return SW_OK;
}

static void put_file_header(uint8_t *p, const char *magic, uint64_t id)
{
    memcpy(p, magic, SW_DB_MAGIC_SIZE);
    put_u32(p + 8, SW_DB_FORMAT_VERSION);
    put_u32(p + 12, 0);
    put_u64(p + 16, id);
}

static void put_chunk_table(uint8_t *p, const chunk_entry *c, size_t n)
{
    for (size_t i = 0; i < n; i++, p += SW_DB_CHUNK_ENTRY_SIZE) {
        put_u64(p + SW_DB_CK_FIRST_SEQ, c[i].first_seq);
        put_u64(p + SW_DB_CK_NUM_SEQS, c[i].num_seqs);
        put_u64(p + SW_DB_CK_SIZE, c[i].size);
        put_u64(p + SW_DB_CK_OFFSET, c[i].offset);
        put_u64(p + SW_DB_CK_COMPRESSED_SIZE, c[i].compressed_size);
        put_u64(p + SW_DB_CK_HASH_COMPRESSED, c[i].hash_compressed);
        put_u64(p + SW_DB_CK_HASH_DATA, c[i].hash_data);
    }
}

/* State of sw_db_writer_finish(), released in one place. */
typedef struct finish_state {
    uint32_t *order;
    uint64_t *residue_offset, *header_offset;
    chunk_entry *residue_chunks, *header_chunks;
    size_t num_residue_chunks, num_header_chunks;
    uint8_t *index;
    int fd[NUM_FILES];
} finish_state;

static int build_index(const sw_db_writer *w, finish_state *st, uint64_t residue_bytes,
                       uint64_t header_bytes, size_t *size_out)
{
    uint64_t n = w->num_seqs;
    size_t arrays = (size_t)(n * 12 + 7) / 8 * 8;
    size_t size = SW_DB_INDEX_FIXED_SIZE + arrays +
                  (st->num_residue_chunks + st->num_header_chunks) * SW_DB_CHUNK_ENTRY_SIZE + 8;
    uint8_t *p = calloc(1, size);
    if (!p) return SW_ENOMEM;
    put_file_header(p, SW_DB_MAGIC_INDEX, w->id);
    put_u32(p + SW_DB_IX_ALPHABET, (uint32_t)w->alphabet);
    put_u32(p + SW_DB_IX_MAX_LENGTH, w->max_length);
    put_u64(p + SW_DB_IX_NUM_SEQS, n);
    put_u64(p + SW_DB_IX_NUM_RESIDUES, w->num_residues);
    put_u64(p + SW_DB_IX_HEADER_TEXT, w->header_text_bytes);
    put_u64(p + SW_DB_IX_NUM_RESIDUE_CHUNKS, st->num_residue_chunks);
    put_u64(p + SW_DB_IX_NUM_HEADER_CHUNKS, st->num_header_chunks);
    put_u64(p + SW_DB_IX_RESIDUE_FILE_SIZE, residue_bytes);
    put_u64(p + SW_DB_IX_HEADER_FILE_SIZE, header_bytes);
    put_u64(p + SW_DB_IX_INDEX_FILE_SIZE, size);
    uint8_t *lengths = p + SW_DB_INDEX_FIXED_SIZE;
    uint8_t *positions = lengths + 4 * n;
    uint8_t *header_lengths = positions + 4 * n;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t pos = st->order[i];
        put_u32(lengths + 4 * i, w->lengths[pos]);
        put_u32(positions + 4 * i, pos);
        put_u32(header_lengths + 4 * i, w->header_lengths[pos]);
    }
    uint8_t *tables = p + SW_DB_INDEX_FIXED_SIZE + arrays;
    put_chunk_table(tables, st->residue_chunks, st->num_residue_chunks);
    put_chunk_table(tables + st->num_residue_chunks * SW_DB_CHUNK_ENTRY_SIZE, st->header_chunks,
                    st->num_header_chunks);
    put_u64(p + size - 8, XXH3_64bits(p, size - 8));
    st->index = p;
    *size_out = size;
    return SW_OK;
}

static int sync_directory(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int finish(sw_db_writer *w, finish_state *st, sw_db_build_stats *stats, sw_error *err)
{
    uint64_t n = w->num_seqs;
    int rc;

    report(w, "sorting", 0, n);
    if ((rc = flush_spill(w, &w->residues, err)) != SW_OK) return rc;
    if ((rc = flush_spill(w, &w->headers, err)) != SW_OK) return rc;
    if (sort_by_length(w, &st->order) != SW_OK)
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    st->residue_offset = malloc((n ? n : 1) * sizeof(uint64_t));
    st->header_offset = malloc((n ? n : 1) * sizeof(uint64_t));
    if (!st->residue_offset || !st->header_offset)
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    uint64_t ro = 0, ho = 0;
    for (uint64_t i = 0; i < n; i++) {
        st->residue_offset[i] = ro;
        st->header_offset[i] = ho;
        ro += w->lengths[i];
        ho += w->header_lengths[i];
    }
    if (plan_chunks(w->lengths, st->order, n, RESIDUE_CHUNK_BYTES, UINT64_MAX, &st->residue_chunks,
                    &st->num_residue_chunks) != SW_OK ||
        plan_chunks(w->header_lengths, st->order, n, HEADER_CHUNK_BYTES, HEADER_CHUNK_MAX_SEQS,
                    &st->header_chunks, &st->num_header_chunks) != SW_OK)
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    report(w, "sorting", n, n);

    uint8_t file_header[SW_DB_FILE_HEADER_SIZE];
    static const char *const magic[NUM_FILES] = {SW_DB_MAGIC_INDEX, SW_DB_MAGIC_RESIDUES,
                                                 SW_DB_MAGIC_HEADERS};
    for (int f = FILE_RESIDUES; f <= FILE_HEADERS; f++) {
        if ((rc = create_output(w, f, &st->fd[f], err)) != SW_OK) return rc;
        put_file_header(file_header, magic[f], w->id);
        if (sw_io_write_all(st->fd[f], file_header, sizeof file_header) != 0)
            return sw_error_set(err, SW_EIO, "%s: write failed: %s", w->path[f], strerror(errno));
    }

    compress_job job;
    memset(&job, 0, sizeof job);
    job.path = w->path[FILE_RESIDUES];
    job.fd = st->fd[FILE_RESIDUES];
    job.source_fd = w->residues.fd;
    job.source_offset = st->residue_offset;
    job.source_size = w->lengths;
    job.order = st->order;
    job.chunks = st->residue_chunks;
    job.num_chunks = st->num_residue_chunks;
    job.level = w->residue_level;
    if ((rc = compress_file(w, &job, "compressing residues", err)) != SW_OK) return rc;
    uint64_t residue_bytes = job.file_offset;

    job.path = w->path[FILE_HEADERS];
    job.fd = st->fd[FILE_HEADERS];
    job.source_fd = w->headers.fd;
    job.source_offset = st->header_offset;
    job.source_size = w->header_lengths;
    job.chunks = st->header_chunks;
    job.num_chunks = st->num_header_chunks;
    job.level = w->header_level;
    if ((rc = compress_file(w, &job, "compressing headers", err)) != SW_OK) return rc;
    uint64_t header_bytes = job.file_offset;

    /* The commit (docs/FORMAT.md, "Writing"): the data files get names of
     * their own, PREFIX.<id>.swr and .swh, which no reader looks for until
     * the index names them; then the index replaces PREFIX.swi by one
     * rename, the only step that changes what a reader sees. Each file is
     * durable before it is named, and every name before the switch, so a
     * crash leaves the old database or the new one. */
    report(w, "writing index", 0, 1);
    for (int f = FILE_RESIDUES; f <= FILE_HEADERS; f++)
        if (fsync(st->fd[f]) != 0)
            return sw_error_set(err, SW_EIO, "%s: write failed: %s", w->path[f], strerror(errno));
    for (int f = FILE_RESIDUES; f <= FILE_HEADERS; f++)
        if ((rc = name_output(w, f, st->fd[f], err)) != SW_OK) return rc;

    size_t index_bytes;
    if (build_index(w, st, residue_bytes, header_bytes, &index_bytes) != SW_OK)
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    if ((rc = create_output(w, FILE_INDEX, &st->fd[FILE_INDEX], err)) != SW_OK) return rc;
    if (sw_io_write_all(st->fd[FILE_INDEX], st->index, index_bytes) != 0 ||
        fsync(st->fd[FILE_INDEX]) != 0)
        return sw_error_set(err, SW_EIO, "%s: write failed: %s", w->path[FILE_INDEX],
                            strerror(errno));
    if ((rc = name_output(w, FILE_INDEX, st->fd[FILE_INDEX], err)) != SW_OK) return rc;
    for (int f = 0; f < NUM_FILES; f++) {
        int e = close(st->fd[f]) != 0 ? errno : 0;
        st->fd[f] = -1;
        if (e != 0)
            return sw_error_set(err, SW_EIO, "%s: write failed: %s", w->path[f], strerror(e));
    }
    if (sync_directory(w->dir) != 0)
        return sw_error_set(err, SW_EIO, "%s: cannot sync the directory: %s", w->dir,
                            strerror(errno));

    /* The switch. From here on the new files are the database, so they
     * must no longer be removed on a signal; the signals wait until the
     * names are forgotten and the rename is done. */
    sigset_t old;
    block_signals(&old);
    for (int f = 0; f < NUM_FILES; f++) {
        sw_cleanup_remove(w->slot[f]);
        w->slot[f] = -1;
    }
    int renamed = rename(w->tmp_index, w->path[FILE_INDEX]);
    int rename_errno = errno;
    if (renamed == 0)
        for (int f = 0; f < NUM_FILES; f++) w->named[f] = 0;
    restore_signals(&old);
    if (renamed != 0)
        return sw_error_set(err, SW_EIO, "%s: cannot rename into place: %s", w->path[FILE_INDEX],
                            strerror(rename_errno));
    /* Best effort from here: the new database is in place either way. */
    sync_directory(w->dir);
    remove_leftovers(w, INDEX_VALID, SW_DB_FORMAT_VERSION, w->id);
    report(w, "writing index", 1, 1);

    if (stats) {
        stats->num_seqs = n;
        stats->num_residues = w->num_residues;
        stats->residue_bytes = residue_bytes;
        stats->header_bytes = header_bytes;
        stats->index_bytes = index_bytes;
    }
    return SW_OK;
}

/* Removes the names this build gave its files before the switch, after a
 * failure; unnamed files vanish when closed. */
static void remove_named(sw_db_writer *w)
{
    for (int f = 0; f < NUM_FILES; f++) {
        if (w->named[f]) unlink(f == FILE_INDEX ? w->tmp_index : w->path[f]);
        w->named[f] = 0;
        sw_cleanup_remove(w->slot[f]);
        w->slot[f] = -1;
    }
}

int sw_db_writer_finish(sw_db_writer *w, sw_db_build_stats *stats, sw_error *err)
{
    if (!w || w->state != STATE_ADDING)
        return sw_error_set(err, SW_EINVAL, "database writer cannot finish: %s",
                            w && w->state == STATE_FINISHED ? "already finished" : "a step failed");
    finish_state st;
    memset(&st, 0, sizeof st);
    for (int f = 0; f < NUM_FILES; f++) st.fd[f] = -1;
    int rc = finish(w, &st, stats, err);
    for (int f = 0; f < NUM_FILES; f++)
        if (st.fd[f] >= 0) close(st.fd[f]);
    if (rc != SW_OK) remove_named(w);
    free(st.order);
    free(st.residue_offset);
    free(st.header_offset);
    free(st.residue_chunks);
    free(st.header_chunks);
    free(st.index);
    /* The spill files are no longer needed either way. */
    spill_close(&w->residues);
    spill_close(&w->headers);
    release_lock(w);
    w->state = rc == SW_OK ? STATE_FINISHED : STATE_FAILED;
    return rc;
}

void sw_db_writer_free(sw_db_writer *w)
{
    if (!w) return;
    remove_named(w);
    spill_close(&w->residues);
    spill_close(&w->headers);
    release_lock(w);
    for (int f = 0; f < NUM_FILES; f++) free(w->path[f]);
    free(w->tmp_index);
    free(w->lock_path);
    free(w->dir);
    free(w->lengths);
    free(w->header_lengths);
    free(w->prefix);
    free(w);
}
