/*
 * CilkNodeManager: what the engine sees of the file system when the
 * node manager starts as root (priv_view_enter, before the drop): what
 * every engine sees (dview.c) and its own folder (written) and the
 * workers' folders (their output, read).  Not the users' homes, /tmp,
 * /usr, /var, /dev, the devices or the sensors: those are the
 * parent's (measure.c, input.c).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "node.h"

int
node_view(struct node *n, char *err, size_t errlen)
{
	char path[PATH_MAX + 16];
	int rc;

	if ((rc = dctx_view_init(&n->n_dc, &n->n_view, err, errlen)) != 0)
		return rc == 1 ? 0 : -1;
	/* The launch pads make it too, as root and the same way. */
	snprintf(path, sizeof(path), "%s/workers", n->n_state_dir);
	if (mkdir(path, 0711) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (dctx_view_add(&n->n_view, n->n_engine_dir, PRIV_VIEW_RW, err,
	    errlen) == -1 ||
	    dctx_view_add(&n->n_view, path, 0, err, errlen) == -1)
		return -1;
	n->n_dc.dc_view = &n->n_view;
	return 0;
}
