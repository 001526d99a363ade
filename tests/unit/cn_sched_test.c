/*
 * cn_sched_test — programs of threads run by one worker's scheduler
 * (include/cn_sched.h) with every spawn a call, with spawns kept as
 * ready closures (LIFO) as often as possible, and in between: the
 * answer is the same each way.  cn_for over ranges and grains, values
 * up to 1 MiB through slots and the answer, and the errors a program
 * sees: an unregistered thread, an answer sent twice, an oversized
 * value, a job that ends with no answer or with a join never filled.
 * A cn_for half taken as a thief would take it (CN_FN_FOR) and pushed
 * back as a thief's process would receive it runs right; forged ones
 * (a body outside the program, a range backwards) are refused.  So
 * does a ready successor (CN_FN_SUCC) with its slots' values; a cut,
 * lengthened or renumbered one is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cn_sched.h"
#include "tap.h"

static void	fib(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	sum(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	big(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	bigjoin(struct cn_ctx *, struct cn_cont, const void *,
		    size_t);
static void	quiet(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	waits(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	errs(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	loop(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	mkjoin(struct cn_ctx *, struct cn_cont, const void *,
		    size_t);
static void	travel(struct cn_ctx *, struct cn_cont, const void *,
		    size_t);
static void	succtravel(struct cn_ctx *, struct cn_cont, const void *,
		    size_t);

static cn_thread *const threads[] = { fib, sum, big, bigjoin, quiet,
    waits, errs, loop, mkjoin, travel, succtravel };
static const struct cn_tprogram prog = { "cn_sched_test", threads, 11 };
enum { T_FIB, T_SUM, T_BIG, T_BIGJOIN, T_QUIET, T_WAITS, T_ERRS, T_LOOP,
    T_MKJOIN, T_TRAVEL, T_SUCCTRAVEL };

static int errors_seen[8];

static void
unlisted(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	(void)c; (void)k; (void)arg; (void)len;
}

static void
sum(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	uint64_t x, y;
	size_t lx, ly;
	const void *px = cn_slot(c, 0, &lx), *py = cn_slot(c, 1, &ly);

	(void)arg;
	(void)len;
	if (px == NULL || py == NULL || lx != 8 || ly != 8 ||
	    cn_slot(c, 2, NULL) != NULL)
		return;		/* no answer: the test sees it */
	memcpy(&x, px, 8);
	memcpy(&y, py, 8);
	x += y;
	(void)cn_send(c, k, &x, sizeof(x));
}

static void
fib(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont xy[2];
	uint32_t n;
	uint64_t v;

	memcpy(&n, arg, sizeof(n));
	(void)len;
	if (n < 2) {
		v = n;
		(void)cn_send(c, k, &v, sizeof(v));
		return;
	}
	if (cn_slot(c, 0, NULL) != NULL ||
	    cn_spawn_next(c, sum, k, NULL, 0, 2, xy) == -1)
		return;
	n--;
	(void)cn_spawn(c, fib, xy[1], &n, sizeof(n));	/* y first */
	n--;
	(void)cn_spawn(c, fib, xy[0], &n, sizeof(n));
}

static uint64_t
fib_serial(uint32_t n)
{
	return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static int
run(const char *what, int32_t budget, uint32_t lazy, uint16_t fn,
    const void *arg, size_t len, void *ans, size_t *anslen, uint64_t *fromcl)
{
	struct cn_ctx_pub pub;
	struct cn_sched s;
	char why[256];
	int rc;

	memset(&pub, 0, sizeof(pub));
	cn_sched_init(&s, (struct cn_ctx *)(void *)&pub, &prog, budget, lazy);
	rc = cn_sched_run(&s, fn, arg, len, why, sizeof(why));
	if (rc == -1)
		printf("# %s: %s\n", what, why);
	else if (ans != NULL) {
		if (*anslen >= s.s_answer_len)
			memcpy(ans, s.s_answer, s.s_answer_len);
		*anslen = s.s_answer_len;
	}
	if (fromcl != NULL)
		*fromcl = s.s_from_closure;
	cn_sched_fini(&s);
	return rc;
}

static void
test_fib(void)
{
	static const struct { int32_t b; uint32_t l; const char *what; }
	    modes[] = {
		{ INT32_MAX, 0, "every spawn a call" },
		{ 1, 1u << 30, "every other spawn a ready closure" },
		{ 3, 8, "a few closures kept for thieves" },
		{ 1, 1, "one closure at a time" },
	};
	uint32_t n;
	uint64_t v, fromcl;
	size_t len;
	unsigned m;
	int rc;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (n = 0; n <= 20; n += 5) {
			len = sizeof(v);
			v = fromcl = 0;
			rc = run(modes[m].what, modes[m].b, modes[m].l, T_FIB,
			    &n, sizeof(n), &v, &len, &fromcl);
			ok(rc == 0 && len == 8 && v == fib_serial(n),
			    "fib(%u) = %llu, "
			    "%s (%llu run from closures)", n,
			    (unsigned long long)v, modes[m].what,
			    (unsigned long long)fromcl);
		}
}

/*
 * A root's or a worker's scheduler (budget 64, 8 kept for thieves):
 * its first spawns become closures, then one at most every 64 spawns.
 * Kept whenever fewer than 8 waited, half of fib's spawns had become
 * closures, and a root ran fib 21 % slower than alone.
 */
static void
test_fib_kept(void)
{
	uint32_t n = 20, succ = 10945, spawns = 21890;	/* fib(21) - 1 */
	uint64_t v = 0, fromcl = 0, kept;
	size_t len = sizeof(v);
	int rc;

	rc = run("budget 64, 8 kept", 64, 8, T_FIB, &n, sizeof(n), &v, &len,
	    &fromcl);
	ok(rc == 0 && v == fib_serial(n), "fib(20) = %llu with 8 closures "
	    "kept for thieves", (unsigned long long)v);
	kept = fromcl > succ ? fromcl - succ : 0;
	ok(fromcl >= succ && kept >= 8 && kept <= spawns / 64 + 8,
	    "fib(20): %llu of %u spawns became closures (at most %u)",
	    (unsigned long long)kept, spawns, spawns / 64 + 8);
}

/* A 1 MiB value into each of two slots and on to the answer. */
static void
bigjoin(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	const uint8_t *a, *b;
	uint8_t *out;
	size_t la, lb, i;

	(void)arg;
	(void)len;
	if ((a = cn_slot(c, 0, &la)) == NULL ||
	    (b = cn_slot(c, 1, &lb)) == NULL || la != lb ||
	    (out = malloc(la)) == NULL)
		return;
	for (i = 0; i < la; i++)
		out[i] = (uint8_t)(a[i] ^ b[i]);
	(void)cn_send(c, k, out, la);
	free(out);
}

static void
big(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont kk[2];
	uint8_t *v;
	size_t i;

	if (len == 1) {		/* a leaf: a value from its argument */
		if ((v = malloc(CN_VALUE_MAX)) == NULL)
			return;
		for (i = 0; i < CN_VALUE_MAX; i++)
			v[i] = (uint8_t)(i * *(const uint8_t *)arg);
		(void)cn_send(c, k, v, CN_VALUE_MAX);
		free(v);
		return;
	}
	if (cn_spawn_next(c, bigjoin, k, NULL, 0, 2, kk) == -1)
		return;
	(void)cn_spawn(c, big, kk[0], "\003", 1);
	(void)cn_spawn(c, big, kk[1], "\005", 1);
}

static void
test_big(void)
{
	uint8_t *v = malloc(CN_VALUE_MAX);
	size_t len = CN_VALUE_MAX, i;
	int bad = 0, m;

	for (m = 0; m < 2; m++) {
		len = CN_VALUE_MAX;
		memset(v, 0, len);
		ok(run("big", m ? 1 : INT32_MAX, m ? 100 : 0, T_BIG, "", 0, v,
		    &len, NULL) == 0 && len == CN_VALUE_MAX,
		    "1 MiB values through two slots to a 1 MiB answer (%s)",
		    m ? "closures" : "calls");
		for (i = 0; i < CN_VALUE_MAX; i++)
			if (v[i] != (uint8_t)((i * 3) ^ (i * 5)))
				bad++;
		is_int(bad, 0, "every byte of it right");
	}
	free(v);
}

static void
quiet(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	(void)c; (void)k; (void)arg; (void)len;
}

static void
waits(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont kk[3];
	uint64_t v = 1;

	(void)arg;
	(void)len;
	if (cn_spawn_next(c, sum, k, NULL, 0, 3, kk) == 0)
		(void)cn_send(c, kk[0], &v, sizeof(v));	/* 2 never come */
}

static void
mkjoin(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont kk[1];
	uint64_t v = 1;

	if (len != sizeof(kk[0]) || cn_spawn_next(c, quiet, k, NULL, 0, 1,
	    kk) == -1)
		return;
	/* Where the parent finds it: its argument is a copy in a closure. */
	memcpy((void *)(uintptr_t)arg, &kk[0], sizeof(kk[0]));
	(void)cn_send(c, kk[0], &v, sizeof(v));
}

static void
errs(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont kk2[2], stale;
	uint8_t *huge;
	uint64_t v = 42;

	(void)arg;
	(void)len;
	errno = 0;
	errors_seen[0] = cn_spawn(c, unlisted, k, NULL, 0) == -1 &&
	    errno == ENOENT;
	errno = 0;
	errors_seen[1] = cn_spawn_next(c, sum, k, NULL, 0, 0, kk2) == -1 &&
	    errno == EINVAL;
	huge = calloc(1, CN_VALUE_MAX + 1);
	errno = 0;
	errors_seen[2] = huge != NULL && cn_send(c, k, huge,
	    CN_VALUE_MAX + 1) == -1 && errno == EMSGSIZE;
	errno = 0;
	errors_seen[3] = huge != NULL && cn_spawn(c, quiet, k, huge,
	    CN_VALUE_MAX + 1) == -1 && errno == EMSGSIZE;
	free(huge);
	/* A child's join of one, filled and run when the child returns. */
	memset(&stale, 0, sizeof(stale));
	if (cn_spawn(c, mkjoin, k, &stale, sizeof(stale)) == 0 &&
	    stale.k_index != 0) {
		errno = 0;
		errors_seen[4] = cn_send(c, stale, &v, sizeof(v)) == -1 &&
		    errno == ESTALE;
	}
	errors_seen[5] = cn_send(c, k, &v, sizeof(v)) == 0;
	errno = 0;
	errors_seen[6] = cn_send(c, k, &v, sizeof(v)) == -1 &&
	    errno == EALREADY;
}

static void
test_errors(void)
{
	struct cn_ctx_pub pub;
	struct cn_cont k;
	uint64_t v;
	size_t len = sizeof(v);

	is_int(run("no answer (expected)", INT32_MAX, 0, T_QUIET, NULL, 0,
	    NULL, NULL, NULL), -1, "a job that sends no answer fails");
	is_int(errno, ENOMSG, "with ENOMSG");
	is_int(run("a join never filled (expected)", INT32_MAX, 0, T_WAITS,
	    NULL, 0, NULL, NULL, NULL), -1,
	    "a job that ends with a join waiting fails");
	ok(run("errors", INT32_MAX, 0, T_ERRS, NULL, 0, &v, &len, NULL) ==
	    0 && v == 42, "the errors program answers 42");
	ok(errors_seen[0], "spawning a thread not in the table: ENOENT");
	ok(errors_seen[1], "a successor with 0 slots: EINVAL");
	ok(errors_seen[2], "sending CN_VALUE_MAX + 1 bytes: EMSGSIZE");
	ok(errors_seen[3], "an argument of CN_VALUE_MAX + 1 bytes: EMSGSIZE");
	ok(errors_seen[4], "a send to a successor that ran: ESTALE");
	ok(errors_seen[5] && errors_seen[6],
	    "the answer once, and a second time: EALREADY");
	memset(&pub, 0, sizeof(pub));
	memset(&k, 0, sizeof(k));
	errno = 0;
	ok(cn_send((struct cn_ctx *)(void *)&pub, k, &v, sizeof(v)) == -1 &&
	    errno == EINVAL, "cn_send outside a program of threads: EINVAL");
}

/* cn_for: the sum of i*i over [lo, hi), and a vector of counts. */
struct loop_arg {
	int64_t	la_lo, la_hi, la_grain;
	int	la_vec;
};

static void
squares(struct cn_ctx *c, int64_t lo, int64_t hi, const void *arg,
    size_t len, void *val)
{
	int64_t i, s = 0;

	(void)c;
	if (len != 3 || memcmp(arg, "xyz", 3) != 0)
		return;
	for (i = lo; i < hi; i++)
		s += i * i;
	memcpy(val, &s, sizeof(s));
}

static void
add64(void *into, const void *from, size_t vlen)
{
	int64_t a, b;

	(void)vlen;
	memcpy(&a, into, 8);
	memcpy(&b, from, 8);
	a += b;
	memcpy(into, &a, 8);
}

#define NBINS	(CN_VALUE_MAX / 8)

static void
bins(struct cn_ctx *c, int64_t lo, int64_t hi, const void *arg, size_t len,
    void *val)
{
	int64_t *b = val, i;

	(void)c;
	(void)arg;
	(void)len;
	for (i = lo; i < hi; i++)
		b[(i * 7919) % NBINS]++;
}

static void
addvec(void *into, const void *from, size_t vlen)
{
	int64_t *a = into;
	const int64_t *b = from;
	size_t i;

	for (i = 0; i < vlen / 8; i++)
		a[i] += b[i];
}

static void
loop(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct loop_arg la;

	if (len != sizeof(la))
		return;
	memcpy(&la, arg, sizeof(la));
	if (la.la_vec)
		(void)cn_for(c, k, la.la_lo, la.la_hi, la.la_grain, bins,
		    addvec, CN_VALUE_MAX, NULL, 0);
	else
		(void)cn_for(c, k, la.la_lo, la.la_hi, la.la_grain, squares,
		    add64, 8, "xyz", 3);
}

static void
test_for(void)
{
	static const int64_t r[][3] = { { 0, 0, 1 }, { 0, 1, 1 },
	    { 0, 1000, 1 }, { -500, 777, 7 }, { 3, 100000, 1000 },
	    { 0, 10, 100 } };
	struct loop_arg la;
	int64_t v, want, i;
	int64_t *vec;
	size_t len, j;
	unsigned m;
	int bad;

	for (m = 0; m < sizeof(r) / sizeof(r[0]); m++) {
		memset(&la, 0, sizeof(la));
		la.la_lo = r[m][0];
		la.la_hi = r[m][1];
		la.la_grain = r[m][2];
		for (want = 0, i = la.la_lo; i < la.la_hi; i++)
			want += i * i;
		len = sizeof(v);
		v = -1;
		ok(run("cn_for", m & 1 ? 1 : INT32_MAX, m & 1 ? 64 : 0,
		    T_LOOP, &la, sizeof(la), &v, &len, NULL) == 0 &&
		    len == 8 && v == want, "cn_for [%lld, %lld) grain %lld: "
		    "%lld", (long long)la.la_lo, (long long)la.la_hi,
		    (long long)la.la_grain, (long long)v);
	}
	memset(&la, 0, sizeof(la));
	la.la_hi = 3 * NBINS;
	la.la_grain = NBINS;
	la.la_vec = 1;
	vec = malloc(CN_VALUE_MAX);
	len = CN_VALUE_MAX;
	ok(run("cn_for vec", INT32_MAX, 0, T_LOOP, &la, sizeof(la), vec, &len,
	    NULL) == 0 && len == CN_VALUE_MAX, "cn_for with 1 MiB values");
	for (bad = 0, j = 0; j < NBINS; j++)
		if (vec[j] != 3)
			bad++;
	is_int(bad, 0, "every bin counted 3 times");
	free(vec);
	memset(&la, 0, sizeof(la));
	la.la_hi = 10;
	la.la_grain = 0;
	ok(run("cn_for grain 0 (expected)", INT32_MAX, 0, T_LOOP, &la,
	    sizeof(la), NULL, NULL, NULL) == -1, "grain 0: refused, no answer");
}

/* What travel saw: the index it was given, and each push's result. */
static struct {
	int		taken;
	uint16_t	fn;
	int		forged[3], forged_errno[3];
	int		back;
} tv;

/*
 * cn_for, its first half kept as a closure (lazy), taken as a thief
 * takes one, then pushed back as the thief's process gets it: first
 * three forgeries of it, then itself.  struct for_head (cn_for.c):
 * lo, hi, grain at 0, 8, 16; body_at, combine_at at 48, 56.
 */
static void
travel(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_sched *s = ((struct cn_ctx_pub *)(void *)c)->cp_sched;
	struct cn_closure *cl;
	uint8_t forged[128];
	uint64_t far = (uint64_t)1 << 46;
	int64_t lo = 10, hi = 5;
	int i;

	(void)arg;
	(void)len;
	if (cn_for(c, k, 0, 1000, 10, squares, add64, 8, "xyz", 3) == -1 ||
	    (cl = cn_sched_take_oldest(s, &tv.fn)) == NULL)
		return;
	tv.taken = 1;
	for (i = 0; i < 3 && cl->cl_len <= sizeof(forged); i++) {
		memcpy(forged, cl->cl_arg, cl->cl_len);
		if (i == 0)
			memset(forged + 48, 0xff, 8);	/* nowhere */
		else if (i == 1)
			memcpy(forged + 48, &far, 8);	/* beyond the program */
		else {
			memcpy(forged, &lo, 8);		/* backwards */
			memcpy(forged + 8, &hi, 8);
		}
		errno = 0;
		tv.forged[i] = cn_sched_push(s, tv.fn, cl->cl_k, forged,
		    cl->cl_len);
		tv.forged_errno[i] = errno;
	}
	tv.back = cn_sched_push(s, tv.fn, cl->cl_k, cl->cl_arg, cl->cl_len);
	cn_closure_free(&s->s_store, cl);
}

static void
test_travel(void)
{
	int64_t v = -1, want = 0, i;
	size_t len = sizeof(v);
	int rc;

	for (i = 0; i < 1000; i++)
		want += i * i;
	memset(&tv, 0, sizeof(tv));
	rc = run("travel", 1, 64, T_TRAVEL, NULL, 0, &v, &len, NULL);
	ok(rc == 0 && len == 8 && v == want, "a cn_for half taken and pushed "
	    "back: %lld (want %lld)", (long long)v, (long long)want);
	ok(tv.taken && tv.fn == CN_FN_FOR,
	    "a thief takes it as cn_for's thread (index %u)", tv.fn);
	for (i = 0; i < 3; i++)
		ok(tv.forged[i] == -1 && tv.forged_errno[i] == ENOENT,
		    "a forged half %lld is refused (%d, %s)", (long long)i,
		    tv.forged[i], strerror(tv.forged_errno[i]));
	is_int(tv.back, 0, "the half itself is taken back");
}

/* What succtravel saw. */
static struct {
	int		taken;
	uint16_t	fn;
	int		forged[4], forged_errno[4];
	int		back;
} st;

/*
 * A successor of sum whose two slots are filled (20 and 22): ready,
 * taken as a thief takes it, pushed back forged four ways, then as it
 * is; it runs and answers 42.
 */
static void
succtravel(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_sched *s = ((struct cn_ctx_pub *)(void *)c)->cp_sched;
	struct cn_closure *cl;
	struct cn_cont xy[2];
	uint64_t x = 20, y = 22;
	uint8_t forged[256];
	size_t flen;
	int i;

	(void)arg;
	(void)len;
	if (cn_spawn_next(c, sum, k, NULL, 0, 2, xy) == -1 ||
	    cn_send(c, xy[0], &x, sizeof(x)) == -1 ||
	    cn_send(c, xy[1], &y, sizeof(y)) == -1 ||
	    (cl = cn_sched_take_oldest(s, &st.fn)) == NULL)
		return;
	st.taken = 1;
	for (i = 0; i < 4 && cl->cl_len + 1 <= sizeof(forged); i++) {
		memcpy(forged, cl->cl_arg, cl->cl_len);
		flen = cl->cl_len;
		if (i == 0)
			flen--;				/* cut */
		else if (i == 1)
			forged[flen++] = 0;		/* a byte more */
		else if (i == 2)
			forged[1] = 99;			/* no such thread */
		else
			memset(forged + 6, 0, 4);	/* 0 slots */
		errno = 0;
		st.forged[i] = cn_sched_push(s, st.fn, cl->cl_k, forged, flen);
		st.forged_errno[i] = errno;
	}
	st.back = cn_sched_push(s, st.fn, cl->cl_k, cl->cl_arg, cl->cl_len);
	cn_closure_free(&s->s_store, cl);
}

static void
test_succtravel(void)
{
	uint64_t v = 0;
	size_t len = sizeof(v);
	int rc, i;

	memset(&st, 0, sizeof(st));
	rc = run("succtravel", INT32_MAX, 0, T_SUCCTRAVEL, NULL, 0, &v, &len,
	    NULL);
	ok(st.taken && st.fn == CN_FN_SUCC, "a thief takes a ready successor "
	    "(index %#x)", st.fn);
	for (i = 0; i < 4; i++)
		ok(st.forged[i] == -1 && st.forged_errno[i] == ENOENT,
		    "a forged successor %d is refused (%d, %s)", i,
		    st.forged[i], strerror(st.forged_errno[i]));
	is_int(st.back, 0, "the successor itself is taken back");
	ok(rc == 0 && len == 8 && v == 42, "it runs with its slots' values: "
	    "%llu (want 42)", (unsigned long long)v);
}

int
main(void)
{
	test_fib();
	test_fib_kept();
	test_big();
	test_errors();
	test_for();
	test_travel();
	test_succtravel();
	return tap_done();
}
