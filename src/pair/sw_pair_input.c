/* The two sequences of a pairwise alignment read with the streaming FASTA
 * reader, checked for the number of records each file must hold. */
#include "sw_pair_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_alphabet.h"
#include "sw_fasta.h"

/* The count in "holds N sequences" is exact up to here; past it the message
 * says "more than", so a whole genome of contigs is not read just to be
 * counted. */
#define COUNT_MAX 1000

static const char *shown_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

static int copy_record(const sw_fasta_record *rec, int number, sw_pair_seq *out, const char *name,
                       sw_error *err)
{
    size_t id_len;
    sw_fasta_split_header(rec->header, rec->header_len, &id_len, NULL, NULL);
    /* A bare '>' still needs a name in the output: its place in the input. */
    char fallback[16];
    const char *id = rec->header;
    if (id_len == 0) {
        snprintf(fallback, sizeof fallback, "seq%d", number);
        id = fallback;
        id_len = strlen(fallback);
    }
    out->id = malloc(id_len + 1);
    out->codes = malloc(rec->length);
    if (!out->id || !out->codes) {
        sw_pair_seq_free(out);
        return sw_error_set(err, SW_ENOMEM, "%s:%llu: out of memory for a sequence of %llu bases", name,
                            (unsigned long long)rec->line, (unsigned long long)rec->length);
    }
    memcpy(out->id, id, id_len);
    out->id[id_len] = '\0';
    memcpy(out->codes, rec->residues, rec->length);
    out->length = rec->length;
    return SW_OK;
}

static int wrong_count(const char *name, uint64_t count, int capped, sw_error *err)
{
    const char *hint = "give one file of two sequences or two files of one";
    if (count == 0) return sw_error_set(err, SW_EFORMAT, "%s: holds no sequence; %s", name, hint);
    return sw_error_set(err, SW_EFORMAT, "%s: holds %s%llu sequence%s; %s", name, capped ? "more than " : "",
                        (unsigned long long)count, count == 1 && !capped ? "" : "s", hint);
}

/* Reads the `want` records (1 or 2) of one file into out[0..want-1], the
 * first numbered `first_number` for a nameless header. */
static int read_file(const char *path, int want, int first_number, sw_pair_seq *out, sw_warn_fn warn,
                     void *warn_user, sw_error *err)
{
    const char *name = shown_name(path);
    sw_fasta_options fo = {
        .alphabet = sw_alphabet_dna(),
        .warn = warn,
        .warn_user = warn_user,
        .max_length = SW_PAIR_MAX_LENGTH,
    };
    sw_fasta *f = NULL;
    int rc = sw_fasta_open(path, &fo, &f, err);
    if (rc) return rc;
    uint64_t count = 0;
    sw_fasta_record rec;
    for (;;) {
        rc = sw_fasta_next(f, &rec, err);
        if (rc < 0) goto done;
        if (rc == 0) break;
        if (count < (uint64_t)want) {
            rc = copy_record(&rec, first_number + (int)count, &out[count], name, err);
            if (rc) goto done;
        }
        count++;
        if (count > COUNT_MAX) break;
    }
    rc = count == (uint64_t)want ? SW_OK : wrong_count(name, count > COUNT_MAX ? COUNT_MAX : count,
                                                         count > COUNT_MAX, err);
done:
    sw_fasta_close(f);
    return rc;
}

int sw_pair_read(const char *path_a, const char *path_b, sw_pair_seq *a, sw_pair_seq *b, sw_warn_fn warn,
                 void *warn_user, sw_error *err)
{
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    if (!path_a) return sw_error_set(err, SW_EINVAL, "pairwise input: no file given");
    sw_pair_seq seqs[2];
    memset(seqs, 0, sizeof seqs);
    int rc;
    if (path_b) {
        if ((rc = read_file(path_a, 1, 1, &seqs[0], warn, warn_user, err)) == SW_OK)
            rc = read_file(path_b, 1, 2, &seqs[1], warn, warn_user, err);
    } else {
        rc = read_file(path_a, 2, 1, seqs, warn, warn_user, err);
    }
    if (rc) {
        sw_pair_seq_free(&seqs[0]);
        sw_pair_seq_free(&seqs[1]);
        return rc;
    }
    *a = seqs[0];
    *b = seqs[1];
    return SW_OK;
}

void sw_pair_seq_free(sw_pair_seq *s)
{
    if (!s) return;
    free(s->id);
    free(s->codes);
    memset(s, 0, sizeof *s);
}
