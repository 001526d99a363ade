/*
 * mandelbrot — draw the Mandelbrot set into a PPM image (mandelbrot(1)),
 * in parallel on whatever workstations join.  A task covers a band of
 * rows: a wide band splits in two, a narrow one is computed and each
 * row is emitted as a record; the root puts the rows in place and
 * writes the file once every row has come, each exactly once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cilknow.h"

#define BAND	2	/* rows computed by one task */
#define W_MAX	4096

struct band {
	uint32_t	bd_y0, bd_y1, bd_w, bd_h, bd_iter;
};

struct image {
	uint32_t	 im_w, im_h;
	uint8_t		*im_px;		/* one byte per pixel: escape time */
	uint8_t		*im_have;	/* rows received */
};

enum { BAND_TASK, MANDEL_NFNS };

static uint8_t
escape(double cr, double ci, uint32_t iter)
{
	double zr = 0, zi = 0, t;
	uint32_t i;

	for (i = 0; i < iter && zr * zr + zi * zi <= 4; i++) {
		t = zr * zr - zi * zi + cr;
		zi = 2 * zr * zi + ci;
		zr = t;
	}
	return i >= iter ? 0 : (uint8_t)(1 + i % 255);
}

static void
band_task(struct cn_ctx *c, const void *arg, size_t len)
{
	struct band b, k;
	uint8_t row[W_MAX];
	uint32_t x, y, mid;
	double scale;

	if (len != sizeof(b))
		return;
	memcpy(&b, arg, sizeof(b));
	/* Arguments travel between processes: check them. */
	if (b.bd_w < 1 || b.bd_w > W_MAX || b.bd_y0 >= b.bd_y1 ||
	    b.bd_y1 > b.bd_h)
		return;
	if (b.bd_y1 - b.bd_y0 > BAND) {
		mid = b.bd_y0 + (b.bd_y1 - b.bd_y0) / 2;
		k = b;
		k.bd_y1 = mid;
		cn_spawn(c, BAND_TASK, &k, sizeof(k));
		k = b;
		k.bd_y0 = mid;
		cn_spawn(c, BAND_TASK, &k, sizeof(k));
		return;
	}
	scale = 3.0 / b.bd_w;
	for (y = b.bd_y0; y < b.bd_y1; y++) {
		for (x = 0; x < b.bd_w; x++)
			row[x] = escape(-2.2 + x * scale,
			    (y - b.bd_h / 2.0) * scale, b.bd_iter);
		(void)cn_emit(c, y, row, b.bd_w);
	}
}

static void
on_row(void *arg, uint32_t y, const void *p, size_t len)
{
	struct image *im = arg;

	if (y >= im->im_h || len != im->im_w || im->im_have[y])
		return;
	memcpy(im->im_px + (size_t)y * im->im_w, p, len);
	im->im_have[y] = 1;
}

static int
write_ppm(const struct image *im, const char *path)
{
	uint8_t rgb[3];
	size_t i;
	FILE *f;
	uint8_t v;

	if ((f = fopen(path, "wb")) == NULL)
		return -1;
	fprintf(f, "P6\n%u %u\n255\n", im->im_w, im->im_h);
	for (i = 0; i < (size_t)im->im_w * im->im_h; i++) {
		v = im->im_px[i];
		rgb[0] = v == 0 ? 0 : (uint8_t)(9 * v);
		rgb[1] = v == 0 ? 0 : (uint8_t)(3 * v + 40);
		rgb[2] = v == 0 ? 0 : (uint8_t)(255 - 2 * v);
		fwrite(rgb, 1, 3, f);
	}
	if (ferror(f)) {
		(void)fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout, "usage: mandelbrot [-i iterations] "
	    "[-o file.ppm] [-s WIDTHxHEIGHT]\n");
	exit(status);
}

int
main(int argc, char *argv[])
{
	static struct image im;
	struct cn_program p = { "mandelbrot", NULL, MANDEL_NFNS, on_row,
	    &im };
	static cn_fn *const fns[MANDEL_NFNS] = { band_task };
	const char *out = "mandelbrot.ppm", *errstr;
	struct band b = { 0, 480, 640, 480, 2000 };
	struct cn_stats st;
	uint32_t y, missing = 0;
	int ch;

	p.cp_fns = fns;
	if (cn_init(&argc, &argv) == -1)
		return 2;
	while ((ch = getopt(argc, argv, "hi:o:s:")) != -1) {
		switch (ch) {
		case 'i':
			b.bd_iter = (uint32_t)strtonum(optarg, 1, 1000000,
			    &errstr);
			if (errstr != NULL)
				usage(2);
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			if (sscanf(optarg, "%ux%u", &b.bd_w, &b.bd_h) != 2 ||
			    b.bd_w < 1 || b.bd_w > W_MAX || b.bd_h < 1 ||
			    b.bd_h > 65536)
				usage(2);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	b.bd_y1 = b.bd_h;
	im.im_w = b.bd_w;
	im.im_h = b.bd_h;
	if (!cn_is_worker() && ((im.im_px = calloc(b.bd_h, b.bd_w)) == NULL ||
	    (im.im_have = calloc(b.bd_h, 1)) == NULL)) {
		perror("mandelbrot");
		return 1;
	}
	if (cn_run(&p, BAND_TASK, &b, sizeof(b), &st) == -1) {
		perror("mandelbrot");
		return 1;
	}
	for (y = 0; y < b.bd_h; y++)
		missing += !im.im_have[y];
	if (missing > 0) {
		fprintf(stderr, "mandelbrot: %u rows missing\n", missing);
		return 1;
	}
	if (write_ppm(&im, out) == -1) {
		perror(out);
		return 1;
	}
	printf("%s: %ux%u, %u iterations at most\n", out, b.bd_w, b.bd_h,
	    b.bd_iter);
	return 0;
}
