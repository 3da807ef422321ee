/* sw_db_make (include/swsearch.h): a FASTA file streamed record by record
 * into a database writer, which replaces the old database in one step. */
#include <stdio.h>
#include <string.h>

#include "sw_alphabet.h"
#include "sw_db_writer.h"
#include "sw_fasta.h"

/* A database stores lengths as uint32_t, with UINT32_MAX kept free. */
#define MAX_SEQUENCE_LENGTH ((uint64_t)UINT32_MAX - 1)

/* Bytes of the file read of its size; of a pipe, the bytes so far. */
static void report_reading(const sw_db_make_options *o, const sw_fasta *fasta)
{
    uint64_t size = sw_fasta_file_size(fasta);
    if (size)
        o->progress(o->progress_user, "reading", sw_fasta_file_offset(fasta), size);
    else
        o->progress(o->progress_user, "reading", sw_fasta_bytes_read(fasta), 0);
}

int sw_db_make(const char *fasta_path, const char *path, const sw_db_make_options *options, uint64_t *seqs,
               uint64_t *residues, sw_error *err)
{
    sw_error_clear(err);
    if (seqs) *seqs = 0;
    if (residues) *residues = 0;
    if (!fasta_path || !path || !*path) return sw_error_set(err, SW_EINVAL, "sw_db_make: a FASTA path and a database path are needed");
    const sw_db_make_options none = {0};
    const sw_db_make_options *o = options ? options : &none;
    if (o->alphabet != SW_ALPHABET_PROTEIN && o->alphabet != SW_ALPHABET_DNA)
        return sw_error_set(err, SW_EINVAL, "sw_db_make: unknown alphabet %d", (int)o->alphabet);
    if (o->threads < 0 || o->threads > 4096)
        return sw_error_set(err, SW_EINVAL, "sw_db_make: threads must be from 0 to 4096, not %d", o->threads);
    if (o->level < 0 || o->level > 22)
        return sw_error_set(err, SW_EINVAL, "sw_db_make: the zstd level must be from 0 to 22, not %d", o->level);
    const int dna = o->alphabet == SW_ALPHABET_DNA;
    const char *input = strcmp(fasta_path, "-") ? fasta_path : "<stdin>";
    sw_fasta_options fopt = {
        .alphabet = dna ? sw_alphabet_dna() : sw_alphabet_protein(),
        .warn = o->message,
        .warn_user = o->message_user,
        .max_length = MAX_SEQUENCE_LENGTH,
    };
    sw_db_writer_options wopt = {
        .alphabet = o->alphabet,
        .threads = o->threads,
        .compression_level = o->level,
        .progress = o->progress,
        .progress_user = o->progress_user,
    };
    sw_fasta *fasta = NULL;
    sw_db_writer *writer = NULL;
    sw_fasta_record rec;
    uint64_t n = 0;
    int rc = sw_fasta_open(fasta_path, &fopt, &fasta, err);
    /* Before anything is written: a build must not replace its own input. */
    if (rc == SW_OK) rc = sw_db_writer_check_input(path, sw_fasta_fd(fasta), input, err);
    if (rc == SW_OK) rc = sw_db_writer_create(path, &wopt, &writer, err);
    while (rc == SW_OK && (rc = sw_fasta_next(fasta, &rec, err)) == 1) {
        rc = sw_db_writer_add(writer, rec.header, rec.header_len, rec.residues, rec.length, err);
        n++;
        /* Reading the file's offset per record would cost more than the record. */
        if (rc == SW_OK && o->progress && (n & 1023) == 0) report_reading(o, fasta);
    }
    if (rc == SW_ELIMIT && err) {
        size_t len = strlen(err->message);
        snprintf(err->message + len, sizeof err->message - len, ", the most a database holds");
    }
    if (rc == SW_OK && n == 0) rc = sw_error_set(err, SW_EFORMAT, "%s: no sequences", input);
    sw_fasta_close(fasta);
    sw_db_build_stats stats;
    if (rc == SW_OK) rc = sw_db_writer_finish(writer, &stats, err);
    sw_db_writer_free(writer); /* unfinished: removes what it wrote, the old database stays */
    if (rc) return rc;
    if (seqs) *seqs = stats.num_seqs;
    if (residues) *residues = stats.num_residues;
    return SW_OK;
}
