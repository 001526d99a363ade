/*
 * imgpix — what the tests see in a picture: a PNG (read by cairo) or an
 * X window dump (xwd, ZPixmap of 24 or 32 bits per pixel).
 *   imgpix FILE                      prints "W H"
 *   imgpix FILE X Y [X Y ...]        prints each pixel as rrggbb
 *   imgpix FILE count RRGGBB X Y W H how many pixels of the rectangle
 *                                    are that colour (each channel
 *                                    within 8)
 * Exit 0, or 1 with a message when the file cannot be read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

struct img {
	int		 w, h;
	uint32_t	*px;	/* 0xRRGGBB, row after row */
};

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* The channel of mask in v, scaled to 8 bits. */
static uint32_t
chan(uint32_t v, uint32_t mask)
{
	int shift = 0;

	if (mask == 0)
		return 0;
	while (!(mask & 1)) {
		mask >>= 1;
		shift++;
	}
	v = (v >> shift) & mask;
	return mask == 0xff ? v : v * 255 / mask;
}

static int
read_xwd(struct img *im, const uint8_t *b, size_t n)
{
	uint32_t hsize, w, h, bpp, bpl, order, rm, gm, bm, ncolors, v;
	const uint8_t *p;
	size_t off, x, y;

	if (n < 100 || be32(b + 4) != 7 || be32(b + 8) != 2)
		return -1;
	hsize = be32(b);
	w = be32(b + 16);
	h = be32(b + 20);
	order = be32(b + 28);
	bpp = be32(b + 44);
	bpl = be32(b + 48);
	rm = be32(b + 56);
	gm = be32(b + 60);
	bm = be32(b + 64);
	ncolors = be32(b + 76);
	if ((bpp != 32 && bpp != 24) || w == 0 || h == 0 || w > 16384 ||
	    h > 16384)
		return -1;
	off = (size_t)hsize + (size_t)ncolors * 12;
	if (off > n || (n - off) / bpl < h || bpl < w * (bpp / 8))
		return -1;
	im->w = (int)w;
	im->h = (int)h;
	if ((im->px = calloc((size_t)w * h, sizeof(uint32_t))) == NULL)
		return -1;
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			p = b + off + y * bpl + x * (bpp / 8);
			if (bpp == 32)
				v = order == 0 ? (uint32_t)p[3] << 24 |
				    (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 |
				    p[0] : be32(p);
			else
				v = order == 0 ? (uint32_t)p[2] << 16 |
				    (uint32_t)p[1] << 8 | p[0] :
				    (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 |
				    p[2];
			im->px[y * w + x] = chan(v, rm) << 16 |
			    chan(v, gm) << 8 | chan(v, bm);
		}
	return 0;
}

static int
read_png(struct img *im, const char *path)
{
	cairo_surface_t *s = cairo_image_surface_create_from_png(path);
	const uint8_t *data;
	int x, y, stride;

	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		return -1;
	}
	cairo_surface_flush(s);
	im->w = cairo_image_surface_get_width(s);
	im->h = cairo_image_surface_get_height(s);
	data = cairo_image_surface_get_data(s);
	stride = cairo_image_surface_get_stride(s);
	if ((im->px = calloc((size_t)im->w * im->h, sizeof(uint32_t))) ==
	    NULL) {
		cairo_surface_destroy(s);
		return -1;
	}
	/* RGB24 and ARGB32 alike: native-endian 32-bit words. */
	for (y = 0; y < im->h; y++)
		for (x = 0; x < im->w; x++)
			im->px[y * im->w + x] = *(const uint32_t *)(const void *)
			    (data + y * stride + x * 4) & 0xffffff;
	cairo_surface_destroy(s);
	return 0;
}

static int
load(struct img *im, const char *path)
{
	static const uint8_t png[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
	    0x1a, '\n' };
	uint8_t *b = NULL;
	size_t n = 0, cap = 0, r;
	FILE *fp;
	int rc;

	if ((fp = fopen(path, "rb")) == NULL)
		return -1;
	for (;;) {
		if (n == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 1 << 20;
			if ((nb = realloc(b, cap)) == NULL) {
				free(b);
				fclose(fp);
				return -1;
			}
			b = nb;
		}
		if ((r = fread(b + n, 1, cap - n, fp)) == 0)
			break;
		n += r;
	}
	fclose(fp);
	if (n >= 8 && memcmp(b, png, 8) == 0)
		rc = read_png(im, path);
	else
		rc = read_xwd(im, b, n);
	free(b);
	return rc;
}

static int
near(uint32_t a, uint32_t b)
{
	int i, d;

	for (i = 0; i < 24; i += 8) {
		d = (int)((a >> i) & 0xff) - (int)((b >> i) & 0xff);
		if (d > 8 || d < -8)
			return 0;
	}
	return 1;
}

int
main(int argc, char *argv[])
{
	struct img im;
	long x, y, w, h, i, j, count = 0;
	uint32_t want;
	int k;

	if (argc < 2) {
		fprintf(stderr, "usage: imgpix FILE [X Y ...] | "
		    "[count RRGGBB X Y W H]\n");
		return 2;
	}
	memset(&im, 0, sizeof(im));
	if (load(&im, argv[1]) == -1) {
		fprintf(stderr, "imgpix: %s: not a PNG or xwd picture we "
		    "read\n", argv[1]);
		return 1;
	}
	if (argc == 2)
		printf("%d %d\n", im.w, im.h);
	else if (strcmp(argv[2], "count") == 0 && argc == 8) {
		want = (uint32_t)strtoul(argv[3], NULL, 16);
		x = strtol(argv[4], NULL, 10);
		y = strtol(argv[5], NULL, 10);
		w = strtol(argv[6], NULL, 10);
		h = strtol(argv[7], NULL, 10);
		for (j = y; j < y + h; j++)
			for (i = x; i < x + w; i++)
				if (i >= 0 && j >= 0 && i < im.w && j < im.h &&
				    near(im.px[j * im.w + i], want))
					count++;
		printf("%ld\n", count);
	} else
		for (k = 2; k + 1 < argc; k += 2) {
			x = strtol(argv[k], NULL, 10);
			y = strtol(argv[k + 1], NULL, 10);
			if (x < 0 || y < 0 || x >= im.w || y >= im.h)
				printf("outside\n");
			else
				printf("%06x\n", im.px[y * im.w + x]);
		}
	free(im.px);
	cairo_debug_reset_static_data();
	return 0;
}
