/* cn_swire — the stealing messages as bytes (include/cn_steal.h). */
#include "cn_steal.h"
#include "proto.h"

#include <errno.h>
#include <string.h>

static void
put_cont(struct wire_w *w, const struct cn_cont *k)
{
	wire_put_u32(w, k->k_owner);
	wire_put_u32(w, k->k_index);
	wire_put_u32(w, k->k_gen);
	wire_put_u32(w, k->k_slot);
}

static int
get_cont(struct wire_r *r, struct cn_cont *k)
{
	if (wire_get_u32(r, &k->k_owner) == -1 ||
	    wire_get_u32(r, &k->k_index) == -1 ||
	    wire_get_u32(r, &k->k_gen) == -1 ||
	    wire_get_u32(r, &k->k_slot) == -1)
		return -1;
	return 0;
}

size_t
cn_smsg_enc(enum cn_steal_handler h, const struct cn_smsg *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;
	uint32_t i;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->sm_from);
	switch (h) {
	case CN_H_MEMBERS_ASK:
		wire_put_u64(&w, m->sm_version);
		break;
	case CN_H_MEMBERS:
		if (m->sm_nmembers > CN_MEMBERS_MAX)
			return 0;
		wire_put_u64(&w, m->sm_version);
		wire_put_u32(&w, m->sm_maxid);
		wire_put_u32(&w, m->sm_nmembers);
		for (i = 0; i < m->sm_nmembers; i++) {
			wire_put_u32(&w, m->sm_members[i].mb_id);
			wire_put_u8(&w, m->sm_members[i].mb_root);
			proto_put_addr(&w, &m->sm_members[i].mb_addr);
		}
		break;
	case CN_H_TSTEAL:
	case CN_H_TNONE:
		wire_put_u64(&w, m->sm_serial);
		break;
	case CN_H_XFER:
		if (m->sm_kind == CN_X_UNDEF || m->sm_kind >= CN_X_MAX ||
		    m->sm_total > CN_VALUE_MAX || m->sm_len > CN_XFER_CHUNK ||
		    m->sm_off > m->sm_total ||
		    m->sm_len > m->sm_total - m->sm_off)
			return 0;
		wire_put_u64(&w, m->sm_serial);
		wire_put_u8(&w, m->sm_kind);
		put_cont(&w, &m->sm_k);
		wire_put_u16(&w, m->sm_fn);
		wire_put_u64(&w, m->sm_steal);
		wire_put_u32(&w, m->sm_total);
		wire_put_u32(&w, m->sm_off);
		wire_put_u32(&w, m->sm_len);
		wire_put_bytes(&w, m->sm_data, m->sm_len);
		break;
	case CN_H_XFER_ACK:
		wire_put_u64(&w, m->sm_serial);
		wire_put_u32(&w, m->sm_acked);
		wire_put_u8(&w, m->sm_done);
		break;
	case CN_H_TSTATS:
		for (i = 0; i < CN_TSTATS_N; i++)
			wire_put_u64(&w, m->sm_stat[i]);
		break;
	default:
		return 0;
	}
	if (wire_w_ok(&w) == -1)
		return 0;
	return w.ww_len;
}

int
cn_smsg_dec(enum cn_steal_handler h, struct cn_smsg *m, const uint8_t *buf,
    size_t len)
{
	struct cn_member *mb = m->sm_members;
	struct wire_r r;
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->sm_members = mb;
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->sm_from) == -1)
		return -1;
	switch (h) {
	case CN_H_MEMBERS_ASK:
		if (wire_get_u64(&r, &m->sm_version) == -1)
			return -1;
		break;
	case CN_H_MEMBERS:
		if (mb == NULL || wire_get_u64(&r, &m->sm_version) == -1 ||
		    wire_get_u32(&r, &m->sm_maxid) == -1 ||
		    wire_get_u32(&r, &m->sm_nmembers) == -1 ||
		    m->sm_nmembers > CN_MEMBERS_MAX)
			return -1;
		for (i = 0; i < m->sm_nmembers; i++)
			if (wire_get_u32(&r, &mb[i].mb_id) == -1 ||
			    mb[i].mb_id == 0 || mb[i].mb_id > m->sm_maxid ||
			    wire_get_u8(&r, &mb[i].mb_root) == -1 ||
			    mb[i].mb_root > 1 ||
			    proto_get_addr(&r, &mb[i].mb_addr) == -1)
				return -1;
		break;
	case CN_H_TSTEAL:
	case CN_H_TNONE:
		if (wire_get_u64(&r, &m->sm_serial) == -1 ||
		    m->sm_serial == 0)
			return -1;
		break;
	case CN_H_XFER:
		if (wire_get_u64(&r, &m->sm_serial) == -1 ||
		    m->sm_serial == 0 ||
		    wire_get_u8(&r, &m->sm_kind) == -1 ||
		    m->sm_kind == CN_X_UNDEF || m->sm_kind >= CN_X_MAX ||
		    get_cont(&r, &m->sm_k) == -1 ||
		    wire_get_u16(&r, &m->sm_fn) == -1 ||
		    wire_get_u64(&r, &m->sm_steal) == -1 ||
		    wire_get_u32(&r, &m->sm_total) == -1 ||
		    m->sm_total > CN_VALUE_MAX ||
		    wire_get_u32(&r, &m->sm_off) == -1 ||
		    wire_get_u32(&r, &m->sm_len) == -1 ||
		    m->sm_len > CN_XFER_CHUNK || m->sm_off > m->sm_total ||
		    m->sm_len > m->sm_total - m->sm_off ||
		    wire_get_ref(&r, &m->sm_data, m->sm_len) == -1)
			return -1;
		/* A closure's continuation is always its victim's book. */
		if (m->sm_kind == CN_X_CLOSURE &&
		    (!(m->sm_k.k_index & CN_K_BOOK) || m->sm_k.k_slot != 0 ||
		    m->sm_steal == 0))
			return -1;
		break;
	case CN_H_XFER_ACK:
		if (wire_get_u64(&r, &m->sm_serial) == -1 ||
		    m->sm_serial == 0 ||
		    wire_get_u32(&r, &m->sm_acked) == -1 ||
		    m->sm_acked > CN_VALUE_MAX ||
		    wire_get_u8(&r, &m->sm_done) == -1 || m->sm_done > 1)
			return -1;
		break;
	case CN_H_TSTATS:
		for (i = 0; i < CN_TSTATS_N; i++)
			if (wire_get_u64(&r, &m->sm_stat[i]) == -1)
				return -1;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return wire_get_end(&r);
}
