/*
 * brokerq — what CilkPs and CilkNodes share: ask the broker for a list,
 * a page at a time (PROTO_H_LIST_PAGE, proto_page.h), resending within the configured timeout since
 * datagrams get lost, and take its answer (JOBS, NODES or ERROR) only
 * from the broker's address.  Each page has the whole timeout.  The scheme is the cluster scheme when a
 * cluster key is readable, else the user scheme.  Returns the exit
 * codes of DESIGN.md §1 (enum cli_exit), with the reason in err.
 */
#ifndef CILKNOW_BROKERQ_H
#define CILKNOW_BROKERQ_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "proto.h"

#define BROKERQ_TRIES	3	/* requests sent within the timeout */
#define BROKERQ_ERR_MAX	1024	/* enough for any reason given */

struct brokerq_reply {
	uint8_t			 bq_what;	/* proto_list_what */
	uint32_t		 bq_n;		/* rows */
	struct proto_job_row	*bq_jobs;	/* LIST_JOBS */
	struct proto_node_row	*bq_nodes;	/* LIST_NODES */
	char			 bq_broker[64];	/* address asked */
};

/*
 * Asks the broker named by the configuration's "broker" key for what
 * (PROTO_LIST_JOBS or PROTO_LIST_NODES), waiting at most its "timeout".
 * CLI_EXIT_OK with the rows in *rep (brokerq_reply_free() them);
 * CLI_EXIT_FAILURE when the broker refused (its reason in err) or this
 * side could not ask (no key, no socket); CLI_EXIT_USAGE for a bad
 * broker address; CLI_EXIT_TIMEOUT when no answer came, with what to
 * check in err (several lines).
 */
int	brokerq_list(const struct conf *, uint8_t what,
	    struct brokerq_reply *rep, char *err, size_t errlen);
/*
 * The same, only the rows the broker finds to pass: nodes in state
 * (0: any) running job (0: any); jobs numbered job (0: any).
 */
int	brokerq_list_where(const struct conf *, uint8_t what, uint8_t state,
	    uint32_t job, struct brokerq_reply *rep, char *err,
	    size_t errlen);
void	brokerq_reply_free(struct brokerq_reply *);

struct cli_common;
/*
 * What a listing tool's main does once its options are read: logging,
 * libsodium, the configuration, then brokerq_list(); any error is
 * printed as prog's.  CLI_EXIT_OK with the rows in *rep, else the exit
 * code for main to return.
 */
int	brokerq_main(const struct cli_common *, const char *prog,
	    uint8_t what, struct brokerq_reply *rep);
int	brokerq_main_where(const struct cli_common *, const char *prog,
	    uint8_t what, uint8_t state, uint32_t job,
	    struct brokerq_reply *rep);

/*
 * A request that only a user may make (KILL_REQ): sends payload with
 * handler req to the configuration's broker under the user scheme,
 * signed by the user's key (user_key), resending within "timeout", and
 * takes the first answer with handler ans, or an ERROR for req, from
 * the broker's address signed as @cluster.  CLI_EXIT_OK with the
 * answer's payload in out (*outlen bytes); otherwise the exit code as
 * brokerq_list() gives it, with the reason in err.
 */
int	brokerq_ask(const struct conf *, uint16_t req, const void *payload,
	    size_t plen, uint16_t ans, uint8_t *out, size_t outsz,
	    size_t *outlen, char *err, size_t errlen);

/*
 * The same for a request whose answer is far larger (ACCT_REQ): its
 * payload ends in has_cookie, 0; when the broker answers with a cookie
 * (cookie.h), the request goes again with has_cookie 1 and the cookie
 * after it, from the same address.
 */
int	brokerq_ask_proven(const struct conf *, uint16_t req,
	    const void *payload, size_t plen, uint16_t ans, uint8_t *out,
	    size_t outsz, size_t *outlen, char *err, size_t errlen);

/*
 * What brokerq_ask and CilkPred share: one request (handler bc_req,
 * payload) to the daemon at bc_to under bc_scheme, sent with keys,
 * resent within the configuration's "timeout" (BROKERQ_TRIES in all);
 * the first answer with handler bc_ans that bc_take accepts (0; -1: it
 * could not be read, wait on), or an ERROR for bc_req, counts, from
 * bc_to only and, under the user scheme, signed as @cluster.  bc_proven:
 * the payload ends in has_cookie, 0; a PROTO_H_COOKIE from bc_to has
 * the request sent again with has_cookie 1 and the cookie after it.
 * CLI_EXIT_OK when answered, CLI_EXIT_FAILURE when refused (bc_refused,
 * with the reason in bc_reason) or this side could not ask (err),
 * CLI_EXIT_TIMEOUT when nothing came; the caller words what went wrong
 * from bc_sent, bc_malformed and bc_timeout.
 */
struct msg_keyring;
struct brokerq_call {
	const struct msg_addr	*bc_to;
	enum msg_scheme		 bc_scheme;
	uint16_t		 bc_req, bc_ans;
	const void		*bc_payload;
	size_t			 bc_plen;
	int			 bc_proven;
	int			(*bc_take)(void *arg, const uint8_t *, size_t);
	void			*bc_arg;
	/* told */
	int			 bc_sent;	/* requests sent */
	int			 bc_malformed;	/* answers not read */
	int			 bc_refused;
	char			 bc_reason[PROTO_REASON_MAX];
	double			 bc_timeout;	/* s waited at most */
};
int	brokerq_call(const struct conf *, struct msg_keyring *keys,
	    struct brokerq_call *, char *err, size_t errlen);

/* The IP address of a, without the port ("127.0.0.3", "::1"). */
void	brokerq_host(const struct msg_addr *a, char *buf, size_t bufsz);

/* Prints each line of msg to stderr as "prog: line". */
void	brokerq_warn(const char *prog, const char *msg);

/*
 * Copies s into buf for a terminal (utf8_termsafe(): control
 * characters, C1 included, and malformed UTF-8 become '?') so that text
 * from the network cannot move the cursor or forge lines.
 */
void	brokerq_safe(char *buf, size_t bufsz, const char *s);

#endif
