/* Unit tests of PROC_ASK and PROC, and what the kernel says (proto_proc.h). */
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "codec_robust.h"
#include "proto_rt.h"

/* Polls (bounded) until the kernel says the child is in state want. */
static int
becomes(pid_t pid, uid_t uid, enum proto_proc_state want)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (proto_proc_state(pid, uid) == want)
			return 1;
		usleep(10000);
	}
	return 0;
}

int
main(void)
{
	uint8_t buf[64];
	struct proto_proc a, a2;
	uint32_t pid;
	size_t n;
	pid_t child;

	n = proto_proc_ask_enc(4242, buf, sizeof(buf));
	ok(n == 4 && proto_proc_ask_dec(&pid, buf, n) == 0 && pid == 4242,
	    "PROC_ASK round trip");
	robust("PROC_ASK", rt_proto_proc_ask, buf, n);
	n = proto_proc_ask_enc(1, buf, sizeof(buf));
	ok(proto_proc_ask_dec(&pid, buf, n) == -1, "PROC_ASK about pid 1 "
	    "refused");
	ok(proto_proc_ask_enc(7, buf, 3) == 0, "PROC_ASK: no room, no message");

	a.pp_pid = 4242;
	a.pp_state = PROTO_PROC_STOPPED;
	n = proto_proc_enc(&a, buf, sizeof(buf));
	ok(n == 5 && proto_proc_dec(&a2, buf, n) == 0 && a2.pp_pid == 4242 &&
	    a2.pp_state == PROTO_PROC_STOPPED, "PROC round trip");
	robust("PROC", rt_proto_proc, buf, n);
	buf[4] = PROTO_PROC_MAX;
	ok(proto_proc_dec(&a2, buf, n) == -1, "PROC with an unknown state "
	    "refused");

	ok(proto_proc_state(getpid(), getuid()) == PROTO_PROC_RUNNING,
	    "this process runs");
	ok(proto_proc_state(getpid(), getuid() + 1) == PROTO_PROC_NONE,
	    "another user asking about it hears: none");
	ok(proto_proc_state(1, getuid()) == PROTO_PROC_NONE,
	    "pid 1 is never one of ours");
	if ((child = fork()) == 0) {
		pause();
		_exit(0);
	}
	ok(child > 0 && becomes(child, getuid(), PROTO_PROC_RUNNING),
	    "a child waiting in pause() runs (it lives)");
	kill(child, SIGSTOP);
	ok(becomes(child, getuid(), PROTO_PROC_STOPPED), "stopped by "
	    "SIGSTOP: stopped");
	kill(child, SIGKILL);
	ok(becomes(child, getuid(), PROTO_PROC_NONE), "killed, not yet "
	    "reaped: none");
	waitpid(child, NULL, 0);
	ok(proto_proc_state(child, getuid()) == PROTO_PROC_NONE,
	    "reaped: none");
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
