/*
 * proto_page — listings of any size (cilknow-protocol(7)).  LIST_PAGE
 * asks for the jobs or nodes from a place in the broker's table on,
 * only those that pass a filter; the answer (JOBS_PAGE, NODES_PAGE)
 * echoes the place asked for, says where the next page starts (0: this
 * was the last), and carries the rows as JOBS and NODES do.  Filtering
 * at the broker keeps `CilkNodes -s idle` small at any table size.
 * The cookie rule of LIST holds for LIST_PAGE too.
 *
 * LIST_PAGE: u8 what, u8 state (0: any), u32 job (0: any), u32 from,
 * u8 has_cookie, 16 bytes cookie.  JOBS_PAGE, NODES_PAGE: u32 from,
 * u32 next, then the rows of JOBS or NODES.
 */
#ifndef CILKNOW_PROTO_PAGE_H
#define CILKNOW_PROTO_PAGE_H

#include "proto.h"

#define PROTO_PAGE_ROWS		256	/* node rows in one page, at most */
#define PROTO_PAGE_JOB_ROWS	128	/* job rows (each up to 331 bytes) */
#define PROTO_PAGE_SCAN		4096	/* table rows a page looks at, at
					   most: a filter that passes few
					   costs no more per request */

struct proto_list_page {
	uint8_t		lp_what;	/* enum proto_list_what */
	uint8_t		lp_state;	/* nodes in this state; 0: any */
	uint32_t	lp_job;		/* nodes running, or this job; 0: any */
	uint32_t	lp_from;	/* place in the table, 0: the start */
	uint8_t		lp_has_cookie;
	uint8_t		lp_cookie[PROTO_COOKIE_LEN];
};

struct proto_page {
	uint32_t		 pg_from;	/* as asked */
	uint32_t		 pg_next;	/* 0: no more */
	uint32_t		 pg_n;
	struct proto_job_row	*pg_jobs;	/* JOBS_PAGE; free() */
	struct proto_node_row	*pg_nodes;	/* NODES_PAGE; free() */
};

size_t	proto_list_page_enc(const struct proto_list_page *, uint8_t *,
	    size_t);
int	proto_list_page_dec(struct proto_list_page *, const uint8_t *,
	    size_t);
/* rows: proto_job_row or proto_node_row, as what says. */
size_t	proto_page_enc(uint8_t what, uint32_t from, uint32_t next,
	    const void *rows, uint32_t n, uint8_t *, size_t);
int	proto_page_dec(uint8_t what, struct proto_page *, const uint8_t *,
	    size_t);

#endif
