/*
 * CilkNodeManager's privileged parent: is a signed description meant
 * for this node, now?  A job's description names the processor it was
 * issued to (HOST or HOST/SLOT, the name this node gives itself) and is
 * used within replay_window of its signature; a root's backup names the
 * address its root sent it to (our port, and our address or, where we
 * listen on every address, one of this machine's) and restarts the root
 * within root_restart_window.  The engine could otherwise replay what
 * it once received, at any node and any time (DESIGN.md §9).
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "mono.h"
#include "node.h"

/* 1 if a names an address of this machine. */
static int
addr_is_local(const struct msg_addr *a)
{
	static const uint8_t v6_loopback[16] = { [15] = 1 };
	struct ifaddrs *ifs, *i;
	struct msg_addr mine;
	int found = 0;

	if ((a->ma_family == 4 && a->ma_addr[0] == 127) ||
	    (a->ma_family == 6 && memcmp(a->ma_addr, v6_loopback, 16) == 0))
		return 1;
	if (getifaddrs(&ifs) == -1)
		return 0;	/* fail closed */
	for (i = ifs; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || (i->ifa_addr->sa_family != AF_INET &&
		    i->ifa_addr->sa_family != AF_INET6))
			continue;
		if (msg_addr_from_sockaddr(&mine, i->ifa_addr,
		    i->ifa_addr->sa_family == AF_INET ?
		    sizeof(struct sockaddr_in) :
		    sizeof(struct sockaddr_in6)) == 0 &&
		    mine.ma_family == a->ma_family &&
		    memcmp(mine.ma_addr, a->ma_addr, 16) == 0)
			found = 1;
	}
	freeifaddrs(ifs);
	return found;
}

/* A root's backup: the numeric HOST:PORT its root sent it to is ours. */
static int
root_for_us(const struct node *n, const char *node)
{
	struct msg_addr a;

	/* Numeric only: the parent asks no name server. */
	if (node[0] == '\0' || msg_addr_named(node) ||
	    msg_addr_parse(&a, node, 0) == -1)
		return 0;
	if (a.ma_port != n->n_listen.ma_port)
		return 0;
	if (!msg_addr_any(&n->n_listen))
		return a.ma_family == n->n_listen.ma_family &&
		    memcmp(a.ma_addr, n->n_listen.ma_addr, 16) == 0;
	return addr_is_local(&a);
}

/* A job's description: issued to this node or one of its processors. */
static int
job_for_us(const struct node *n, const char *node)
{
	size_t len = strlen(n->n_name);

	return strncmp(node, n->n_name, len) == 0 &&
	    (node[len] == '\0' || node[len] == '/');
}

int
node_desc_bound(const struct node *n, const struct proto_desc *d, int root,
    char *why, size_t whylen)
{
	double window = dctx_seconds(&n->n_dc, root ? "root_restart_window" :
	    "replay_window", root ? 86400 : 30);
	double skew = dctx_seconds(&n->n_dc, "replay_window", 30);
	double age = ((double)now_real_ms() - (double)d->de_issued_ms) / 1000;

	if (age > window || age < -skew) {
		snprintf(why, whylen, "%s of job %u signed %.0f s ago (%s "
		    "%.0f)", root ? "root backup" : "description", d->de_job,
		    age, root ? "root_restart_window" : "replay_window",
		    window);
		return -1;
	}
	if (root ? !root_for_us(n, d->de_node) : !job_for_us(n, d->de_node)) {
		snprintf(why, whylen, "%s of job %u issued to %s, not to "
		    "this node (%s)", root ? "root backup" : "description",
		    d->de_job, d->de_node[0] != '\0' ? d->de_node :
		    "no node", n->n_name);
		return -1;
	}
	return 0;
}
