/* A multiple alignment read from aligned FASTA or A3M (plain or
 * zstd-compressed), Clustal or Stockholm (plain; recognised by their first
 * line): rows of equal length over the protein letters and the gap ('-' or
 * '.'), each with its name. Errors name the file, the line and the problem. */
#ifndef SW_MSA_H
#define SW_MSA_H

#include <stddef.h>
#include <stdint.h>

#include "sw_alphabet.h"
#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The code of a gap in a row; residues keep their protein codes (0 .. 26). */
#define SW_MSA_GAP SW_PROTEIN_CODES

typedef struct sw_msa sw_msa;

/* Reads `path` ("-": standard input). At least one row; every row as long
 * as the first; a row of gaps only is kept (as MUSCLE, HMMER's esl-msa and
 * hhsuite keep it), a FASTA record with no characters at all is an error
 * naming the file, the line and the row.
 *
 * A3M (hhsuite's): FASTA records whose upper-case letters and '-' are the
 * alignment's columns (the match states of the first row), while lower-case
 * letters and '.' are insertions relative to them and are dropped, so every
 * row keeps as many columns as the first. A file is read as A3M when its
 * name ends in ".a3m" (or ".a3m.zst"), or when a row of another length than
 * the first holds insertions; otherwise lower case in FASTA is a residue of
 * its column, as in any aligned FASTA. */
int sw_msa_read(const char *path, sw_msa **out, sw_error *err);

/* Reads `path` as A3M whatever its name and content (standard input, "-",
 * included). */
int sw_msa_read_a3m(const char *path, sw_msa **out, sw_error *err);

/* sw_msa_read() of a file's `len` bytes held in memory, named `name` in
 * messages and where sw_msa_read() goes by the file's name (".a3m"): for a
 * server, which reads no file a client names. */
int sw_msa_parse(const char *text, size_t len, const char *name, sw_msa **out, sw_error *err);

/* An alignment of rows given in memory (for tests and callers that build
 * one): rows[k] holds `columns` codes (SW_MSA_GAP for a gap). */
int sw_msa_from_rows(const char *const *names, const uint8_t *const *rows, size_t num_rows, size_t columns,
                     sw_msa **out, sw_error *err);

void sw_msa_free(sw_msa *m);

size_t sw_msa_rows(const sw_msa *m);
size_t sw_msa_columns(const sw_msa *m);
/* The header line of row k (without '>'), as read. */
const char *sw_msa_name(const sw_msa *m, size_t k);
/* Row k: sw_msa_columns() codes. */
const uint8_t *sw_msa_row(const sw_msa *m, size_t k);
/* The letter of a code of a row: the protein letter, or '-'. */
char sw_msa_letter(uint8_t code);

#ifdef __cplusplus
}
#endif

#endif
