/*
 * CilkNodeManager's parent: worker folders whose launch pad is gone
 * (CilkNodeManager(8), FILES).  A folder holds the job's spec and
 * environment and the worker's output; its launch pad removes it once
 * the output is relayed.  A launch pad killed with the machine (a
 * reboot, a crash) leaves it behind, as does a restarted root's, whose
 * output stays for its user to read.  At start, before the live launch
 * pads are adopted, a guest worker's folder without a live launch pad
 * is removed; a restarted root's is kept, but only the REAP_ROOT_KEEP
 * newest of each user (as many as the records one user may have here):
 * older ones go, at start and whenever a restarted root is forgotten.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "lpad.h"
#include "node.h"

#define REAP_ROOT_KEEP	4	/* a user's ended roots' folders kept */
#define REAP_MAX	4096	/* ended roots' folders looked at */

struct gone_root {
	char	gr_worker[LPAD_WORKER_MAX + 1];
	uid_t	gr_uid;
	time_t	gr_mtime;
};

/* A restarted root's id begins with its record's name, 'r' (roots.c). */
static int
is_root(const char *worker)
{
	return worker[0] == 'r';
}

static int
newest_first(const void *a, const void *b)
{
	const struct gone_root *x = a, *y = b;

	if (x->gr_uid != y->gr_uid)
		return x->gr_uid < y->gr_uid ? -1 : 1;
	if (x->gr_mtime != y->gr_mtime)
		return x->gr_mtime > y->gr_mtime ? -1 : 1;
	return strcmp(x->gr_worker, y->gr_worker);
}

static void
reap_one(struct node *n, const char *worker, const char *why)
{
	if (lpad_remove_folder(n->n_state_dir, worker) == -1 &&
	    errno != ENOENT)
		log_warn("worker %s: remove its folder", worker);
	else
		log_info("worker %s: its folder removed: %s", worker, why);
}

/* guests: also a guest's folder without a live launch pad (at start). */
static void
reap(struct node *n, int guests)
{
	char dir[PATH_MAX];
	struct gone_root *gr = NULL;
	struct dirent *de;
	struct stat st;
	size_t ngr = 0, i, kept = 0;
	DIR *d;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/workers",
	    n->n_state_dir) >= sizeof(dir))
		return;
	if ((d = opendir(dir)) == NULL) {
		if (errno != ENOENT)
			log_warn("%s: %s", __func__, dir);
		return;
	}
	if ((gr = calloc(REAP_MAX, sizeof(*gr))) == NULL) {
		log_warn("%s", __func__);
		closedir(d);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!lpad_worker_ok(de->d_name) ||
		    fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISDIR(st.st_mode) ||
		    lpad_alive(n->n_run_dir, de->d_name) != 0)
			continue;
		if (!is_root(de->d_name)) {
			if (guests)
				reap_one(n, de->d_name, "its launch pad is "
				    "gone (a reboot or a crash)");
			continue;
		}
		if (ngr == REAP_MAX)
			continue;
		strlcpy(gr[ngr].gr_worker, de->d_name,
		    sizeof(gr[ngr].gr_worker));
		gr[ngr].gr_uid = st.st_uid;
		gr[ngr].gr_mtime = st.st_mtime;
		ngr++;
	}
	closedir(d);
	qsort(gr, ngr, sizeof(*gr), newest_first);
	for (i = 0; i < ngr; i++) {
		kept = i > 0 && gr[i].gr_uid == gr[i - 1].gr_uid ? kept + 1 : 1;
		if (kept > REAP_ROOT_KEEP)
			reap_one(n, gr[i].gr_worker, "an older ended root's "
			    "(the newest 4 of its user are kept)");
	}
	free(gr);
}

/* At start, before adoption. */
void
node_reap_start(struct node *n)
{
	reap(n, 1);
}

/* A restarted root was forgotten: its user's oldest folders go. */
void
node_reap_roots(struct node *n)
{
	reap(n, 0);
}
