/* Aligned FASTA through the streaming FASTA reader, with an alphabet that
 * knows the gap (sw_msa.h). */
#include "sw_msa.h"

#include <stdlib.h>
#include <string.h>

#include "sw_fasta.h"

struct sw_msa {
    size_t rows, columns;
    char **names;
    uint8_t *codes; /* rows x columns */
};

char sw_msa_letter(uint8_t code)
{
    return code == SW_MSA_GAP ? '-' : sw_alphabet_decode(sw_alphabet_protein(), code);
}

/* The protein alphabet plus '-' and '.' as the gap. */
static sw_alphabet gapped_alphabet(void)
{
    sw_alphabet a = *sw_alphabet_protein();
    a.encode['-'] = SW_MSA_GAP;
    a.encode['.'] = SW_MSA_GAP;
    a.size = SW_PROTEIN_CODES + 1;
    return a;
}

static int grow(sw_msa *m, size_t *cap, size_t columns)
{
    if (m->rows < *cap) return 0;
    const size_t nc = *cap ? 2 * *cap : 16;
    char **names = realloc(m->names, nc * sizeof *names);
    if (!names) return -1;
    m->names = names;
    uint8_t *codes = realloc(m->codes, nc * (columns ? columns : 1));
    if (!codes) return -1;
    m->codes = codes;
    *cap = nc;
    return 0;
}

int sw_msa_read(const char *path, sw_msa **out, sw_error *err)
{
    *out = NULL;
    const sw_alphabet alpha = gapped_alphabet();
    const sw_fasta_options opt = {&alpha, NULL, NULL, 0};
    sw_fasta *f = NULL;
    int rc = sw_fasta_open(path, &opt, &f, err);
    if (rc) return rc;
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    sw_msa *m = calloc(1, sizeof *m);
    if (!m) {
        sw_fasta_close(f);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    size_t cap = 0;
    sw_fasta_record rec;
    int more;
    while ((more = sw_fasta_next(f, &rec, err)) == 1) {
        if (m->rows == 0) m->columns = rec.length;
        if (rec.length != m->columns) {
            size_t id_len;
            sw_fasta_split_header(rec.header, rec.header_len, &id_len, NULL, NULL);
            rc = sw_error_set(err, SW_EFORMAT, "%s:%llu: row '%.*s' has %zu columns, the first row has %zu: not an alignment",
                              name, (unsigned long long)rec.line, (int)(id_len < 60 ? id_len : 60), rec.header,
                              rec.length, m->columns);
            break;
        }
        if (grow(m, &cap, m->columns)) {
            rc = sw_error_set(err, SW_ENOMEM, "%s:%llu: out of memory", name, (unsigned long long)rec.line);
            break;
        }
        char *h = malloc(rec.header_len + 1);
        if (!h) {
            rc = sw_error_set(err, SW_ENOMEM, "%s:%llu: out of memory", name, (unsigned long long)rec.line);
            break;
        }
        memcpy(h, rec.header, rec.header_len);
        h[rec.header_len] = 0;
        m->names[m->rows] = h;
        memcpy(m->codes + m->rows * m->columns, rec.residues, rec.length);
        ++m->rows;
    }
    if (more < 0) rc = more;
    sw_fasta_close(f);
    if (!rc && m->rows == 0) rc = sw_error_set(err, SW_EFORMAT, "%s: no aligned sequences", name);
    if (rc) {
        sw_msa_free(m);
        return rc;
    }
    *out = m;
    return SW_OK;
}

int sw_msa_from_rows(const char *const *names, const uint8_t *const *rows, size_t num_rows, size_t columns,
                     sw_msa **out, sw_error *err)
{
    *out = NULL;
    if (!num_rows || !columns) return sw_error_set(err, SW_EINVAL, "an alignment needs rows and columns");
    sw_msa *m = calloc(1, sizeof *m);
    if (!m) return sw_error_set(err, SW_ENOMEM, "out of memory");
    m->names = calloc(num_rows, sizeof *m->names);
    m->codes = malloc(num_rows * columns);
    if (!m->names || !m->codes) {
        sw_msa_free(m);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    m->columns = columns;
    for (size_t k = 0; k < num_rows; ++k) {
        for (size_t c = 0; c < columns; ++c)
            if (rows[k][c] > SW_MSA_GAP) {
                sw_msa_free(m);
                return sw_error_set(err, SW_EINVAL, "row %zu, column %zu: code %d", k, c, rows[k][c]);
            }
        m->names[k] = strdup(names[k]);
        m->rows = k + 1;
        if (!m->names[k]) {
            sw_msa_free(m);
            return sw_error_set(err, SW_ENOMEM, "out of memory");
        }
        memcpy(m->codes + k * columns, rows[k], columns);
    }
    *out = m;
    return SW_OK;
}

void sw_msa_free(sw_msa *m)
{
    if (!m) return;
    for (size_t k = 0; k < m->rows; ++k) free(m->names[k]);
    free(m->names);
    free(m->codes);
    free(m);
}

size_t sw_msa_rows(const sw_msa *m) { return m->rows; }
size_t sw_msa_columns(const sw_msa *m) { return m->columns; }
const char *sw_msa_name(const sw_msa *m, size_t k) { return m->names[k]; }
const uint8_t *sw_msa_row(const sw_msa *m, size_t k) { return m->codes + k * m->columns; }
