/*
 * cn_succ — a ready successor as bytes and back, so that a thief may
 * take it (include/cn_sched.h, CN_FN_SUCC): the index of its thread in
 * the program's table, its argument and the values in its slots.  What
 * comes from another process is checked to the byte before anything is
 * made of it.
 *   u16 thread index, u32 argument length, argument,
 *   u32 slots, then each slot's u32 length and value
 */
#include <errno.h>
#include <stdlib.h>

#include "cn_sched.h"
#include "wire.h"

uint8_t *
cn_succ_pack(const struct cn_closure *cl, uint16_t fn, size_t *len)
{
	struct wire_w w;
	const void *v;
	size_t need, vlen;
	uint32_t i;
	uint8_t *buf;

	need = 2 + 4 + cl->cl_len + 4;
	for (i = 0; i < cl->cl_nslots; i++) {
		if (cn_closure_slot(cl, i, &vlen) == NULL) {
			errno = EINVAL;		/* not ready after all */
			return NULL;
		}
		need += 4 + vlen;
	}
	if (need > CN_VALUE_MAX) {
		errno = EMSGSIZE;
		return NULL;
	}
	if ((buf = malloc(need)) == NULL)
		return NULL;
	wire_w_init(&w, buf, need);
	wire_put_u16(&w, fn);
	wire_put_u32(&w, (uint32_t)cl->cl_len);
	wire_put_bytes(&w, cl->cl_arg, cl->cl_len);
	wire_put_u32(&w, cl->cl_nslots);
	for (i = 0; i < cl->cl_nslots; i++) {
		v = cn_closure_slot(cl, i, &vlen);
		wire_put_u32(&w, (uint32_t)vlen);
		wire_put_bytes(&w, v, vlen);
	}
	if (wire_w_ok(&w) == -1) {
		free(buf);
		errno = EMSGSIZE;
		return NULL;
	}
	*len = need;
	return buf;
}

struct cn_closure *
cn_succ_unpack(struct cn_cstore *st, const struct cn_tprogram *prog,
    struct cn_cont k, const void *buf, size_t len)
{
	struct cn_closure *cl, *ready = NULL;
	struct wire_r r;
	const uint8_t *arg, *v;
	uint32_t arglen, nslots, vlen, i;
	uint16_t fn;

	wire_r_init(&r, buf, len);
	if (wire_get_u16(&r, &fn) == -1 || fn >= prog->tp_nthreads ||
	    prog->tp_threads[fn] == NULL ||
	    wire_get_u32(&r, &arglen) == -1 || arglen > CN_VALUE_MAX ||
	    wire_get_ref(&r, &arg, arglen) == -1 ||
	    wire_get_u32(&r, &nslots) == -1 || nslots == 0 ||
	    nslots > CN_SLOTS_MAX) {
		errno = ENOENT;
		return NULL;
	}
	if ((cl = cn_closure_new(st, prog->tp_threads[fn], k, arg, arglen,
	    nslots)) == NULL)
		return NULL;
	for (i = 0; i < nslots; i++)
		if (wire_get_u32(&r, &vlen) == -1 || vlen > CN_VALUE_MAX ||
		    wire_get_ref(&r, &v, vlen) == -1 ||
		    cn_closure_send(st, cn_closure_cont(st, cl, i), v, vlen,
		    &ready) == -1)
			break;
	if (i < nslots || ready != cl || wire_get_end(&r) == -1) {
		cn_closure_free(st, cl);
		errno = ENOENT;
		return NULL;
	}
	return cl;
}
