/*
 * CilkJobBroker: before the split, its folder (pred.c) and, started as
 * root, what the engine sees of the file system (priv_view_enter):
 * what every engine sees (dview.c) and its own folder, written (the
 * registry, the history, the job ids and the predicates).  Nothing
 * else: not the users' homes, /tmp, /usr, /var or the node manager's
 * state.
 */
#include <limits.h>
#include <stdio.h>

#include "bpred.h"
#include "bview.h"
#include "log.h"

int
bview_prepare(struct dctx *dc, const struct priv_user *pu, char *err,
    size_t errlen)
{
	static struct priv_view view;
	char sdir[PATH_MAX], bdir[PATH_MAX + 16];
	int rc;

	if (bpred_prepare(dc, pu, err, errlen) == -1)
		return -1;
	if (pu == NULL)
		return 0;
	if (conf_get_path(dc->dc_conf, "state_dir", sdir, sizeof(sdir)) ==
	    -1 || (size_t)snprintf(bdir, sizeof(bdir), "%s/%s", sdir,
	    BPRED_DIR) >= sizeof(bdir)) {
		snprintf(err, errlen, "state_dir: bad path");
		return -1;
	}
	if ((rc = dctx_view_init(dc, &view, err, errlen)) != 0)
		return rc == 1 ? 0 : -1;
	if (dctx_view_add(&view, bdir, PRIV_VIEW_RW, err, errlen) == -1)
		return -1;
	/* An older version's state_dir/predicates, taken over (pred.c). */
	if ((size_t)snprintf(bdir, sizeof(bdir), "%s/%s", sdir, BPRED_FILE) >=
	    sizeof(bdir) || dctx_view_add(&view, bdir, PRIV_VIEW_OPTIONAL,
	    err, errlen) == -1)
		return -1;
	dc->dc_view = &view;
	return 0;
}
