/* CilkJobBroker: its folder and its engine's view, before the split. */
#ifndef CILKNOW_BVIEW_H
#define CILKNOW_BVIEW_H

#include <stddef.h>

#include "dctx.h"

/* dctx_spec's ds_prepare (view.c). */
int	bview_prepare(struct dctx *, const struct priv_user *pu, char *err,
	    size_t errlen);

#endif
