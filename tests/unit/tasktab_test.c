/*
 * tasktab_test — the job manager's task table: numbers 0..N-1 handed
 * out lowest first, a repeated request answered with the same task, the
 * retries and the give-up, stops and lost instances run again, launch
 * failures give the node up, open-ended jobs, and the messages.
 */
#include "tasktab.h"

#include <signal.h>
#include <stdio.h>

#include "tap.h"

static void
test_fixed(void)
{
	struct tasktab tt;
	uint32_t t, u;
	char buf[64];

	ok(tt_init(&tt, 3, 2) == 0, "init 3 tasks, 2 tries");
	is_int(tt_waiting(&tt), 3, "3 waiting before any hand-out");
	is_int(tt_take(&tt, "a", 1, &t), TT_TAKE_NEW, "a takes a task");
	is_int(t, 0, "task 0 first");
	is_int(tt.tt_t[0].tk_attempts, 1, "attempt 1");
	is_int(tt_take(&tt, "a", 2, &u), TT_TAKE_AGAIN,
	    "a asks again: the same request");
	is_int(u, 0, "and gets task 0 again");
	is_int(tt.tt_t[0].tk_attempts, 1, "still attempt 1");
	is_int(tt_take(&tt, "b", 2, &t), TT_TAKE_NEW, "b takes one");
	is_int(t, 1, "task 1");
	is_int(tt_take(&tt, "c", 2, &t), TT_TAKE_NEW, "c takes one");
	is_int(t, 2, "task 2");
	is_int(tt_take(&tt, "d", 2, &t), TT_TAKE_NONE, "none left for d");
	is_int(tt_running(&tt), 3, "3 running");
	is_int(tt_waiting(&tt), 0, "none waiting while all 3 run");

	is_int(tt_exit(&tt, 0, "b", 0, 0), TT_END_STALE,
	    "an exit of task 0 from b is not its");
	is_int(tt_exit(&tt, 0, "a", 0, 0), TT_END_DONE, "task 0 done");
	is_int(tt_exit(&tt, 0, "a", 0, 0), TT_END_STALE,
	    "its exit again changes nothing");
	is_int(tt_exit(&tt, 1, "b", -SIGQUIT, 0), TT_END_STOPPED,
	    "task 1 stopped by its node");
	is_int(tt_waiting(&tt), 1, "the stopped task waits to run again");
	is_int(tt_take(&tt, "a", 3, &t), TT_TAKE_NEW, "a takes another");
	is_int(t, 1, "task 1 again");
	is_int(tt.tt_t[1].tk_attempts, 2, "attempt 2");
	is_int(tt_exit(&tt, 2, "c", 3, 0), TT_END_RETRY, "task 2 fails once");
	is_int(tt_waiting(&tt), 1, "a failed task to retry waits");
	is_int(tt_take(&tt, "c", 3, &t), TT_TAKE_NEW, "c takes it again");
	is_int(t, 2, "task 2");
	is_int(tt_exit(&tt, 2, "c", -SIGSEGV, 0), TT_END_GIVEN_UP,
	    "fails a second time: given up");
	is_int(tt.tt_given_up, 1, "1 given up");
	ok(!tt_over(&tt), "not over while task 1 runs");
	is_int(tt_left(&tt), 1, "1 left");
	is_int(tt_waiting(&tt), 0, "but it runs: none waiting");
	is_int(tt_exit(&tt, 1, "a", 0, 0), TT_END_DONE, "task 1 done");
	ok(tt_over(&tt), "over: 2 done, 1 given up");
	is_str(tt_given_up_list(&tt, buf, sizeof(buf)), "2",
	    "task 2 given up");
	is_int(tt.tt_done, 2, "2 done");
	is_int(tt.tt_failures, 2, "2 failures");
	tt_free(&tt);
}

static void
test_lost_and_nostart(void)
{
	struct tasktab tt;
	uint32_t t;

	ok(tt_init(&tt, 2, 3) == 0, "init 2 tasks");
	(void)tt_take(&tt, "a", 0, &t);
	(void)tt_take(&tt, "b", 0, &t);
	tt_seen(&tt, 1, "b", 9);
	is_int(tt_reclaim(&tt, 10, 5, NULL, NULL), 1,
	    "a's task is not heard of for 10 s: taken back");
	is_int(tt.tt_t[0].tk_state, TT_PENDING, "task 0 pending again");
	is_int(tt_exit(&tt, 0, "a", 0, 0), TT_END_STALE,
	    "a late word from a is ignored");
	is_int(tt_exit(&tt, 1, "b", 126, 1), TT_END_NOSTART,
	    "task 1 cannot start on b");
	ok(tt_node_gone(&tt, "b"), "b is given up");
	is_int(tt_take(&tt, "b", 11, &t), TT_TAKE_GONE, "b gets nothing");
	is_int(tt.tt_ran, 0, "nothing ran yet");
	is_int(tt_take(&tt, "c", 11, &t), TT_TAKE_NEW, "c gets one");
	is_int(t, 0, "task 0");
	is_int(tt.tt_t[0].tk_attempts, 2, "attempt 2");
	is_int(tt_take(&tt, "d", 11, &t), TT_TAKE_NEW, "d gets one");
	is_int(t, 1, "task 1");
	is_int(tt.tt_t[1].tk_attempts, 1,
	    "attempt 1: the one that never started does not count");
	tt_free(&tt);
}

static void
test_open(void)
{
	struct tasktab tt;
	uint32_t t;

	ok(tt_init(&tt, 0, 3) == 0, "init open-ended");
	is_int(tt_take(&tt, "a", 0, &t), TT_TAKE_NEW, "a takes one");
	is_int(t, 0, "task 0");
	is_int(tt_take(&tt, "a", 1, &t), TT_TAKE_AGAIN, "asked again");
	is_int(t, 0, "task 0 still");
	is_int(tt_take(&tt, "b", 1, &t), TT_TAKE_NEW, "b takes one");
	is_int(t, 1, "task 1");
	is_int(tt_exit(&tt, 0, "a", 0, 0), TT_END_DONE, "task 0 done");
	is_int(tt_take(&tt, "a", 1, &t), TT_TAKE_NONE,
	    "a node runs the program once");
	is_int(tt_exit(&tt, 1, "b", -SIGKILL, 0), TT_END_STOPPED,
	    "task 1 stopped");
	is_int(tt_take(&tt, "b", 2, &t), TT_TAKE_NEW, "b takes another");
	is_int(t, 2, "with a new number");
	is_int(tt_exit(&tt, 2, "b", 1, 0), TT_END_FAILED,
	    "a failure is final");
	is_int(tt_take(&tt, "c", 2, &t), TT_TAKE_NEW, "c takes one");
	is_int(tt_reclaim(&tt, 100, 5, NULL, NULL), 1, "and is lost");
	is_int(tt_running(&tt), 0, "nothing runs");
	ok(!tt_over(&tt), "open-ended is never over by count");
	tt_free(&tt);
}

/* A node whose owner came back before it started the task gives it back. */
static void
test_withdraw(void)
{
	struct tasktab tt;
	uint32_t t;

	ok(tt_init(&tt, 2, 3) == 0, "init 2 tasks");
	is_int(tt_take_fetch(&tt, "a/0", 21, 0, &t), TT_TAKE_NEW,
	    "a/0 fetches a task");
	is_int(tt_take_fetch(&tt, "b/0", 22, 0, &t), TT_TAKE_NEW,
	    "b/0 fetches the other");
	is_int(tt_withdraw(&tt, "a/0", 0), -1, "fetch 0 withdraws nothing");
	is_int(tt_withdraw(&tt, "a/0", 22), -1,
	    "b/0's fetch is not a/0's to withdraw");
	is_int(tt_withdraw(&tt, "b/0", 21), -1, "nor a/0's b/0's");
	is_int(tt_withdraw(&tt, "a/0", 21), 0, "a/0 withdraws task 0");
	is_int(tt.tt_t[0].tk_state, TT_PENDING, "pending again at once");
	is_int(tt_withdraw(&tt, "a/0", 21), -1, "withdrawn once");
	is_int(tt_exit(&tt, 0, "a/0", 0, 0), TT_END_STALE,
	    "a late exit from a/0 is ignored");
	ok(!tt_node_gone(&tt, "a/0") && !tt_node_gone(&tt, "a"),
	    "a is not given up");
	is_int(tt_take_fetch(&tt, "c/0", 23, 0, &t), TT_TAKE_NEW,
	    "c/0 fetches");
	is_int(t, 0, "and gets task 0");
	is_int(tt_running(&tt), 2, "two run");
	tt_free(&tt);
	ok(tt_init(&tt, 0, 3) == 0, "init open-ended");
	(void)tt_take_fetch(&tt, "a/0", 31, 0, &t);
	is_int(tt_withdraw(&tt, "a/0", 31), 0, "an open-ended instance "
	    "withdrawn");
	is_int(tt.tt_t[0].tk_state, TT_LOST, "is lost, as if reclaimed");
	is_int(tt_running(&tt), 0, "nothing runs");
	tt_free(&tt);
}

/* A node that restarted asks afresh: its lost attempt is counted. */
static void
test_fetch(void)
{
	struct tasktab tt;
	uint32_t t;

	ok(tt_init(&tt, 2, 3) == 0, "init 2 tasks");
	is_int(tt_take_fetch(&tt, "a", 11, 0, &t), TT_TAKE_NEW,
	    "a takes task 0 with fetch 11");
	is_int(tt_take_fetch(&tt, "a", 11, 1, &t), TT_TAKE_AGAIN,
	    "fetch 11 again (a lost answer): the same hand-out");
	is_int(tt.tt_t[0].tk_attempts, 1, "attempt 1");
	is_int(tt_take_fetch(&tt, "a", 12, 1, &t), TT_TAKE_AGAIN,
	    "another fetch before a was heard running: the same attempt");
	is_int(tt.tt_t[0].tk_attempts, 1, "still attempt 1");
	tt_seen(&tt, 0, "a", 2);
	is_int(tt_take_fetch(&tt, "a", 12, 3, &t), TT_TAKE_AGAIN,
	    "its fetch again after it ran: the same");
	is_int(tt_take_fetch(&tt, "a", 13, 4, &t), TT_TAKE_RESTARTED,
	    "a fresh fetch once it was heard running: it restarted");
	is_int(t, 0, "task 0 starts there again");
	is_int(tt.tt_t[0].tk_attempts, 2, "as attempt 2");
	is_int(tt.tt_stopped, 1, "the lost attempt counts as stopped");
	is_int(tt_take_fetch(&tt, "a", 13, 5, &t), TT_TAKE_AGAIN,
	    "its retry is the same hand-out");
	is_int(tt_take_fetch(&tt, "a", 0, 5, &t), TT_TAKE_AGAIN,
	    "a fetch of no identity (an old node): as before");
	is_int(tt.tt_t[0].tk_attempts, 2, "still attempt 2");
	is_int(tt_exit(&tt, 0, "a", 0, 0), TT_END_DONE, "task 0 done");
	is_int(tt_take_fetch(&tt, "a", 14, 6, &t), TT_TAKE_NEW,
	    "then a takes task 1");
	is_int(t, 1, "task 1");
	tt_free(&tt);
}

static void
test_text(void)
{
	char buf[200];

	tt_nostart_text("/home/ann/x", "ws3",
	    "/home/ann/x: No such file or directory", buf, sizeof(buf));
	is_str(buf, "working folder /home/ann/x does not exist on node ws3",
	    "a missing working folder");
	tt_nostart_text("/home/ann/x", "ws3",
	    "exec simulate: No such file or directory", buf, sizeof(buf));
	is_str(buf, "program simulate not found on node ws3",
	    "a missing program");
	tt_nostart_text("/home/ann/x", "ws3", "exec simulate: Permission "
	    "denied", buf, sizeof(buf));
	is_str(buf, "cannot start on node ws3: exec simulate: Permission "
	    "denied", "another reason, as it is");
}

/* A node-side failure gives the whole node up: all its processors. */
static void
test_host(void)
{
	struct tasktab tt;
	uint32_t task;

	ok(tt_init(&tt, 3, 3) == 0, "init: 3 tasks");
	is_int(tt_take(&tt, "ws2/1", 1, &task), TT_TAKE_NEW,
	    "ws2/1 takes a task");
	is_int(tt_exit(&tt, task, "ws2/1", 256, 1), TT_END_NOSTART,
	    "its start fails: not started");
	is_int(tt.tt_t[task].tk_failures, 0, "not counted as a failure");
	is_int(tt.tt_t[task].tk_attempts, 0, "nor as an attempt");
	ok(tt_node_gone(&tt, "ws2/1"), "that processor is given up");
	ok(!tt_node_gone(&tt, "ws2/0"), "its neighbour not yet");
	tt_give_host_up(&tt, "ws2");
	ok(tt_node_gone(&tt, "ws2/0") && tt_node_gone(&tt, "ws2"),
	    "the node given up: every processor of it");
	is_int(tt_take(&tt, "ws2/0", 2, &task), TT_TAKE_GONE,
	    "ws2/0 is told it cannot run the job");
	ok(!tt_node_gone(&tt, "ws20/0") && !tt_node_gone(&tt, "ws"),
	    "a node whose name starts alike is not");
	is_int(tt_take(&tt, "ws1", 3, &task), TT_TAKE_NEW,
	    "another node takes it");
	is_int(task, 0, "task 0, again");
	tt_give_host_up(&tt, "ws1/0");
	ok(!tt_node_gone(&tt, "ws1"), "a processor name is not a host");
	tt_free(&tt);
}

int
main(void)
{
	struct tasktab tt;

	ok(tt_init(&tt, TT_TASKS_MAX + 1, 3) == -1, "too many tasks refused");
	ok(tt_init(&tt, 1, 0) == -1, "0 tries refused");
	test_fixed();
	test_lost_and_nostart();
	test_open();
	test_fetch();
	test_withdraw();
	test_text();
	test_host();
	return tap_done();
}
