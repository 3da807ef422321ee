/* The TSV and JSON output of `swsearch align` (sw_pair_report.h). */
#include "sw_pair_report.h"

#include <stddef.h>

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
                          const sw_pair_result *all, int count, int rounds, int listed)
{
    const sw_pair_result *r = &all[0];
    if (format == SW_PAIR_REPORT_TSV) {
        fprintf(out, "#a_id\tb_id\tscore\ta_start\ta_end\tb_start\tb_end\n");
        for (int k = 0; k < (count ? count : 1); ++k) {
            const sw_pair_result *x = &all[k];
            fprintf(out, "%s\t%s\t%d\t%llu\t%llu\t%llu\t%llu\n", a->id, b->id, (int)x->score,
                    (unsigned long long)x->a_start, (unsigned long long)x->a_end, (unsigned long long)x->b_start,
                    (unsigned long long)x->b_end);
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
    fprintf(out, ", \"engine\": \"%s\", \"cells\": %llu, \"pruned\": %llu, \"seconds\": %.6f",
            sw_pair_engine_name(r->engine), (unsigned long long)cells, (unsigned long long)pruned, seconds);
    if (r->engine == SW_PAIR_ENGINE_OVERLAP)
        fprintf(out, ", \"overlap\": {\"chunks\": %lld, \"rounds\": %d, \"recomputed_chunks\": %lld}",
                (long long)r->chunks, r->rounds, (long long)r->recomputed);
    else
        fputs(", \"overlap\": null", out);
    if (listed) {
        fputs(", \"alignments\": [", out);
        for (int k = 0; k < count; ++k)
            fprintf(out, "%s{\"score\": %d, \"a_start\": %llu, \"a_end\": %llu, \"b_start\": %llu, \"b_end\": %llu}",
                    k ? ", " : "", (int)all[k].score, (unsigned long long)all[k].a_start,
                    (unsigned long long)all[k].a_end, (unsigned long long)all[k].b_start,
                    (unsigned long long)all[k].b_end);
        fputs("]", out);
    }
    fputs("}\n", out);
}
