/* CilkPred's parts: the command line and output (main.c), asking (ask.c). */
#ifndef CILKPRED_H
#define CILKPRED_H

#include "cli.h"
#include "proto_pred.h"

/*
 * Sends req to the daemon at `to` (what: "the broker" or "the node
 * manager of H", for messages) and waits at most the configured timeout
 * for its PRED_ANSWER (into ans; proto_pred_ans_free() it) or ERROR.
 * Signed with the user key when there is one; need_user: only then.
 * Returns an exit code of DESIGN.md section 1 with the reason in err.
 */
int	cilkpred_ask(const struct conf *, const struct msg_addr *to,
	    const char *what, const struct proto_pred_req *req, int need_user,
	    struct proto_pred_ans *ans, char *err, size_t errlen);

#endif
