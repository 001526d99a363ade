/*
 * CilkNodeManager's privileged parent: the staging part of a launch
 * pad's spec (CilkLaunchPad(8), STAGING), from the description the
 * parent has just checked itself: the files and their hashes as the
 * user signed them, the spool the engine named (a plain name in the
 * engine's stage folder; the launch pad checks the file's owner), and
 * the task folder the worker runs in instead of the submit folder.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lpad.h"
#include "node.h"

static int
spool_name_ok(const char *s)
{
	size_t i;

	if (s[0] != 's')
		return 0;
	for (i = 1; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f') || s[i] == '-'))
			return 0;
	return i > 1;
}

int
node_stage_spec(struct node *n, struct lpad_spec *sp,
    const struct proto_desc *d, const char *spool, const char *worker,
    char *why, size_t whylen)
{
	const struct stage_list *l = &d->de_stage;
	struct stat st;
	char dir[LPAD_PATH_MAX];

	if (l->sl_nin == 0 && l->sl_nout == 0)
		return 0;
	sp->ls_stage = *l;
	sp->ls_taskdir = 1;
	/* For the worker's PWD and the logs: where it runs. */
	if (lpad_worker_dir(n->n_state_dir, worker, dir, sizeof(dir)) == -1 ||
	    (size_t)snprintf(sp->ls_cwd, sizeof(sp->ls_cwd), "%s/%s", dir,
	    STAGE_TASK_DIR) >= sizeof(sp->ls_cwd)) {
		snprintf(why, whylen, "task folder path too long");
		return -1;
	}
	if (stage_size_parse(conf_get(n->n_dc.dc_conf, "stage_max"),
	    &sp->ls_stage_max) == -1 ||
	    stage_size_parse(conf_get(n->n_dc.dc_conf, "stage_max_task"),
	    &sp->ls_stage_max_task) == -1) {
		snprintf(why, whylen, "stage_max or stage_max_task: not a "
		    "size");
		return -1;
	}
	if (l->sl_nin == 0)
		return 0;
	if (!spool_name_ok(spool)) {
		snprintf(why, whylen, "stage-in files but no spool named");
		return -1;
	}
	/* The engine's folder: its owner is the engine's uid. */
	if (stat(n->n_engine_dir, &st) == -1 ||
	    (size_t)snprintf(sp->ls_stage_spool, sizeof(sp->ls_stage_spool),
	    "%s/stage/%s", n->n_engine_dir, spool) >=
	    sizeof(sp->ls_stage_spool)) {
		snprintf(why, whylen, "%s: %s", n->n_engine_dir,
		    strerror(errno));
		return -1;
	}
	sp->ls_stage_uid = (long long)st.st_uid;
	return 0;
}
