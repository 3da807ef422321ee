/* RGB pictures: where lines, discs and text land, and the PNG written from
 * them read back pixel for pixel (where the build has libpng). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_raster.h"

#ifdef SW_HAVE_PNG
#include <png.h>
#endif

#define WHITE 0xffffffu
#define RED 0xff0000u

static sw_raster *make(int w, int h)
{
    sw_raster *r = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_raster_create(w, h, WHITE, &r, &err), SW_OK, "%s", err.message);
    return r;
}

Test(raster, refuses_empty_and_huge_pictures)
{
    sw_raster *r = NULL;
    sw_error err = {0};
    cr_expect_eq(sw_raster_create(0, 10, WHITE, &r, &err), SW_EINVAL);
    cr_expect_null(r);
    cr_expect_eq(sw_raster_create(10, 100000, WHITE, &r, &err), SW_EINVAL);
    cr_expect(strstr(err.message, "100000") != NULL, "%s", err.message);
}

Test(raster, a_line_covers_its_pixels_and_nothing_far_away)
{
    sw_raster *r = make(40, 30);
    /* Along the centres of row 10, from x = 5 to 30, one pixel wide. */
    sw_raster_line(r, 5.5, 10.5, 30.5, 10.5, 1, RED);
    for (int x = 6; x <= 30; ++x) cr_expect_eq(sw_raster_pixel(r, x, 10), RED, "pixel %d,10", x);
    cr_expect_eq(sw_raster_pixel(r, 15, 9), WHITE);
    cr_expect_eq(sw_raster_pixel(r, 15, 11), WHITE);
    cr_expect_eq(sw_raster_pixel(r, 35, 10), WHITE);
    /* Between rows 19 and 20: each half covered, blended half way. */
    sw_raster_line(r, 5, 20, 30, 20, 1, RED);
    for (int y = 19; y <= 20; ++y) {
        const uint32_t v = sw_raster_pixel(r, 15, y);
        cr_expect(v == 0xff8080u || v == 0xff7f7fu, "row %d is %06x", y, (unsigned)v);
    }
    /* Outside the picture: ignored, and reads as 0. */
    sw_raster_line(r, -10, -10, -5, -5, 3, RED);
    cr_expect_eq(sw_raster_pixel(r, -1, 0), 0u);
    cr_expect_eq(sw_raster_pixel(r, 0, 0), WHITE);
    sw_raster_free(r);
}

Test(raster, a_disc_is_round)
{
    sw_raster *r = make(30, 30);
    sw_raster_disc(r, 15, 15, 5, RED);
    cr_expect_eq(sw_raster_pixel(r, 14, 14), RED);
    cr_expect_eq(sw_raster_pixel(r, 11, 14), RED);
    /* The corner of the square around it stays white. */
    cr_expect_eq(sw_raster_pixel(r, 10, 10), WHITE);
    cr_expect_eq(sw_raster_pixel(r, 21, 21), WHITE);
    sw_raster_free(r);
}

/* Pixels of the picture that are not white, and their bounding box. */
static int inked(const sw_raster *r, int *x0, int *y0, int *x1, int *y1)
{
    int n = 0;
    *x0 = *y0 = 1 << 30;
    *x1 = *y1 = -1;
    for (int y = 0; y < sw_raster_height(r); ++y)
        for (int x = 0; x < sw_raster_width(r); ++x)
            if (sw_raster_pixel(r, x, y) != WHITE) {
                ++n;
                if (x < *x0) *x0 = x;
                if (y < *y0) *y0 = y;
                if (x > *x1) *x1 = x;
                if (y > *y1) *y1 = y;
            }
    return n;
}

Test(raster, text_sits_on_its_baseline_at_its_anchor)
{
    const sw_raster_text_style plain = {1, SW_RASTER_START, 0, 0};
    sw_raster *r = make(60, 20);
    /* "A": top row .###., from the baseline y = 10 up seven rows. */
    sw_raster_text(r, 2, 10, "A", &plain, RED);
    cr_expect_eq(sw_raster_pixel(r, 2, 3), WHITE);
    cr_expect_eq(sw_raster_pixel(r, 3, 3), RED);
    cr_expect_eq(sw_raster_pixel(r, 5, 3), RED);
    cr_expect_eq(sw_raster_pixel(r, 6, 3), WHITE);
    int x0, y0, x1, y1;
    cr_expect_gt(inked(r, &x0, &y0, &x1, &y1), 10);
    cr_expect(x0 == 2 && x1 == 6 && y0 == 3 && y1 == 9, "A inked %d..%d x %d..%d", x0, x1, y0, y1);
    sw_raster_free(r);

    /* Twice the size, ending at x = 50: 3 glyphs 12 apart, 34 pixels long. */
    cr_expect_eq(sw_raster_text_length("kbp", 2), 34);
    const sw_raster_text_style big_end = {2, SW_RASTER_END, 0, 0};
    r = make(60, 30);
    sw_raster_text(r, 50, 20, "kbp", &big_end, RED);
    cr_expect_gt(inked(r, &x0, &y0, &x1, &y1), 30);
    cr_expect(x0 >= 16 && x1 <= 49 && y0 >= 6 && y1 <= 21, "kbp inked %d..%d x %d..%d", x0, x1, y0, y1);
    /* p's descender reaches below the baseline. */
    cr_expect_gt(y1, 19);
    sw_raster_free(r);
}

Test(raster, upward_text_runs_bottom_to_top)
{
    const sw_raster_text_style up = {1, SW_RASTER_MIDDLE, 0, 1};
    sw_raster *r = make(30, 60);
    sw_raster_text(r, 20, 30, "HHHH", &up, RED);
    int x0, y0, x1, y1;
    cr_expect_gt(inked(r, &x0, &y0, &x1, &y1), 20);
    /* 23 pixels long, centred on y = 30; seven rows left of x = 20. */
    cr_expect(x0 == 13 && x1 == 19, "columns %d..%d", x0, x1);
    cr_expect(y0 >= 18 && y1 <= 42 && y1 - y0 == 22, "rows %d..%d", y0, y1);
    sw_raster_free(r);
}

Test(raster, unknown_bytes_draw_as_a_question_mark)
{
    const sw_raster_text_style plain = {1, SW_RASTER_START, 0, 0};
    sw_raster *a = make(20, 12), *b = make(20, 12);
    sw_raster_text(a, 1, 9, "\x01", &plain, RED);
    sw_raster_text(b, 1, 9, "?", &plain, RED);
    for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 20; ++x) cr_expect_eq(sw_raster_pixel(a, x, y), sw_raster_pixel(b, x, y));
    sw_raster_free(a);
    sw_raster_free(b);
}

#ifdef SW_HAVE_PNG
Test(raster, png_reads_back_pixel_for_pixel)
{
    cr_assert(sw_raster_png_supported());
    sw_raster *r = make(37, 23);
    sw_raster_line(r, 1, 2, 35, 20, 1.5, 0x1f77b4);
    sw_raster_disc(r, 30, 5, 3, RED);
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    sw_error err = {0};
    cr_assert_eq(sw_raster_write_png(r, f, &err), SW_OK, "%s", err.message);
    rewind(f);
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_stdio(&image, f), "%s", image.message);
    cr_expect_eq(image.width, 37u);
    cr_expect_eq(image.height, 23u);
    image.format = PNG_FORMAT_RGB;
    uint8_t *buf = malloc(PNG_IMAGE_SIZE(image));
    cr_assert(png_image_finish_read(&image, NULL, buf, 0, NULL), "%s", image.message);
    for (int y = 0; y < 23; ++y)
        for (int x = 0; x < 37; ++x) {
            const uint8_t *p = buf + ((size_t)y * 37 + (size_t)x) * 3;
            const uint32_t got = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
            cr_expect_eq(got, sw_raster_pixel(r, x, y), "pixel %d,%d", x, y);
        }
    free(buf);
    fclose(f);
    sw_raster_free(r);
}
#else
Test(raster, without_libpng_png_is_refused_clearly)
{
    cr_assert(!sw_raster_png_supported());
    sw_raster *r = make(4, 4);
    sw_error err = {0};
    cr_expect_eq(sw_raster_write_png(r, stdout, &err), SW_EINVAL);
    cr_expect(strstr(err.message, "PNG") != NULL, "%s", err.message);
    sw_raster_free(r);
}
#endif
