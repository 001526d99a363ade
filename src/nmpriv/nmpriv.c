/* nmpriv — the node manager's parent/engine messages (nmpriv.h). */
#include "nmpriv.h"

#include <errno.h>
#include <string.h>

#include "proto_pred.h"
#include "proto_proc.h"
#include "wire.h"

_Static_assert(NMPRIV_BASE >= PRIV_M_MAX, "nmpriv's types overlap priv's");
_Static_assert(NMPRIV_MSG_MAX <= PRIV_MSG_MAX, "a spawn request exceeds "
    "priv's message");

static const char *const names[NMPRIV_TYPE_MAX - NMPRIV_BASE] = {
	[NMPRIV_SPAWN - NMPRIV_BASE] = "SPAWN",
	[NMPRIV_STOP - NMPRIV_BASE] = "STOP",
	[NMPRIV_FREEZE - NMPRIV_BASE] = "FREEZE",
	[NMPRIV_FORGET - NMPRIV_BASE] = "FORGET",
	[NMPRIV_HELLO - NMPRIV_BASE] = "HELLO",
	[NMPRIV_SPAWNED - NMPRIV_BASE] = "SPAWNED",
	[NMPRIV_WORKER - NMPRIV_BASE] = "WORKER",
	[NMPRIV_SENSE - NMPRIV_BASE] = "SENSE",
	[NMPRIV_INPUT - NMPRIV_BASE] = "INPUT",
	[NMPRIV_VACATE - NMPRIV_BASE] = "VACATE",
	[NMPRIV_MEAS - NMPRIV_BASE] = "MEAS",
	[NMPRIV_PIDQ - NMPRIV_BASE] = "PIDQ",
	[NMPRIV_PIDA - NMPRIV_BASE] = "PIDA",
};

const char *
nmpriv_type_name(uint16_t t)
{
	return t >= NMPRIV_BASE && t < NMPRIV_TYPE_MAX ?
	    names[t - NMPRIV_BASE] : "?";
}

/* The fields each type must hold valid values in, both ways. */
static int
valid(const struct nmpriv_msg *m)
{
	switch (m->nm_type) {
	case NMPRIV_SPAWN:
		return m->nm_kind > NMPRIV_KIND_UNDEF &&
		    m->nm_kind < NMPRIV_KIND_MAX &&
		    (m->nm_tag[0] == '\0' || lpad_worker_ok(m->nm_tag)) &&
		    m->nm_desclen > 0 && m->nm_desclen <= NMPRIV_DESC_MAX &&
		    m->nm_desc != NULL;
	case NMPRIV_STOP:
		return lpad_worker_ok(m->nm_worker) &&
		    m->nm_grace_ms <= LPAD_GRACE_MAX_MS;
	case NMPRIV_VACATE:
		return lpad_worker_ok(m->nm_worker) &&
		    m->nm_grace_ms <= LPAD_GRACE_MAX_MS &&
		    m->nm_fast_ms < m->nm_grace_ms;
	case NMPRIV_FREEZE:
		return lpad_worker_ok(m->nm_worker) && m->nm_flag <= 1;
	case NMPRIV_FORGET:
		return lpad_worker_ok(m->nm_worker);
	case NMPRIV_SENSE:
		return m->nm_req != 0;
	case NMPRIV_MEAS:
		return m->nm_flag <= 1 && (m->nm_flag == 1 ||
		    m->nm_why[0] != '\0');
	case NMPRIV_INPUT:
		return m->nm_devices > 0 || m->nm_idle_ms == 0;
	case NMPRIV_PIDQ:
		return m->nm_req != 0 && m->nm_pid > 1 &&
		    m->nm_pid <= INT32_MAX && lpad_user_ok(m->nm_user);
	case NMPRIV_PIDA:
		return m->nm_req != 0 && m->nm_state < PROTO_PROC_MAX &&
		    (m->nm_flag & ~(NMPRIV_PID_STARTED |
		    NMPRIV_PID_WORKER)) == 0;
	case NMPRIV_HELLO:
		return m->nm_path[0] == '\0' || m->nm_path[0] == '/';
	case NMPRIV_SPAWNED:
		/* Started: a worker id; refused: none. */
		return m->nm_flag <= NMPRIV_SPAWN_NODE &&
		    (m->nm_worker[0] == '\0' ? m->nm_flag != 1 :
		    m->nm_flag == 1 && lpad_worker_ok(m->nm_worker));
	case NMPRIV_WORKER:
		return lpad_worker_ok(m->nm_worker) &&
		    m->nm_kind > NMPRIV_KIND_UNDEF &&
		    m->nm_kind < NMPRIV_KIND_MAX &&
		    /* "": a worker the parent no longer knows, gone */
		    (lpad_user_ok(m->nm_user) || (m->nm_user[0] == '\0' &&
		    m->nm_state == NMPRIV_W_EXITED)) &&
		    m->nm_state > NMPRIV_W_UNDEF &&
		    m->nm_state < NMPRIV_W_MAX &&
		    m->nm_how < LPAD_HOW_MAX &&
		    (m->nm_state != NMPRIV_W_EXITED ||
		    m->nm_how != LPAD_HOW_UNDEF) &&
		    (m->nm_state == NMPRIV_W_EXITED ||
		    (m->nm_cpu_ms == LPAD_USAGE_NONE &&
		    m->nm_maxrss_kb == LPAD_USAGE_NONE));
	default:
		return 0;
	}
}

/* The body alone: priv's header goes before it. */
static int
encode_body(const struct nmpriv_msg *m, uint8_t *buf, size_t bufsz,
    size_t *lenp)
{
	struct wire_w w;

	if (!valid(m)) {
		errno = EINVAL;
		return -1;
	}
	wire_w_init(&w, buf, bufsz);
	switch (m->nm_type) {
	case NMPRIV_SPAWN:
		wire_put_u32(&w, m->nm_req);
		wire_put_u8(&w, m->nm_kind);
		wire_put_str(&w, m->nm_tag);
		wire_put_u32(&w, m->nm_desclen);
		wire_put_bytes(&w, m->nm_desc, m->nm_desclen);
		break;
	case NMPRIV_STOP:
		wire_put_str(&w, m->nm_worker);
		wire_put_u32(&w, m->nm_grace_ms);
		break;
	case NMPRIV_VACATE:
		wire_put_str(&w, m->nm_worker);
		wire_put_u32(&w, m->nm_grace_ms);
		wire_put_u32(&w, m->nm_fast_ms);
		break;
	case NMPRIV_FREEZE:
		wire_put_str(&w, m->nm_worker);
		wire_put_u8(&w, m->nm_flag);
		break;
	case NMPRIV_FORGET:
		wire_put_str(&w, m->nm_worker);
		break;
	case NMPRIV_HELLO:
		wire_put_str(&w, m->nm_path);
		break;
	case NMPRIV_SPAWNED:
		wire_put_u32(&w, m->nm_req);
		wire_put_u8(&w, m->nm_flag);
		wire_put_str(&w, m->nm_worker);
		wire_put_u32(&w, m->nm_lpad);
		wire_put_str(&w, m->nm_why);
		break;
	case NMPRIV_WORKER:
		wire_put_str(&w, m->nm_worker);
		wire_put_u8(&w, m->nm_kind);
		wire_put_u32(&w, m->nm_job);
		wire_put_u32(&w, m->nm_task);
		wire_put_str(&w, m->nm_user);
		wire_put_u32(&w, m->nm_lpad);
		wire_put_u8(&w, m->nm_state);
		wire_put_u8(&w, m->nm_how);
		wire_put_u32(&w, m->nm_code);
		wire_put_u64(&w, m->nm_cpu_ms);
		wire_put_u64(&w, m->nm_maxrss_kb);
		break;
	case NMPRIV_INPUT:
		wire_put_u32(&w, m->nm_devices);
		wire_put_u64(&w, m->nm_idle_ms);
		break;
	case NMPRIV_SENSE:
		wire_put_u32(&w, m->nm_req);
		break;
	case NMPRIV_PIDQ:
		wire_put_u32(&w, m->nm_req);
		wire_put_u32(&w, m->nm_pid);
		wire_put_u64(&w, m->nm_start);
		wire_put_str(&w, m->nm_user);
		break;
	case NMPRIV_PIDA:
		wire_put_u32(&w, m->nm_req);
		wire_put_u8(&w, m->nm_state);
		wire_put_u8(&w, m->nm_flag);
		break;
	case NMPRIV_MEAS:
		wire_put_u32(&w, m->nm_req);
		wire_put_u8(&w, m->nm_flag);
		if (m->nm_flag)
			proto_pred_meas_put(&w, &m->nm_meas);
		else
			wire_put_str(&w, m->nm_why);
		break;
	default:
		break;
	}
	if (wire_w_ok(&w) == -1) {
		errno = EINVAL;
		return -1;
	}
	*lenp = w.ww_len;
	return 0;
}

/* One body at a time: the encoders' scratch, priv's header left out. */
static uint8_t	scratch[NMPRIV_MSG_MAX - PRIV_HDR_LEN];

int
nmpriv_encode(const struct nmpriv_msg *m, uint8_t *buf, size_t bufsz,
    size_t *lenp)
{
	size_t len;

	if (encode_body(m, scratch, sizeof(scratch), &len) == -1)
		return -1;
	if ((*lenp = priv_msg_enc(m->nm_type, scratch, len, buf,
	    bufsz)) == 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
nmpriv_send(struct priv_chan *pc, const struct nmpriv_msg *m)
{
	size_t len;

	if (encode_body(m, scratch, sizeof(scratch), &len) == -1)
		return -1;
	return priv_send(pc, m->nm_type, scratch, len);
}

int
nmpriv_decode(struct nmpriv_msg *m, const uint8_t *buf, size_t len)
{
	const uint8_t *body;
	uint16_t type;
	size_t blen;

	if (len > NMPRIV_MSG_MAX ||
	    priv_msg_dec(buf, len, &type, &body, &blen) == -1) {
		memset(m, 0, sizeof(*m));
		errno = EBADMSG;
		return -1;
	}
	return nmpriv_decode_body(m, type, body, blen);
}

int
nmpriv_decode_body(struct nmpriv_msg *m, uint16_t type, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;
	int bad = 0;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (len > NMPRIV_MSG_MAX)
		goto bad;
	m->nm_type = type;
	switch (m->nm_type) {
	case NMPRIV_SPAWN:
		bad = wire_get_u32(&r, &m->nm_req) == -1 ||
		    wire_get_u8(&r, &m->nm_kind) == -1 ||
		    wire_get_str(&r, m->nm_tag, sizeof(m->nm_tag)) == -1 ||
		    wire_get_u32(&r, &m->nm_desclen) == -1 ||
		    m->nm_desclen > NMPRIV_DESC_MAX ||
		    wire_get_ref(&r, &m->nm_desc, m->nm_desclen) == -1;
		break;
	case NMPRIV_STOP:
		bad = wire_get_str(&r, m->nm_worker,
		    sizeof(m->nm_worker)) == -1 ||
		    wire_get_u32(&r, &m->nm_grace_ms) == -1;
		break;
	case NMPRIV_VACATE:
		bad = wire_get_str(&r, m->nm_worker,
		    sizeof(m->nm_worker)) == -1 ||
		    wire_get_u32(&r, &m->nm_grace_ms) == -1 ||
		    wire_get_u32(&r, &m->nm_fast_ms) == -1;
		break;
	case NMPRIV_FREEZE:
		bad = wire_get_str(&r, m->nm_worker,
		    sizeof(m->nm_worker)) == -1 ||
		    wire_get_u8(&r, &m->nm_flag) == -1;
		break;
	case NMPRIV_FORGET:
		bad = wire_get_str(&r, m->nm_worker,
		    sizeof(m->nm_worker)) == -1;
		break;
	case NMPRIV_SENSE:
		bad = wire_get_u32(&r, &m->nm_req) == -1;
		break;
	case NMPRIV_PIDQ:
		bad = wire_get_u32(&r, &m->nm_req) == -1 ||
		    wire_get_u32(&r, &m->nm_pid) == -1 ||
		    wire_get_u64(&r, &m->nm_start) == -1 ||
		    wire_get_str(&r, m->nm_user, sizeof(m->nm_user)) == -1;
		break;
	case NMPRIV_PIDA:
		bad = wire_get_u32(&r, &m->nm_req) == -1 ||
		    wire_get_u8(&r, &m->nm_state) == -1 ||
		    wire_get_u8(&r, &m->nm_flag) == -1;
		break;
	case NMPRIV_MEAS:
		bad = wire_get_u32(&r, &m->nm_req) == -1 ||
		    wire_get_u8(&r, &m->nm_flag) == -1 || m->nm_flag > 1 ||
		    (m->nm_flag ? proto_pred_meas_get(&r, &m->nm_meas) :
		    wire_get_str(&r, m->nm_why, sizeof(m->nm_why))) == -1;
		break;
	case NMPRIV_INPUT:
		bad = wire_get_u32(&r, &m->nm_devices) == -1 ||
		    wire_get_u64(&r, &m->nm_idle_ms) == -1;
		break;
	case NMPRIV_HELLO:
		bad = wire_get_str(&r, m->nm_path, sizeof(m->nm_path)) == -1;
		break;
	case NMPRIV_SPAWNED:
		bad = wire_get_u32(&r, &m->nm_req) == -1 ||
		    wire_get_u8(&r, &m->nm_flag) == -1 ||
		    wire_get_str(&r, m->nm_worker,
		    sizeof(m->nm_worker)) == -1 ||
		    wire_get_u32(&r, &m->nm_lpad) == -1 ||
		    wire_get_str(&r, m->nm_why, sizeof(m->nm_why)) == -1;
		break;
	case NMPRIV_WORKER:
		bad = wire_get_str(&r, m->nm_worker,
		    sizeof(m->nm_worker)) == -1 ||
		    wire_get_u8(&r, &m->nm_kind) == -1 ||
		    wire_get_u32(&r, &m->nm_job) == -1 ||
		    wire_get_u32(&r, &m->nm_task) == -1 ||
		    wire_get_str(&r, m->nm_user, sizeof(m->nm_user)) == -1 ||
		    wire_get_u32(&r, &m->nm_lpad) == -1 ||
		    wire_get_u8(&r, &m->nm_state) == -1 ||
		    wire_get_u8(&r, &m->nm_how) == -1 ||
		    wire_get_u32(&r, &m->nm_code) == -1 ||
		    wire_get_u64(&r, &m->nm_cpu_ms) == -1 ||
		    wire_get_u64(&r, &m->nm_maxrss_kb) == -1;
		break;
	default:
		goto bad;
	}
	if (bad || wire_get_end(&r) == -1 || !valid(m))
		goto bad;
	return 0;
 bad:
	memset(m, 0, sizeof(*m));
	errno = EBADMSG;
	return -1;
}
