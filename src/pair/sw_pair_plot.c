/* Pictures of megabase alignments, SVG or PNG (sw_pair_plot.h). One layout
 * draws through a small set of drawing operations; the SVG backend writes
 * them as elements, the PNG backend paints them on a sw_raster. */
#include "sw_pair_plot.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "sw_raster.h"

/* Canvas: the plot area, and the margins for the axes' labels. */
#define PLOT 720.0
#define LEFT 100.0
#define TOP 50.0
#define RIGHT 220.0
#define BOTTOM 70.0
/* Points of a path closer than this (pixels) to the last one drawn are
 * merged into it. */
#define RESOLUTION 0.25

#define BLACK 0x000000u
#define GRID 0xe0e0e0u
#define WHITE 0xffffffu

static const uint32_t colours[] = {0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd, 0xff7f0e,
                                   0x8c564b, 0xe377c2, 0x17becf, 0xbcbd22, 0x7f7f7f};

/* ---- drawing operations ---- */

typedef struct text_style {
    double size;             /* font size in pixels: 10, 12 or 15 */
    sw_raster_anchor anchor; /* where x lies along the text */
    int centred;             /* y is the text's middle, else its baseline */
    int upward;              /* rotated to run bottom to top */
} text_style;

typedef struct canvas canvas;
struct canvas {
    void (*line)(canvas *c, double x0, double y0, double x1, double y1, double width, uint32_t colour);
    /* A polyline: begin, points, end. */
    void (*path_begin)(canvas *c, double x, double y, double width, uint32_t colour);
    void (*path_point)(canvas *c, double x, double y);
    void (*path_end)(canvas *c);
    void (*disc)(canvas *c, double x, double y, double radius, uint32_t colour);
    void (*text)(canvas *c, double x, double y, const text_style *style, const char *text);
    /* SVG */
    FILE *out;
    /* PNG */
    sw_raster *raster;
    double last_x, last_y, path_width;
    uint32_t path_colour;
};

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

static void svg_line(canvas *c, double x0, double y0, double x1, double y1, double width, uint32_t colour)
{
    fprintf(c->out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#%06x\"", x0, y0, x1, y1,
            (unsigned)colour);
    if (width != 1) fprintf(c->out, " stroke-width=\"%g\"", width);
    fputs("/>\n", c->out);
}

static void svg_path_begin(canvas *c, double x, double y, double width, uint32_t colour)
{
    fprintf(c->out,
            "<polyline fill=\"none\" stroke=\"#%06x\" stroke-width=\"%g\" stroke-linejoin=\"round\" "
            "points=\"%.2f,%.2f",
            (unsigned)colour, width, x, y);
}

static void svg_path_point(canvas *c, double x, double y) { fprintf(c->out, " %.2f,%.2f", x, y); }

static void svg_path_end(canvas *c) { fputs("\"/>\n", c->out); }

static void svg_disc(canvas *c, double x, double y, double radius, uint32_t colour)
{
    fprintf(c->out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%g\" fill=\"#%06x\"/>\n", x, y, radius, (unsigned)colour);
}

static void svg_text(canvas *c, double x, double y, const text_style *st, const char *text)
{
    static const char *const anchors[] = {"start", "middle", "end"};
    if (st->upward) fprintf(c->out, "<text transform=\"translate(%.2f %.2f) rotate(-90)\"", x, y);
    else fprintf(c->out, "<text x=\"%.2f\" y=\"%.2f\"", x, y);
    if (st->anchor != SW_RASTER_START) fprintf(c->out, " text-anchor=\"%s\"", anchors[st->anchor]);
    if (st->centred) fputs(" dominant-baseline=\"middle\"", c->out);
    if (st->size != 12) fprintf(c->out, " font-size=\"%g\"", st->size);
    fputc('>', c->out);
    xml_text(c->out, text);
    fputs("</text>\n", c->out);
}

static void png_line(canvas *c, double x0, double y0, double x1, double y1, double width, uint32_t colour)
{
    sw_raster_line(c->raster, x0, y0, x1, y1, width, colour);
}

static void png_path_begin(canvas *c, double x, double y, double width, uint32_t colour)
{
    c->last_x = x;
    c->last_y = y;
    c->path_width = width;
    c->path_colour = colour;
}

static void png_path_point(canvas *c, double x, double y)
{
    sw_raster_line(c->raster, c->last_x, c->last_y, x, y, c->path_width, c->path_colour);
    c->last_x = x;
    c->last_y = y;
}

static void png_path_end(canvas *c) { (void)c; }

static void png_disc(canvas *c, double x, double y, double radius, uint32_t colour)
{
    sw_raster_disc(c->raster, x, y, radius, colour);
}

static void png_text(canvas *c, double x, double y, const text_style *st, const char *text)
{
    /* The 5 x 7 font at twice its size stands for SVG's 12 and 15 pixels,
     * at its own size for 10, and for text too long for the picture (a
     * long name, a long score in the legend). */
    sw_raster_text_style rs = {st->size > 10 ? 2 : 1, st->anchor, st->centred, st->upward};
    const double len = sw_raster_text_length(text, rs.scale);
    const double from = rs.anchor == SW_RASTER_MIDDLE ? -len / 2 : rs.anchor == SW_RASTER_END ? -len : 0;
    if (st->upward ? y - from - len < 0 || y - from > sw_raster_height(c->raster)
                   : x + from < 0 || x + from + len > sw_raster_width(c->raster))
        rs.scale = 1;
    sw_raster_text(c->raster, x, y, text, &rs, BLACK);
}

/* ---- the layout ---- */

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

static void draw_path(canvas *c, const mapper *m, const sw_pair_result *r, const sw_pair_path *p, uint32_t colour)
{
    double x = (double)(r->a_start - 1), y = (double)(r->b_start - 1);
    double lx = px(m, x), ly = py(m, y);
    c->path_begin(c, lx, ly, 1.5, colour);
    const size_t n = sw_pair_path_runs(p);
    for (size_t k = 0; k < n; ++k) {
        const sw_pair_run run = sw_pair_path_run(p, k);
        if (run.op != 'D') x += (double)run.len;
        if (run.op != 'I') y += (double)run.len;
        const double qx = px(m, x), qy = py(m, y);
        if (k + 1 == n || fabs(qx - lx) >= RESOLUTION || fabs(qy - ly) >= RESOLUTION) {
            c->path_point(c, qx, qy);
            lx = qx;
            ly = qy;
        }
    }
    c->path_end(c);
    /* The ends, so that a short alignment still shows at genome scale. */
    c->disc(c, px(m, (double)(r->a_start - 1)), py(m, (double)(r->b_start - 1)), 2.5, colour);
    c->disc(c, px(m, (double)r->a_end), py(m, (double)r->b_end), 2.5, colour);
}

static void draw_plot(canvas *c, const sw_pair_seq *a, const sw_pair_seq *b, const sw_pair_result *all,
                      const sw_pair_path *const *paths, int count)
{
    const double la = a->length ? (double)a->length : 1, lb = b->length ? (double)b->length : 1;
    const mapper m = {PLOT / la, PLOT / lb};
    const text_style title = {15, SW_RASTER_MIDDLE, 0, 0}, below = {12, SW_RASTER_MIDDLE, 0, 0},
                     beside = {12, SW_RASTER_END, 1, 0}, legend = {12, SW_RASTER_START, 0, 0},
                     detail = {10, SW_RASTER_START, 0, 0}, up = {12, SW_RASTER_MIDDLE, 0, 1};
    char text[512];
    snprintf(text, sizeof text, "%s against %s: %d alignment%s", a->id, b->id, count, count == 1 ? "" : "s");
    c->text(c, LEFT + PLOT / 2, TOP - 20, &title, text);

    /* Grid and ticks. */
    const double stx = tick_step(la, 8), sty = tick_step(lb, 8);
    for (double v = 0; v <= la + 0.5; v += stx) {
        c->line(c, px(&m, v), TOP, px(&m, v), TOP + PLOT, 1, GRID);
        position_label(text, sizeof text, v);
        c->text(c, px(&m, v), TOP + PLOT + 18, &below, text);
    }
    for (double v = 0; v <= lb + 0.5; v += sty) {
        c->line(c, LEFT, py(&m, v), LEFT + PLOT, py(&m, v), 1, GRID);
        position_label(text, sizeof text, v);
        c->text(c, LEFT - 6, py(&m, v), &beside, text);
    }
    c->line(c, LEFT, TOP, LEFT + PLOT, TOP, 1, BLACK);
    c->line(c, LEFT + PLOT, TOP, LEFT + PLOT, TOP + PLOT, 1, BLACK);
    c->line(c, LEFT + PLOT, TOP + PLOT, LEFT, TOP + PLOT, 1, BLACK);
    c->line(c, LEFT, TOP + PLOT, LEFT, TOP, 1, BLACK);
    snprintf(text, sizeof text, "%s (%llu bases)", a->id, (unsigned long long)a->length);
    c->text(c, LEFT + PLOT / 2, TOP + PLOT + 45, &below, text);
    snprintf(text, sizeof text, "%s (%llu bases)", b->id, (unsigned long long)b->length);
    c->text(c, 20, TOP + PLOT / 2, &up, text);

    /* The worst first, so that the best is drawn on top. */
    for (int k = count - 1; k >= 0; --k) draw_path(c, &m, &all[k], paths[k], colours[k % 10]);

    /* Legend. */
    for (int k = 0; k < count && k < 30; ++k) {
        const sw_pair_path_summary s = sw_pair_path_get_summary(paths[k]);
        const double y = TOP + 10 + 34.0 * k;
        c->line(c, LEFT + PLOT + 15, y, LEFT + PLOT + 35, y, 3, colours[k % 10]);
        snprintf(text, sizeof text, "#%d score %d", k + 1, (int)all[k].score);
        c->text(c, LEFT + PLOT + 42, y + 4, &legend, text);
        snprintf(text, sizeof text, "%.2f%% identity, %llu gap%s", sw_pair_path_identity(&s),
                 (unsigned long long)s.gap_openings, s.gap_openings == 1 ? "" : "s");
        c->text(c, LEFT + PLOT + 42, y + 17, &detail, text);
    }
    if (count > 30) {
        snprintf(text, sizeof text, "and %d more", count - 30);
        c->text(c, LEFT + PLOT + 15, TOP + 10 + 34.0 * 30, &legend, text);
    }
}

sw_pair_plot_format sw_pair_plot_format_of(const char *path)
{
    const size_t n = strlen(path);
    if (n < 4) return SW_PAIR_PLOT_SVG;
    const char *ext = path + n - 4;
    return ext[0] == '.' && tolower((unsigned char)ext[1]) == 'p' && tolower((unsigned char)ext[2]) == 'n' &&
                   tolower((unsigned char)ext[3]) == 'g'
               ? SW_PAIR_PLOT_PNG
               : SW_PAIR_PLOT_SVG;
}

int sw_pair_plot_write(FILE *out, sw_pair_plot_format format, const sw_pair_seq *a, const sw_pair_seq *b,
                       const sw_pair_result *all, const sw_pair_path *const *paths, int count, sw_error *err)
{
    const double width = LEFT + PLOT + RIGHT, height = TOP + PLOT + BOTTOM;
    if (format == SW_PAIR_PLOT_PNG) {
        canvas c = {png_line, png_path_begin, png_path_point, png_path_end, png_disc, png_text, NULL, NULL, 0, 0, 0, 0};
        int rc = sw_raster_create((int)width, (int)height, WHITE, &c.raster, err);
        if (rc) return rc;
        draw_plot(&c, a, b, all, paths, count);
        rc = sw_raster_write_png(c.raster, out, err);
        sw_raster_free(c.raster);
        return rc;
    }
    canvas c = {svg_line, svg_path_begin, svg_path_point, svg_path_end, svg_disc, svg_text, out, NULL, 0, 0, 0, 0};
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
    draw_plot(&c, a, b, all, paths, count);
    fputs("</svg>\n", out);
    return SW_OK;
}
