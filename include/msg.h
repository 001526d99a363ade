/*
 * msg — secure active messages over UDP: an endpoint bound to one
 * address, a handler table indexed by the number each message names,
 * the receive path (reassemble, open, window, replay, address, dispatch)
 * with a counter for every reason a datagram is dropped, and a built-in
 * ping responder so every component can be checked with CilkPing.
 */
#ifndef CILKNOW_MSG_H
#define CILKNOW_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "evloop.h"
#include "msg_codec.h"

/* Handler indices below MSG_H_USER belong to the layer itself. */
enum msg_handler_index {
	MSG_H_UNDEF = 0,
	MSG_H_PING = 1,		/* answered by the layer */
	MSG_H_PONG = 2,		/* delivered to the table's entry 2 */
	MSG_H_USER = 16
};

#define MSG_SCHEMES_ALL	((1u << MSG_SCHEME_CLUSTER) | (1u << MSG_SCHEME_USER))
#define MSG_SCHEME_BIT(s) (1u << (s))

struct msg_ep;

/* What a handler is given: the authenticated sender and the payload. */
struct msg_in {
	const struct msg_hdr	*mi_hdr;	/* mh_scheme: as on the wire */
	enum msg_scheme		 mi_scheme;	/* USER for MUNGE too */
	const char		*mi_name;	/* authenticated principal */
	struct msg_addr		 mi_from;	/* its UDP address */
	const uint8_t		*mi_data;
	size_t			 mi_len;
};

typedef void	msg_handler_fn(struct msg_ep *, const struct msg_in *, void *);

struct msg_handler {
	const char	*mh_label;	/* for logs */
	unsigned	 mh_schemes;	/* MSG_SCHEME_BIT()s it accepts */
	msg_handler_fn	*mh_fn;
};

struct msg_counters {
	uint64_t	mc_received;	/* datagrams read */
	uint64_t	mc_delivered;	/* messages handed to a handler */
	uint64_t	mc_sent;	/* messages sent (not fragments) */
	uint64_t	mc_send_errors;
	uint64_t	mc_dropped[MSG_DROP_MAX];
};

struct msg_ep_opts {
	double		eo_replay_window;	/* seconds; 0: 30 */
	size_t		eo_frag_per_sender;	/* 0: MSG_FRAG_PER_SENDER */
	size_t		eo_frag_total;		/* 0: MSG_FRAG_TOTAL */
	double		eo_frag_timeout;	/* 0: MSG_FRAG_TIMEOUT */
	double		eo_clock_offset;	/* seconds added to our
						   realtime clock (CilkPing
						   --clock-offset) */
	int		eo_refuse_earlier;	/* refuse what was sent before
						   the endpoint was made
						   (daemons: no replay across
						   a restart) */
};

/*
 * The table is indexed by handler number and is not copied; entries
 * with a NULL mh_fn are unknown.  Entry MSG_H_PING is ignored (the layer
 * answers pings).  arg is passed to every handler.
 */
struct msg_ep	*msg_ep_new(struct evloop *, struct msg_keyring *,
		    const struct msg_handler *table, size_t n, void *arg,
		    const struct msg_ep_opts *);
void		 msg_ep_free(struct msg_ep *);

/*
 * Binds a non-blocking UDP socket to addr (port 0: ephemeral) and
 * registers it with the loop.  -1 with errno.
 */
int		 msg_ep_bind(struct msg_ep *, const struct msg_addr *addr);
/* The bound address (the real port after an ephemeral bind). */
const struct msg_addr *msg_ep_addr(const struct msg_ep *);
int		 msg_ep_fd(const struct msg_ep *);

/* Seals, fragments if needed, and sends.  -1 with errno. */
int		 msg_ep_send(struct msg_ep *, const struct msg_addr *to,
		    enum msg_scheme, uint16_t handler,
		    const void *payload, size_t len);
/*
 * For a second thread: seals into its own stack and sends one datagram
 * on the endpoint's socket, touching no other state of the endpoint,
 * so it may run beside the thread that owns the event loop (a
 * worker's heartbeat during a long task).  Never fragments: a payload
 * that needs two datagrams fails with EMSGSIZE.  -1 with errno.
 */
int		 msg_ep_send_aside(struct msg_ep *, const struct msg_addr *to,
		    enum msg_scheme, uint16_t handler,
		    const void *payload, size_t len);
/* Answers a message in its own scheme, to its sender's address. */
int		 msg_ep_reply(struct msg_ep *, const struct msg_in *,
		    uint16_t handler, const void *payload, size_t len);

/*
 * A message to answer later, after its handler returned: what
 * msg_ep_reply needs (its sender, scheme and key, its length) and its
 * name for the logs, not its bytes (mk_in.mi_data is NULL).  mk_in
 * points into the struct itself: keep it where msg_keep put it.
 */
struct msg_kept {
	struct msg_in	 mk_in;
	struct msg_hdr	 mk_hdr;
	char		 mk_name[MSG_NAME_MAX + 1];
};
void		 msg_keep(struct msg_kept *, const struct msg_in *);

/*
 * The receive path for one datagram that arrived from `from` addressed
 * to `to` (NULL: the bound address).  The socket callback calls it; so
 * do tests and the fuzzer.
 */
void		 msg_ep_input(struct msg_ep *, const uint8_t *, size_t,
		    const struct msg_addr *from, const struct msg_addr *to);

const struct msg_counters *msg_ep_counters(const struct msg_ep *);
/* Total of all drop counters. */
uint64_t	 msg_ep_dropped(const struct msg_ep *);

/*
 * SAMsgVerifySender: 1 if the message came under scheme from principal
 * name (and, if addr is not NULL, from that address); else logs why at
 * debug level and returns 0.
 */
int		 msg_verify_sender(const struct msg_in *, enum msg_scheme,
		    const char *name, const struct msg_addr *addr);

/*
 * The last datagram refused for a reason an administrator can act on:
 * no key here opens it (MSG_DROP_UNKNOWN_KEY, MSG_DROP_BAD_MAC,
 * MSG_DROP_BAD_SIG; mr_keyid is the key id it names under the cluster
 * scheme), its munge credential does not open or names a uid unknown
 * here (MSG_DROP_BAD_CRED), or it opened, so it is authentic, but its
 * stamp is outside the replay window (MSG_DROP_STALE; mr_skew_ms is its
 * stamp less our clock: the sender's clock is that far ahead).  mr_at is now_mono()
 * when it came, 0 while none has.  A daemon that hears nothing from a
 * peer tells a wrong key and a clock skew from silence with it.
 */
struct msg_refusal {
	enum msg_drop	mr_why;
	struct msg_addr	mr_from;
	double		mr_at;
	int64_t		mr_skew_ms;
	uint32_t	mr_keyid;
};
const struct msg_refusal *msg_ep_last_refusal(const struct msg_ep *);

/* Ping and pong payloads (cilknow-protocol(7)). */
#define MSG_PING_FIXED	16	/* seq, sender's clock */

struct msg_pong {
	uint64_t	po_seq;
	uint64_t	po_sent_ns;	/* echoed sender clock */
	uint64_t	po_peer_ns;	/* responder's clock when it answered */
	struct msg_counters po_counters; /* responder's, as of answering */
	size_t		po_echo_len;
};

/* Builds a ping of total size len (>= MSG_PING_FIXED) into buf. */
size_t		 msg_ping_build(uint8_t *buf, size_t len, uint64_t seq,
		    uint64_t now_ns);
/* Parses a pong; -1 if malformed. */
int		 msg_pong_parse(const uint8_t *, size_t, struct msg_pong *);

#endif
