/*
 * proto_pred — the messages that carry idleness predicates
 * (cilknow-predicates(5)) between CilkPred, the job broker and the node
 * managers, and the node's measurements for "CilkPred node=H check".
 * Predicate sets travel as their canonical text, one predicate a line,
 * so that the receiver parses them with the same parser as the files.
 * Decoders check every length and refuse leftover bytes; see
 * cilknow-protocol(7).
 */
#ifndef CILKNOW_PROTO_PRED_H
#define CILKNOW_PROTO_PRED_H

#include <stddef.h>
#include <stdint.h>

#include "pred.h"
#include "proto.h"

#define PROTO_PRED_CMD_MAX	2048	/* words of one command */
#define PROTO_PRED_TEXT_MAX	60000	/* canonical lines of a set */

/*
 * PRED_REQ, tool -> broker or node manager: one CilkPred command as
 * its words joined by single blanks ("user=ann global add
 * idletime=900"), parsed again by the receiver with pred_cmd_parse().
 * A change must come under the user scheme (signed by the user's key);
 * list and check may come under either scheme.  The cookie, when it
 * has one, is the one the daemon asked for (PROTO_PRED_ANS_FREE).
 */
struct proto_pred_req {
	uint8_t		pq_action;	/* enum pred_action */
	char		pq_cmd[PROTO_PRED_CMD_MAX];
	uint8_t		pq_has_cookie;
	uint8_t		pq_cookie[PROTO_COOKIE_LEN];
};

/*
 * Return routability (cookie.h): a daemon answers a user-scheme
 * request with more than PROTO_PRED_ANS_FREE bytes, and more than the
 * request's own, only when it echoes the cookie the daemon sent to its
 * address; a change (add, del) under the user scheme is applied only
 * then.  Until then the answer is PROTO_H_COOKIE, and the tool asks
 * again with the cookie.  So a forged source address gets no more than
 * a small answer: no reflector.
 */
#define PROTO_PRED_ANS_FREE	256

/*
 * PRED_ANSWER, broker or node -> tool: the predicates (of the scope
 * asked about, or all that the answering daemon keeps), and for check
 * also what the node measured, the cluster's logged-in users as the
 * node knows them, and whether the node counts as idle now (which
 * thresholds apply: become or stay).
 */
struct proto_pred_ans {
	uint8_t		 pa_action;	/* of the request */
	char		 pa_node[PRED_NODE_MAX + 1];	/* "" from the broker */
	char		*pa_text;	/* canonical lines, NUL-terminated */
	uint8_t		 pa_has_meas;	/* check: the rest is valid */
	uint8_t		 pa_idle;	/* the node counts as idle now */
	struct pred_meas pa_meas;
	uint16_t	 pa_ncluster;
	struct pred_user pa_cluster[PRED_MEAS_USERS_MAX];
};

/*
 * PRED_PUSH, broker -> node managers: the broker's predicates (always
 * and user scopes) and the users logged in anywhere in the cluster with
 * their least idle time as of sending.
 */
struct proto_pred_push {
	uint64_t	 pp_epoch;	/* rises with every change */
	char		*pp_text;
	uint16_t	 pp_ncluster;
	struct pred_user pp_cluster[PRED_MEAS_USERS_MAX];
};

/* PRED_USERS, node manager -> broker: who is logged in here. */
struct proto_pred_users {
	uint16_t	 pu_n;
	struct pred_user pu_user[PRED_MEAS_USERS_MAX];
};

/*
 * Encoders return the length written into buf, or 0 if it did not fit.
 * Decoders return 0 or -1; text members are allocated by the decoder
 * and released with the _free functions (also after a failed decode).
 */
/*
 * A measurement in a message being written or read (wire.h): also the
 * node manager's parent's answer to its engine (nmpriv.h).  get: -1 if
 * malformed or out of range.
 */
struct wire_w;
struct wire_r;
void	proto_pred_meas_put(struct wire_w *, const struct pred_meas *);
int	proto_pred_meas_get(struct wire_r *, struct pred_meas *);

size_t	proto_pred_req_enc(const struct proto_pred_req *, uint8_t *, size_t);
int	proto_pred_req_dec(struct proto_pred_req *, const uint8_t *, size_t);
size_t	proto_pred_ans_enc(const struct proto_pred_ans *, uint8_t *, size_t);
int	proto_pred_ans_dec(struct proto_pred_ans *, const uint8_t *, size_t);
void	proto_pred_ans_free(struct proto_pred_ans *);
size_t	proto_pred_push_enc(const struct proto_pred_push *, uint8_t *,
	    size_t);
int	proto_pred_push_dec(struct proto_pred_push *, const uint8_t *,
	    size_t);
void	proto_pred_push_free(struct proto_pred_push *);
size_t	proto_pred_users_enc(const struct proto_pred_users *, uint8_t *,
	    size_t);
int	proto_pred_users_dec(struct proto_pred_users *, const uint8_t *,
	    size_t);

/*
 * Joins argv into one command line (blank-separated) and splits it
 * back; words hold no blanks after pred_cmd_parse() accepted them.
 * _split writes into buf and fills at most max pointers; -1 if there
 * are more words or buf is too small.
 */
int	proto_pred_join(int argc, char *const argv[], char *buf, size_t bufsz);
int	proto_pred_split(const char *cmd, char *buf, size_t bufsz,
	    char *argv[], int max, int *argc);

/*
 * Decodes a PRED_REQ datagram and parses its command into *cmd: 0, or
 * -1 with why empty (malformed: drop it) or with the reason to refuse
 * it (bad command, or one that is not what pq_action says).
 */
int	proto_pred_req_cmd(const struct msg_in *, struct proto_pred_req *,
	    struct pred_cmd *, char *why, size_t whysz);

#define PROTO_PRED_USER_MAX	16	/* predicates one user may keep */

/*
 * Applies an add or del to a copy of *setp, stores the copy at path
 * (atomically), and only then takes it in place of *setp: 0, or -1 with
 * why, *setp untouched.  An add is refused when its user would keep more
 * than PROTO_PRED_USER_MAX predicates, or when the set's text would no
 * longer fit in one push (PROTO_PRED_TEXT_MAX): what is stored can
 * always be sent to the nodes and read back, and a del always passes.
 */
int	proto_pred_set_change(struct pred_set **setp, const char *path,
	    const struct pred_cmd *, char *why, size_t whysz);

/*
 * A set to canonical text (malloc'd, NUL-terminated; NULL with errno
 * on failure) and back (0, or -1 with the reason in err; set is then
 * unchanged).  filter: only that scope (NULL: all).
 */
char	*proto_pred_set_text(const struct pred_set *,
	    const struct pred_scope *filter);
int	proto_pred_set_parse(struct pred_set *, const char *text, char *err,
	    size_t errlen);

#endif
