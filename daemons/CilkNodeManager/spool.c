/*
 * CilkNodeManager engine: a task's stage-in freed, with its spool in
 * the engine's stage folder, once its worker no longer needs it: the
 * worker started (the launch pad has the spool), never ran, or is gone.
 * The fetch itself is stagein.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"
#include "stagein.h"

/* The spool's path: name in the engine's stage folder. */
void
node_stagein_path(const struct node *n, const char *name, char *buf,
    size_t len)
{
	snprintf(buf, len, "%s/stage/%s", n->n_engine_dir, name);
}

/* Frees the fetch; the spool goes too unless keep. */
static void
si_free(struct stagein *si, int keep)
{
	char path[PATH_MAX + 64];

	if (si->si_timer != NULL)
		evloop_timer_cancel(si->si_node->n_dc.dc_loop, si->si_timer);
	if (si->si_fd != -1)
		close(si->si_fd);
	if (!keep) {
		node_stagein_path(si->si_node, si->si_spool, path,
		    sizeof(path));
		if (unlink(path) == -1 && errno != ENOENT)
			log_warn("%s: %s", __func__, path);
	}
	free(si->si_desc);
	free(si);
}

void
node_stagein_free(struct node *n, struct worker *w)
{
	(void)n;
	if (w->w_stagein != NULL)
		si_free(w->w_stagein, 0);
	w->w_stagein = NULL;
}
