/* msg_endpoint — the socket, the receive path and dispatch. */
#include "msg.h"

#include <sys/socket.h>
#include <netinet/in.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "mono.h"
#include "msg_frag.h"
#include "msg_gate.h"
#include "msg_replay.h"
#include "wire.h"

#define RECV_BATCH	64		/* datagrams per wake-up, for fairness */
#define RCVBUF_BYTES	(4 << 20)
#define PONG_NCOUNTERS	(4 + MSG_DROP_MAX - 1)

struct msg_ep {
	struct evloop		*ep_loop;
	struct msg_keyring	*ep_keys;
	const struct msg_handler *ep_table;
	size_t			 ep_ntable;
	void			*ep_arg;
	int			 ep_fd;
	int			 ep_want_dst;	/* bound to a wildcard: IP_PKTINFO */
	struct msg_addr		 ep_addr;
	uint64_t		 ep_window_ms;
	int64_t			 ep_offset_ms;
	struct msg_replay	*ep_replay;
	struct msg_frag		*ep_frag;
	struct msg_gate		*ep_gate;	/* made at the first munge */
	struct evtimer		*ep_frag_timer;
	struct msg_counters	 ep_count;
	struct msg_refusal	 ep_refusal;	/* msg_ep_last_refusal */
	uint8_t			 ep_sealed[MSG_SEALED_MAX];
	uint8_t			 ep_payload[MSG_PAYLOAD_MAX];
	uint8_t			 ep_dgram[MSG_DGRAM_MAX + 1];
};

static uint64_t	ep_now_ms(const struct msg_ep *);

struct msg_ep *
msg_ep_new(struct evloop *loop, struct msg_keyring *keys,
    const struct msg_handler *table, size_t n, void *arg,
    const struct msg_ep_opts *opts)
{
	struct msg_ep *ep;
	double window = opts && opts->eo_replay_window > 0 ?
	    opts->eo_replay_window : 30;

	if (sodium_init() < 0)
		return NULL;
	if ((ep = calloc(1, sizeof(*ep))) == NULL)
		return NULL;
	ep->ep_loop = loop;
	ep->ep_keys = keys;
	ep->ep_table = table;
	ep->ep_ntable = n;
	ep->ep_arg = arg;
	ep->ep_fd = -1;
	ep->ep_window_ms = (uint64_t)(window * 1000);
	ep->ep_offset_ms = opts ? (int64_t)(opts->eo_clock_offset * 1000) : 0;
	if ((ep->ep_replay = msg_replay_new(MSG_REPLAY_PER_SENDER,
	    MSG_REPLAY_SENDERS)) != NULL) {
		(void)msg_replay_set_cap(ep->ep_replay, MSG_SCHEME_CLUSTER,
		    MSG_REPLAY_PER_CLUSTER);
		/* A job's busiest sender: a worker its thieves all ask. */
		(void)msg_replay_set_cap(ep->ep_replay, MSG_SCHEME_JOB,
		    MSG_REPLAY_PER_CLUSTER);
	}
	ep->ep_frag = msg_frag_new(
	    opts && opts->eo_frag_per_sender ? opts->eo_frag_per_sender :
	    MSG_FRAG_PER_SENDER,
	    opts && opts->eo_frag_total ? opts->eo_frag_total : MSG_FRAG_TOTAL,
	    opts && opts->eo_frag_timeout > 0 ? opts->eo_frag_timeout :
	    MSG_FRAG_TIMEOUT);
	if (ep->ep_replay == NULL || ep->ep_frag == NULL) {
		msg_ep_free(ep);
		return NULL;
	}
	if (opts != NULL && opts->eo_refuse_earlier)
		msg_replay_set_floor(ep->ep_replay, ep_now_ms(ep));
	return ep;
}

void
msg_ep_free(struct msg_ep *ep)
{
	if (ep == NULL)
		return;
	if (ep->ep_fd != -1) {
		if (ep->ep_loop != NULL)
			evloop_del_fd(ep->ep_loop, ep->ep_fd);
		close(ep->ep_fd);
	}
	if (ep->ep_frag_timer != NULL)
		evloop_timer_cancel(ep->ep_loop, ep->ep_frag_timer);
	msg_replay_free(ep->ep_replay);
	msg_frag_free(ep->ep_frag);
	msg_gate_free(ep->ep_gate);
	sodium_memzero(ep->ep_payload, sizeof(ep->ep_payload));
	free(ep);
}

const struct msg_addr *
msg_ep_addr(const struct msg_ep *ep)
{
	return &ep->ep_addr;
}

int
msg_ep_fd(const struct msg_ep *ep)
{
	return ep->ep_fd;
}

const struct msg_counters *
msg_ep_counters(const struct msg_ep *ep)
{
	return &ep->ep_count;
}

uint64_t
msg_ep_dropped(const struct msg_ep *ep)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < MSG_DROP_MAX; i++)
		n += ep->ep_count.mc_dropped[i];
	return n;
}

/* Our realtime clock as the wire sees it. */
static uint64_t
ep_now_ms(const struct msg_ep *ep)
{
	return now_real_ms() + (uint64_t)ep->ep_offset_ms;
}

static void
ep_drop(struct msg_ep *ep, enum msg_drop why, const struct msg_addr *from,
    const char *name)
{
	char addr[64];

	ep->ep_count.mc_dropped[why]++;
	if (log_getverbose() > 0) {
		msg_addr_text(from, addr, sizeof(addr));
		log_debug("%s: dropped datagram from %s%s%s: %s", __func__,
		    addr, name ? " claiming " : "", name ? name : "",
		    msg_drop_name(why));
	}
}

/* A refusal an administrator can act on, for msg_ep_last_refusal. */
static void
ep_refused(struct msg_ep *ep, enum msg_drop why, const struct msg_addr *from,
    int64_t skew_ms, uint32_t keyid)
{
	ep->ep_refusal.mr_why = why;
	ep->ep_refusal.mr_from = *from;
	ep->ep_refusal.mr_at = now_mono();
	ep->ep_refusal.mr_skew_ms = skew_ms;
	ep->ep_refusal.mr_keyid = keyid;
}

const struct msg_refusal *
msg_ep_last_refusal(const struct msg_ep *ep)
{
	return &ep->ep_refusal;
}

static void	ep_readable(struct evloop *, int, short, void *);

int
msg_ep_bind(struct msg_ep *ep, const struct msg_addr *addr)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, on = 1, rcv = RCVBUF_BYTES, saved;

	if ((sl = msg_addr_to_sockaddr(addr, &ss)) == 0) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if ((fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		return -1;
	/*
	 * Where the datagram was sent is checked against the header.  Bound
	 * to one address, that address is where every datagram was sent;
	 * only a wildcard needs IP_PKTINFO (which costs each recvmsg).
	 */
	ep->ep_want_dst = msg_addr_any(addr);
	if (ep->ep_want_dst && (ss.ss_family == AF_INET ? setsockopt(fd,
	    IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)) : setsockopt(fd,
	    IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on))) == -1)
		goto fail;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1)
		goto fail;
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == -1 ||
	    msg_addr_from_sockaddr(&ep->ep_addr, (struct sockaddr *)&ss,
	    sl) == -1)
		goto fail;
	if (ep->ep_loop != NULL &&
	    evloop_add_fd(ep->ep_loop, fd, POLLIN, ep_readable, ep) == -1)
		goto fail;
	ep->ep_fd = fd;
	return 0;
 fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

static int
ep_sendto(struct msg_ep *ep, const struct msg_addr *to, const uint8_t *buf,
    size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = msg_addr_to_sockaddr(to, &ss);
	ssize_t n;

	do {
		n = sendto(ep->ep_fd, buf, len, 0, (struct sockaddr *)&ss, sl);
	} while (n == -1 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

static int
ep_send(struct msg_ep *ep, const struct msg_addr *to, enum msg_scheme scheme,
    uint16_t handler, uint32_t keyid, const void *payload, size_t len)
{
	uint8_t frag[MSG_DGRAM_MAX];
	size_t sealed_len, count, i, flen;
	uint32_t msgid;

	if (ep->ep_fd == -1) {
		errno = ENOTCONN;
		return -1;
	}
	if (msg_seal_keyid(ep->ep_keys, scheme, handler, keyid, to,
	    ep_now_ms(ep), payload, len, ep->ep_sealed, sizeof(ep->ep_sealed),
	    &sealed_len) == -1)
		goto fail;
	/* Its answer is awaited: reassembled before strangers' messages. */
	msg_frag_rank(ep->ep_frag, to, MSG_FRAG_USER);
	count = msg_frag_count(sealed_len);
	if (count == 1) {
		if (ep_sendto(ep, to, ep->ep_sealed, sealed_len) == -1)
			goto fail;
	} else {
		msgid = randombytes_random();
		for (i = 0; i < count; i++) {
			flen = msg_frag_build(msgid, i, ep->ep_sealed,
			    sealed_len, frag);
			if (ep_sendto(ep, to, frag, flen) == -1)
				goto fail;
		}
	}
	ep->ep_count.mc_sent++;
	return 0;
 fail:
	ep->ep_count.mc_send_errors++;
	return -1;
}

int
msg_ep_send(struct msg_ep *ep, const struct msg_addr *to,
    enum msg_scheme scheme, uint16_t handler, const void *payload,
    size_t len)
{
	return ep_send(ep, to, scheme, handler, 0, payload, len);
}

int
msg_ep_send_aside(struct msg_ep *ep, const struct msg_addr *to,
    enum msg_scheme scheme, uint16_t handler, const void *payload,
    size_t len)
{
	uint8_t sealed[MSG_DGRAM_MAX];
	size_t sealed_len;

	if (ep->ep_fd == -1) {
		errno = ENOTCONN;
		return -1;
	}
	if (msg_seal_keyid(ep->ep_keys, scheme, handler, 0, to,
	    ep_now_ms(ep), payload, len, sealed, sizeof(sealed),
	    &sealed_len) == -1)
		return -1;
	if (msg_frag_count(sealed_len) != 1) {
		errno = EMSGSIZE;
		return -1;
	}
	return ep_sendto(ep, to, sealed, sealed_len);
}

int
msg_ep_reply(struct msg_ep *ep, const struct msg_in *in, uint16_t handler,
    const void *payload, size_t len)
{
	return ep_send(ep, &in->mi_from, in->mi_scheme, handler,
	    in->mi_scheme == MSG_SCHEME_CLUSTER ? in->mi_hdr->mh_keyid : 0,
	    payload, len);
}

int
msg_verify_sender(const struct msg_in *in, enum msg_scheme scheme,
    const char *name, const struct msg_addr *addr)
{
	char text[64];

	if (in->mi_scheme == scheme && strcmp(in->mi_name, name) == 0 &&
	    (addr == NULL || msg_addr_eq(addr, &in->mi_from)))
		return 1;
	msg_addr_text(&in->mi_from, text, sizeof(text));
	log_debug("%s: expected %s %s, got %s %s from %s", __func__,
	    msg_scheme_name(scheme), name, msg_scheme_name(in->mi_scheme),
	    in->mi_name, text);
	return 0;
}

size_t
msg_ping_build(uint8_t *buf, size_t len, uint64_t seq, uint64_t now_ns)
{
	struct wire_w w;

	if (len < MSG_PING_FIXED)
		len = MSG_PING_FIXED;
	if (len > MSG_PAYLOAD_MAX)
		len = MSG_PAYLOAD_MAX;
	wire_w_init(&w, buf, len);
	wire_put_u64(&w, seq);
	wire_put_u64(&w, now_ns);
	/* Padding that varies, so compression could never flatter us. */
	randombytes_buf(buf + MSG_PING_FIXED, len - MSG_PING_FIXED);
	return len;
}

static void
ep_answer_ping(struct msg_ep *ep, const struct msg_in *in)
{
	uint8_t *out = ep->ep_sealed;	/* free until we send */
	struct wire_w w;
	struct wire_r r;
	uint64_t seq, sent;
	int i;

	wire_r_init(&r, in->mi_data, in->mi_len);
	if (wire_get_u64(&r, &seq) == -1 || wire_get_u64(&r, &sent) == -1)
		return;
	/* Counters first, so the answer is never bigger than allowed. */
	if (r.wr_left > MSG_PAYLOAD_MAX - (25 + 8 * PONG_NCOUNTERS))
		r.wr_left = MSG_PAYLOAD_MAX - (25 + 8 * PONG_NCOUNTERS);
	wire_w_init(&w, out, MSG_PAYLOAD_MAX);
	wire_put_u64(&w, seq);
	wire_put_u64(&w, sent);
	wire_put_u64(&w, now_real_ns() + (uint64_t)(ep->ep_offset_ms * 1000000));
	wire_put_u8(&w, PONG_NCOUNTERS);
	wire_put_u64(&w, ep->ep_count.mc_received);
	wire_put_u64(&w, ep->ep_count.mc_delivered);
	wire_put_u64(&w, ep->ep_count.mc_sent);
	wire_put_u64(&w, ep->ep_count.mc_send_errors);
	for (i = 1; i < MSG_DROP_MAX; i++)
		wire_put_u64(&w, ep->ep_count.mc_dropped[i]);
	wire_put_bytes(&w, r.wr_p, r.wr_left);
	if (wire_w_ok(&w) == -1)
		return;
	/* msg_seal reads the payload before writing the sealed copy. */
	memcpy(ep->ep_payload, out, w.ww_len);
	if (msg_ep_reply(ep, in, MSG_H_PONG, ep->ep_payload, w.ww_len) == -1)
		log_debug("%s: reply: %s", __func__, strerror(errno));
}

int
msg_pong_parse(const uint8_t *buf, size_t len, struct msg_pong *p)
{
	struct wire_r r;
	uint64_t v;
	uint8_t n;
	int i;

	memset(p, 0, sizeof(*p));
	wire_r_init(&r, buf, len);
	if (wire_get_u64(&r, &p->po_seq) == -1 ||
	    wire_get_u64(&r, &p->po_sent_ns) == -1 ||
	    wire_get_u64(&r, &p->po_peer_ns) == -1 ||
	    wire_get_u8(&r, &n) == -1 || n < 4)
		return -1;
	for (i = 0; i < n; i++) {
		if (wire_get_u64(&r, &v) == -1)
			return -1;
		if (i == 0)
			p->po_counters.mc_received = v;
		else if (i == 1)
			p->po_counters.mc_delivered = v;
		else if (i == 2)
			p->po_counters.mc_sent = v;
		else if (i == 3)
			p->po_counters.mc_send_errors = v;
		else if (i - 3 < MSG_DROP_MAX)	/* newer peers may say more */
			p->po_counters.mc_dropped[i - 3] = v;
	}
	p->po_echo_len = r.wr_left;
	return 0;
}

static void
ep_frag_timer(struct evloop *loop, void *arg)
{
	struct msg_ep *ep = arg;
	double next;

	(void)loop;
	ep->ep_frag_timer = NULL;
	ep->ep_count.mc_dropped[MSG_DROP_REASSEMBLY_TIMEOUT] +=
	    msg_frag_expire(ep->ep_frag, now_mono());
	if ((next = msg_frag_next_deadline(ep->ep_frag, now_mono())) >= 0)
		ep->ep_frag_timer = evloop_timer_add(ep->ep_loop, next,
		    ep_frag_timer, ep);
}

static void
ep_deliver(struct msg_ep *ep, const uint8_t *buf, size_t len,
    const struct msg_addr *from, const struct msg_addr *to)
{
	const struct msg_handler *h;
	struct msg_hdr hdr;
	struct msg_in in;
	enum msg_drop d;
	size_t plen, hlen;
	int munge;

	/*
	 * A munge credential costs munged a decode and, if bad, a line of
	 * its log: what is cheap to check first (msg_gate.h).
	 */
	munge = msg_hdr_decode(buf, len, &hdr, &hlen) == MSG_DROP_NONE &&
	    hdr.mh_scheme == MSG_SCHEME_MUNGE;
	if (munge) {
		uint64_t now = ep_now_ms(ep);

		if (hdr.mh_time_ms + ep->ep_window_ms < now ||
		    hdr.mh_time_ms > now + ep->ep_window_ms)
			d = MSG_DROP_STALE;
		else if (ep->ep_gate == NULL &&
		    (ep->ep_gate = msg_gate_new()) == NULL)
			d = MSG_DROP_RATE;	/* no memory: fail closed */
		else
			d = msg_gate_before(ep->ep_gate, from, buf, len,
			    now_mono());
		if (d != MSG_DROP_NONE) {
			ep_drop(ep, d, from, NULL);
			return;
		}
	}
	d = msg_open(ep->ep_keys, now_mono(), buf, len, &hdr,
	    ep->ep_payload, sizeof(ep->ep_payload), &plen);
	if (munge)
		msg_gate_after(ep->ep_gate, from, buf, len, d, now_mono());
	if (d != MSG_DROP_NONE) {
		ep_drop(ep, d, from, NULL);
		if (d == MSG_DROP_UNKNOWN_KEY || d == MSG_DROP_BAD_MAC ||
		    d == MSG_DROP_BAD_SIG || d == MSG_DROP_BAD_CRED)
			ep_refused(ep, d, from, 0, msg_hdr_decode(buf, len,
			    &hdr, &hlen) == MSG_DROP_NONE && hdr.mh_scheme ==
			    MSG_SCHEME_CLUSTER ? hdr.mh_keyid : 0);
		return;
	}
	/* Authentic from here on; now is it fresh, and was it for us? */
	if (!msg_addr_eq(&hdr.mh_dst, to)) {
		ep_drop(ep, MSG_DROP_MISADDRESSED, from, hdr.mh_name);
		return;
	}
	d = msg_replay_check(ep->ep_replay, hdr.mh_scheme, hdr.mh_name,
	    hdr.mh_time_ms, hdr.mh_nonce, ep_now_ms(ep), ep->ep_window_ms);
	if (d != MSG_DROP_NONE) {
		ep_drop(ep, d, from, hdr.mh_name);
		if (d == MSG_DROP_STALE)
			ep_refused(ep, d, from, (int64_t)(hdr.mh_time_ms -
			    ep_now_ms(ep)), 0);
		return;
	}
	/* Its reassemblies go last: cluster keys, then users (msg_frag.h). */
	msg_frag_rank(ep->ep_frag, from, hdr.mh_scheme == MSG_SCHEME_CLUSTER ?
	    MSG_FRAG_CLUSTER : MSG_FRAG_USER);
	memset(&in, 0, sizeof(in));
	in.mi_hdr = &hdr;
	/* A munge credential speaks for a user as a signature does. */
	in.mi_scheme = hdr.mh_scheme == MSG_SCHEME_MUNGE ? MSG_SCHEME_USER :
	    hdr.mh_scheme;
	in.mi_name = hdr.mh_name;
	in.mi_from = *from;
	in.mi_data = ep->ep_payload;
	in.mi_len = plen;
	if (hdr.mh_handler == MSG_H_PING) {
		ep->ep_count.mc_delivered++;
		ep_answer_ping(ep, &in);
		return;
	}
	h = hdr.mh_handler < ep->ep_ntable ? &ep->ep_table[hdr.mh_handler] :
	    NULL;
	if (h == NULL || h->mh_fn == NULL) {
		ep_drop(ep, MSG_DROP_UNKNOWN_HANDLER, from, hdr.mh_name);
		return;
	}
	if ((h->mh_schemes & MSG_SCHEME_BIT(in.mi_scheme)) == 0) {
		ep_drop(ep, MSG_DROP_BAD_SCHEME, from, hdr.mh_name);
		return;
	}
	ep->ep_count.mc_delivered++;
	h->mh_fn(ep, &in, ep->ep_arg);
}

void
msg_ep_input(struct msg_ep *ep, const uint8_t *buf, size_t len,
    const struct msg_addr *from, const struct msg_addr *to)
{
	const uint8_t *whole;
	size_t wholelen;
	enum msg_drop d;

	ep->ep_count.mc_received++;
	if (to == NULL)
		to = &ep->ep_addr;
	if (len < 3 || len > MSG_DGRAM_MAX) {
		ep_drop(ep, MSG_DROP_BAD_LENGTH, from, NULL);
		return;
	}
	if (buf[0] != MSG_MAGIC || buf[1] != MSG_VERSION) {
		ep_drop(ep, MSG_DROP_BAD_HEADER, from, NULL);
		return;
	}
	if (buf[2] == MSG_KIND_MESSAGE) {
		ep_deliver(ep, buf, len, from, to);
		return;
	}
	if (buf[2] != MSG_KIND_FRAGMENT) {
		ep_drop(ep, MSG_DROP_BAD_HEADER, from, NULL);
		return;
	}
	ep->ep_count.mc_dropped[MSG_DROP_REASSEMBLY_TIMEOUT] +=
	    msg_frag_expire(ep->ep_frag, now_mono());
	d = msg_frag_input(ep->ep_frag, from, buf, len, now_mono(), &whole,
	    &wholelen);
	if (d != MSG_DROP_NONE) {
		ep_drop(ep, d, from, NULL);
		return;
	}
	if (ep->ep_frag_timer == NULL && ep->ep_loop != NULL &&
	    msg_frag_bytes(ep->ep_frag) > 0)
		ep->ep_frag_timer = evloop_timer_add(ep->ep_loop,
		    msg_frag_next_deadline(ep->ep_frag, now_mono()),
		    ep_frag_timer, ep);
	if (whole != NULL)
		ep_deliver(ep, whole, wholelen, from, to);
}

/* The destination address of a received datagram, from IP_PKTINFO. */
static int
ep_pktinfo(const struct msg_ep *ep, struct msghdr *mh, struct msg_addr *to)
{
	struct cmsghdr *c;

	*to = ep->ep_addr;
	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			memset(to->ma_addr, 0, sizeof(to->ma_addr));
			memcpy(to->ma_addr, &pi.ipi_addr, 4);
			return 0;
		}
		if (c->cmsg_level == IPPROTO_IPV6 &&
		    c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi6;

			memcpy(&pi6, CMSG_DATA(c), sizeof(pi6));
			memset(to->ma_addr, 0, sizeof(to->ma_addr));
			if (IN6_IS_ADDR_V4MAPPED(&pi6.ipi6_addr)) {
				to->ma_family = 4;
				memcpy(to->ma_addr, &pi6.ipi6_addr.s6_addr[12],
				    4);
			} else {
				to->ma_family = 6;
				memcpy(to->ma_addr, &pi6.ipi6_addr, 16);
			}
			return 0;
		}
	}
	return -1;
}

static void
ep_readable(struct evloop *loop, int fd, short revents, void *arg)
{
	struct msg_ep *ep = arg;
	struct sockaddr_storage ss;
	struct msg_addr from, to;
	union {
		struct cmsghdr	align;
		uint8_t		buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	} cbuf;
	struct iovec iov;
	struct msghdr mh;
	ssize_t n;
	int i;

	(void)loop;
	(void)revents;
	for (i = 0; i < RECV_BATCH; i++) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = ep->ep_dgram;
		iov.iov_len = sizeof(ep->ep_dgram);
		mh.msg_name = &ss;
		mh.msg_namelen = sizeof(ss);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (ep->ep_want_dst) {
			mh.msg_control = cbuf.buf;
			mh.msg_controllen = sizeof(cbuf.buf);
		}
		if ((n = recvmsg(fd, &mh, MSG_TRUNC)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_warn("%s: recvmsg", __func__);
			return;
		}
		if (msg_addr_from_sockaddr(&from, (struct sockaddr *)&ss,
		    mh.msg_namelen) == -1)
			continue;
		if (ep_pktinfo(ep, &mh, &to) == -1 && ep->ep_want_dst)
			log_debug("%s: no destination address", __func__);
		/* MSG_TRUNC gives the real length: oversize is dropped. */
		msg_ep_input(ep, ep->ep_dgram, (size_t)n, &from, &to);
	}
}
