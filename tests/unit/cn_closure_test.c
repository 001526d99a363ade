/*
 * cn_closure_test — closures, slots and joins (include/cn_closure.h):
 * a successor becomes ready exactly when its last slot is filled, in
 * every order of sends; values of every size up to CN_VALUE_MAX come
 * back intact; oversized values, full slots, slots out of range and
 * continuations to freed or never-made closures are refused with their
 * errno, and the refusal changes nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cn_closure.h"
#include "tap.h"

static void
nop(struct cn_ctx *c, struct cn_cont k, const void *a, size_t l)
{
	(void)c; (void)k; (void)a; (void)l;
}

static struct cn_cont
answer(void)
{
	struct cn_cont k;

	memset(&k, 0, sizeof(k));
	return k;
}

/* Every permutation of 4 slots: ready after the 4th send, not before. */
static void
test_orders(void)
{
	struct cn_cstore s;
	struct cn_closure *cl, *ready;
	int perm[4], used, i, j, n = 0, bad = 0;
	uint64_t v;
	size_t len;
	const void *p;

	cn_cstore_init(&s, 0);
	for (i = 0; i < 256; i++) {
		/* i in base 4: keep only permutations */
		used = 0;
		for (j = 0; j < 4; j++) {
			perm[j] = (i >> (2 * j)) & 3;
			used |= 1 << perm[j];
		}
		if (used != 15)
			continue;
		n++;
		if ((cl = cn_closure_new(&s, nop, answer(), "ab", 2, 4)) ==
		    NULL) {
			bad++;
			continue;
		}
		for (j = 0; j < 4; j++) {
			v = 100 + (uint64_t)perm[j];
			if (cn_closure_send(&s, cn_closure_cont(&s, cl,
			    (uint32_t)perm[j]), &v, sizeof(v), &ready) == -1 ||
			    (j < 3 && ready != NULL) || (j == 3 && ready != cl))
				bad++;
		}
		for (j = 0; j < 4; j++) {
			p = cn_closure_slot(cl, (uint32_t)j, &len);
			if (p == NULL || len != sizeof(v) ||
			    (memcpy(&v, p, sizeof(v)), v != 100 + (uint64_t)j))
				bad++;
		}
		if (cl->cl_state != CN_CL_READY || cl->cl_len != 2 ||
		    memcmp(cl->cl_arg, "ab", 2) != 0)
			bad++;
		cn_closure_free(&s, cl);
	}
	is_int(n, 24, "every order of 4 sends tried");
	is_int(bad, 0, "ready exactly at the last send, values in their slots");
	is_int(s.cs_live, 0, "every closure freed");
	cn_cstore_fini(&s);
}

/* Sizes around the inline limits and up to the maximum, many slots. */
static void
test_sizes(void)
{
	static const size_t sizes[] = { 0, 1, 15, 16, 17, 64, 65, 4096,
	    CN_VALUE_MAX - 1, CN_VALUE_MAX };
	const size_t nsz = sizeof(sizes) / sizeof(sizes[0]);
	struct cn_cstore s;
	struct cn_closure *cl, *ready = NULL;
	uint8_t *buf, *arg;
	const uint8_t *p;
	size_t i, k, len;
	int bad = 0;

	cn_cstore_init(&s, 0);
	buf = malloc(CN_VALUE_MAX + 16);
	arg = malloc(CN_VALUE_MAX);
	for (k = 0; k < CN_VALUE_MAX + 16; k++)
		buf[k] = (uint8_t)(k * 7 + 3);
	for (k = 0; k < CN_VALUE_MAX; k++)
		arg[k] = (uint8_t)(k * 13 + 1);
	cl = cn_closure_new(&s, nop, answer(), arg, CN_VALUE_MAX,
	    (uint32_t)nsz);
	ok(cl != NULL && memcmp(cl->cl_arg, arg, CN_VALUE_MAX) == 0,
	    "a closure with a 1 MiB argument and %zu slots", nsz);
	for (i = nsz; cl != NULL && i-- > 0;)	/* last slot first */
		if (cn_closure_send(&s, cn_closure_cont(&s, cl, (uint32_t)i),
		    buf + i, sizes[i], &ready) == -1)
			bad++;
	ok(bad == 0 && ready == cl, "values of 0 to %u bytes sent, ready",
	    CN_VALUE_MAX);
	for (i = 0; cl != NULL && i < nsz; i++) {
		p = cn_closure_slot(cl, (uint32_t)i, &len);
		if (p == NULL || len != sizes[i] ||
		    memcmp(p, buf + i, len) != 0)
			bad++;
	}
	is_int(bad, 0, "each value back intact");
	if (cl != NULL)
		cn_closure_free(&s, cl);
	errno = 0;
	ok(cn_closure_new(&s, nop, answer(), arg, CN_VALUE_MAX + 1, 0) ==
	    NULL && errno == EMSGSIZE, "an argument over 1 MiB: EMSGSIZE");
	errno = 0;
	ok(cn_closure_new(&s, nop, answer(), NULL, 0, CN_SLOTS_MAX + 1) ==
	    NULL && errno == EINVAL, "more than CN_SLOTS_MAX slots: EINVAL");
	cl = cn_closure_new(&s, nop, answer(), NULL, 0, 1);
	errno = 0;
	ok(cl != NULL && cn_closure_send(&s, cn_closure_cont(&s, cl, 0), buf,
	    CN_VALUE_MAX + 1, &ready) == -1 && errno == EMSGSIZE &&
	    ready == NULL && cn_closure_slot(cl, 0, NULL) == NULL &&
	    cl->cl_missing == 1, "a value over 1 MiB: EMSGSIZE, slot empty");
	if (cl != NULL)
		cn_closure_free(&s, cl);
	is_int(s.cs_live, 0, "nothing left");
	free(buf);
	free(arg);
	cn_cstore_fini(&s);
}

static void
test_refusals(void)
{
	struct cn_cstore s;
	struct cn_closure *cl, *cl2, *ready;
	struct cn_cont k, stale;
	uint32_t v = 5;

	cn_cstore_init(&s, 0);
	cl = cn_closure_new(&s, nop, answer(), NULL, 0, 2);
	k = cn_closure_cont(&s, cl, 0);
	ok(cn_closure_send(&s, k, &v, sizeof(v), &ready) == 0 && ready ==
	    NULL, "first send to slot 0");
	errno = 0;
	ok(cn_closure_send(&s, k, &v, sizeof(v), &ready) == -1 &&
	    errno == EALREADY && cl->cl_missing == 1,
	    "a second send to it: EALREADY, still one missing");
	k.k_slot = 2;
	errno = 0;
	ok(cn_closure_send(&s, k, &v, sizeof(v), &ready) == -1 &&
	    errno == ERANGE, "slot 2 of 2: ERANGE");
	k.k_slot = 0;
	k.k_index = 999;
	errno = 0;
	ok(cn_closure_send(&s, k, &v, sizeof(v), &ready) == -1 &&
	    errno == ESTALE, "a closure never made: ESTALE");
	k = cn_closure_cont(&s, cl, 1);
	k.k_owner = 7;
	errno = 0;
	ok(cn_closure_send(&s, k, &v, sizeof(v), &ready) == -1 &&
	    errno == ESTALE, "another worker's closure: ESTALE");
	stale = cn_closure_cont(&s, cl, 1);
	cn_closure_free(&s, cl);
	cl2 = cn_closure_new(&s, nop, answer(), NULL, 0, 2);
	ok(cl2 == cl, "the freed closure is reused");
	errno = 0;
	ok(cn_closure_send(&s, stale, &v, sizeof(v), &ready) == -1 &&
	    errno == ESTALE && cl2->cl_missing == 2,
	    "a continuation of the closure that ran: ESTALE, new one "
	    "untouched");
	cn_closure_free(&s, cl2);
	/* Many at once: chunks grow, pointers stay. */
	{
		struct cn_closure **all;
		int i, bad = 0;

		all = calloc(3 * CN_CL_CHUNK, sizeof(*all));
		for (i = 0; i < 3 * CN_CL_CHUNK; i++)
			if ((all[i] = cn_closure_new(&s, nop, answer(), &i,
			    sizeof(i), 1)) == NULL)
				bad++;
		for (i = 0; i < 3 * CN_CL_CHUNK && bad == 0; i++)
			if (cn_closure_send(&s, cn_closure_cont(&s, all[i], 0),
			    &i, sizeof(i), &ready) == -1 || ready != all[i] ||
			    memcmp(all[i]->cl_arg, &i, sizeof(i)) != 0)
				bad++;
		is_int(bad, 0, "%d closures live at once", 3 * CN_CL_CHUNK);
		for (i = 0; i < 3 * CN_CL_CHUNK; i += 2)
			cn_closure_free(&s, all[i]);
		free(all);
	}
	cn_cstore_fini(&s);	/* with closures still live: no leak */
	ok(1, "a store freed with closures in it");
}

int
main(void)
{
	test_orders();
	test_sizes();
	test_refusals();
	return tap_done();
}
