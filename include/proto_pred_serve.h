/*
 * proto_pred_serve — what the broker and every node manager do alike
 * with a PRED_REQ (CilkPred): take it, answer it with a set, and check,
 * authorise and apply an add or del.  Each keeps its own set and says
 * how a change is applied to it.
 */
#ifndef CILKNOW_PROTO_PRED_SERVE_H
#define CILKNOW_PROTO_PRED_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "cookie.h"
#include "proto_pred.h"

struct proto_pred_asked {
	struct msg_ep			*pk_ep;
	const struct msg_in		*pk_in;
	const struct cookie_key		*pk_cookie;	/* the daemon's */
	struct proto_pred_req		 pk_req;
	struct pred_cmd			 pk_cmd;
};

/*
 * Decodes in (proto_pred_req_cmd) into *k: 0 when it holds a command to
 * serve; -1 when it was dropped (malformed, logged at debug) or
 * answered with the reason it is refused.
 */
int	proto_pred_take(struct proto_pred_asked *k, struct msg_ep *,
	    const struct msg_in *in, const struct cookie_key *);

/*
 * Answers k with *a (its other fields the caller's) and the text of set
 * (only filter's scope; NULL: all), encoded in buf; or with a cookie
 * instead when the answer is more than a user-scheme asker proved it
 * may be sent (PROTO_PRED_ANS_FREE), or with an ERROR when it does not
 * fit.  a->pa_text is the set's text only during the call.
 */
void	proto_pred_answer(const struct proto_pred_asked *k,
	    struct proto_pred_ans *a, const struct pred_set *set,
	    const struct pred_scope *filter, uint8_t *buf, size_t bufsz);

/*
 * k's add or del, once its asker proved its address (else a cookie was
 * sent): authorised for the user whose own signature it bears
 * (pred_auth_check with admins and owners; NULL: none), then applied
 * by apply(arg, cmd, why, whysz) (0, or -1 with why).  Logged at info
 * either way (a refusal rate-limited) and a refusal answered with its
 * reason.  0 when applied (the caller answers), else -1.
 */
int	proto_pred_change(const struct proto_pred_asked *k,
	    const char *admins, const char *owners,
	    int (*apply)(void *arg, const struct pred_cmd *, char *why,
	    size_t whysz), void *arg);

#endif
