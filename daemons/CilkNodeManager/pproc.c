/*
 * CilkNodeManager's privileged parent: what the engine may ask of a
 * process (PIDQ), which it cannot see (its view has no /proc of its
 * own to trust for this; the parent looks): is it the user's, did it
 * start when the engine was told, and is it a guest worker's.  For a
 * clearinghouse asking after its worker (procq.c) and for a root that
 * asks to be backed up or is watched (roots.c).
 */
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "node.h"
#include "proto_proc.h"
#include "proto_root.h"

/* 1 if pid runs in the cgroup of a root we restarted (w-r...). */
static int
in_restarted_root(uint32_t pid)
{
	char path[64], line[PATH_MAX];
	const char *leaf;
	FILE *f;
	int yes = 0;

	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0 &&
		    (leaf = strstr(line, "/w-")) != NULL)
			yes = leaf[3] == 'r';
	fclose(f);
	return yes;
}

void
node_pid_answer(const struct node *n, const struct nmpriv_msg *q,
    const pid_t *lpads, size_t nlpads, struct nmpriv_msg *a)
{
	const struct passwd *pw;
	uint64_t start;

	memset(a, 0, sizeof(*a));
	a->nm_type = NMPRIV_PIDA;
	a->nm_req = q->nm_req;
	a->nm_state = (pw = getpwnam(q->nm_user)) == NULL ? PROTO_PROC_NONE :
	    proto_proc_state((long)q->nm_pid, pw->pw_uid);
	if (proto_root_pid_start((long)q->nm_pid, &start) == 0 &&
	    (q->nm_start == 0 || start == q->nm_start))
		a->nm_flag |= NMPRIV_PID_STARTED;
	/*
	 * The kernel's word: the worker cgroups, or without them the
	 * launch pads' trees; cannot tell: a worker (fail closed).  A root
	 * we restarted (its worker id, and only its, starts with 'r') is
	 * a root, not a guest.
	 */
	if ((a->nm_flag & NMPRIV_PID_STARTED) &&
	    contain_pid_is_worker(&n->n_cb, (pid_t)q->nm_pid, lpads,
	    nlpads) != 0 && !in_restarted_root(q->nm_pid))
		a->nm_flag |= NMPRIV_PID_WORKER;
}
