/*
 * CilkNodeManager's privileged parent: what the node itself needs to
 * start any worker, checked before its launch pad is: the job's user
 * known here, and room in state_dir (spool_min_free).  A refusal here is
 * the node's, not the job's: its job manager runs the task elsewhere and
 * does not count it against the task (CilkNodeManager(8), "Node-side
 * failures").
 */
#include <sys/statvfs.h>

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "node.h"
#include "stage.h"

int
node_start_check(const struct node *n, const char *user, char *why,
    size_t whylen)
{
	struct statvfs sv;
	uint64_t want, free_b;

	errno = 0;
	if (getpwnam(user) == NULL) {
		if (errno != 0 && errno != ENOENT && errno != ESRCH &&
		    errno != EBADF && errno != EPERM)
			snprintf(why, whylen, "user %s: the user database: %s",
			    user, strerror(errno));
		else
			snprintf(why, whylen, "user %s unknown", user);
		return -1;
	}
	if (stage_size_parse(conf_get(n->n_dc.dc_conf, "spool_min_free"),
	    &want) == -1) {
		snprintf(why, whylen, "spool_min_free: not a size");
		return -1;
	}
	if (want == 0)
		return 0;
	if (statvfs(n->n_state_dir, &sv) == -1) {
		snprintf(why, whylen, "%s: %s", n->n_state_dir,
		    strerror(errno));
		return -1;
	}
	free_b = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if (free_b < want) {
		snprintf(why, whylen, "no space left in %s (%llu KiB free, "
		    "spool_min_free %llu KiB)", n->n_state_dir,
		    (unsigned long long)(free_b >> 10),
		    (unsigned long long)(want >> 10));
		return -1;
	}
	/* No inode left makes every new file fail as surely. */
	if (sv.f_files > 0 && sv.f_favail == 0) {
		snprintf(why, whylen, "no space left in %s (no inode free)",
		    n->n_state_dir);
		return -1;
	}
	return 0;
}
