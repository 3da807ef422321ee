/* SVG picture of megabase alignments (sw_pair_plot.h). */
#include "sw_pair_plot.h"

#include <math.h>
#include <string.h>

/* Canvas: the plot area, and the margins for the axes' labels. */
#define PLOT 720.0
#define LEFT 100.0
#define TOP 50.0
#define RIGHT 220.0
#define BOTTOM 70.0
/* Points of a path closer than this (pixels) to the last one drawn are
 * merged into it. */
#define RESOLUTION 0.25

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                      "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

/* Writes text escaped for XML. */
static void xml_text(FILE *out, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default:
            if ((unsigned char)*s >= 0x20) fputc(*s, out);
        }
    }
}

/* A round step for about `want` ticks over 0..length: 1, 2 or 5 times a
 * power of ten. */
static double tick_step(double length, int want)
{
    const double raw = length / want;
    const double p = pow(10.0, floor(log10(raw > 1 ? raw : 1)));
    const double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void position_label(char *dst, size_t cap, double v)
{
    if (v >= 1e6) snprintf(dst, cap, "%g Mbp", v / 1e6);
    else if (v >= 1e3) snprintf(dst, cap, "%g kbp", v / 1e3);
    else snprintf(dst, cap, "%g", v);
}

typedef struct mapper {
    double sx, sy; /* pixels per base */
} mapper;

static double px(const mapper *m, double x) { return LEFT + x * m->sx; }
static double py(const mapper *m, double y) { return TOP + PLOT - y * m->sy; }

static void draw_path(FILE *out, const mapper *m, const sw_pair_result *r, const sw_pair_path *p, const char *colour)
{
    double x = (double)(r->a_start - 1), y = (double)(r->b_start - 1);
    double lx = px(m, x), ly = py(m, y);
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"%.2f,%.2f",
            colour, lx, ly);
    const size_t n = sw_pair_path_runs(p);
    for (size_t k = 0; k < n; ++k) {
        const sw_pair_run run = sw_pair_path_run(p, k);
        if (run.op != 'D') x += (double)run.len;
        if (run.op != 'I') y += (double)run.len;
        const double qx = px(m, x), qy = py(m, y);
        if (k + 1 == n || fabs(qx - lx) >= RESOLUTION || fabs(qy - ly) >= RESOLUTION) {
            fprintf(out, " %.2f,%.2f", qx, qy);
            lx = qx;
            ly = qy;
        }
    }
    fputs("\"/>\n", out);
    /* The ends, so that a short alignment still shows at genome scale. */
    fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" fill=\"%s\"/>\n", px(m, (double)(r->a_start - 1)),
            py(m, (double)(r->b_start - 1)), colour);
    fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" fill=\"%s\"/>\n", px(m, (double)r->a_end),
            py(m, (double)r->b_end), colour);
}

void sw_pair_plot_write(FILE *out, const sw_pair_seq *a, const sw_pair_seq *b, const sw_pair_result *all,
                        const sw_pair_path *const *paths, int count)
{
    const double la = a->length ? (double)a->length : 1, lb = b->length ? (double)b->length : 1;
    const mapper m = {PLOT / la, PLOT / lb};
    const double width = LEFT + PLOT + RIGHT, height = TOP + PLOT + BOTTOM;
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
    fputs("<text x=\"", out);
    fprintf(out, "%.1f\" y=\"%.1f\" font-size=\"15\" text-anchor=\"middle\">", LEFT + PLOT / 2, TOP - 20);
    xml_text(out, a->id);
    fputs(" against ", out);
    xml_text(out, b->id);
    fprintf(out, ": %d alignment%s</text>\n", count, count == 1 ? "" : "s");

    /* Grid and ticks. */
    char label[64];
    const double stx = tick_step(la, 8), sty = tick_step(lb, 8);
    for (double v = 0; v <= la + 0.5; v += stx) {
        position_label(label, sizeof label, v);
        fprintf(out,
                "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                px(&m, v), TOP, px(&m, v), TOP + PLOT, px(&m, v), TOP + PLOT + 18, label);
    }
    for (double v = 0; v <= lb + 0.5; v += sty) {
        position_label(label, sizeof label, v);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#e0e0e0\"/>"
                "<text x=\"%.1f\" y=\"%.2f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n",
                LEFT, py(&m, v), LEFT + PLOT, py(&m, v), LEFT - 6, py(&m, v), label);
    }
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n", LEFT,
            TOP, PLOT, PLOT);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", LEFT + PLOT / 2, TOP + PLOT + 45);
    xml_text(out, a->id);
    fprintf(out, " (%llu bases)</text>\n", (unsigned long long)a->length);
    fprintf(out, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\">", 25.0,
            TOP + PLOT / 2);
    xml_text(out, b->id);
    fprintf(out, " (%llu bases)</text>\n", (unsigned long long)b->length);

    /* The worst first, so that the best is drawn on top. */
    for (int k = count - 1; k >= 0; --k) draw_path(out, &m, &all[k], paths[k], colours[k % 10]);

    /* Legend. */
    for (int k = 0; k < count && k < 30; ++k) {
        const sw_pair_path_summary s = sw_pair_path_get_summary(paths[k]);
        const double y = TOP + 10 + 34.0 * k;
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">#%d score %d</text>"
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%.2f%% identity, %llu gap%s</text>\n",
                LEFT + PLOT + 15, y, LEFT + PLOT + 35, y, colours[k % 10], LEFT + PLOT + 42, y + 4, k + 1,
                (int)all[k].score, LEFT + PLOT + 42, y + 17,
                sw_pair_path_identity(&s),
                (unsigned long long)s.gap_openings, s.gap_openings == 1 ? "" : "s");
    }
    if (count > 30)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">and %d more</text>\n", LEFT + PLOT + 15, TOP + 10 + 34.0 * 30,
                count - 30);
    fputs("</svg>\n", out);
}
