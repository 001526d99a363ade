/*
 * lpad_msg — the launch pad's control messages (layout in lpad.h):
 * a version and type byte, then a fixed body per type, every field
 * big-endian through wire.h.  The decoder reads the fields with a
 * bounded cursor, refuses leftover bytes, then checks every value.
 */
#include "lpad.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "wire.h"

static int	lpad_status_valid(const struct lpad_status *);
static int	lpad_msg_valid(const struct lpad_msg *);

/* The signals SIGNAL may deliver; anything else is refused. */
int
lpad_signal_ok(int signo)
{
	switch (signo) {
	case SIGQUIT:
	case SIGTERM:
	case SIGKILL:
	case SIGSTOP:
	case SIGCONT:
	case SIGHUP:
	case SIGINT:
	case SIGUSR1:
	case SIGUSR2:
		return 1;
	default:
		return 0;
	}
}

static int
lpad_status_valid(const struct lpad_status *st)
{
	if (!lpad_worker_ok(st->st_worker) || !lpad_user_ok(st->st_user))
		return 0;
	if (st->st_lpad_pid == 0 || st->st_lpad_pid > INT32_MAX ||
	    st->st_pid == 0 || st->st_pid > INT32_MAX ||
	    st->st_pgid == 0 || st->st_pgid > INT32_MAX)
		return 0;
	if (st->st_stopping > 1)
		return 0;
	switch (st->st_state) {
	case LPAD_STATE_RUNNING:
		return st->st_how == LPAD_HOW_UNDEF && st->st_code == 0 &&
		    st->st_end_ms == 0 && st->st_cpu_ms == LPAD_USAGE_NONE &&
		    st->st_maxrss_kb == LPAD_USAGE_NONE;
	case LPAD_STATE_EXITED:
		if (st->st_how == LPAD_HOW_EXITED)
			return st->st_code <= 255;
		if (st->st_how == LPAD_HOW_SIGNAL)
			return st->st_code >= 1 && st->st_code < 128;
		return 0;
	default:
		return 0;
	}
}

static int
lpad_msg_valid(const struct lpad_msg *m)
{
	switch (m->lm_type) {
	case LPAD_MSG_STATUS:
	case LPAD_MSG_QUIT:
		return 1;
	case LPAD_MSG_SIGNAL:
		return m->lm_signo <= INT32_MAX &&
		    lpad_signal_ok((int)m->lm_signo);
	case LPAD_MSG_STOP:
		return m->lm_grace_ms <= LPAD_GRACE_MAX_MS;
	case LPAD_MSG_STATUS_REPLY:
		return lpad_status_valid(&m->lm_status);
	case LPAD_MSG_RESULT:
		return m->lm_req == LPAD_MSG_STATUS ||
		    m->lm_req == LPAD_MSG_SIGNAL ||
		    m->lm_req == LPAD_MSG_STOP || m->lm_req == LPAD_MSG_QUIT;
	default:
		return 0;
	}
}

int
lpad_msg_encode(const struct lpad_msg *m, uint8_t *buf, size_t bufsz,
    size_t *lenp)
{
	const struct lpad_status *st = &m->lm_status;
	struct wire_w w;

	if (!lpad_msg_valid(m)) {
		errno = EINVAL;
		return -1;
	}
	wire_w_init(&w, buf, bufsz < LPAD_MSG_LEN ? bufsz : LPAD_MSG_LEN);
	wire_put_u8(&w, LPAD_PROTO_VERSION);
	wire_put_u8(&w, m->lm_type);
	switch (m->lm_type) {
	case LPAD_MSG_SIGNAL:
		wire_put_u32(&w, m->lm_signo);
		break;
	case LPAD_MSG_STOP:
		wire_put_u32(&w, m->lm_grace_ms);
		break;
	case LPAD_MSG_STATUS_REPLY:
		wire_put_str(&w, st->st_worker);
		wire_put_u32(&w, st->st_job);
		wire_put_u32(&w, st->st_task);
		wire_put_str(&w, st->st_user);
		wire_put_u32(&w, st->st_lpad_pid);
		wire_put_u32(&w, st->st_pid);
		wire_put_u32(&w, st->st_pgid);
		wire_put_u8(&w, st->st_state);
		wire_put_u8(&w, st->st_stopping);
		wire_put_u8(&w, st->st_how);
		wire_put_u32(&w, st->st_code);
		wire_put_u64(&w, st->st_start_ms);
		wire_put_u64(&w, st->st_end_ms);
		wire_put_u64(&w, st->st_out_size);
		wire_put_u64(&w, st->st_err_size);
		wire_put_u64(&w, st->st_cpu_ms);
		wire_put_u64(&w, st->st_maxrss_kb);
		break;
	case LPAD_MSG_RESULT:
		wire_put_u8(&w, m->lm_req);
		wire_put_u32(&w, m->lm_error);
		break;
	default:
		break;		/* STATUS, QUIT: no body */
	}
	if (wire_w_ok(&w) == -1) {
		errno = EINVAL;
		return -1;
	}
	*lenp = w.ww_len;
	return 0;
}

int
lpad_msg_decode(struct lpad_msg *m, const uint8_t *buf, size_t len)
{
	struct lpad_status *st = &m->lm_status;
	struct wire_r r;
	uint8_t version;
	int bad = 0;

	memset(m, 0, sizeof(*m));
	if (len > LPAD_MSG_LEN)
		goto fail;
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &version) == -1 ||
	    version != LPAD_PROTO_VERSION ||
	    wire_get_u8(&r, &m->lm_type) == -1)
		goto fail;
	switch (m->lm_type) {
	case LPAD_MSG_STATUS:
	case LPAD_MSG_QUIT:
		break;
	case LPAD_MSG_SIGNAL:
		bad |= wire_get_u32(&r, &m->lm_signo);
		break;
	case LPAD_MSG_STOP:
		bad |= wire_get_u32(&r, &m->lm_grace_ms);
		break;
	case LPAD_MSG_STATUS_REPLY:
		bad |= wire_get_str(&r, st->st_worker, sizeof(st->st_worker));
		bad |= wire_get_u32(&r, &st->st_job);
		bad |= wire_get_u32(&r, &st->st_task);
		bad |= wire_get_str(&r, st->st_user, sizeof(st->st_user));
		bad |= wire_get_u32(&r, &st->st_lpad_pid);
		bad |= wire_get_u32(&r, &st->st_pid);
		bad |= wire_get_u32(&r, &st->st_pgid);
		bad |= wire_get_u8(&r, &st->st_state);
		bad |= wire_get_u8(&r, &st->st_stopping);
		bad |= wire_get_u8(&r, &st->st_how);
		bad |= wire_get_u32(&r, &st->st_code);
		bad |= wire_get_u64(&r, &st->st_start_ms);
		bad |= wire_get_u64(&r, &st->st_end_ms);
		bad |= wire_get_u64(&r, &st->st_out_size);
		bad |= wire_get_u64(&r, &st->st_err_size);
		/* Usage: 16 bytes, or none from an older launch pad. */
		st->st_cpu_ms = st->st_maxrss_kb = LPAD_USAGE_NONE;
		if (!bad && r.wr_left > 0) {
			bad |= wire_get_u64(&r, &st->st_cpu_ms);
			bad |= wire_get_u64(&r, &st->st_maxrss_kb);
		}
		break;
	case LPAD_MSG_RESULT:
		bad |= wire_get_u8(&r, &m->lm_req);
		bad |= wire_get_u32(&r, &m->lm_error);
		break;
	default:
		goto fail;
	}
	/* Validate only what was read whole and exactly. */
	if (bad || wire_get_end(&r) == -1 || !lpad_msg_valid(m))
		goto fail;
	return 0;

 fail:
	memset(m, 0, sizeof(*m));
	errno = EBADMSG;
	return -1;
}

const char *
lpad_status_str(const struct lpad_status *st, char *buf, size_t bufsz)
{
	if (st->st_state == LPAD_STATE_RUNNING)
		snprintf(buf, bufsz, "running");
	else if (st->st_how == LPAD_HOW_EXITED)
		snprintf(buf, bufsz, "exited %u", st->st_code);
	else if (st->st_how == LPAD_HOW_SIGNAL)
		snprintf(buf, bufsz, "signal %u", st->st_code);
	else
		snprintf(buf, bufsz, "unknown");
	return buf;
}
