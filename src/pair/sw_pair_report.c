/* The TSV, JSON, PAF and MAF output of `swsearch align` (sw_pair_report.h). */
#include "sw_pair_report.h"

#include <stddef.h>

int sw_pair_report_needs_paths(sw_pair_report_format format)
{
    return format == SW_PAIR_REPORT_PAF || format == SW_PAIR_REPORT_MAF;
}

void sw_pair_report_cigar(FILE *out, const sw_pair_path *path)
{
    const size_t n = sw_pair_path_runs(path);
    for (size_t k = 0; k < n; ++k) {
        const sw_pair_run r = sw_pair_path_run(path, k);
        fprintf(out, "%llu%c", (unsigned long long)r.len, r.op);
    }
}

static void write_paf(FILE *out, const sw_pair_seq *a, const sw_pair_seq *b, const sw_pair_result *x,
                      const sw_pair_path *p)
{
    const sw_pair_path_summary s = sw_pair_path_get_summary(p);
    fprintf(out, "%s\t%llu\t%llu\t%llu\t+\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t255\ttp:A:P\tAS:i:%d\tNM:i:%llu\tcg:Z:",
            a->id, (unsigned long long)a->length, (unsigned long long)(x->a_start - 1),
            (unsigned long long)x->a_end, b->id, (unsigned long long)b->length,
            (unsigned long long)(x->b_start - 1), (unsigned long long)x->b_end, (unsigned long long)s.matches,
            (unsigned long long)s.columns, (int)x->score, (unsigned long long)(s.mismatches + s.gap_bases));
    sw_pair_report_cigar(out, p);
    fputc('\n', out);
}

/* One MAF text row: the bases of `seq` from `start` (0-based) along the
 * path, '-' where the other sequence has a base against a gap. */
static void maf_row(FILE *out, const sw_pair_seq *seq, uint64_t start, uint64_t size, const sw_pair_path *p,
                    char own_gap_op)
{
    static const char letters[] = "ACGTN";
    fprintf(out, "s %s %llu %llu + %llu ", seq->id, (unsigned long long)start, (unsigned long long)size,
            (unsigned long long)seq->length);
    uint64_t at = start;
    const size_t n = sw_pair_path_runs(p);
    for (size_t k = 0; k < n; ++k) {
        const sw_pair_run r = sw_pair_path_run(p, k);
        if (r.op == own_gap_op) {
            for (uint64_t t = 0; t < r.len; ++t) fputc('-', out);
        } else {
            for (uint64_t t = 0; t < r.len; ++t) fputc(letters[seq->codes[at + t] < 4 ? seq->codes[at + t] : 4], out);
            at += r.len;
        }
    }
    fputc('\n', out);
}

static void write_maf_block(FILE *out, const sw_pair_seq *a, const sw_pair_seq *b, const sw_pair_result *x,
                            const sw_pair_path *p)
{
    fprintf(out, "a score=%d\n", (int)x->score);
    /* a has a gap where b has a base against one ('D'), and so on. */
    maf_row(out, a, x->a_start - 1, x->a_end - x->a_start + 1, p, 'D');
    maf_row(out, b, x->b_start - 1, x->b_end - x->b_start + 1, p, 'I');
    fputc('\n', out);
}

/* Writes `s` as a JSON string. Bytes that are not valid UTF-8 become
 * U+FFFD, so any header gives a document that parsers accept. */
static void json_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        const unsigned c = *p;
        if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
            p++;
        } else if (c < 0x20 || c == 0x7F) {
            fprintf(out, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            fputc((int)c, out);
            p++;
        } else {
            /* RFC 3629: the lead byte gives the length; the second byte's
             * range excludes overlong forms, surrogates and code points
             * above U+10FFFF. */
            size_t n = 0;
            unsigned lo = 0x80, hi = 0xBF;
            if (c >= 0xC2 && c <= 0xDF) n = 2;
            else if (c >= 0xE0 && c <= 0xEF) {
                n = 3;
                if (c == 0xE0) lo = 0xA0;
                if (c == 0xED) hi = 0x9F;
            } else if (c >= 0xF0 && c <= 0xF4) {
                n = 4;
                if (c == 0xF0) lo = 0x90;
                if (c == 0xF4) hi = 0x8F;
            }
            int ok = n > 0 && p[1] >= lo && p[1] <= hi;
            for (size_t k = 2; ok && k < n; k++) ok = p[k] >= 0x80 && p[k] <= 0xBF;
            if (ok) {
                fwrite(p, 1, n, out);
                p += n;
            } else {
                fputs("\\ufffd", out);
                p++;
            }
        }
    }
    fputc('"', out);
}

static void json_coordinate(FILE *out, const char *name, int32_t score, uint64_t v)
{
    if (score > 0) fprintf(out, ", \"%s\": %llu", name, (unsigned long long)v);
    else fprintf(out, ", \"%s\": null", name);
}

void sw_pair_report_write(FILE *out, sw_pair_report_format format, const sw_pair_seq *a, const sw_pair_seq *b,
                          const sw_pair_scoring *scoring, const sw_pair_result *all, const sw_pair_path *const *paths,
                          int count, int rounds, int listed)
{
    const sw_pair_result *r = &all[0];
    if (format == SW_PAIR_REPORT_PAF) {
        for (int k = 0; paths && k < count; ++k) write_paf(out, a, b, &all[k], paths[k]);
        return;
    }
    if (format == SW_PAIR_REPORT_MAF) {
        fprintf(out, "##maf version=1 scoring=swsearch\n# swsearch align: match %d, mismatch %d, gap open %d, gap "
                     "extend %d (a gap of k bases costs open + k * extend)\n\n",
                scoring->match, scoring->mismatch, scoring->gap_open, scoring->gap_extend);
        for (int k = 0; paths && k < count; ++k) write_maf_block(out, a, b, &all[k], paths[k]);
        return;
    }
    if (format == SW_PAIR_REPORT_TSV) {
        fprintf(out, "#a_id\tb_id\tscore\ta_start\ta_end\tb_start\tb_end%s\n",
                paths ? "\tmatches\tmismatches\tgap_openings\tgap_bases\tidentity\tcigar" : "");
        for (int k = 0; k < (count ? count : 1); ++k) {
            const sw_pair_result *x = &all[k];
            fprintf(out, "%s\t%s\t%d\t%llu\t%llu\t%llu\t%llu", a->id, b->id, (int)x->score,
                    (unsigned long long)x->a_start, (unsigned long long)x->a_end, (unsigned long long)x->b_start,
                    (unsigned long long)x->b_end);
            if (paths) {
                sw_pair_path_summary s;
                if (k < count) s = sw_pair_path_get_summary(paths[k]);
                else s = (sw_pair_path_summary){0};
                fprintf(out, "\t%llu\t%llu\t%llu\t%llu\t%.3f\t", (unsigned long long)s.matches,
                        (unsigned long long)s.mismatches, (unsigned long long)s.gap_openings,
                        (unsigned long long)s.gap_bases, sw_pair_path_identity(&s));
                if (k < count) sw_pair_report_cigar(out, paths[k]);
                else fputc('*', out);
            }
            fputc('\n', out);
        }
        return;
    }
    uint64_t cells = 0, pruned = 0;
    double seconds = 0;
    for (int k = 0; k < rounds; ++k) {
        cells += all[k].forward_cells + all[k].reverse_cells;
        pruned += all[k].forward_pruned + all[k].reverse_pruned;
        seconds += all[k].forward_seconds + all[k].reverse_seconds;
    }
    fputs("{\"a_id\": ", out);
    json_string(out, a->id);
    fprintf(out, ", \"a_length\": %llu, \"b_id\": ", (unsigned long long)a->length);
    json_string(out, b->id);
    fprintf(out, ", \"b_length\": %llu, \"score\": %d", (unsigned long long)b->length, (int)r->score);
    json_coordinate(out, "a_start", r->score, r->a_start);
    json_coordinate(out, "a_end", r->score, r->a_end);
    json_coordinate(out, "b_start", r->score, r->b_start);
    json_coordinate(out, "b_end", r->score, r->b_end);
    if (paths && count > 0) {
        const sw_pair_path_summary ps = sw_pair_path_get_summary(paths[0]);
        fprintf(out,
                ", \"matches\": %llu, \"mismatches\": %llu, \"gap_openings\": %llu, \"gap_bases\": %llu, "
                "\"identity\": %.3f, \"cigar\": \"",
                (unsigned long long)ps.matches, (unsigned long long)ps.mismatches,
                (unsigned long long)ps.gap_openings, (unsigned long long)ps.gap_bases, sw_pair_path_identity(&ps));
        sw_pair_report_cigar(out, paths[0]);
        fputc('"', out);
    }
    fprintf(out, ", \"engine\": \"%s\", \"cells\": %llu, \"pruned\": %llu, \"seconds\": %.6f",
            sw_pair_engine_name(r->engine), (unsigned long long)cells, (unsigned long long)pruned, seconds);
    if (r->engine == SW_PAIR_ENGINE_OVERLAP)
        fprintf(out, ", \"overlap\": {\"chunks\": %lld, \"rounds\": %d, \"recomputed_chunks\": %lld}",
                (long long)r->chunks, r->rounds, (long long)r->recomputed);
    else
        fputs(", \"overlap\": null", out);
    fprintf(out, ", \"strips\": %d", r->strips);
    if (listed) {
        fputs(", \"alignments\": [", out);
        for (int k = 0; k < count; ++k) {
            fprintf(out, "%s{\"score\": %d, \"a_start\": %llu, \"a_end\": %llu, \"b_start\": %llu, \"b_end\": %llu",
                    k ? ", " : "", (int)all[k].score, (unsigned long long)all[k].a_start,
                    (unsigned long long)all[k].a_end, (unsigned long long)all[k].b_start,
                    (unsigned long long)all[k].b_end);
            if (paths) {
                const sw_pair_path_summary ps = sw_pair_path_get_summary(paths[k]);
                fprintf(out, ", \"matches\": %llu, \"gap_bases\": %llu, \"identity\": %.3f, \"cigar\": \"",
                        (unsigned long long)ps.matches, (unsigned long long)ps.gap_bases, sw_pair_path_identity(&ps));
                sw_pair_report_cigar(out, paths[k]);
                fputc('"', out);
            }
            fputc('}', out);
        }
        fputs("]", out);
    }
    fputs("}\n", out);
}
