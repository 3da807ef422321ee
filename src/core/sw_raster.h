/* A small RGB picture drawn with anti-aliased lines, discs and text in a
 * built-in 5 x 7 pixel font, written as PNG (through libpng, where the build
 * found it). For pictures that people would rather open than read as SVG:
 * the megabase alignment plot draws itself here and in SVG alike. */
#ifndef SW_RASTER_H
#define SW_RASTER_H

#include <stdint.h>
#include <stdio.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_raster sw_raster;

/* Colours are 0xRRGGBB. */
int sw_raster_create(int width, int height, uint32_t background, sw_raster **out, sw_error *err);
void sw_raster_free(sw_raster *r);

int sw_raster_width(const sw_raster *r);
int sw_raster_height(const sw_raster *r);
/* The colour of pixel (x, y), (0, 0) top left; 0 outside the picture. */
uint32_t sw_raster_pixel(const sw_raster *r, int x, int y);

/* A segment `width` pixels wide between two points (pixel centres at .5),
 * blended by coverage; a segment of length 0 is a dot. */
void sw_raster_line(sw_raster *r, double x0, double y0, double x1, double y1, double width, uint32_t colour);
void sw_raster_disc(sw_raster *r, double cx, double cy, double radius, uint32_t colour);

typedef enum { SW_RASTER_START = 0, SW_RASTER_MIDDLE = 1, SW_RASTER_END = 2 } sw_raster_anchor;

typedef struct sw_raster_text_style {
    int scale;               /* pixels per font pixel: glyphs are 5 x 7 (and a descender row), 6 x scale apart */
    sw_raster_anchor anchor; /* where (x, y) lies along the text */
    int centred;             /* nonzero: y is the text's middle, else its baseline */
    int upward;              /* nonzero: the text runs bottom to top (a y axis label) */
} sw_raster_text_style;

/* Printable ASCII; any other byte shows as '?'. */
void sw_raster_text(sw_raster *r, double x, double y, const char *text, const sw_raster_text_style *style,
                    uint32_t colour);
/* Pixels that sw_raster_text covers along the text. */
int sw_raster_text_length(const char *text, int scale);

/* 1 when this build writes PNG, else 0. */
int sw_raster_png_supported(void);
/* The picture as an 8-bit RGB PNG. SW_EINVAL when the build has no PNG
 * support, SW_EIO when writing fails. */
int sw_raster_write_png(const sw_raster *r, FILE *out, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
