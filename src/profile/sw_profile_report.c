/* Merged alignments and column maps as text (sw_profile_report.h). */
#include "sw_profile_report.h"

#include <string.h>

#define LINE 60

/* The letter of row r of m in merged column k: side 0 is a, 1 is b. */
static char merged_letter(const sw_msa *m, size_t r, const sw_profile_alignment *x, size_t k, int side)
{
    const sw_profile_pair p = sw_profile_alignment_pair(x, k);
    const int64_t col = side ? p.b : p.a;
    return col < 0 ? '-' : sw_msa_letter(sw_msa_row(m, r)[col]);
}

static void fasta_rows(FILE *out, const sw_msa *m, const sw_profile_alignment *x, int side)
{
    const size_t len = sw_profile_alignment_length(x);
    for (size_t r = 0; r < sw_msa_rows(m); ++r) {
        fprintf(out, ">%s\n", sw_msa_name(m, r));
        for (size_t k = 0; k < len; ++k) {
            fputc(merged_letter(m, r, x, k, side), out);
            if ((k + 1) % LINE == 0 || k + 1 == len) fputc('\n', out);
        }
    }
}

/* Clustal names: the header up to the first blank, at most 30 bytes. */
static int clustal_name(const char *header, char *dst, size_t cap)
{
    size_t n = strcspn(header, " \t");
    if (n >= cap) n = cap - 1;
    memcpy(dst, header, n);
    dst[n] = 0;
    return (int)n;
}

void sw_profile_write_merged(FILE *out, sw_profile_format format, const sw_msa *a, const sw_msa *b,
                             const sw_profile_alignment *x)
{
    if (format == SW_PROFILE_FASTA) {
        fasta_rows(out, a, x, 0);
        fasta_rows(out, b, x, 1);
        return;
    }
    char name[31];
    int width = 10;
    const sw_msa *sides[2] = {a, b};
    for (int s = 0; s < 2; ++s)
        for (size_t r = 0; r < sw_msa_rows(sides[s]); ++r) {
            const int n = clustal_name(sw_msa_name(sides[s], r), name, sizeof name);
            if (n > width) width = n;
        }
    fputs("CLUSTAL W (1.83) multiple sequence alignment, merged by swsearch profile\n\n", out);
    const size_t len = sw_profile_alignment_length(x);
    for (size_t k0 = 0; k0 < len; k0 += LINE) {
        fputc('\n', out);
        for (int s = 0; s < 2; ++s)
            for (size_t r = 0; r < sw_msa_rows(sides[s]); ++r) {
                clustal_name(sw_msa_name(sides[s], r), name, sizeof name);
                fprintf(out, "%-*s      ", width, name);
                for (size_t k = k0; k < len && k < k0 + LINE; ++k) fputc(merged_letter(sides[s], r, x, k, s), out);
                fputc('\n', out);
            }
    }
}

void sw_profile_write_map(FILE *out, const sw_profile_alignment *x)
{
    fprintf(out, "#score %lld\n#a_column\tb_column\n", (long long)sw_profile_alignment_score(x));
    for (size_t k = 0; k < sw_profile_alignment_length(x); ++k) {
        const sw_profile_pair p = sw_profile_alignment_pair(x, k);
        if (p.a >= 0) fprintf(out, "%lld\t", (long long)p.a + 1);
        else fputs("-\t", out);
        if (p.b >= 0) fprintf(out, "%lld\n", (long long)p.b + 1);
        else fputs("-\n", out);
    }
}
