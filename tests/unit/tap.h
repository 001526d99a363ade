/*
 * tap.h — a minimal TAP producer for unit tests: each test program
 * prints "ok N - name" / "not ok N - name" and a final plan, and exits
 * non-zero when anything failed.  tests/run.sh counts the lines.
 */
#ifndef CILKNOW_TAP_H
#define CILKNOW_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static inline int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...)	tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) do {					\
	long long _g = (long long)(got), _w = (long long)(want);	\
	if (!ok(_g == _w, __VA_ARGS__))					\
		printf("#   got %lld, want %lld\n", _g, _w);		\
} while (0)
#define is_str(got, want, ...) do {					\
	const char *_g = (got), *_w = (want);				\
	if (!ok(_g != NULL && strcmp(_g, _w) == 0, __VA_ARGS__))	\
		printf("#   got \"%s\", want \"%s\"\n",			\
		    _g ? _g : "(null)", _w);				\
} while (0)

/* A check that cannot run here: "ok N # SKIP why", neither pass nor fail. */
static inline void
tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void
tap_skip(const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("ok %d # SKIP ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#define skip(...)	tap_skip(__VA_ARGS__)

/*
 * A count a check repeats for its own sake (nonces drawn, datagrams
 * replayed): divided by CILKNOW_TEST_LIGHTEN where that is set.
 * tests/valgrind.sh sets it: memcheck looks at memory, which a tenth of
 * the repeats shows as well, and make check's ASan run does them all.
 */
static inline size_t
tap_many(size_t n)
{
	const char *e = getenv("CILKNOW_TEST_LIGHTEN");
	long d = e != NULL ? atol(e) : 1;

	if (d <= 1 || n / (size_t)d == 0)
		return d <= 1 ? n : 1;
	return n / (size_t)d;
}

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif
