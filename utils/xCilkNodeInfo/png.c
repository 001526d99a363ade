/* xCilkNodeInfo --png: the same picture into a file, no display needed. */
#include <stdio.h>

#include "xnode.h"

int
xn_png_write(const char *path, int w, int h, const struct xn_cluster *c,
    const struct xn_node *n, double now, char *err, size_t errlen)
{
	cairo_surface_t *s;
	cairo_status_t st;
	cairo_t *cr;

	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	if ((st = cairo_surface_status(s)) != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "%dx%d: %s", w, h,
		    cairo_status_to_string(st));
		cairo_surface_destroy(s);
		return -1;
	}
	cr = cairo_create(s);
	if (c != NULL)
		xn_draw_cluster(cr, w, h, c, now);
	else
		xn_draw_node(cr, w, h, n, now);
	st = cairo_status(cr);
	cairo_destroy(cr);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_write_to_png(s, path);
	cairo_surface_destroy(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "%s: %s", path,
		    cairo_status_to_string(st));
		return -1;
	}
	return 0;
}
