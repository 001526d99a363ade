/* CilkPing's sender: timed pings, or a flood with a window in flight. */
#include <sys/socket.h>

#include <err.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mono.h"
#include "msg_keyring.h"
#include "ping.h"

#define RING	65536			/* send times remembered, by seq */

struct sender {
	const struct ping_opts	*s_o;
	int			 s_scheme;	/* enum msg_scheme or PING_RAW */
	struct evloop		*s_loop;
	struct msg_keyring	*s_keys;
	struct msg_ep		*s_ep;
	int			 s_rawfd;
	struct msg_addr		 s_target;
	char			 s_target_text[64];
	uint64_t		 s_seq;		/* next to send */
	long			 s_sent, s_received, s_count;
	double			 s_sent_at[RING];
	uint64_t		 s_sent_seq[RING];
	struct ping_stats	 s_stats;
	struct msg_pong		 s_pong;	/* the last one */
	int			 s_have_pong;
	char			 s_peer[MSG_NAME_MAX + 1];
	double			 s_start, s_end, s_last_rx, s_last_tx;
	int			 s_stopping;	/* flood: no more sends */
	uint8_t			 s_buf[MSG_PAYLOAD_MAX];
	uint8_t			 s_rawbuf[MSG_PAYLOAD_MAX + 1];
};

static double
real_offset_ns(const struct sender *s)
{
	return s->s_o->po_clock_offset * 1e9;
}

static int
send_one(struct sender *s)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	size_t len;
	uint64_t seq = s->s_seq;

	len = msg_ping_build(s->s_buf, s->s_o->po_size, seq,
	    now_real_ns() + (uint64_t)(int64_t)real_offset_ns(s));
	s->s_sent_at[seq % RING] = now_mono();
	s->s_sent_seq[seq % RING] = seq;
	/* A ping that could not be sent counts as sent and lost. */
	s->s_seq++;
	s->s_sent++;
	s->s_last_tx = now_mono();
	if (s->s_scheme == PING_RAW) {
		sl = msg_addr_to_sockaddr(&s->s_target, &ss);
		if (sendto(s->s_rawfd, s->s_buf, len, 0,
		    (struct sockaddr *)&ss, sl) != (ssize_t)len)
			return -1;
	} else if (msg_ep_send(s->s_ep, &s->s_target, s->s_scheme,
	    MSG_H_PING, s->s_buf, len) == -1)
		return -1;
	return 0;
}

static void
send_or_warn(struct sender *s)
{
	if (send_one(s) == -1 && errno != EAGAIN && errno != ENOBUFS)
		warn("send to %s", s->s_target_text);
}

/* A pong (or a raw echo) with this seq and echoed clock arrived. */
static void
got_reply(struct sender *s, uint64_t seq, uint64_t sent_ns,
    uint64_t peer_ns, size_t bytes)
{
	double now = now_mono(), rtt, skew = 0;
	int has_skew = peer_ns != 0;

	if (s->s_sent_seq[seq % RING] != seq || s->s_sent_at[seq % RING] < 0)
		return;			/* late, duplicated or not ours */
	rtt = now - s->s_sent_at[seq % RING];
	s->s_sent_at[seq % RING] = -1;
	s->s_received++;
	s->s_last_rx = now;
	if (has_skew)	/* the peer read its clock halfway, we assume */
		skew = ((double)peer_ns - (double)sent_ns) / 1e9 - rtt / 2;
	if (stats_add(&s->s_stats, rtt, has_skew, skew) == -1)
		err(CLI_EXIT_FAILURE, "statistics");
	if (!s->s_o->po_flood && !s->s_o->po_cc.cc_json) {
		printf("%zu bytes from %s (%s%s%s): seq=%llu time=%.3f ms",
		    bytes, s->s_target_text, s->s_scheme == PING_RAW ?
		    "raw" : msg_scheme_name(s->s_scheme),
		    s->s_peer[0] ? " as " : "", s->s_peer,
		    (unsigned long long)seq, rtt * 1e3);
		if (has_skew)
			printf(" skew=%+.3f ms", skew * 1e3);
		printf("\n");
		fflush(stdout);
	}
	if (s->s_o->po_flood) {
		if (!s->s_stopping && (s->s_count == 0 ||
		    s->s_sent < s->s_count))
			send_or_warn(s);
		else if (s->s_received == s->s_sent)
			evloop_break(s->s_loop);
	} else if (s->s_sent == s->s_count && s->s_received == s->s_sent)
		evloop_break(s->s_loop);
}

static void
on_pong(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct sender *s = arg;
	struct msg_pong p;

	(void)ep;
	/* Only the peer we asked may answer for it. */
	if (!msg_addr_eq(&in->mi_from, &s->s_target) ||
	    msg_pong_parse(in->mi_data, in->mi_len, &p) == -1)
		return;
	strlcpy(s->s_peer, in->mi_name, sizeof(s->s_peer));
	s->s_pong = p;
	s->s_have_pong = 1;
	got_reply(s, p.po_seq, p.po_sent_ns, p.po_peer_ns,
	    MSG_PING_FIXED + p.po_echo_len);
}

static void
on_raw(struct evloop *loop, int fd, short revents, void *arg)
{
	struct sender *s = arg;
	uint64_t seq, sent;
	ssize_t n;
	int i, j;

	(void)loop;
	(void)revents;
	for (j = 0; j < 64; j++) {
		if ((n = recv(fd, s->s_rawbuf, sizeof(s->s_rawbuf), 0)) == -1)
			return;
		if (n < MSG_PING_FIXED)
			continue;
		seq = sent = 0;
		for (i = 0; i < 8; i++) {
			seq = seq << 8 | s->s_rawbuf[i];
			sent = sent << 8 | s->s_rawbuf[8 + i];
		}
		got_reply(s, seq, sent, 0, (size_t)n);
	}
}

static void
on_done(struct evloop *loop, void *arg)
{
	(void)arg;
	evloop_break(loop);
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct sender *s = arg;

	if (s->s_sent < s->s_count) {
		send_or_warn(s);
		evloop_timer_add(loop, s->s_o->po_interval, on_tick, s);
	} else	/* all sent: the last one gets its full wait */
		evloop_timer_add(loop, s->s_o->po_wait, on_done, s);
}

/* Flood: a window that got lost entirely is refilled, once per wait. */
static void
on_flood_watch(struct evloop *loop, void *arg)
{
	struct sender *s = arg;
	double now = now_mono();
	int i;

	if (now >= s->s_end) {
		s->s_stopping = 1;
		if (s->s_received == s->s_sent || now - s->s_last_rx >
		    s->s_o->po_wait) {
			evloop_break(loop);
			return;
		}
	} else if (now - s->s_last_rx > s->s_o->po_wait &&
	    now - s->s_last_tx > s->s_o->po_wait)
		for (i = 0; i < s->s_o->po_window && (s->s_count == 0 ||
		    s->s_sent < s->s_count); i++)
			send_or_warn(s);
	evloop_timer_add(loop, 0.05, on_flood_watch, s);
}

static void
on_signal(struct evloop *loop, int signo, void *arg)
{
	(void)signo;
	(void)arg;
	evloop_break(loop);
}

static void
print_counters(const char *who, const struct msg_counters *c, int json)
{
	int i, any = 0;

	if (json) {
		printf("\"%s\": {\"received\": %llu, \"delivered\": %llu",
		    who, (unsigned long long)c->mc_received,
		    (unsigned long long)c->mc_delivered);
		for (i = 1; i < MSG_DROP_MAX; i++)
			printf(", \"%s\": %llu", msg_drop_name(i),
			    (unsigned long long)c->mc_dropped[i]);
		printf("}");
		return;
	}
	printf("%s: received %llu, delivered %llu, dropped", who,
	    (unsigned long long)c->mc_received,
	    (unsigned long long)c->mc_delivered);
	for (i = 1; i < MSG_DROP_MAX; i++)
		if (c->mc_dropped[i] > 0) {
			printf("%s %s %llu", any ? "," : "", msg_drop_name(i),
			    (unsigned long long)c->mc_dropped[i]);
			any = 1;
		}
	printf("%s\n", any ? "" : " none");
}

static void
report(struct sender *s, double elapsed)
{
	const char *scheme = s->s_scheme == PING_RAW ? "raw" :
	    msg_scheme_name(s->s_scheme);
	double loss = s->s_sent ? 100.0 * (double)(s->s_sent -
	    s->s_received) / (double)s->s_sent : 0;
	double rate = elapsed > 0 ? (double)s->s_received / elapsed : 0;
	int json = s->s_o->po_cc.cc_json;

	if (json) {
		printf("{\"schema\": 1, \"target\": \"%s\", \"scheme\": "
		    "\"%s\", \"peer\": ", s->s_target_text, scheme);
		if (s->s_peer[0])
			printf("\"%s\"", s->s_peer);
		else
			printf("null");
		printf(", \"size\": %zu, \"sent\": %ld, \"received\": %ld, "
		    "\"loss\": %.2f, \"seconds\": %.3f", s->s_o->po_size,
		    s->s_sent, s->s_received, loss, elapsed);
		if (s->s_received > 0)
			printf(", \"rtt_ms\": {\"min\": %.4f, \"median\": %.4f,"
			    " \"p99\": %.4f, \"max\": %.4f}",
			    stats_quantile(&s->s_stats, 0) * 1e3,
			    stats_quantile(&s->s_stats, 0.5) * 1e3,
			    stats_quantile(&s->s_stats, 0.99) * 1e3,
			    stats_quantile(&s->s_stats, 1) * 1e3);
		else
			printf(", \"rtt_ms\": null");
		if (s->s_stats.ps_nskew > 0)
			printf(", \"skew_ms\": %.4f",
			    stats_skew_median(&s->s_stats) * 1e3);
		else
			printf(", \"skew_ms\": null");
		if (s->s_o->po_flood)
			printf(", \"round_trips_per_s\": %.1f, "
			    "\"messages_per_s\": %.1f", rate, 2 * rate);
		if (s->s_have_pong) {
			printf(", ");
			print_counters("peer_counters",
			    &s->s_pong.po_counters, 1);
		}
		if (s->s_ep != NULL) {
			printf(", ");
			print_counters("local_counters",
			    msg_ep_counters(s->s_ep), 1);
		}
		printf("}\n");
		return;
	}
	printf("--- %s ping statistics (%s scheme) ---\n", s->s_target_text,
	    scheme);
	printf("%ld sent, %ld received, %.1f%% loss, time %.2f s\n",
	    s->s_sent, s->s_received, loss, elapsed);
	if (s->s_received > 0)
		printf("rtt min/median/p99/max = %.3f/%.3f/%.3f/%.3f ms\n",
		    stats_quantile(&s->s_stats, 0) * 1e3,
		    stats_quantile(&s->s_stats, 0.5) * 1e3,
		    stats_quantile(&s->s_stats, 0.99) * 1e3,
		    stats_quantile(&s->s_stats, 1) * 1e3);
	if (s->s_stats.ps_nskew > 0)
		printf("clock skew (peer minus us): median %+.3f ms\n",
		    stats_skew_median(&s->s_stats) * 1e3);
	if (s->s_o->po_flood)
		printf("flood: %.0f round trips/s, %.0f messages/s\n", rate,
		    2 * rate);
	if (s->s_have_pong)
		print_counters("peer counters", &s->s_pong.po_counters, 0);
}

/* Says what to check when nothing authenticated came back. */
static void
explain_silence(struct sender *s, struct conf *cf)
{
	const struct msg_counters *c;
	const struct msg_key *k = NULL;
	double window = 30;
	int i;

	if (s->s_scheme == MSG_SCHEME_CLUSTER)
		k = &s->s_keys->kr_cluster.ks_key[0];
	else if (s->s_scheme == MSG_SCHEME_USER)
		k = s->s_keys->kr_munge ? NULL : s->s_keys->kr_user.ks_n > 0 ?
		    &s->s_keys->kr_user.ks_key[0] :
		    &s->s_keys->kr_cluster.ks_key[0];
	if (s->s_keys->kr_munge && s->s_scheme == MSG_SCHEME_USER)
		fprintf(stderr, "CilkPing: munge credentials of %s from %s\n",
		    s->s_keys->kr_munge_name, s->s_keys->kr_munge_socket);
	(void)conf_get_seconds(cf, "replay_window", &window);
	fprintf(stderr, "CilkPing: no authenticated reply from %s to %ld "
	    "ping%s (%s scheme", s->s_target_text, s->s_sent,
	    s->s_sent == 1 ? "" : "s", s->s_scheme == PING_RAW ? "raw" :
	    msg_scheme_name(s->s_scheme));
	if (k != NULL)
		fprintf(stderr, ", %s key id %08x%s%s", k->k_name[0] ?
		    "user" : "cluster", k->k_id, k->k_name[0] ? " of " : "",
		    k->k_name);
	fprintf(stderr, ")\n");
	if (s->s_scheme == MSG_SCHEME_CLUSTER)
		fprintf(stderr, "CilkPing: check that something listens "
		    "there, that it holds the same cluster key (compare "
		    "'CilkKey show' on both sides),\n");
	else if (s->s_scheme == MSG_SCHEME_USER)
		fprintf(stderr, "CilkPing: check that something listens "
		    "there, that it has your public key in its user_keys "
		    "folder,\n");
	if (s->s_scheme != PING_RAW)
		fprintf(stderr, "CilkPing: and that both clocks agree within "
		    "replay_window (%g s); a peer never answers what it "
		    "cannot authenticate\n", window);
	if (s->s_ep == NULL)
		return;
	c = msg_ep_counters(s->s_ep);
	for (i = 1; i < MSG_DROP_MAX; i++)
		if (c->mc_dropped[i] > 0)
			fprintf(stderr, "CilkPing: %llu datagram%s arrived "
			    "here but %s dropped: %s\n",
			    (unsigned long long)c->mc_dropped[i],
			    c->mc_dropped[i] == 1 ? "" : "s",
			    c->mc_dropped[i] == 1 ? "was" : "were",
			    msg_drop_name(i));
}

/*
 * HOST[:PORT].  A bare host is the broker when it is the configured
 * broker's address, else the node manager every workstation runs
 * (7411): "CilkPing hawk" asks hawk's node manager, and the broker's
 * host still answers as the broker (CilkPing(1)).
 */
static int
target_parse(struct msg_addr *a, const char *text, const struct conf *cf)
{
	struct msg_addr other, broker;

	if (msg_addr_parse(a, text, 7411) == -1 ||
	    msg_addr_parse(&other, text, 7410) == -1)
		return -1;
	if (a->ma_port == other.ma_port)	/* a port was given */
		return 0;
	if (msg_addr_parse(&broker, conf_get(cf, "broker"), 7410) == 0) {
		other.ma_port = broker.ma_port;
		if (msg_addr_eq(&other, &broker))
			*a = broker;
	}
	return 0;
}

static int
sender_setup(struct sender *s, struct conf *cf)
{
	static struct msg_handler table[MSG_H_PONG + 1];
	struct msg_ep_opts eo;
	struct msg_addr any;
	char err[512];

	if (target_parse(&s->s_target, s->s_o->po_target, cf) == -1) {
		warnx("%s: bad or unknown address", s->s_o->po_target);
		return CLI_EXIT_USAGE;
	}
	msg_addr_text(&s->s_target, s->s_target_text,
	    sizeof(s->s_target_text));
	memset(&any, 0, sizeof(any));
	any.ma_family = s->s_target.ma_family;
	if (s->s_scheme == PING_RAW) {
		struct sockaddr_storage ss;
		socklen_t sl = msg_addr_to_sockaddr(&any, &ss);

		if ((s->s_rawfd = socket(ss.ss_family, SOCK_DGRAM |
		    SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1 ||
		    bind(s->s_rawfd, (struct sockaddr *)&ss, sl) == -1 ||
		    evloop_add_fd(s->s_loop, s->s_rawfd, POLLIN, on_raw,
		    s) == -1) {
			warn("raw socket");
			return CLI_EXIT_FAILURE;
		}
		return 0;
	}
	if (msg_keyring_load(s->s_keys, cf, MSG_KR_CLUSTER_OPT |
	    MSG_KR_USER_OPT | MSG_KR_USERS, "ping", err, sizeof(err)) == -1) {
		warnx("%s", err);
		return CLI_EXIT_FAILURE;
	}
	if (s->s_scheme == MSG_SCHEME_UNDEF)
		s->s_scheme = s->s_keys->kr_cluster.ks_n > 0 ?
		    MSG_SCHEME_CLUSTER : MSG_SCHEME_USER;
	if (s->s_scheme == MSG_SCHEME_CLUSTER &&
	    s->s_keys->kr_cluster.ks_n == 0) {
		warnx("no cluster key could be read from %s (the cluster "
		    "scheme is for daemons and root); try -S user",
		    conf_get(cf, "cluster_key"));
		return CLI_EXIT_FAILURE;
	}
	if (s->s_scheme == MSG_SCHEME_USER &&
	    msg_keyring_user_name(s->s_keys)[0] == '\0' &&
	    s->s_keys->kr_cluster.ks_n == 0) {
		char why[768];

		msg_keyring_no_user(cf, why, sizeof(why));
		warnx("%s", why);
		return CLI_EXIT_FAILURE;
	}
	table[MSG_H_PONG].mh_label = "pong";
	table[MSG_H_PONG].mh_schemes = MSG_SCHEMES_ALL;
	table[MSG_H_PONG].mh_fn = on_pong;
	memset(&eo, 0, sizeof(eo));
	(void)conf_get_seconds(cf, "replay_window", &eo.eo_replay_window);
	eo.eo_clock_offset = s->s_o->po_clock_offset;
	if ((s->s_ep = msg_ep_new(s->s_loop, s->s_keys, table,
	    MSG_H_PONG + 1, s, &eo)) == NULL ||
	    msg_ep_bind(s->s_ep, &any) == -1) {
		warn("endpoint");
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

int
ping_send(const struct ping_opts *o, struct conf *cf)
{
	struct sender *s;
	double elapsed;
	int rc, i;

	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->s_keys = calloc(1, sizeof(*s->s_keys))) == NULL)
		err(CLI_EXIT_FAILURE, "calloc");
	s->s_o = o;
	s->s_scheme = o->po_scheme;
	s->s_rawfd = -1;
	for (i = 0; i < RING; i++)
		s->s_sent_at[i] = -1;
	if ((s->s_loop = evloop_new()) == NULL)
		err(CLI_EXIT_FAILURE, "evloop");
	if (evloop_signal(s->s_loop, SIGINT, on_signal, s) == -1 ||
	    evloop_signal(s->s_loop, SIGTERM, on_signal, s) == -1)
		err(CLI_EXIT_FAILURE, "signals");
	if ((rc = sender_setup(s, cf)) != 0)
		goto out;
	s->s_count = o->po_count ? o->po_count : o->po_flood ? 0 : 5;
	s->s_start = s->s_last_rx = now_mono();
	if (o->po_flood) {
		s->s_end = s->s_start + o->po_duration;
		for (i = 0; i < o->po_window && (s->s_count == 0 ||
		    s->s_sent < s->s_count); i++)
			send_or_warn(s);
		evloop_timer_add(s->s_loop, 0.05, on_flood_watch, s);
	} else
		on_tick(s->s_loop, s);
	if (evloop_run(s->s_loop) == -1)
		warn("event loop");
	elapsed = (s->s_received > 0 ? s->s_last_rx : now_mono()) -
	    s->s_start;
	if (s->s_received == 0) {
		if (o->po_cc.cc_json)
			report(s, elapsed);
		explain_silence(s, cf);
		rc = CLI_EXIT_TIMEOUT;
	} else {
		report(s, elapsed);
		rc = CLI_EXIT_OK;
	}
 out:
	msg_ep_free(s->s_ep);
	if (s->s_rawfd != -1)
		close(s->s_rawfd);
	evloop_free(s->s_loop);
	stats_free(&s->s_stats);
	msg_keyring_clear(s->s_keys);
	free(s->s_keys);
	free(s);
	return rc;
}
