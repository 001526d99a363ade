/* cn_wire — frames, records and the clearinghouse's messages as bytes. */
#include "cn.h"
#include "proto.h"

#include <errno.h>
#include <string.h>

int
cn_frame_put(struct wire_w *w, const struct cn_frame *f)
{
	if (f->fr_len > CN_ARG_MAX)
		return -1;
	wire_put_u16(w, f->fr_fn);
	wire_put_u16(w, f->fr_len);
	wire_put_bytes(w, f->fr_arg, f->fr_len);
	return wire_w_ok(w);
}

int
cn_frame_get(struct wire_r *r, struct cn_frame *f)
{
	memset(f, 0, sizeof(*f));
	if (wire_get_u16(r, &f->fr_fn) == -1 ||
	    wire_get_u16(r, &f->fr_len) == -1 || f->fr_len > CN_ARG_MAX ||
	    wire_get_bytes(r, f->fr_arg, f->fr_len) == -1)
		return -1;
	return 0;
}

/* Checks the whole list first, so a bad one hands nothing out. */
int
cn_records_walk(const uint8_t *p, size_t len, cn_record_fn *fn, void *arg)
{
	struct wire_r r;
	const uint8_t *data;
	uint32_t key, n;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		wire_r_init(&r, p, len);
		while (r.wr_left > 0) {
			if (wire_get_u32(&r, &key) == -1 ||
			    wire_get_u32(&r, &n) == -1 || n > CN_RECORD_MAX ||
			    wire_get_ref(&r, &data, n) == -1)
				return -1;
			if (pass == 1 && fn != NULL)
				fn(arg, key, data, n);
		}
	}
	return 0;
}

static void
put_frames(struct wire_w *w, const struct cn_msg *m)
{
	uint16_t i;

	wire_put_u16(w, m->cm_nframes);
	for (i = 0; i < m->cm_nframes; i++)
		if (cn_frame_put(w, &m->cm_frames[i]) == -1)
			w->ww_overflow = 1;
}

static int
get_frames(struct wire_r *r, struct cn_msg *m)
{
	uint16_t i;

	if (wire_get_u16(r, &m->cm_nframes) == -1 ||
	    m->cm_nframes > CN_EXPORT_MAX)
		return -1;
	for (i = 0; i < m->cm_nframes; i++)
		if (cn_frame_get(r, &m->cm_frames[i]) == -1)
			return -1;
	return 0;
}

size_t
cn_msg_enc(enum cn_handler h, const struct cn_msg *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;
	int i;

	wire_w_init(&w, buf, cap);
	switch (h) {
	case CN_H_REGISTER:
		wire_put_u8(&w, m->cm_root);
		wire_put_u64(&w, m->cm_seq);
		wire_put_str(&w, m->cm_node);
		put_frames(&w, m);
		wire_put_u8(&w, m->cm_nodemgr.ma_family != 0);
		if (m->cm_nodemgr.ma_family != 0)
			proto_put_addr(&w, &m->cm_nodemgr);
		wire_put_bytes(&w, m->cm_exe, sizeof(m->cm_exe));
		wire_put_bytes(&w, m->cm_box_pk, sizeof(m->cm_box_pk));
		break;
	case CN_H_WELCOME:
		wire_put_u32(&w, m->cm_worker);
		wire_put_u32(&w, m->cm_keyid);
		wire_put_bytes(&w, m->cm_sealed, sizeof(m->cm_sealed));
		break;
	case CN_H_STEAL:
	case CN_H_FINISH_ACK:
	case CN_H_LEAVE:
	case CN_H_GONE:
		wire_put_u32(&w, m->cm_worker);
		break;
	case CN_H_ALIVE:
		wire_put_u32(&w, m->cm_worker);
		wire_put_u64(&w, m->cm_seq);	/* the member list's version */
		break;
	case CN_H_HEARTBEAT:
		wire_put_u32(&w, m->cm_worker);
		wire_put_u64(&w, m->cm_stat[0]);
		wire_put_u8(&w, (uint8_t)m->cm_stat[1]);
		break;
	case CN_H_ASSIGN:
		wire_put_u32(&w, m->cm_unit);
		wire_put_u32(&w, m->cm_attempt);
		put_frames(&w, m);
		break;
	case CN_H_GIVE:
		wire_put_u32(&w, m->cm_count);
		break;
	case CN_H_EXPORT:
		wire_put_u32(&w, m->cm_worker);
		wire_put_u32(&w, m->cm_unit);
		wire_put_u32(&w, m->cm_attempt);
		wire_put_u64(&w, m->cm_seq);
		put_frames(&w, m);
		break;
	case CN_H_EXPORT_ACK:
		wire_put_u64(&w, m->cm_seq);
		break;
	case CN_H_DONE:
		wire_put_u32(&w, m->cm_worker);
		wire_put_u32(&w, m->cm_unit);
		wire_put_u32(&w, m->cm_attempt);
		wire_put_u32(&w, m->cm_count);
		wire_put_u64(&w, (uint64_t)m->cm_sum);
		wire_put_u64(&w, m->cm_stat[0]);
		wire_put_u32(&w, (uint32_t)m->cm_len);
		wire_put_bytes(&w, m->cm_data, m->cm_len);
		break;
	case CN_H_DONE_ACK:
		wire_put_u32(&w, m->cm_unit);
		wire_put_u32(&w, m->cm_attempt);
		break;
	case CN_H_RESULT:
		wire_put_u32(&w, m->cm_unit);
		wire_put_u32(&w, (uint32_t)m->cm_len);
		wire_put_bytes(&w, m->cm_data, m->cm_len);
		break;
	case CN_H_RESULT_ACK:
		wire_put_u32(&w, m->cm_worker);
		wire_put_u32(&w, m->cm_unit);
		break;
	case CN_H_FINISH:
		wire_put_u64(&w, (uint64_t)m->cm_sum);
		for (i = 0; i < 4; i++)
			wire_put_u64(&w, m->cm_stat[i]);
		break;
	default:
		return 0;
	}
	if (m->cm_len > CN_RECORDS_MAX || wire_w_ok(&w) == -1)
		return 0;
	return w.ww_len;
}

int
cn_msg_dec(enum cn_handler h, struct cn_msg *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;
	uint32_t n;
	uint64_t sum;
	uint8_t has;
	int i;

	memset(m, 0, offsetof(struct cn_msg, cm_frames));
	wire_r_init(&r, buf, len);
	switch (h) {
	case CN_H_REGISTER:
		if (wire_get_u8(&r, &m->cm_root) == -1 || m->cm_root > 1 ||
		    wire_get_u64(&r, &m->cm_seq) == -1 ||
		    wire_get_str(&r, m->cm_node, sizeof(m->cm_node)) == -1 ||
		    get_frames(&r, m) == -1 || m->cm_nframes != m->cm_root ||
		    wire_get_u8(&r, &has) == -1 || has > 1 ||
		    (has && proto_get_addr(&r, &m->cm_nodemgr) == -1) ||
		    wire_get_bytes(&r, m->cm_exe, sizeof(m->cm_exe)) == -1 ||
		    wire_get_bytes(&r, m->cm_box_pk,
		    sizeof(m->cm_box_pk)) == -1)
			return -1;
		break;
	case CN_H_WELCOME:
		if (wire_get_u32(&r, &m->cm_worker) == -1 ||
		    wire_get_u32(&r, &m->cm_keyid) == -1 ||
		    wire_get_bytes(&r, m->cm_sealed,
		    sizeof(m->cm_sealed)) == -1)
			return -1;
		break;
	case CN_H_STEAL:
	case CN_H_FINISH_ACK:
	case CN_H_LEAVE:
	case CN_H_GONE:
		if (wire_get_u32(&r, &m->cm_worker) == -1)
			return -1;
		break;
	case CN_H_ALIVE:
		if (wire_get_u32(&r, &m->cm_worker) == -1 ||
		    wire_get_u64(&r, &m->cm_seq) == -1)
			return -1;
		break;
	case CN_H_HEARTBEAT:
		if (wire_get_u32(&r, &m->cm_worker) == -1 ||
		    wire_get_u64(&r, &m->cm_stat[0]) == -1 ||
		    wire_get_u8(&r, &has) == -1 || has > CN_BEAT_STARVED)
			return -1;
		m->cm_stat[1] = has;
		break;
	case CN_H_ASSIGN:
		if (wire_get_u32(&r, &m->cm_unit) == -1 ||
		    wire_get_u32(&r, &m->cm_attempt) == -1 ||
		    get_frames(&r, m) == -1 || m->cm_nframes != 1)
			return -1;
		break;
	case CN_H_GIVE:
		if (wire_get_u32(&r, &m->cm_count) == -1 ||
		    m->cm_count > CN_EXPORT_MAX)
			return -1;
		break;
	case CN_H_EXPORT:
		if (wire_get_u32(&r, &m->cm_worker) == -1 ||
		    wire_get_u32(&r, &m->cm_unit) == -1 ||
		    wire_get_u32(&r, &m->cm_attempt) == -1 ||
		    wire_get_u64(&r, &m->cm_seq) == -1 ||
		    get_frames(&r, m) == -1)
			return -1;
		break;
	case CN_H_EXPORT_ACK:
		if (wire_get_u64(&r, &m->cm_seq) == -1)
			return -1;
		break;
	case CN_H_DONE:
		if (wire_get_u32(&r, &m->cm_worker) == -1 ||
		    wire_get_u32(&r, &m->cm_unit) == -1 ||
		    wire_get_u32(&r, &m->cm_attempt) == -1 ||
		    wire_get_u32(&r, &m->cm_count) == -1 ||
		    wire_get_u64(&r, &sum) == -1 ||
		    wire_get_u64(&r, &m->cm_stat[0]) == -1 ||
		    wire_get_u32(&r, &n) == -1 || n > CN_RECORDS_MAX ||
		    wire_get_ref(&r, &m->cm_data, n) == -1 ||
		    cn_records_walk(m->cm_data, n, NULL, NULL) == -1)
			return -1;
		m->cm_sum = (int64_t)sum;
		m->cm_len = n;
		break;
	case CN_H_DONE_ACK:
		if (wire_get_u32(&r, &m->cm_unit) == -1 ||
		    wire_get_u32(&r, &m->cm_attempt) == -1)
			return -1;
		break;
	case CN_H_RESULT:
		if (wire_get_u32(&r, &m->cm_unit) == -1 ||
		    wire_get_u32(&r, &n) == -1 || n > CN_RECORDS_MAX ||
		    wire_get_ref(&r, &m->cm_data, n) == -1 ||
		    cn_records_walk(m->cm_data, n, NULL, NULL) == -1)
			return -1;
		m->cm_len = n;
		break;
	case CN_H_RESULT_ACK:
		if (wire_get_u32(&r, &m->cm_worker) == -1 ||
		    wire_get_u32(&r, &m->cm_unit) == -1)
			return -1;
		break;
	case CN_H_FINISH:
		if (wire_get_u64(&r, &sum) == -1)
			return -1;
		for (i = 0; i < 4; i++)
			if (wire_get_u64(&r, &m->cm_stat[i]) == -1)
				return -1;
		m->cm_sum = (int64_t)sum;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return wire_get_end(&r);
}
