/* pred_auth — who may change which predicates. */
#include "pred_auth.h"

#include <stdio.h>
#include <string.h>

int
pred_auth_listed(const char *list, const char *name)
{
	size_t n = strlen(name), k;
	const char *p = list;

	if (list == NULL || n == 0)
		return 0;
	while (*p != '\0') {
		p += strspn(p, " \t,");
		k = strcspn(p, " \t,");
		if (k == n && strncmp(p, name, n) == 0)
			return 1;
		p += k;
	}
	return 0;
}

int
pred_auth_check(const struct pred_scope *s, const char *user,
    const char *admins, const char *owners, char *why, size_t whylen)
{
	if (user == NULL || user[0] == '\0') {
		snprintf(why, whylen, "changes must be signed with a user's "
		    "key");
		return -1;
	}
	if (s->ps_type == PRED_S_NODE && owners == NULL) {
		snprintf(why, whylen, "node=%s predicates are kept by the "
		    "node manager of %s, not here", s->ps_node, s->ps_node);
		return -1;
	}
	if (pred_auth_listed(admins, user))
		return 0;
	switch (s->ps_type) {
	case PRED_S_ALWAYS:
		snprintf(why, whylen, "only an administrator (admins = %s) "
		    "may change always predicates, and %s is not one",
		    admins != NULL && admins[0] != '\0' ? admins : "nobody",
		    user);
		return -1;
	case PRED_S_USER:
	case PRED_S_USER_GLOBAL:
	case PRED_S_USER_NODE:
		if (strcmp(s->ps_user, user) == 0)
			return 0;
		snprintf(why, whylen, "only %s or an administrator may change "
		    "%s's predicates, and %s is neither", s->ps_user,
		    s->ps_user, user);
		return -1;
	case PRED_S_NODE:
		if (pred_auth_listed(owners, user))
			return 0;
		snprintf(why, whylen, "only the owners of %s (owners = %s) or "
		    "an administrator may change its predicates, and %s is "
		    "neither", s->ps_node, owners[0] != '\0' ? owners :
		    "nobody", user);
		return -1;
	default:
		snprintf(why, whylen, "no such scope");
		return -1;
	}
}
