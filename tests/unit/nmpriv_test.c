/* nmpriv_test — the node manager's parent/engine messages. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "codec_robust.h"
#include "nmpriv.h"
#include "proto_proc.h"

static uint8_t buf[NMPRIV_MSG_MAX + 16];

/* Decodes; 1 if what it took does not encode back to the same bytes. */
static int
dec(const uint8_t *p, size_t len)
{
	static uint8_t again[NMPRIV_MSG_MAX];
	struct nmpriv_msg m;
	size_t n;

	if (nmpriv_decode(&m, p, len) == -1)
		return -1;
	return nmpriv_encode(&m, again, sizeof(again), &n) == 0 &&
	    n == len && memcmp(again, p, len) == 0 ? 0 : 1;
}

/* Encodes, checks robustness, decodes back; returns the length. */
static size_t
roundtrip(const char *what, const struct nmpriv_msg *in,
    struct nmpriv_msg *out)
{
	size_t len = 0;

	ok(nmpriv_encode(in, buf, sizeof(buf), &len) == 0, "%s: encodes",
	    what);
	if (len <= MSG_PAYLOAD_MAX)
		robust(what, dec, buf, len);
	ok(nmpriv_decode(out, buf, len) == 0 &&
	    out->nm_type == in->nm_type, "%s: decodes to its type", what);
	return len;
}

/* MEAS: a measurement, or why there is none. */
static void
test_meas(void)
{
	static struct nmpriv_msg m, o;
	size_t len, i;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_MEAS;
	m.nm_req = 9;
	m.nm_flag = 1;
	m.nm_meas.pm_idle = 61.5;
	m.nm_meas.pm_nusers = 2;
	m.nm_meas.pm_load[0] = 1.25;
	m.nm_meas.pm_load[2] = 0.5;
	m.nm_meas.pm_mem = 2048;
	m.nm_meas.pm_tod = 1439;
	m.nm_meas.pm_nuser = PRED_MEAS_USERS_MAX;
	for (i = 0; i < PRED_MEAS_USERS_MAX; i++) {
		snprintf(m.nm_meas.pm_user[i].pu_name,
		    sizeof(m.nm_meas.pm_user[i].pu_name), "user%zu", i);
		m.nm_meas.pm_user[i].pu_idle = (double)i;
	}
	len = roundtrip("MEAS (every user)", &m, &o);
	ok(len > PRIV_HDR_LEN && o.nm_req == 9 && o.nm_flag == 1 &&
	    o.nm_meas.pm_idle == 61.5 && o.nm_meas.pm_nusers == 2 &&
	    o.nm_meas.pm_load[0] == 1.25 && o.nm_meas.pm_load[2] == 0.5 &&
	    o.nm_meas.pm_mem == 2048 && o.nm_meas.pm_tod == 1439 &&
	    o.nm_meas.pm_nuser == PRED_MEAS_USERS_MAX &&
	    strcmp(o.nm_meas.pm_user[127].pu_name, "user127") == 0 &&
	    o.nm_meas.pm_user[127].pu_idle == 127,
	    "MEAS: the measurement survives, its users too");
	m.nm_meas.pm_tod = -1;
	m.nm_meas.pm_mem = -1;
	m.nm_meas.pm_nuser = 0;
	m.nm_req = 0;
	roundtrip("MEAS (unasked, no time or memory)", &m, &o);
	ok(o.nm_req == 0 && o.nm_meas.pm_tod == -1 && o.nm_meas.pm_mem < 0,
	    "MEAS: unknown time and memory stay unknown");
	m.nm_meas.pm_tod = 1440;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    nmpriv_decode(&o, buf, len) == 0 && o.nm_meas.pm_tod == -1,
	    "MEAS: a minute of day beyond 1439 goes as unknown");
	m.nm_meas.pm_tod = 0;
	m.nm_meas.pm_nuser = 1;
	m.nm_meas.pm_user[0].pu_name[0] = '\0';
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    nmpriv_decode(&o, buf, len) == -1,
	    "MEAS: a user without a name is refused");

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_MEAS;
	m.nm_req = 3;
	strlcpy(m.nm_why, "/run/sensor: no such file", sizeof(m.nm_why));
	roundtrip("MEAS (none)", &m, &o);
	ok(o.nm_flag == 0 && strcmp(o.nm_why, m.nm_why) == 0 &&
	    o.nm_meas.pm_nuser == 0, "MEAS: why there is none survives");
	m.nm_why[0] = '\0';
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "MEAS: none without saying why is not encoded");
	m.nm_flag = 2;
	strlcpy(m.nm_why, "x", sizeof(m.nm_why));
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "MEAS: a flag other than 0 or 1 is not encoded");
}

static void
test_each(void)
{
	static uint8_t desc[NMPRIV_DESC_MAX];
	struct nmpriv_msg m, o;
	size_t len;

	memset(desc, 0xa5, sizeof(desc));
	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_SPAWN;
	m.nm_req = 7;
	m.nm_kind = NMPRIV_KIND_ROOT;
	strlcpy(m.nm_tag, "r0011223344556677", sizeof(m.nm_tag));
	m.nm_desc = desc;
	m.nm_desclen = 300;
	roundtrip("SPAWN", &m, &o);
	ok(o.nm_req == 7 && o.nm_kind == NMPRIV_KIND_ROOT &&
	    strcmp(o.nm_tag, m.nm_tag) == 0 && o.nm_desclen == 300 &&
	    memcmp(o.nm_desc, desc, 300) == 0, "SPAWN: fields survive");
	m.nm_desclen = NMPRIV_DESC_MAX;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    nmpriv_decode(&o, buf, len) == 0 &&
	    o.nm_desclen == NMPRIV_DESC_MAX, "SPAWN: a 64 KiB description");
	m.nm_desclen = NMPRIV_DESC_MAX + 1;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "SPAWN: an oversized description is not encoded");
	m.nm_desclen = 300;
	m.nm_kind = NMPRIV_KIND_MAX;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "SPAWN: an unknown kind is not encoded");

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_STOP;
	strlcpy(m.nm_worker, "j3-00aabbccddee", sizeof(m.nm_worker));
	m.nm_grace_ms = 1500;
	roundtrip("STOP", &m, &o);
	ok(strcmp(o.nm_worker, m.nm_worker) == 0 && o.nm_grace_ms == 1500,
	    "STOP: fields survive");
	m.nm_type = NMPRIV_VACATE;
	m.nm_fast_ms = 1000;
	roundtrip("VACATE", &m, &o);
	ok(strcmp(o.nm_worker, m.nm_worker) == 0 && o.nm_grace_ms == 1500 &&
	    o.nm_fast_ms == 1000, "VACATE: fields survive");
	m.nm_fast_ms = 1500;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "VACATE: fast not below grace is not encoded");
	m.nm_fast_ms = 0;
	m.nm_grace_ms = LPAD_GRACE_MAX_MS + 1;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "VACATE: a grace beyond the maximum is not encoded");

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_FREEZE;
	strlcpy(m.nm_worker, "j3-00aabbccddee", sizeof(m.nm_worker));
	m.nm_flag = 1;
	roundtrip("FREEZE", &m, &o);
	m.nm_type = NMPRIV_FORGET;
	roundtrip("FORGET", &m, &o);
	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_HELLO;
	strlcpy(m.nm_path, "/sys/fs/cgroup/cilknow", sizeof(m.nm_path));
	roundtrip("HELLO", &m, &o);
	ok(strcmp(o.nm_path, m.nm_path) == 0, "HELLO: the base survives");
	m.nm_path[0] = 'x';
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "HELLO: a relative base is not encoded");

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_WORKER;
	strlcpy(m.nm_worker, "j9-000000000000", sizeof(m.nm_worker));
	m.nm_kind = NMPRIV_KIND_WORKER;
	m.nm_state = NMPRIV_W_EXITED;
	m.nm_how = LPAD_HOW_SIGNAL;
	m.nm_code = 9;
	m.nm_cpu_ms = m.nm_maxrss_kb = LPAD_USAGE_NONE;
	roundtrip("WORKER (gone, its user unknown to the parent)", &m, &o);
	m.nm_state = NMPRIV_W_RUNNING;
	m.nm_how = LPAD_HOW_UNDEF;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "WORKER: running without a user is not encoded");

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_SENSE;
	m.nm_req = 42;
	roundtrip("SENSE", &m, &o);
	ok(o.nm_req == 42, "SENSE: its request's number survives");
	m.nm_req = 0;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "SENSE: request 0 (MEAS's unasked) is not encoded");
	test_meas();

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_PIDQ;
	m.nm_req = 5;
	m.nm_pid = 4242;
	m.nm_start = 123456789ULL;
	strlcpy(m.nm_user, "ann", sizeof(m.nm_user));
	roundtrip("PIDQ", &m, &o);
	ok(o.nm_req == 5 && o.nm_pid == 4242 && o.nm_start == 123456789ULL &&
	    strcmp(o.nm_user, "ann") == 0, "PIDQ: its fields survive");
	m.nm_pid = 1;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "PIDQ: pid 1 is not asked about");
	m.nm_pid = 4242;
	strlcpy(m.nm_user, "../ann", sizeof(m.nm_user));
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "PIDQ: a user name with a path in it is not encoded");
	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_PIDA;
	m.nm_req = 5;
	m.nm_state = PROTO_PROC_STOPPED;
	m.nm_flag = NMPRIV_PID_STARTED | NMPRIV_PID_WORKER;
	roundtrip("PIDA", &m, &o);
	ok(o.nm_req == 5 && o.nm_state == PROTO_PROC_STOPPED &&
	    o.nm_flag == (NMPRIV_PID_STARTED | NMPRIV_PID_WORKER),
	    "PIDA: state and flags survive");
	m.nm_flag = 4;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "PIDA: an unknown flag is not encoded");
	m.nm_flag = 0;
	m.nm_state = PROTO_PROC_MAX;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "PIDA: an unknown state is not encoded");

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_INPUT;
	m.nm_devices = 3;
	m.nm_idle_ms = 123456789012ULL;
	roundtrip("INPUT", &m, &o);
	ok(o.nm_devices == 3 && o.nm_idle_ms == 123456789012ULL,
	    "INPUT: devices and idle time survive");
	m.nm_devices = 0;
	m.nm_idle_ms = 0;
	roundtrip("INPUT (no device)", &m, &o);
	m.nm_idle_ms = 5;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "INPUT: an idle time without a device is not encoded");

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_SPAWNED;
	m.nm_req = 9;
	m.nm_flag = 1;
	strlcpy(m.nm_worker, "j3-00aabbccddee", sizeof(m.nm_worker));
	m.nm_lpad = 4242;
	roundtrip("SPAWNED", &m, &o);
	m.nm_flag = 0;
	m.nm_worker[0] = '\0';
	strlcpy(m.nm_why, "bad signature for user alice", sizeof(m.nm_why));
	roundtrip("SPAWNED (refused)", &m, &o);
	ok(strcmp(o.nm_why, m.nm_why) == 0, "SPAWNED: the reason survives");
	m.nm_flag = NMPRIV_SPAWN_NODE;
	strlcpy(m.nm_why, "user bob unknown", sizeof(m.nm_why));
	roundtrip("SPAWNED (refused, the node's fault)", &m, &o);
	ok(o.nm_flag == NMPRIV_SPAWN_NODE,
	    "SPAWNED: a node-side refusal stays one");
	m.nm_flag = NMPRIV_SPAWN_NODE + 1;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "SPAWNED: an unknown flag is not encoded");
	m.nm_flag = NMPRIV_SPAWN_NODE;
	strlcpy(m.nm_worker, "j3-00aabbccddee", sizeof(m.nm_worker));
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "SPAWNED: a refusal with a worker id is not encoded");
	m.nm_flag = 1;
	m.nm_worker[0] = '\0';
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "SPAWNED: a start without a worker id is not encoded");

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_WORKER;
	strlcpy(m.nm_worker, "j3-00aabbccddee", sizeof(m.nm_worker));
	m.nm_kind = NMPRIV_KIND_WORKER;
	m.nm_job = 3;
	m.nm_task = 4;
	strlcpy(m.nm_user, "alice", sizeof(m.nm_user));
	m.nm_lpad = 77;
	m.nm_state = NMPRIV_W_EXITED;
	m.nm_how = LPAD_HOW_SIGNAL;
	m.nm_code = 9;
	m.nm_cpu_ms = 1500;
	m.nm_maxrss_kb = 204800;
	roundtrip("WORKER", &m, &o);
	ok(o.nm_job == 3 && o.nm_task == 4 && o.nm_how == LPAD_HOW_SIGNAL &&
	    o.nm_code == 9 && strcmp(o.nm_user, "alice") == 0 &&
	    o.nm_cpu_ms == 1500 && o.nm_maxrss_kb == 204800,
	    "WORKER: fields survive, its usage too");
	m.nm_cpu_ms = m.nm_maxrss_kb = LPAD_USAGE_NONE;
	roundtrip("WORKER (not measured)", &m, &o);
	ok(o.nm_cpu_ms == LPAD_USAGE_NONE && o.nm_maxrss_kb == LPAD_USAGE_NONE,
	    "WORKER: not measured survives");
	m.nm_state = NMPRIV_W_RUNNING;
	m.nm_how = LPAD_HOW_UNDEF;
	m.nm_code = 0;
	roundtrip("WORKER (running)", &m, &o);
	m.nm_cpu_ms = 10;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "WORKER: a running one with a usage is not encoded");
	m.nm_cpu_ms = LPAD_USAGE_NONE;
	m.nm_maxrss_kb = 10;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "WORKER: nor with a peak memory");
	m.nm_state = NMPRIV_W_EXITED;
	m.nm_how = LPAD_HOW_SIGNAL;
	m.nm_code = 9;
	m.nm_how = LPAD_HOW_UNDEF;
	ok(nmpriv_encode(&m, buf, sizeof(buf), &len) == -1,
	    "WORKER: exited without how is not encoded");
}

/* One message on priv's channel: header (u16 type, u32 length), body. */
static size_t
frame(uint16_t type, const uint8_t *body, size_t len)
{
	return priv_msg_enc(type, body, len, buf, sizeof(buf));
}

/* Decodes a framed body; as dec(). */
static int
dec_body(uint16_t type, const uint8_t *body, size_t len)
{
	size_t n = frame(type, body, len);

	return n == 0 ? -2 : dec(buf, n);
}

/* What a compromised engine might send instead. */
static void
test_forged(void)
{
	static const uint8_t bad_worker[] = { 0, 4, '.', '.', '/', 'x', 0, 0,
	    0, 1 };
	static const uint8_t long_grace[] = { 0, 2, 'w', '1', 0xff, 0xff,
	    0xff, 0xff };
	static const uint8_t vacate_slow[] = { 0, 2, 'w', '1', 0, 0, 0x03,
	    0xe8, 0, 0, 0x03, 0xe8 };
	static const uint8_t vacate_short[] = { 0, 2, 'w', '1', 0, 0, 0x03,
	    0xe8, 0, 0, 0x01 };
	static const uint8_t vacate_ok[] = { 0, 2, 'w', '1', 0, 0, 0x03, 0xe8,
	    0, 0, 0x01, 0xf4 };
	static const uint8_t huge_desc[] = { 0, 0, 0, 1, 1, 0, 0, 0xff, 0xff,
	    0xff, 0xff };
	static const uint8_t nul_in_name[] = { 0, 3, 'w', 0, 'x' };
	static const uint8_t lying_length[] = { 0, NMPRIV_SENSE, 0, 0, 0, 1 };
	static const uint8_t sense_7[] = { 0, 0, 0, 7 };
	static const uint8_t meas_bad_flag[] = { 0, 0, 0, 7, 2, 0, 1, 'x' };
	struct nmpriv_msg m;
	unsigned i, refused = 0;
	uint32_t x = 12345;
	size_t n;

	ok(dec_body(PRIV_M_READY, NULL, 0) == -1 && errno == EBADMSG,
	    "one of priv's own types (READY) is not ours: refused");
	ok(dec_body(PRIV_M_RELOAD, NULL, 0) == -1,
	    "nor is RELOAD");
	ok(dec_body(NMPRIV_TYPE_MAX, NULL, 0) == -1,
	    "an unknown type refused");
	ok(dec_body(NMPRIV_SENSE, NULL, 0) == -1,
	    "a SENSE without its request's number refused");
	ok(dec_body(NMPRIV_SENSE, sense_7, sizeof(sense_7)) == 0,
	    "a SENSE of request 7 accepted");
	ok(dec_body(NMPRIV_MEAS, meas_bad_flag, sizeof(meas_bad_flag)) == -1,
	    "a MEAS whose flag is 2 refused");
	ok(dec_body(NMPRIV_MEAS, sense_7, sizeof(sense_7)) == -1,
	    "a MEAS without its flag refused");
	ok(dec(lying_length, sizeof(lying_length)) == -1,
	    "a header whose length is not the rest refused");
	n = frame(NMPRIV_SENSE, NULL, 0);
	ok(n == PRIV_HDR_LEN && dec(buf, n - 1) == -1,
	    "a truncated header refused");
	ok(dec_body(NMPRIV_STOP, bad_worker, sizeof(bad_worker)) == -1,
	    "a worker id with a path in it refused");
	ok(dec_body(NMPRIV_STOP, long_grace, sizeof(long_grace)) == -1,
	    "a grace beyond the maximum refused");
	ok(dec_body(NMPRIV_VACATE, vacate_slow, sizeof(vacate_slow)) == -1,
	    "a VACATE whose fast is not below its grace refused");
	ok(dec_body(NMPRIV_VACATE, vacate_short, sizeof(vacate_short)) == -1,
	    "a truncated VACATE refused");
	ok(dec_body(NMPRIV_VACATE, vacate_ok, sizeof(vacate_ok)) == 0,
	    "a VACATE of 1000 ms, fast 500 ms, accepted");
	ok(dec_body(NMPRIV_SPAWN, huge_desc, sizeof(huge_desc)) == -1,
	    "a description length beyond the maximum refused");
	ok(dec_body(NMPRIV_FORGET, nul_in_name, sizeof(nul_in_name)) == -1,
	    "a NUL inside a name refused");
	ok(dec(buf, 0) == -1, "an empty message refused");
	ok(strcmp(nmpriv_type_name(NMPRIV_VACATE), "VACATE") == 0 &&
	    strcmp(nmpriv_type_name(PRIV_M_READY), "?") == 0 &&
	    strcmp(nmpriv_type_name(NMPRIV_TYPE_MAX), "?") == 0,
	    "type names: ours named, others '?'");
	/* Random bodies behind a valid header decode only if well-formed. */
	for (i = 0; i < 20000; i++) {
		uint8_t body[40];
		size_t j, len = i % 40;

		for (j = 0; j < len; j++) {
			x = x * 1103515245 + 12345;
			body[j] = (uint8_t)(x >> 16);
		}
		n = frame((uint16_t)(NMPRIV_BASE + i % (NMPRIV_TYPE_MAX -
		    NMPRIV_BASE)), body, len);
		if (nmpriv_decode(&m, buf, n) == -1)
			refused++;
		else if (m.nm_type == NMPRIV_STOP && !lpad_worker_ok(
		    m.nm_worker))
			break;
	}
	ok(i == 20000 && refused > 19000,
	    "20000 random bodies: none accepted with a bad worker id "
	    "(%u refused)", refused);
}

int
main(void)
{
	test_each();
	test_forged();
	return tap_done();
}
