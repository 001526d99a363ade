/* CilkPing -l: answers pings like any daemon would, until signalled. */
#include <sys/socket.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "msg_keyring.h"
#include "ping.h"

struct responder {
	struct evloop	*r_loop;
	struct msg_ep	*r_ep;
	int		 r_rawfd;
	uint64_t	 r_raw_echoed;
	uint8_t		 r_buf[MSG_PAYLOAD_MAX + 1];
};

/* -S raw: an echo server, the baseline the secure layer is held to. */
static void
on_raw(struct evloop *loop, int fd, short revents, void *arg)
{
	struct responder *r = arg;
	struct sockaddr_storage ss;
	socklen_t sl;
	ssize_t n;
	int i;

	(void)loop;
	(void)revents;
	for (i = 0; i < 64; i++) {
		sl = sizeof(ss);
		if ((n = recvfrom(fd, r->r_buf, sizeof(r->r_buf), 0,
		    (struct sockaddr *)&ss, &sl)) == -1)
			return;
		if (sendto(fd, r->r_buf, (size_t)n, 0, (struct sockaddr *)&ss,
		    sl) == n)
			r->r_raw_echoed++;
	}
}

static void
on_signal(struct evloop *loop, int signo, void *arg)
{
	(void)signo;
	(void)arg;
	evloop_break(loop);
}

static void
print_final(const struct responder *r)
{
	const struct msg_counters *c;
	int i;

	if (r->r_ep == NULL) {
		printf("echoed %llu raw datagrams\n",
		    (unsigned long long)r->r_raw_echoed);
		return;
	}
	c = msg_ep_counters(r->r_ep);
	printf("received %llu, answered %llu, dropped",
	    (unsigned long long)c->mc_received,
	    (unsigned long long)c->mc_delivered);
	for (i = 1; i < MSG_DROP_MAX; i++)
		printf(" %s=%llu", msg_drop_name(i),
		    (unsigned long long)c->mc_dropped[i]);
	printf("\n");
}

int
ping_listen(const struct ping_opts *o, struct conf *cf)
{
	struct responder r;
	struct msg_keyring *kr = NULL;
	struct msg_ep_opts eo;
	struct msg_addr addr;
	struct sockaddr_storage ss;
	socklen_t sl;
	char text[64], why[512];
	int rc = CLI_EXIT_FAILURE;

	memset(&r, 0, sizeof(r));
	r.r_rawfd = -1;
	log_init(1, "CilkPing", o->po_cc.cc_verbose);
	if (msg_addr_parse(&addr, o->po_target, 7410) == -1) {
		warnx("%s: bad or unknown address", o->po_target);
		return CLI_EXIT_USAGE;
	}
	if ((r.r_loop = evloop_new()) == NULL ||
	    evloop_signal(r.r_loop, SIGINT, on_signal, &r) == -1 ||
	    evloop_signal(r.r_loop, SIGTERM, on_signal, &r) == -1)
		err(CLI_EXIT_FAILURE, "event loop");
	if (o->po_scheme == PING_RAW) {
		sl = msg_addr_to_sockaddr(&addr, &ss);
		if ((r.r_rawfd = socket(ss.ss_family, SOCK_DGRAM |
		    SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1 ||
		    bind(r.r_rawfd, (struct sockaddr *)&ss, sl) == -1 ||
		    evloop_add_fd(r.r_loop, r.r_rawfd, POLLIN, on_raw,
		    &r) == -1) {
			warn("%s", o->po_target);
			goto out;
		}
	} else {
		if ((kr = calloc(1, sizeof(*kr))) == NULL)
			err(CLI_EXIT_FAILURE, "calloc");
		if (msg_keyring_load(kr, cf, MSG_KR_CLUSTER_OPT |
		    MSG_KR_USER_OPT | MSG_KR_USERS, "ping", why, sizeof(why)) == -1) {
			warnx("%s", why);
			goto out;
		}
		if (kr->kr_cluster.ks_n == 0 &&
		    msg_keyring_user_name(kr)[0] == '\0') {
			warnx("no key to answer with: neither %s nor %s "
			    "could be read", conf_get(cf, "cluster_key"),
			    conf_get(cf, "user_key"));
			goto out;
		}
		memset(&eo, 0, sizeof(eo));
		(void)conf_get_seconds(cf, "replay_window",
		    &eo.eo_replay_window);
		eo.eo_clock_offset = o->po_clock_offset;
		if ((r.r_ep = msg_ep_new(r.r_loop, kr, NULL, 0, &r,
		    &eo)) == NULL || msg_ep_bind(r.r_ep, &addr) == -1) {
			warn("%s", o->po_target);
			goto out;
		}
	}
	msg_addr_text(&addr, text, sizeof(text));
	printf("CilkPing: answering %s pings on %s\n",
	    o->po_scheme == PING_RAW ? "raw" : "authenticated", text);
	fflush(stdout);
	if (evloop_run(r.r_loop) == -1)
		warn("event loop");
	print_final(&r);
	rc = CLI_EXIT_OK;
 out:
	msg_ep_free(r.r_ep);
	if (r.r_rawfd != -1)
		close(r.r_rawfd);
	evloop_free(r.r_loop);
	if (kr != NULL) {
		msg_keyring_clear(kr);
		free(kr);
	}
	return rc;
}
