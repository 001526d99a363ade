/* proto_stage — the description's stage part, STAGE_REQ and STAGE. */
#include <string.h>

#include "proto.h"
#include "proto_stage.h"

static size_t
finish(const struct wire_w *w)
{
	return wire_w_ok(w) == 0 ? w->ww_len : 0;
}

void
proto_stage_put(struct wire_w *w, const struct stage_list *l)
{
	uint16_t i;

	/* Nothing staged: the bytes of a description from before. */
	if (l->sl_nin == 0 && l->sl_nout == 0)
		return;
	wire_put_u16(w, l->sl_nin);
	for (i = 0; i < l->sl_nin && i < STAGE_FILES_MAX; i++) {
		wire_put_str(w, l->sl_in[i].sf_name);
		wire_put_u64(w, l->sl_in[i].sf_size);
		wire_put_bytes(w, l->sl_in[i].sf_hash, STAGE_HASH_LEN);
	}
	wire_put_u16(w, l->sl_nout);
	for (i = 0; i < l->sl_nout && i < STAGE_GLOBS_MAX; i++)
		wire_put_str(w, l->sl_out[i]);
}

int
proto_stage_get(struct wire_r *r, struct stage_list *l)
{
	char why[64];
	uint16_t i, j;

	memset(l, 0, sizeof(*l));
	if (r->wr_left == 0)
		return 0;
	if (wire_get_u16(r, &l->sl_nin) == -1 ||
	    l->sl_nin > STAGE_FILES_MAX)
		goto bad;
	for (i = 0; i < l->sl_nin; i++) {
		if (wire_get_str(r, l->sl_in[i].sf_name,
		    sizeof(l->sl_in[i].sf_name)) == -1 ||
		    stage_name_ok(l->sl_in[i].sf_name, 0, why,
		    sizeof(why)) == -1 ||
		    wire_get_u64(r, &l->sl_in[i].sf_size) == -1 ||
		    wire_get_bytes(r, l->sl_in[i].sf_hash,
		    STAGE_HASH_LEN) == -1)
			goto bad;
		/* Two files of one name would overwrite each other. */
		for (j = 0; j < i; j++)
			if (strcmp(l->sl_in[j].sf_name,
			    l->sl_in[i].sf_name) == 0)
				goto bad;
	}
	if (wire_get_u16(r, &l->sl_nout) == -1 ||
	    l->sl_nout > STAGE_GLOBS_MAX)
		goto bad;
	for (i = 0; i < l->sl_nout; i++)
		if (wire_get_str(r, l->sl_out[i], sizeof(l->sl_out[i])) ==
		    -1 || stage_name_ok(l->sl_out[i], 1, why, sizeof(why)) ==
		    -1)
			goto bad;
	if (l->sl_nin == 0 && l->sl_nout == 0)
		goto bad;	/* not canonical: absent instead */
	return 0;
 bad:
	memset(l, 0, sizeof(*l));
	return -1;
}

size_t
proto_stage_req_enc(const struct proto_stage_req *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->sq_job);
	wire_put_u32(&w, m->sq_task);
	wire_put_str(&w, m->sq_node);
	wire_put_u16(&w, m->sq_file);
	wire_put_u64(&w, m->sq_offset);
	return finish(&w);
}

int
proto_stage_req_dec(struct proto_stage_req *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->sq_job) == -1 || m->sq_job == 0 ||
	    wire_get_u32(&r, &m->sq_task) == -1 ||
	    wire_get_str(&r, m->sq_node, sizeof(m->sq_node)) == -1 ||
	    m->sq_node[0] == '\0' ||
	    wire_get_u16(&r, &m->sq_file) == -1 ||
	    m->sq_file >= STAGE_FILES_MAX ||
	    wire_get_u64(&r, &m->sq_offset) == -1 ||
	    m->sq_offset % STAGE_CHUNK != 0 ||
	    wire_get_end(&r) == -1)
		return -1;
	return 0;
}

size_t
proto_stage_enc(const struct proto_stage *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	if (m->sg_len > STAGE_CHUNK)
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->sg_job);
	wire_put_u32(&w, m->sg_task);
	wire_put_u16(&w, m->sg_file);
	wire_put_u64(&w, m->sg_offset);
	wire_put_u32(&w, m->sg_len);
	wire_put_bytes(&w, m->sg_data, m->sg_len);
	return finish(&w);
}

int
proto_stage_dec(struct proto_stage *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->sg_job) == -1 || m->sg_job == 0 ||
	    wire_get_u32(&r, &m->sg_task) == -1 ||
	    wire_get_u16(&r, &m->sg_file) == -1 ||
	    m->sg_file >= STAGE_FILES_MAX ||
	    wire_get_u64(&r, &m->sg_offset) == -1 ||
	    m->sg_offset % STAGE_CHUNK != 0 ||
	    wire_get_u32(&r, &m->sg_len) == -1 || m->sg_len > STAGE_CHUNK ||
	    wire_get_ref(&r, &m->sg_data, m->sg_len) == -1 ||
	    wire_get_end(&r) == -1)
		return -1;
	return 0;
}
