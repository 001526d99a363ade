/*
 * fakenodes — keeps many pretend node managers registered with a broker
 * from one process, for tests and `make bench`:
 *
 *	fakenodes [-c file] [-o k=v] -n COUNT -i INTERVAL -t SECONDS
 *	    [-p PORT] [-B EVERY] [-R RATE]
 *
 * Node k (0 to COUNT-1) sends from 127.2.x.y (x.y = k mod 65534 + 1)
 * and port PORT + k / 65534, so up to 65534 nodes share a port and
 * 100000 need two: one socket per port, bound to 0.0.0.0, whatever the
 * file-descriptor limit, each datagram given its source address with
 * IP_PKTINFO (every 127/8 address is this host's).  Each node registers
 * once an INTERVAL, spread evenly (COUNT / INTERVAL a second); the
 * first round goes at RATE a second (default 20000).  Every EVERYth
 * node says it is busy (its owner's), the others idle.  After SECONDS
 * it prints one line,
 *
 *	fakenodes: N nodes, S sent, A acks, E refused, O other
 *
 * (what came back, by handler, read from headers without verifying
 * them: a test tool's count) and exits 0.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "log.h"
#include "mono.h"
#include "msg_keyring.h"
#include "proto.h"

#define PER_PORT	65534		/* 127.2.0.1 to 127.2.255.254 */
#define COUNT_MAX	1000000
#define PORTS_MAX	(COUNT_MAX / PER_PORT + 1)

struct fakes {
	struct msg_keyring	*fk_kr;
	struct msg_addr		 fk_broker;
	struct sockaddr_in	 fk_to;
	int			 fk_fd[PORTS_MAX];
	int			 fk_nfd;
	uint32_t		 fk_n, fk_every;
	uint16_t		 fk_port;
	uint64_t		*fk_boot;
	uint64_t		 fk_sent, fk_acks, fk_refused, fk_other;
	uint8_t			 fk_payload[512];
	uint8_t			 fk_buf[MSG_SEALED_MAX];
};

static volatile sig_atomic_t stopping;

static void
on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: fakenodes [-c file] [-o key=value] -n count "
	    "-i interval -t seconds\n"
	    "                 [-p port] [-B every] [-R rate]\n");
	exit(CLI_EXIT_USAGE);
}

static double
number(const char *s, const char *what, double min, double max)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end != '\0' || !(v >= min && v <= max)) {
		warnx("%s %s: not a number from %g to %g", what, s, min, max);
		usage();
	}
	return v;
}

static void
node_addr(uint32_t k, struct in_addr *a)
{
	uint32_t h = k % PER_PORT + 1;

	a->s_addr = htonl((127u << 24) | (2u << 16) | h);
}

/* One registration of node k, sealed and sent from its own address. */
static void
send_reg(struct fakes *fk, uint32_t k)
{
	struct proto_node_reg r;
	struct msghdr mh;
	struct iovec iov;
	struct in_pktinfo *pi;
	union {
		struct cmsghdr	c;
		uint8_t		b[CMSG_SPACE(sizeof(struct in_pktinfo))];
	} cm;
	struct cmsghdr *c;
	size_t plen, slen;

	memset(&r, 0, sizeof(r));
	r.nr_boot = fk->fk_boot[k];
	snprintf(r.nr_host, sizeof(r.nr_host), "fake%u", k);
	r.nr_state = fk->fk_every != 0 && k % fk->fk_every == 0 ?
	    PROTO_NS_BUSY : PROTO_NS_IDLE;
	r.nr_idle = 600;
	if ((plen = proto_node_reg_enc(&r, fk->fk_payload,
	    sizeof(fk->fk_payload))) == 0 ||
	    msg_seal(fk->fk_kr, MSG_SCHEME_CLUSTER, PROTO_H_NODE_REGISTER,
	    &fk->fk_broker, now_real_ms(), fk->fk_payload, plen, fk->fk_buf,
	    sizeof(fk->fk_buf), &slen) == -1) {
		warn("seal");
		return;
	}
	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = fk->fk_buf;
	iov.iov_len = slen;
	mh.msg_name = &fk->fk_to;
	mh.msg_namelen = sizeof(fk->fk_to);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cm.b;
	mh.msg_controllen = sizeof(cm.b);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(*pi));
	pi = (struct in_pktinfo *)(void *)CMSG_DATA(c);
	node_addr(k, &pi->ipi_spec_dst);
	if (sendmsg(fk->fk_fd[k / PER_PORT], &mh, 0) == -1) {
		if (errno != EAGAIN && errno != ENOBUFS)
			warn("sendmsg");
		return;
	}
	fk->fk_sent++;
}

/* Whatever came back: counted by handler, never verified. */
static void
drain(struct fakes *fk)
{
	struct msg_hdr h;
	size_t hl;
	ssize_t n;
	int i;

	for (i = 0; i < fk->fk_nfd; i++)
		while ((n = recv(fk->fk_fd[i], fk->fk_buf, sizeof(fk->fk_buf),
		    MSG_DONTWAIT)) > 0) {
			if (msg_hdr_decode(fk->fk_buf, (size_t)n, &h, &hl) !=
			    MSG_DROP_NONE)
				fk->fk_other++;
			else if (h.mh_handler == PROTO_H_NODE_ACK)
				fk->fk_acks++;
			else if (h.mh_handler == PROTO_H_ERROR)
				fk->fk_refused++;
			else
				fk->fk_other++;
		}
}

static void
open_sockets(struct fakes *fk)
{
	struct sockaddr_in sin;
	int i, on = 1, big = 8 << 20;

	fk->fk_nfd = (int)((fk->fk_n + PER_PORT - 1) / PER_PORT);
	for (i = 0; i < fk->fk_nfd; i++) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)(fk->fk_port + i));
		if ((fk->fk_fd[i] = socket(AF_INET, SOCK_DGRAM, 0)) == -1 ||
		    setsockopt(fk->fk_fd[i], SOL_SOCKET, SO_REUSEADDR, &on,
		    sizeof(on)) == -1 ||
		    bind(fk->fk_fd[i], (struct sockaddr *)&sin,
		    sizeof(sin)) == -1)
			err(CLI_EXIT_FAILURE, "port %d", fk->fk_port + i);
		/* Acks of a burst wait here while we send. */
		(void)setsockopt(fk->fk_fd[i], SOL_SOCKET, SO_RCVBUF, &big,
		    sizeof(big));
	}
}

int
main(int argc, char *argv[])
{
	static struct fakes fk;
	struct cli_common cc;
	struct sockaddr_storage ss;
	struct conf *cf;
	struct timespec ts;
	double interval = 0, seconds = 0, rate = 20000, start, t, due;
	uint64_t done = 0, k;
	char why[512];
	int ch, i;

	memset(&cc, 0, sizeof(cc));
	fk.fk_port = 19000;
	while ((ch = getopt(argc, argv, "B:c:i:n:o:p:R:t:v")) != -1) {
		switch (cli_common_opt(&cc, ch, optarg)) {
		case 1:
			continue;
		case -1:
			usage();
		}
		switch (ch) {
		case 'B':
			fk.fk_every = (uint32_t)number(optarg, "-B", 0,
			    COUNT_MAX);
			break;
		case 'i':
			interval = number(optarg, "-i", 0.1, 3600);
			break;
		case 'n':
			fk.fk_n = (uint32_t)number(optarg, "-n", 1, COUNT_MAX);
			break;
		case 'p':
			fk.fk_port = (uint16_t)number(optarg, "-p", 1, 65535);
			break;
		case 'R':
			rate = number(optarg, "-R", 1, 1e7);
			break;
		case 't':
			seconds = number(optarg, "-t", 0.1, 86400);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || fk.fk_n == 0 || interval == 0 || seconds == 0)
		usage();
	if (fk.fk_port + (fk.fk_n - 1) / PER_PORT > 65535)
		errx(CLI_EXIT_USAGE, "-p %u: too few ports above it",
		    fk.fk_port);
	log_init(1, "fakenodes", cc.cc_verbose);
	if (sodium_init() < 0)
		errx(CLI_EXIT_FAILURE, "libsodium");
	if ((cf = cli_conf_load(&cc, "fakenodes")) == NULL)
		return CLI_EXIT_USAGE;
	if (msg_addr_parse(&fk.fk_broker, conf_get(cf, "broker"), 7410) ==
	    -1 || fk.fk_broker.ma_family != 4 ||
	    msg_addr_to_sockaddr(&fk.fk_broker, &ss) == 0)
		errx(CLI_EXIT_USAGE, "%s: not an IPv4 broker address",
		    conf_get(cf, "broker"));
	memcpy(&fk.fk_to, &ss, sizeof(fk.fk_to));
	if ((fk.fk_kr = calloc(1, sizeof(*fk.fk_kr))) == NULL ||
	    (fk.fk_boot = calloc(fk.fk_n, sizeof(*fk.fk_boot))) == NULL)
		err(CLI_EXIT_FAILURE, "calloc");
	if (msg_keyring_load(fk.fk_kr, cf, MSG_KR_CLUSTER, "fake-node", why,
	    sizeof(why)) == -1)
		errx(CLI_EXIT_FAILURE, "%s", why);
	randombytes_buf(fk.fk_boot, fk.fk_n * sizeof(*fk.fk_boot));
	open_sockets(&fk);
	if (signal(SIGTERM, on_signal) == SIG_ERR ||
	    signal(SIGINT, on_signal) == SIG_ERR)
		err(CLI_EXIT_FAILURE, "signal");
	/*
	 * Registration number done goes to node done % n, due at done /
	 * rate in the first round and one interval later each round after.
	 */
	start = now_mono();
	for (;;) {
		t = now_mono() - start;
		if (t >= seconds || stopping)
			break;
		for (i = 0; i < 256; i++) {
			k = done / fk.fk_n;
			due = k == 0 ? (double)done / rate :
			    (double)fk.fk_n / rate + (k - 1) * interval +
			    (double)(done % fk.fk_n) * interval / fk.fk_n;
			if (due > t)
				break;
			send_reg(&fk, (uint32_t)(done % fk.fk_n));
			done++;
		}
		drain(&fk);
		if (i == 256)
			continue;	/* behind: no sleep */
		ts.tv_sec = 0;
		ts.tv_nsec = 1000000;	/* 1 ms */
		(void)nanosleep(&ts, NULL);
	}
	drain(&fk);
	printf("fakenodes: %u nodes, %llu sent, %llu acks, %llu refused, "
	    "%llu other\n", fk.fk_n, (unsigned long long)fk.fk_sent,
	    (unsigned long long)fk.fk_acks, (unsigned long long)fk.fk_refused,
	    (unsigned long long)fk.fk_other);
	for (i = 0; i < fk.fk_nfd; i++)
		(void)close(fk.fk_fd[i]);
	msg_keyring_clear(fk.fk_kr);
	free(fk.fk_kr);
	free(fk.fk_boot);
	conf_free(cf);
	return 0;
}
