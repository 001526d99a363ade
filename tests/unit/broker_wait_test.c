/*
 * Unit tests of broker_wait: job managers held by --after, noted from
 * their questions, listed as CilkPs rows (job 0, REASON after), kept
 * fresh, bounded per user and in all, forgotten when they register or
 * stop asking.
 */
#include <stdio.h>
#include <string.h>

#include "broker_wait.h"
#include "tap.h"

static struct broker_waits w;

static struct msg_addr
addr(int port)
{
	struct msg_addr a;

	memset(&a, 0, sizeof(a));
	a.ma_family = 4;
	a.ma_addr[0] = 127;
	a.ma_addr[3] = 1;
	a.ma_port = (uint16_t)port;
	return a;
}

int
main(void)
{
	struct msg_addr a = addr(40001), b = addr(40002), c = addr(40003);
	struct proto_job_row r;
	int i;

	broker_wait_init(&w);
	is_int(broker_wait_note(&w, "ann", &a, 7, 2, 10), 0, "ann's job "
	    "manager waits for job 7");
	is_int(w.bw_n, 1, "one waiting");
	broker_wait_row(&w.bw_w[0], 13.7, &r);
	ok(r.jw_job == 0 && strcmp(r.jw_user, "ann") == 0 &&
	    msg_addr_eq(&r.jw_addr, &a) && r.jw_nodes == 0 &&
	    r.jw_age == 3 && r.jw_pending == PROTO_PENDING_AFTER &&
	    strcmp(r.jw_command, "--after 7") == 0,
	    "its row: no job number, ann, its address, 3 s, after, --after 7");
	is_int(broker_wait_note(&w, "ann", &a, 7, 2, 14), 0, "asked again");
	is_int(w.bw_n, 1, "still one");
	broker_wait_row(&w.bw_w[0], 14, &r);
	is_int(r.jw_age, 4, "its age from the first question");
	is_int(broker_wait_note(&w, "ann", &b, 8, 2, 14), 0,
	    "another of ann's");
	is_int(broker_wait_note(&w, "ann", &c, 9, 2, 14), -1,
	    "a third of ann's is over her user_jobs (2)");
	is_int(broker_wait_note(&w, "bob", &c, 9, 2, 14), 0,
	    "bob's is noted");
	is_int(broker_wait_note(&w, "bob", &a, 9, 2, 14), 0,
	    "a note is its user's and address's: bob at ann's address too");
	is_int(w.bw_n, 4, "four");
	broker_wait_forget(&w, &a);
	is_int(w.bw_n, 2, "those at an address that registered a job go");
	ok(strcmp(w.bw_w[0].bw_user, "ann") == 0 && w.bw_w[0].bw_after == 8,
	    "the others stay, in order");
	/* b asked at 14, c at 14: at 14 + 15 both stay, after both go. */
	(void)broker_wait_note(&w, "ann", &b, 8, 2, 20);
	broker_wait_expire(&w, 29.5, 3);
	is_int(w.bw_n, 1, "not asked for 15 s (the least kept): gone");
	is_int(w.bw_w[0].bw_seen, 20, "the one asked later stays");
	broker_wait_expire(&w, 110, 100);
	is_int(w.bw_n, 1, "kept as long as asked for (3 intervals)");
	broker_wait_expire(&w, 200, 30);
	is_int(w.bw_n, 0, "and then gone");
	/* A new question for another job: that job, from now. */
	(void)broker_wait_note(&w, "ann", &a, 7, 0, 300);
	(void)broker_wait_note(&w, "ann", &a, 12, 0, 310);
	broker_wait_row(&w.bw_w[0], 311, &r);
	ok(strcmp(r.jw_command, "--after 12") == 0 && r.jw_age == 1,
	    "another job waited for: its number, its age");
	/* The bound in all. */
	broker_wait_init(&w);
	for (i = 0; i < BROKER_WAITS_MAX; i++) {
		struct msg_addr x = addr(1000 + i);

		if (broker_wait_note(&w, "ann", &x, 1, 0, 1) != 0)
			break;
	}
	is_int(i, BROKER_WAITS_MAX, "BROKER_WAITS_MAX noted");
	is_int(broker_wait_note(&w, "bob", &a, 1, 0, 1), -1,
	    "one more is refused");
	return tap_done();
}
