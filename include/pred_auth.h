/*
 * pred_auth — who may change which predicates (DESIGN.md section 6):
 * `always` only an administrator (a user named in the admins key),
 * `user=U ...` only U or an administrator, `node=H` the node's owners
 * (the owners key of its node manager) or an administrator.  Pure: the
 * caller has authenticated the user (a signature by the user's key).
 */
#ifndef CILKNOW_PRED_AUTH_H
#define CILKNOW_PRED_AUTH_H

#include <stddef.h>

#include "pred.h"

/* 1 if name is in the comma-separated list ("root,ann"). */
int	pred_auth_listed(const char *list, const char *name);

/*
 * May user change the predicate of scope s?  admins and owners are the
 * config keys' values (owners NULL where node predicates are not kept:
 * the broker).  0 if so, else -1 with why the answer is no in why.
 */
int	pred_auth_check(const struct pred_scope *s, const char *user,
	    const char *admins, const char *owners, char *why, size_t whylen);

#endif
