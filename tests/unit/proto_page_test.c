/* Unit tests of the LIST_PAGE, JOBS_PAGE and NODES_PAGE codecs. */
#include <stdlib.h>
#include <string.h>

#include "proto_page.h"
#include "tap.h"

int
main(void)
{
	static struct proto_node_row nodes[PROTO_PAGE_ROWS + 1];
	static struct proto_job_row jobs[PROTO_PAGE_JOB_ROWS];
	static uint8_t buf[MSG_PAYLOAD_MAX];
	struct proto_list_page q, q2;
	struct proto_page pg;
	size_t len;
	uint32_t i;

	memset(&q, 0, sizeof(q));
	q.lp_what = PROTO_LIST_NODES;
	q.lp_state = PROTO_NS_IDLE;
	q.lp_job = 7;
	q.lp_from = 4096;
	q.lp_has_cookie = 1;
	memset(q.lp_cookie, 0xab, sizeof(q.lp_cookie));
	len = proto_list_page_enc(&q, buf, sizeof(buf));
	ok(len == 27 && proto_list_page_dec(&q2, buf, len) == 0 &&
	    memcmp(&q, &q2, sizeof(q)) == 0, "LIST_PAGE round trip");
	ok(proto_list_page_dec(&q2, buf, len - 1) == -1, "short: refused");
	buf[len] = 0;
	ok(proto_list_page_dec(&q2, buf, len + 1) == -1,
	    "a byte left over: refused");
	buf[0] = PROTO_LIST_MAX;
	ok(proto_list_page_dec(&q2, buf, len) == -1, "what 3: refused");
	buf[0] = PROTO_LIST_NODES;
	buf[1] = PROTO_NS_MAX;
	ok(proto_list_page_dec(&q2, buf, len) == -1,
	    "a state out of range: refused");

	for (i = 0; i < PROTO_PAGE_ROWS + 1; i++) {
		nodes[i].nw_node = i + 1;
		nodes[i].nw_addr.ma_family = 4;
		nodes[i].nw_state = PROTO_NS_IDLE;
		strlcpy(nodes[i].nw_host, "a-host-name-of-some-length",
		    sizeof(nodes[i].nw_host));
	}
	len = proto_page_enc(PROTO_LIST_NODES, 10, 300, nodes,
	    PROTO_PAGE_ROWS, buf, sizeof(buf));
	ok(len > 0 && proto_page_dec(PROTO_LIST_NODES, &pg, buf, len) == 0 &&
	    pg.pg_from == 10 && pg.pg_next == 300 &&
	    pg.pg_n == PROTO_PAGE_ROWS && pg.pg_jobs == NULL &&
	    pg.pg_nodes[PROTO_PAGE_ROWS - 1].nw_node == PROTO_PAGE_ROWS,
	    "NODES_PAGE of %d rows round trip (%zu bytes)", PROTO_PAGE_ROWS,
	    len);
	free(pg.pg_nodes);
	ok(proto_page_enc(PROTO_LIST_NODES, 0, 0, nodes, PROTO_PAGE_ROWS + 1,
	    buf, sizeof(buf)) == 0, "a page of 257 rows is not made");
	len = proto_page_enc(PROTO_LIST_NODES, 10, 10, nodes, 1, buf,
	    sizeof(buf));
	ok(len > 0 && proto_page_dec(PROTO_LIST_NODES, &pg, buf, len) == -1,
	    "a next page not after this one: refused");
	/* 257 rows in the rows' own format: refused as a page. */
	len = proto_nodes_enc(nodes, PROTO_PAGE_ROWS + 1, buf + 8,
	    sizeof(buf) - 8);
	memset(buf, 0, 8);
	ok(len > 0 && proto_page_dec(PROTO_LIST_NODES, &pg, buf, len + 8) ==
	    -1, "257 rows in a page: refused");

	for (i = 0; i < PROTO_PAGE_JOB_ROWS; i++) {
		jobs[i].jw_job = i + 1;
		jobs[i].jw_addr.ma_family = 4;
		strlcpy(jobs[i].jw_user, "a-user-name-of-32-characters-abc",
		    sizeof(jobs[i].jw_user));
		memset(jobs[i].jw_command, 'x', PROTO_COMMAND_MAX - 1);
	}
	len = proto_page_enc(PROTO_LIST_JOBS, 0, 0, jobs, PROTO_PAGE_JOB_ROWS,
	    buf, sizeof(buf));
	ok(len > 0 && proto_page_dec(PROTO_LIST_JOBS, &pg, buf, len) == 0 &&
	    pg.pg_n == PROTO_PAGE_JOB_ROWS && pg.pg_next == 0 &&
	    pg.pg_jobs[0].jw_command[254] == 'x',
	    "JOBS_PAGE of %d longest rows fits in a message (%zu bytes)",
	    PROTO_PAGE_JOB_ROWS, len);
	free(pg.pg_jobs);
	return tap_done();
}
