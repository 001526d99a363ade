/* Unit tests of the macroscheduler's message codecs. */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contain.h"
#include "proto.h"
#include "tap.h"
#include "codec_robust.h"
#include "proto_rt.h"

static struct msg_addr
addr(int host, int port)
{
	struct msg_addr a;

	memset(&a, 0, sizeof(a));
	a.ma_family = 4;
	a.ma_addr[0] = 127;
	a.ma_addr[3] = (uint8_t)host;
	a.ma_port = (uint16_t)port;
	return a;
}

/*
 * The fixed-size messages and the short ones: a round trip, robustness,
 * and the one value each refuses.
 */
static void
test_small(void)
{
	static uint8_t buf[MSG_PAYLOAD_MAX];
	struct proto_ack ak, ak2;
	struct proto_job_unreg ju, ju2;
	struct proto_list li, li2;
	struct proto_cookie co, co2;
	struct proto_assign as, as2;
	struct proto_desc_req dr, dr2;
	struct proto_output_ack oa, oa2;
	struct proto_error er, er2;
	size_t n;

	memset(&ak, 0, sizeof(ak));
	ak.ak_id = 0x01020304;
	ak.ak_interval_ms = 2500;
	n = proto_ack_enc(&ak, buf, sizeof(buf));
	ok(n == 8 && proto_ack_dec(&ak2, buf, n) == 0 &&
	    memcmp(&ak, &ak2, sizeof(ak)) == 0, "ack round trip");
	robust("ack", rt_proto_ack, buf, n);
	ak.ak_id = 0;
	n = proto_ack_enc(&ak, buf, sizeof(buf));
	/* The broker's answer to job 0's withdrawal: a job manager that
	 * refused it retried for a second before it exited. */
	ok(n > 0 && proto_ack_dec(&ak2, buf, n) == 0 && ak2.ak_id == 0,
	    "ack of id 0 (a withdrawal's answer) decodes");

	memset(&ju, 0, sizeof(ju));
	ju.ju_job = 77;
	n = proto_job_unreg_enc(&ju, buf, sizeof(buf));
	ok(n == 4 && proto_job_unreg_dec(&ju2, buf, n) == 0 &&
	    ju2.ju_job == 77, "job unregister round trip");
	robust("job unregister", rt_proto_job_unreg, buf, n);
	ju.ju_job = 0;
	n = proto_job_unreg_enc(&ju, buf, sizeof(buf));
	ok(n > 0 && proto_job_unreg_dec(&ju2, buf, n) == 0 &&
	    ju2.ju_job == 0, "job unregister of job 0: a withdrawal");

	memset(&li, 0, sizeof(li));
	li.li_what = PROTO_LIST_NODES;
	n = proto_list_enc(&li, buf, sizeof(buf));
	ok(n == 2 && proto_list_dec(&li2, buf, n) == 0 &&
	    li2.li_what == PROTO_LIST_NODES && !li2.li_has_cookie,
	    "list round trip");
	robust("list", rt_proto_list, buf, n);
	buf[0] = PROTO_LIST_UNDEF;
	ok(proto_list_dec(&li2, buf, 2) == -1, "list of nothing refused");
	buf[0] = PROTO_LIST_MAX;
	ok(proto_list_dec(&li2, buf, 2) == -1,
	    "list of an unknown kind refused");
	li.li_has_cookie = 1;
	memset(li.li_cookie, 0xc5, sizeof(li.li_cookie));
	n = proto_list_enc(&li, buf, sizeof(buf));
	ok(n == 2 + PROTO_COOKIE_LEN && proto_list_dec(&li2, buf, n) == 0 &&
	    li2.li_has_cookie && li2.li_cookie[15] == 0xc5,
	    "list with a cookie round trip");
	robust("list with a cookie", rt_proto_list, buf, n);
	buf[1] = 2;
	ok(proto_list_dec(&li2, buf, n) == -1, "a cookie flag of 2 refused");
	li.li_has_cookie = 0;
	memset(&co, 0x3c, sizeof(co));
	n = proto_cookie_enc(&co, buf, sizeof(buf));
	ok(n == PROTO_COOKIE_LEN && proto_cookie_dec(&co2, buf, n) == 0 &&
	    memcmp(&co, &co2, sizeof(co)) == 0, "cookie round trip");
	robust("cookie", rt_proto_cookie, buf, n);

	memset(&as, 0, sizeof(as));
	as.as_job = 3;
	as.as_jobmgr = addr(1, 40000);
	strlcpy(as.as_user, "ann", sizeof(as.as_user));
	n = proto_assign_enc(&as, buf, sizeof(buf));
	ok(n > 0 && proto_assign_dec(&as2, buf, n) == 0 &&
	    memcmp(&as, &as2, sizeof(as)) == 0, "assign round trip");
	robust("assign", rt_proto_assign, buf, n);
	strlcpy(as.as_user, "../ann", sizeof(as.as_user));
	n = proto_assign_enc(&as, buf, sizeof(buf));
	ok(n > 0 && proto_assign_dec(&as2, buf, n) == -1,
	    "assign for a bad user name refused");
	strlcpy(as.as_user, "ann", sizeof(as.as_user));
	as.as_jobmgr.ma_family = 0;
	n = proto_assign_enc(&as, buf, sizeof(buf));
	ok(n > 0 && proto_assign_dec(&as2, buf, n) == -1,
	    "assign without a job manager address refused");
	as.as_jobmgr = addr(1, 40000);
	as.as_slot = 255;
	n = proto_assign_enc(&as, buf, sizeof(buf));
	ok(n > 0 && proto_assign_dec(&as2, buf, n) == 0 &&
	    as2.as_slot == 255, "assign to processor 255");
	as.as_slot = PROTO_SLOTS_MAX;
	n = proto_assign_enc(&as, buf, sizeof(buf));
	ok(n > 0 && proto_assign_dec(&as2, buf, n) == -1,
	    "assign to processor 256 refused");

	memset(&dr, 0, sizeof(dr));
	dr.dr_job = 3;
	strlcpy(dr.dr_node, "127.0.0.3", sizeof(dr.dr_node));
	dr.dr_fetch = 0x0102030405060708ULL;
	n = proto_desc_req_enc(&dr, buf, sizeof(buf));
	ok(n > 0 && proto_desc_req_dec(&dr2, buf, n) == 0 &&
	    memcmp(&dr, &dr2, sizeof(dr)) == 0,
	    "description request round trip");
	robust("description request", rt_proto_desc_req, buf, n);
	dr.dr_job = 0;
	n = proto_desc_req_enc(&dr, buf, sizeof(buf));
	ok(n > 0 && proto_desc_req_dec(&dr2, buf, n) == -1,
	    "description request for job 0 refused");

	memset(&oa, 0, sizeof(oa));
	oa.oa_job = 3;
	oa.oa_task = 9;
	oa.oa_stream = PROTO_STREAM_EXIT;
	oa.oa_offset = (1ULL << 33) + 5;
	n = proto_output_ack_enc(&oa, buf, sizeof(buf));
	ok(n == 17 && proto_output_ack_dec(&oa2, buf, n) == 0 &&
	    memcmp(&oa, &oa2, sizeof(oa)) == 0, "output ack round trip");
	robust("output ack", rt_proto_output_ack, buf, n);
	oa.oa_stream = PROTO_STREAM_MAX;
	n = proto_output_ack_enc(&oa, buf, sizeof(buf));
	ok(n > 0 && proto_output_ack_dec(&oa2, buf, n) == -1,
	    "output ack of an unknown stream refused");

	memset(&er, 0, sizeof(er));
	er.er_handler = PROTO_H_JOB_REGISTER;
	strlcpy(er.er_reason, "no such user", sizeof(er.er_reason));
	n = proto_error_enc(&er, buf, sizeof(buf));
	ok(n > 0 && proto_error_dec(&er2, buf, n) == 0 &&
	    memcmp(&er, &er2, sizeof(er)) == 0, "error round trip");
	robust("error", rt_proto_error, buf, n);
	memset(er.er_reason, 'x', sizeof(er.er_reason) - 1);
	n = proto_error_enc(&er, buf, sizeof(buf));
	ok(n > 0 && proto_error_dec(&er2, buf, n) == 0,
	    "an error of the longest reason decodes");
	buf[2] = 0;	/* length high byte: now one byte more than sent */
	buf[3] = (uint8_t)sizeof(er.er_reason);
	ok(proto_error_dec(&er2, buf, n + 1) == -1,
	    "an error reason longer than the maximum refused");
}


/* --cpus and --mem as the signed environment carries them. */
static void
test_needs(void)
{
	static char e1[] = "CILKNOW_CPUS=4", e2[] = "CILKNOW_MEM_MB=4096",
	    e3[] = "HOME=/x", bad[32];
	static const char *const bads[] = { "CILKNOW_CPUS=0",
	    "CILKNOW_CPUS=257", "CILKNOW_CPUS=4x", "CILKNOW_CPUS=",
	    "CILKNOW_CPUS=-1", "CILKNOW_MEM_MB=1073741825",
	    "CILKNOW_MEM_MB=12M", "CILKNOW_MEM_MB= 1" };
	struct proto_desc d;
	uint32_t mem;
	uint16_t cpus;
	size_t i;

	memset(&d, 0, sizeof(d));
	d.de_env[0] = e3;
	d.de_envc = 1;
	ok(proto_desc_needs(&d, &cpus, &mem) == 0 && cpus == 1 && mem == 0,
	    "a description that asks nothing takes 1 processor, any memory");
	d.de_env[1] = e1;
	d.de_env[2] = e2;
	d.de_envc = 3;
	ok(proto_desc_needs(&d, &cpus, &mem) ==
	    (PROTO_NEEDS_CPUS | PROTO_NEEDS_MEM) && cpus == 4 && mem == 4096,
	    "CILKNOW_CPUS=4 and CILKNOW_MEM_MB=4096 read");
	d.de_envc = 2;
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		strlcpy(bad, bads[i], sizeof(bad));
		d.de_env[1] = bad;
		ok(proto_desc_needs(&d, &cpus, &mem) == -1, "%s refused",
		    bads[i]);
	}
}

/*
 * The exit record (stream 3) and what the worker used: 16 bytes after
 * the data, or none from an older node; nothing on other streams.
 */
static void
test_exit_usage(void)
{
	static uint8_t buf[MSG_PAYLOAD_MAX], more[MSG_PAYLOAD_MAX + 32];
	struct proto_output o, o2;
	size_t n, n0, cut;
	int bad;

	memset(&o, 0, sizeof(o));
	o.ou_job = 3;
	o.ou_task = 5;
	o.ou_stream = PROTO_STREAM_EXIT;
	o.ou_status = 0;
	strlcpy(o.ou_node, "127.0.0.3/1", sizeof(o.ou_node));
	o.ou_has_usage = 1;
	o.ou_cpu_ms = 1234;
	o.ou_maxrss_kb = 1ULL << 33;
	n = proto_output_enc(&o, buf, sizeof(buf));
	ok(n > 16 && proto_output_dec(&o2, buf, n) == 0 &&
	    o2.ou_stream == PROTO_STREAM_EXIT && o2.ou_has_usage == 1 &&
	    o2.ou_cpu_ms == 1234 && o2.ou_maxrss_kb == 1ULL << 33 &&
	    o2.ou_len == 0 && o2.ou_status == 0 &&
	    strcmp(o2.ou_node, "127.0.0.3/1") == 0,
	    "exit with usage: round trip");
	ok(memcmp(buf + n - 16, "\0\0\0\0\0\0\x04\xd2", 8) == 0 &&
	    memcmp(buf + n - 8, "\0\0\0\x02\0\0\0\0", 8) == 0,
	    "... the two u64s last, big-endian");
	/* Every truncation refused, but the one that drops all 16. */
	bad = 0;
	for (cut = 0; cut < n; cut++) {
		if (cut == n - 16)
			continue;
		if (proto_output_dec(&o2, buf, cut) != -1)
			bad++;
	}
	ok(bad == 0, "exit with usage: every other truncation (%zu) refused",
	    n - 1);
	ok(proto_output_dec(&o2, buf, n - 16) == 0 && o2.ou_has_usage == 0 &&
	    o2.ou_cpu_ms == PROTO_USAGE_NONE &&
	    o2.ou_maxrss_kb == PROTO_USAGE_NONE,
	    "without the 16 bytes (an older node): not measured");
	n0 = proto_output_enc(&o2, more, sizeof(more));
	ok(n0 == n - 16 && memcmp(more, buf, n0) == 0,
	    "... and it encodes back without them");
	robust("exit without usage", rt_proto_output, more, n0);
	memcpy(more, buf, n);
	memset(more + n, 0, 17);
	ok(proto_output_dec(&o2, more, n + 1) == -1 &&
	    proto_output_dec(&o2, more, n + 8) == -1 &&
	    proto_output_dec(&o2, more, n + 16) == -1,
	    "exit: 1, 8 or 16 bytes more refused");
	ok(proto_output_dec(&o2, buf, n - 8) == -1 &&
	    proto_output_dec(&o2, buf, n - 1) == -1 &&
	    proto_output_dec(&o2, buf, n - 15) == -1,
	    "exit: a usage of 8, 15 or 1 bytes refused");
	/* Its bits: each flip refused or canonical (the data length's). */
	bad = 0;
	for (cut = 0; cut < n * 8; cut++) {
		memcpy(more, buf, n);
		more[cut / 8] ^= (uint8_t)(1u << cut % 8);
		if (rt_proto_output(more, n) == 1)
			bad++;
	}
	ok(bad == 0, "exit with usage: no bit flip taken uncanonically");

	/* Not measured; a worker that never started says why. */
	o.ou_cpu_ms = o.ou_maxrss_kb = PROTO_USAGE_NONE;
	o.ou_status = 126;
	o.ou_data = (const uint8_t *)"not started: no such folder";
	o.ou_len = (uint16_t)strlen((const char *)o.ou_data);
	n = proto_output_enc(&o, buf, sizeof(buf));
	ok(n > 0 && proto_output_dec(&o2, buf, n) == 0 &&
	    o2.ou_has_usage == 1 && o2.ou_cpu_ms == PROTO_USAGE_NONE &&
	    o2.ou_maxrss_kb == PROTO_USAGE_NONE && o2.ou_status == 126 &&
	    o2.ou_len == o.ou_len && memcmp(o2.ou_data, o.ou_data,
	    o.ou_len) == 0,
	    "an exit that never started keeps its reason as the data");
	o.ou_has_usage = 0;
	n = proto_output_enc(&o, buf, sizeof(buf));
	robust("exit never started, from an older node", rt_proto_output,
	    buf, n);
	o.ou_has_usage = 1;

	/* Other streams carry none. */
	o.ou_stream = PROTO_STREAM_OUT;
	ok(proto_output_enc(&o, buf, sizeof(buf)) == 0,
	    "usage on the output stream is not encoded");
	o.ou_has_usage = 0;
	n = proto_output_enc(&o, buf, sizeof(buf));
	memset(buf + n, 0xff, 16);
	ok(n > 0 && proto_output_dec(&o2, buf, n) == 0 &&
	    o2.ou_has_usage == 0 && proto_output_dec(&o2, buf, n + 16) == -1,
	    "16 bytes after output data are refused");
	o.ou_stream = PROTO_STREAM_STAGE;
	n = proto_output_enc(&o, buf, sizeof(buf));
	memset(buf + n, 0, 16);
	ok(n > 0 && proto_output_dec(&o2, buf, n + 16) == -1,
	    "... and after stage-out records");
}

int
main(void)
{
	static uint8_t buf[MSG_PAYLOAD_MAX], buf2[MSG_PAYLOAD_MAX];
	static struct msg_keyring kr;
	struct proto_node_reg nr, nr2;
	struct proto_job_reg jr, jr2;
	struct proto_push p, p2;
	struct proto_push_job pj[2];
	struct proto_push_node pn[3];
	struct proto_job_row jw[2], *jw2;
	struct proto_node_row nw, *nw2;
	struct proto_desc d, d2;
	struct proto_output o, o2;
	struct msg_keyset ks;
	struct msg_key ann, bob;
	char dir[] = "/tmp/proto_test.XXXXXX", path[256], why[256];
	char *argv[] = { "queens", "12" }, *env[] = { "HOME=/home/ann",
	    "A=b=c" };
	uint32_t k;
	size_t n;
	uint8_t *at;
	int i;

	if (sodium_init() < 0)
		return 1;
	test_small();
	test_needs();
	memset(&nr, 0, sizeof(nr));
	nr.nr_node = 7;
	nr.nr_boot = 0x1122334455667788ULL;
	strlcpy(nr.nr_host, "127.0.0.3", sizeof(nr.nr_host));
	nr.nr_state = PROTO_NS_RUNNING;
	nr.nr_job = 3;
	nr.nr_load_milli = 20;
	nr.nr_idle = 912;
	nr.nr_users = 2;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(n > 0 && proto_node_reg_dec(&nr2, buf, n) == 0 &&
	    memcmp(&nr, &nr2, sizeof(nr)) == 0, "node register round trip");
	robust("node register", rt_proto_node_reg, buf, n);
	nr.nr_state = PROTO_NS_MAX;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(proto_node_reg_dec(&nr2, buf, n) == -1, "an unknown state is refused");
	/* A node of 4 processors, lending 2, one running job 3. */
	nr.nr_state = PROTO_NS_RUNNING;
	nr.nr_total = 4;
	nr.nr_lent = 2;
	nr.nr_nslots = 4;
	nr.nr_slots[0].ps_state = PROTO_NS_RUNNING;
	nr.nr_slots[0].ps_job = 3;
	nr.nr_slots[1].ps_state = PROTO_NS_IDLE;
	nr.nr_slots[2].ps_state = nr.nr_slots[3].ps_state = PROTO_NS_BUSY;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(n > 0 && proto_node_reg_dec(&nr2, buf, n) == 0 &&
	    memcmp(&nr, &nr2, sizeof(nr)) == 0,
	    "node register with processors round trip");
	robust("node register with processors", rt_proto_node_reg, buf, n);
	nr.nr_lent = 5;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(proto_node_reg_dec(&nr2, buf, n) == -1,
	    "lending more processors than it has is refused");
	nr.nr_lent = 2;
	nr.nr_nslots = 5;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(proto_node_reg_dec(&nr2, buf, n) == -1,
	    "more slots than processors are refused");
	nr.nr_nslots = 4;
	nr.nr_total = nr.nr_nslots = PROTO_SLOTS_MAX + 1;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(proto_node_reg_dec(&nr2, buf, n) == -1,
	    "257 processors are refused");
	nr.nr_total = nr.nr_nslots = 4;
	nr.nr_slots[3].ps_state = PROTO_NS_UNDEF;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(proto_node_reg_dec(&nr2, buf, n) == -1,
	    "a processor in no state is refused");
	nr.nr_slots[3].ps_state = PROTO_NS_BUSY;
	nr.nr_total = nr.nr_nslots = 0;

	memset(&jr, 0, sizeof(jr));
	jr.jr_job = 3;
	jr.jr_boot = 9;
	jr.jr_max = 4;
	jr.jr_pri = 2;
	jr.jr_start_ms = 1700000000000ULL;
	strlcpy(jr.jr_command, "queens 12", sizeof(jr.jr_command));
	n = proto_job_reg_enc(&jr, buf, sizeof(buf));
	ok(n > 0 && proto_job_reg_dec(&jr2, buf, n) == 0 &&
	    memcmp(&jr, &jr2, sizeof(jr)) == 0, "job register round trip");
	robust("job register", rt_proto_job_reg, buf, n);
	jr.jr_pri = 0;
	n = proto_job_reg_enc(&jr, buf, sizeof(buf));
	ok(proto_job_reg_dec(&jr2, buf, n) == -1, "priority 0 is refused");
	jr.jr_pri = 2;
	jr.jr_cpus = 4;
	jr.jr_mem_mb = 4096;
	n = proto_job_reg_enc(&jr, buf, sizeof(buf));
	ok(n > 0 && proto_job_reg_dec(&jr2, buf, n) == 0 &&
	    jr2.jr_cpus == 4 && jr2.jr_mem_mb == 4096,
	    "job register with --cpus 4 --mem 4G round trip");
	jr.jr_cpus = PROTO_SLOTS_MAX + 1;
	n = proto_job_reg_enc(&jr, buf, sizeof(buf));
	ok(proto_job_reg_dec(&jr2, buf, n) == -1,
	    "a job taking 257 processors is refused");
	jr.jr_cpus = 1;
	jr.jr_mem_mb = PROTO_MEM_MB_MAX + 1;
	n = proto_job_reg_enc(&jr, buf, sizeof(buf));
	ok(proto_job_reg_dec(&jr2, buf, n) == -1,
	    "a job needing over 1 PiB is refused");
	jr.jr_mem_mb = 0;
	/* The broker's cookie, echoed (the last 17 bytes). */
	jr.jr_has_cookie = 1;
	memset(jr.jr_cookie, 0x5a, sizeof(jr.jr_cookie));
	n = proto_job_reg_enc(&jr, buf, sizeof(buf));
	ok(n > 0 && proto_job_reg_dec(&jr2, buf, n) == 0 &&
	    memcmp(&jr, &jr2, sizeof(jr)) == 0,
	    "job register with a cookie round trip");
	robust("job register with a cookie", rt_proto_job_reg, buf, n);
	ok(proto_job_reg_dec(&jr2, buf, n - 1) == -1,
	    "a job register with its cookie cut short is refused");
	buf[n - 1 - PROTO_COOKIE_LEN] = 2;
	ok(proto_job_reg_dec(&jr2, buf, n) == -1,
	    "a job register with has_cookie 2 is refused");
	jr.jr_has_cookie = 0;
	memset(jr.jr_cookie, 0, sizeof(jr.jr_cookie));
	nr.nr_total = nr.nr_nslots = 4;
	nr.nr_mem_mb = 3000;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(n > 0 && proto_node_reg_dec(&nr2, buf, n) == 0 &&
	    nr2.nr_mem_mb == 3000, "a node says what memory it lends");
	nr.nr_mem_mb = PROTO_MEM_MB_MAX + 1;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(proto_node_reg_dec(&nr2, buf, n) == -1,
	    "a node lending over 1 PiB is refused");
	nr.nr_mem_mb = 0;
	ok(PROTO_LIMIT_MEMORY == CONTAIN_CTL_MEMORY &&
	    PROTO_LIMIT_PIDS == CONTAIN_CTL_PIDS &&
	    PROTO_LIMIT_CPU == CONTAIN_CTL_CPU &&
	    PROTO_LIMIT_IO == CONTAIN_CTL_IO &&
	    PROTO_LIMIT_ALL == CONTAIN_CTL_ALL,
	    "the kinds of limit are the controllers' bits (register.c)");
	nr.nr_unenforced = PROTO_LIMIT_MEMORY | PROTO_LIMIT_CPU;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(n > 0 && proto_node_reg_dec(&nr2, buf, n) == 0 &&
	    nr2.nr_unenforced == (PROTO_LIMIT_MEMORY | PROTO_LIMIT_CPU),
	    "a node says which limits it cannot enforce");
	ok(proto_node_reg_dec(&nr2, buf, n - 1) == -1,
	    "a node register without them is refused");
	nr.nr_unenforced = 0x10;
	n = proto_node_reg_enc(&nr, buf, sizeof(buf));
	ok(proto_node_reg_dec(&nr2, buf, n) == -1,
	    "an unknown kind of limit is refused");
	nr.nr_unenforced = 0;
	nr.nr_total = nr.nr_nslots = 0;

	memset(&p, 0, sizeof(p));
	memset(pj, 0, sizeof(pj));
	p.pu_epoch = 42;
	p.pu_uptime_ms = 1234;
	p.pu_njobs = 2;
	p.pu_jobs = pj;
	for (i = 0; i < 2; i++) {
		pj[i].pj_job = (uint32_t)i + 1;
		pj[i].pj_count = 3;
		pj[i].pj_pri = 1;
		pj[i].pj_jobmgr = addr(1, 5000 + i);
		strlcpy(pj[i].pj_user, "ann", sizeof(pj[i].pj_user));
	}
	p.pu_nnodes = 3;
	p.pu_nodes = pn;
	for (i = 0; i < 3; i++) {
		pn[i].pn_node = (uint32_t)i + 1;
		pn[i].pn_addr = addr(i + 2, 7411);
		pn[i].pn_slots = (uint16_t)(i * 4);
	}
	n = proto_push_enc(&p, buf, sizeof(buf));
	ok(n > 0 && proto_push_dec(&p2, buf, n) == 0 && p2.pu_epoch == 42 &&
	    p2.pu_uptime_ms == 1234 && p2.pu_njobs == 2 &&
	    p2.pu_nnodes == 3 && p2.pu_jobs[1].pj_jobmgr.ma_port == 5001 &&
	    p2.pu_nodes[2].pn_addr.ma_addr[3] == 4 &&
	    p2.pu_nodes[2].pn_slots == 8, "push round trip, with each peer's processors");
	proto_push_free(&p2);
	robust("push", rt_proto_push, buf, n);
	/* A row count that lies is refused before anything is allocated. */
	buf2[0] = 0;
	memcpy(buf2, buf, n);
	buf2[12] = 0xff;	/* njobs high byte */
	ok(rt_proto_push(buf2, n) == -1,
	    "push with a huge job count is refused");

	memset(jw, 0, sizeof(jw));
	jw[0].jw_job = 3;
	strlcpy(jw[0].jw_user, "ann", sizeof(jw[0].jw_user));
	jw[0].jw_addr = addr(1, 40000);
	jw[0].jw_nodes = 4;
	strlcpy(jw[0].jw_command, "queens 12", sizeof(jw[0].jw_command));
	jw[1] = jw[0];
	jw[1].jw_job = 4;
	n = proto_jobs_enc(jw, 2, buf, sizeof(buf));
	ok(n > 0 && proto_jobs_dec(&jw2, &k, buf, n) == 0 && k == 2 &&
	    jw2[1].jw_job == 4 && strcmp(jw2[0].jw_command, "queens 12") == 0,
	    "jobs round trip");
	free(jw2);
	robust("jobs", rt_proto_jobs, buf, n);

	memset(&nw, 0, sizeof(nw));
	nw.nw_node = 2;
	nw.nw_addr = addr(3, 7411);
	strlcpy(nw.nw_host, "127.0.0.3", sizeof(nw.nw_host));
	nw.nw_state = PROTO_NS_IDLE;
	nw.nw_seen_ms = 4000;
	nw.nw_total = 16;
	nw.nw_lent = 14;
	nw.nw_running = 14;
	nw.nw_njobs = 2;
	nw.nw_jobs[0] = 3;
	nw.nw_jobs[1] = 5;
	n = proto_nodes_enc(&nw, 1, buf, sizeof(buf));
	ok(n > 0 && proto_nodes_dec(&nw2, &k, buf, n) == 0 && k == 1 &&
	    nw2[0].nw_seen_ms == 4000 && nw2[0].nw_lent == 14 &&
	    nw2[0].nw_total == 16 && nw2[0].nw_njobs == 2 &&
	    nw2[0].nw_jobs[1] == 5, "nodes round trip, with processors");
	free(nw2);
	robust("nodes", rt_proto_nodes, buf, n);
	nw.nw_running = 17;
	n = proto_nodes_enc(&nw, 1, buf, sizeof(buf));
	ok(proto_nodes_dec(&nw2, &k, buf, n) == -1,
	    "a row with more workers than processors is refused");
	nw.nw_running = 14;
	nw.nw_njobs = PROTO_NODE_JOBS_MAX + 1;
	n = proto_nodes_enc(&nw, 1, buf, sizeof(buf));
	ok(proto_nodes_dec(&nw2, &k, buf, n) == -1,
	    "a row naming 9 jobs is refused");
	nw.nw_njobs = 2;
	nw.nw_unenforced = PROTO_LIMIT_ALL;
	n = proto_nodes_enc(&nw, 1, buf, sizeof(buf));
	ok(n > 0 && proto_nodes_dec(&nw2, &k, buf, n) == 0 && k == 1 &&
	    nw2[0].nw_unenforced == PROTO_LIMIT_ALL,
	    "a row says which limits its node cannot enforce");
	free(nw2);
	nw.nw_unenforced = 0x80;
	n = proto_nodes_enc(&nw, 1, buf, sizeof(buf));
	ok(proto_nodes_dec(&nw2, &k, buf, n) == -1,
	    "a row with an unknown kind of limit is refused");
	nw.nw_unenforced = 0;

	memset(&o, 0, sizeof(o));
	o.ou_job = 3;
	o.ou_task = 5;
	o.ou_stream = PROTO_STREAM_OUT;
	o.ou_offset = 1ULL << 40;
	o.ou_status = -9;
	o.ou_len = 5;
	o.ou_data = (const uint8_t *)"hello";
	strlcpy(o.ou_node, "127.0.0.3", sizeof(o.ou_node));
	n = proto_output_enc(&o, buf, sizeof(buf));
	ok(n > 0 && proto_output_dec(&o2, buf, n) == 0 &&
	    o2.ou_offset == 1ULL << 40 && o2.ou_status == -9 &&
	    o2.ou_len == 5 && memcmp(o2.ou_data, "hello", 5) == 0,
	    "output round trip (negative status, 64-bit offset)");
	robust("output", rt_proto_output, buf, n);
	test_exit_usage();

	/* Pairing: a node with a job names it fully; one without, nothing. */
	{
		struct proto_pair pa, pb;

		memset(&pa, 0, sizeof(pa));
		pa.pa_job = 3;
		pa.pa_count = 7;
		pa.pa_pri = 2;
		pa.pa_max = 4;
		pa.pa_jobmgr = addr(1, 40000);
		strlcpy(pa.pa_user, "ann", sizeof(pa.pa_user));
		n = proto_pair_enc(&pa, buf, sizeof(buf));
		ok(n > 0 && proto_pair_dec(&pb, buf, n) == 0 &&
		    memcmp(&pa, &pb, sizeof(pa)) == 0, "pair round trip");
		robust("pair", rt_proto_pair, buf, n);
		memset(&pa, 0, sizeof(pa));
		pa.pa_busy = 1;
		n = proto_pair_enc(&pa, buf, sizeof(buf));
		ok(proto_pair_dec(&pb, buf, n) == 0 && pb.pa_job == 0 &&
		    pb.pa_busy == 1, "a node without a job pairs too");
		robust("pair without a job", rt_proto_pair, buf, n);
		pa.pa_slot = 255;
		n = proto_pair_enc(&pa, buf, sizeof(buf));
		ok(proto_pair_dec(&pb, buf, n) == 0 && pb.pa_slot == 255,
		    "the asking processor is carried");
		pa.pa_slot = PROTO_SLOTS_MAX;
		n = proto_pair_enc(&pa, buf, sizeof(buf));
		ok(proto_pair_dec(&pb, buf, n) == -1,
		    "processor 256 is refused");
		pa.pa_slot = 0;
		pa.pa_jobmgr = addr(1, 40000);
		n = proto_pair_enc(&pa, buf, sizeof(buf));
		ok(proto_pair_dec(&pb, buf, n) == -1,
		    "no job but a job manager is refused");
		memset(&pa, 0, sizeof(pa));
		pa.pa_job = 3;
		pa.pa_pri = 1;
		strlcpy(pa.pa_user, "ann", sizeof(pa.pa_user));
		n = proto_pair_enc(&pa, buf, sizeof(buf));
		ok(proto_pair_dec(&pb, buf, n) == -1,
		    "a job without a job manager is refused");
	}

	/* Descriptions: signed by the user, checked against users/NAME.pub. */
	memset(&d, 0, sizeof(d));
	d.de_job = 3;
	d.de_task = 1;
	strlcpy(d.de_node, "127.0.0.3/2", sizeof(d.de_node));
	strlcpy(d.de_user, "ann", sizeof(d.de_user));
	strlcpy(d.de_cwd, "/home/ann", sizeof(d.de_cwd));
	d.de_pri = 1;
	d.de_argc = 2;
	memcpy(d.de_argv, argv, sizeof(argv));
	d.de_envc = 2;
	memcpy(d.de_env, env, sizeof(env));
	n = proto_desc_enc(&d, buf, sizeof(buf));
	ok(n > 0 && proto_desc_dec(&d2, buf, n) == 0 && d2.de_argc == 2 &&
	    strcmp(d2.de_argv[1], "12") == 0 &&
	    strcmp(d2.de_env[1], "A=b=c") == 0 &&
	    strcmp(d2.de_node, "127.0.0.3/2") == 0,
	    "description round trip, with the processor it is for");
	proto_desc_free(&d2);
	robust("description", rt_proto_desc, buf, n);
	/* Counts beyond the arrays: refused, and nothing past them freed. */
	d.de_argc = d.de_envc = 0;
	n = proto_desc_enc(&d, buf, sizeof(buf));
	buf[n - 4] = buf[n - 3] = 0xff;
	ok(n > 4 && proto_desc_dec(&d2, buf, n) == -1 && d2.de_argc == 0,
	    "a description of 65535 arguments is refused");
	d.de_argc = 1;
	n = proto_desc_enc(&d, buf, sizeof(buf));
	buf[n - 2] = 0x01;	/* 257 environment entries */
	buf[n - 1] = 0x01;
	ok(n > 2 && proto_desc_dec(&d2, buf, n) == -1 && d2.de_envc == 0,
	    "a description of 257 environment entries is refused");
	d.de_argc = d.de_envc = 2;

	if (mkdtemp(dir) == NULL)
		return 1;
	msg_key_generate(&ann, MSG_KEY_USER, "ann");
	msg_key_generate(&bob, MSG_KEY_USER, "bob");
	memset(&ks, 0, sizeof(ks));
	msg_key_public(&ann, &ks.ks_key[0]);
	ks.ks_n = 1;
	snprintf(path, sizeof(path), "%s/ann.pub", dir);
	ok(msg_keyset_save(&ks, path, 0, why, sizeof(why)) == 0,
	    "ann's public key installed");
	strlcpy(kr.kr_users_dir, dir, sizeof(kr.kr_users_dir));
	/* As a node manager holds them: loaded, looked up in memory. */
	ok((kr.kr_users = msg_users_load(dir)) != NULL &&
	    msg_users_count(kr.kr_users) == 1, "ann's key loaded");
	n = proto_desc_sign(&d, &ann, buf, sizeof(buf));
	ok(n > 0 && proto_desc_open(&d2, &kr, 1, buf, n, why,
	    sizeof(why)) == 0 && strcmp(d2.de_argv[0], "queens") == 0,
	    "a description signed by ann opens");
	proto_desc_free(&d2);
	/* One signature, one purpose: a job's and a root's never mix. */
	ok(proto_desc_open_for(&d2, PROTO_DESC_ROOT, &kr, 1, buf, n, why,
	    sizeof(why)) == -1 && strstr(why, "bad signature") != NULL,
	    "a job's description does not open as a root's backup (%s)",
	    why);
	n = proto_desc_sign_for(&d, PROTO_DESC_ROOT, &ann, buf, sizeof(buf));
	ok(n > 0 && proto_desc_open_for(&d2, PROTO_DESC_ROOT, &kr, 1, buf, n,
	    why, sizeof(why)) == 0, "a root's backup signed by ann opens as "
	    "one");
	proto_desc_free(&d2);
	ok(proto_desc_open(&d2, &kr, 1, buf, n, why, sizeof(why)) == -1 &&
	    strstr(why, "bad signature") != NULL,
	    "and not as a job's description (%s)", why);
	n = proto_desc_sign(&d, &ann, buf, sizeof(buf));
	memcpy(buf2, buf, n);
	buf2[n / 2] ^= 1;
	ok(proto_desc_open(&d2, &kr, 1, buf2, n, why, sizeof(why)) == -1,
	    "a changed byte is refused (%s)", why);
	n = proto_desc_sign(&d, &bob, buf, sizeof(buf));
	ok(proto_desc_open(&d2, &kr, 1, buf, n, why, sizeof(why)) == -1 &&
	    strstr(why, "no public key") != NULL,
	    "bob's key cannot sign ann's job (%s)", why);
	/* Verified before it is parsed: an unparseable body is a bad
	 * signature, not a malformed description. */
	n = proto_desc_sign(&d, &ann, buf, sizeof(buf));
	memcpy(buf2, buf, n);
	memset(buf2 + 16, 0xff, 40);
	ok(proto_desc_open(&d2, &kr, 1, buf2, n, why, sizeof(why)) == -1 &&
	    strstr(why, "bad signature for user ann") != NULL,
	    "a garbled body is refused by its signature first (%s)", why);
	/* The envelope names ann, the body (signed by ann) says bob. */
	strlcpy(d.de_user, "bob", sizeof(d.de_user));
	n = proto_desc_sign(&d, &ann, buf, sizeof(buf));
	at = memmem(buf, n, "bob", 3);
	ok(at != NULL && (memcpy(at, "ann", 3), 1) &&
	    proto_desc_open(&d2, &kr, 1, buf, n, why, sizeof(why)) == -1 &&
	    strstr(why, "description of user bob signed by ann") != NULL,
	    "ann cannot sign bob's description under her own name (%s)", why);
	strlcpy(d.de_user, "ann", sizeof(d.de_user));
	/* Bob signing a description for bob: no bob.pub, refused too. */
	strlcpy(d.de_user, "bob", sizeof(d.de_user));
	n = proto_desc_sign(&d, &bob, buf, sizeof(buf));
	ok(proto_desc_open(&d2, &kr, 1, buf, n, why, sizeof(why)) == -1,
	    "a user without an installed public key is refused");
	msg_users_free(kr.kr_users);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
