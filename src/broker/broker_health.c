/* broker_health — drained and down nodes of CilkJobBroker. */
#include "broker_health.h"
#include "msg_keys.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
broker_health_init(struct broker_health *h)
{
	memset(h, 0, sizeof(*h));
	TAILQ_INIT(&h->bh_holds);
	h->bh_down_keep = BROKER_DOWN_KEEP;
}

static void
hold_remove(struct broker_health *h, struct broker_hold *x)
{
	TAILQ_REMOVE(&h->bh_holds, x, bh_entry);
	h->bh_n--;
	h->bh_epoch++;
	free(x);
}

void
broker_health_fini(struct broker_health *h)
{
	struct broker_hold *x;

	while ((x = TAILQ_FIRST(&h->bh_holds)) != NULL)
		hold_remove(h, x);
}

/* The IP address of a, without the port, as CilkNodes -n shows it. */
static void
addr_ip(const struct msg_addr *a, char *buf, size_t bufsz)
{
	if ((a->ma_family != 4 || inet_ntop(AF_INET, a->ma_addr, buf,
	    (socklen_t)bufsz) == NULL) &&
	    (a->ma_family != 6 || inet_ntop(AF_INET6, a->ma_addr, buf,
	    (socklen_t)bufsz) == NULL))
		strlcpy(buf, "?", bufsz);
}

/* 1 if name is the node's number, host name or address. */
static int
names(const char *name, uint32_t id, const char *host,
    const struct msg_addr *a)
{
	char ip[64], num[16];

	snprintf(num, sizeof(num), "%" PRIu32, id);
	if (id != 0 && strcmp(name, num) == 0)
		return 1;
	if (host[0] != '\0' && strcmp(name, host) == 0)
		return 1;
	addr_ip(a, ip, sizeof(ip));
	return strcmp(name, ip) == 0;
}

/* 1 if the record is of that node: its address, or its host name. */
static int
holds(const struct broker_hold *x, const struct broker_node *n)
{
	return msg_addr_eq(&x->bh_addr, &n->bn_addr) ||
	    (x->bh_host[0] != '\0' && strcmp(x->bh_host, n->bn_host) == 0);
}

/* What holds n: 2 down by itself, 1 drained, 0 nothing (bn_drain). */
static uint8_t
drained(const struct broker_health *h, const struct broker_node *n)
{
	const struct broker_hold *x;
	uint8_t d = 0;

	TAILQ_FOREACH(x, &h->bh_holds, bh_entry)
		if (x->bh_kind == BROKER_HOLD_FAULT && holds(x, n))
			return 2;
		else if (x->bh_kind == BROKER_HOLD_DRAIN && holds(x, n))
			d = 1;
	return d;
}

/* Every node's bn_drain as the records say; the epoch rises on change. */
static void
apply(struct broker_health *h, struct broker *br)
{
	struct broker_node *n;
	uint8_t d;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry) {
		d = drained(h, n);
		if (d != n->bn_drain) {
			n->bn_drain = d;
			br->br_epoch++;
		}
	}
}

/* The record of that kind naming the node, or NULL. */
static struct broker_hold *
hold_named(struct broker_health *h, int kind, const char *name)
{
	struct broker_hold *x;

	TAILQ_FOREACH(x, &h->bh_holds, bh_entry)
		if (x->bh_kind == kind && names(name, x->bh_node, x->bh_host,
		    &x->bh_addr))
			return x;
	return NULL;
}

static struct broker_node *
node_named(struct broker *br, const char *name)
{
	struct broker_node *n;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		if (names(name, n->bn_id, n->bn_host, &n->bn_addr))
			return n;
	return NULL;
}

/* "node 3 (ws2)" */
static void
node_text(uint32_t id, const char *host, char *buf, size_t bufsz)
{
	if (id != 0)
		snprintf(buf, bufsz, "node %" PRIu32 " (%s)", id, host);
	else
		snprintf(buf, bufsz, "node %s", host);
}

static int
drain(struct broker_health *h, struct broker *br,
    const struct proto_health_req *q, const char *by, uint64_t wall_ms,
    double now, char *msg, size_t msgsz)
{
	struct broker_node *n = node_named(br, q->hq_node);
	struct broker_hold *x, *down = NULL;
	char what[PROTO_HOST_MAX + 32];

	if (n == NULL && (down = hold_named(h, BROKER_HOLD_DOWN,
	    q->hq_node)) == NULL) {
		snprintf(msg, msgsz, "no such node: %s (CilkNodes lists "
		    "them)", q->hq_node);
		return -1;
	}
	/* Drained already: the new reason, by whom, since now. */
	TAILQ_FOREACH(x, &h->bh_holds, bh_entry)
		if (x->bh_kind == BROKER_HOLD_DRAIN && (n != NULL ?
		    holds(x, n) : msg_addr_eq(&x->bh_addr, &down->bh_addr)))
			break;
	if (x == NULL) {
		if (h->bh_n >= BROKER_HOLDS_MAX ||
		    (x = calloc(1, sizeof(*x))) == NULL) {
			snprintf(msg, msgsz, "too many nodes held already");
			return -1;
		}
		x->bh_kind = BROKER_HOLD_DRAIN;
		TAILQ_INSERT_TAIL(&h->bh_holds, x, bh_entry);
		h->bh_n++;
	}
	if (n != NULL) {
		x->bh_node = n->bn_id;
		x->bh_addr = n->bn_addr;
		strlcpy(x->bh_host, n->bn_host, sizeof(x->bh_host));
	} else {
		x->bh_node = down->bh_node;
		x->bh_addr = down->bh_addr;
		strlcpy(x->bh_host, down->bh_host, sizeof(x->bh_host));
	}
	strlcpy(x->bh_reason, q->hq_reason, sizeof(x->bh_reason));
	strlcpy(x->bh_user, by, sizeof(x->bh_user));
	x->bh_since_ms = wall_ms;
	x->bh_at = now;
	h->bh_epoch++;
	apply(h, br);
	node_text(x->bh_node, x->bh_host, what, sizeof(what));
	snprintf(msg, msgsz, "%s drained: %s", what,
	    n != NULL && broker_health_state(n) == PROTO_NS_DRAIN ?
	    "its running work goes on, it takes no new work" :
	    "it takes no work");
	return 0;
}

static int
resume(struct broker_health *h, struct broker *br,
    const struct proto_health_req *q, char *msg, size_t msgsz)
{
	struct broker_node *n = node_named(br, q->hq_node);
	struct broker_hold *x, *xn;
	char what[PROTO_HOST_MAX + 32];
	int k = 0;

	what[0] = '\0';
	TAILQ_FOREACH_SAFE(x, &h->bh_holds, bh_entry, xn) {
		if (!(n != NULL ? holds(x, n) : names(q->hq_node, x->bh_node,
		    x->bh_host, &x->bh_addr)))
			continue;
		if (k++ == 0)
			node_text(n != NULL ? n->bn_id : x->bh_node,
			    n != NULL ? n->bn_host : x->bh_host, what,
			    sizeof(what));
		/* Its own reports of this down are not taken again. */
		if (x->bh_kind == BROKER_HOLD_FAULT && n != NULL) {
			n->bn_resumed_boot = x->bh_boot;
			n->bn_resumed_gen = x->bh_gen;
		}
		hold_remove(h, x);
	}
	if (k == 0) {
		if (n == NULL)
			snprintf(msg, msgsz, "no such node: %s (CilkNodes "
			    "lists them)", q->hq_node);
		else {
			node_text(n->bn_id, n->bn_host, what, sizeof(what));
			snprintf(msg, msgsz, "%s is not drained or down",
			    what);
		}
		return -1;
	}
	apply(h, br);
	snprintf(msg, msgsz, "%s resumed: it takes work again", what);
	return 0;
}

int
broker_health_set(struct broker_health *h, struct broker *br,
    const struct proto_health_req *q, const char *by, int admin,
    uint64_t wall_ms, double now, char *msg, size_t msgsz)
{
	if (!admin) {
		snprintf(msg, msgsz, "only an administrator (the admins key) "
		    "may drain or resume nodes; %s is not one", by);
		return -1;
	}
	switch (q->hq_op) {
	case PROTO_HO_DRAIN:
		return drain(h, br, q, by, wall_ms, now, msg, msgsz);
	case PROTO_HO_RESUME:
		return resume(h, br, q, msg, msgsz);
	default:
		snprintf(msg, msgsz, "not a drain or a resume");
		return -1;
	}
}

void
broker_health_on_register(struct broker_health *h, struct broker *br,
    struct broker_node *n)
{
	struct broker_hold *x, *xn;
	uint8_t d = 0;

	TAILQ_FOREACH_SAFE(x, &h->bh_holds, bh_entry, xn) {
		if (!holds(x, n))
			continue;
		if (x->bh_kind == BROKER_HOLD_DOWN) {
			hold_remove(h, x);
			continue;
		}
		if (x->bh_node != n->bn_id) {
			x->bh_node = n->bn_id;
			h->bh_epoch++;
		}
		if (x->bh_kind == BROKER_HOLD_FAULT)
			d = 2;
		else if (d == 0)
			d = 1;
	}
	if (d != n->bn_drain) {
		n->bn_drain = d;
		br->br_epoch++;
	}
}

int
broker_health_fault(struct broker_health *h, struct broker *br,
    struct broker_node *n, uint64_t boot, uint32_t gen, const char *reason,
    uint64_t wall_ms, double now)
{
	struct broker_hold *x;

	if (boot != n->bn_boot || gen == 0 ||
	    (n->bn_resumed_boot == boot && n->bn_resumed_gen >= gen))
		return 0;
	TAILQ_FOREACH(x, &h->bh_holds, bh_entry)
		if (x->bh_kind == BROKER_HOLD_FAULT && holds(x, n))
			break;
	if (x != NULL && x->bh_boot == boot && x->bh_gen == gen &&
	    strcmp(x->bh_reason, reason) == 0)
		return 0;	/* said again, with its registration */
	if (x == NULL) {
		if (h->bh_n >= BROKER_HOLDS_MAX ||
		    (x = calloc(1, sizeof(*x))) == NULL)
			return 0;
		x->bh_kind = BROKER_HOLD_FAULT;
		TAILQ_INSERT_TAIL(&h->bh_holds, x, bh_entry);
		h->bh_n++;
		x->bh_since_ms = wall_ms;
		x->bh_at = now;
	} else if (x->bh_boot != boot || x->bh_gen != gen) {
		x->bh_since_ms = wall_ms;	/* another down */
		x->bh_at = now;
	}
	x->bh_node = n->bn_id;
	x->bh_addr = n->bn_addr;
	strlcpy(x->bh_host, n->bn_host, sizeof(x->bh_host));
	strlcpy(x->bh_reason, reason, sizeof(x->bh_reason));
	x->bh_user[0] = '\0';
	x->bh_boot = boot;
	x->bh_gen = gen;
	h->bh_epoch++;
	apply(h, br);
	return 1;
}

void
broker_health_down(struct broker_health *h, const struct broker_node *n,
    double silent, uint64_t wall_ms, double now)
{
	struct broker_hold *x, *xn, *oldest = NULL;
	struct tm tm;
	time_t t;
	char when[32];

	/* One record per node: a node forgotten again replaces it. */
	TAILQ_FOREACH_SAFE(x, &h->bh_holds, bh_entry, xn) {
		if (x->bh_kind != BROKER_HOLD_DOWN)
			continue;
		if (msg_addr_eq(&x->bh_addr, &n->bn_addr))
			hold_remove(h, x);
		else if (oldest == NULL)
			oldest = x;
	}
	if (h->bh_n >= BROKER_HOLDS_MAX) {
		if (oldest == NULL)
			return;		/* all drains: they stay */
		hold_remove(h, oldest);
	}
	if ((x = calloc(1, sizeof(*x))) == NULL)
		return;
	x->bh_kind = BROKER_HOLD_DOWN;
	x->bh_node = n->bn_id;
	x->bh_addr = n->bn_addr;
	strlcpy(x->bh_host, n->bn_host, sizeof(x->bh_host));
	if (silent < 0)
		silent = 0;
	x->bh_since_ms = wall_ms > (uint64_t)(silent * 1000) ?
	    wall_ms - (uint64_t)(silent * 1000) : 0;
	t = (time_t)(x->bh_since_ms / 1000);
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		strlcpy(when, "?", sizeof(when));
	snprintf(x->bh_reason, sizeof(x->bh_reason), "silent since %s", when);
	x->bh_at = now;
	TAILQ_INSERT_TAIL(&h->bh_holds, x, bh_entry);
	h->bh_n++;
	h->bh_epoch++;
}

/* 1 if s is a NUL-terminated string of at most max - 1 bytes, none a
 * control character. */
static int
text_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max), i;

	if (n >= max)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

int
broker_health_reload(struct broker_health *h, struct broker *br,
    const struct broker_hold *s, double now, uint64_t now_ms,
    const char **why)
{
	struct broker_hold *x;
	double age;

	*why = NULL;
	if (s->bh_kind < BROKER_HOLD_DRAIN || s->bh_kind > BROKER_HOLD_FAULT)
		*why = "unknown kind";
	else if (s->bh_addr.ma_family != 4 && s->bh_addr.ma_family != 6)
		*why = "bad address";
	else if (!text_ok(s->bh_host, sizeof(s->bh_host)))
		*why = "bad host name";
	else if (!text_ok(s->bh_reason, sizeof(s->bh_reason)) ||
	    s->bh_reason[0] == '\0')
		*why = "bad reason";
	else if (!text_ok(s->bh_user, sizeof(s->bh_user)) ||
	    (s->bh_kind == BROKER_HOLD_DRAIN ? !msg_user_name_ok(s->bh_user) :
	    s->bh_user[0] != '\0'))
		*why = "bad user";
	else if (h->bh_n >= BROKER_HOLDS_MAX)
		*why = "too many held nodes";
	if (*why != NULL)
		return -1;
	TAILQ_FOREACH(x, &h->bh_holds, bh_entry)
		if (x->bh_kind == s->bh_kind &&
		    msg_addr_eq(&x->bh_addr, &s->bh_addr)) {
			*why = "held twice";
			return -1;
		}
	if ((x = calloc(1, sizeof(*x))) == NULL) {
		*why = "out of memory";
		return -1;
	}
	*x = *s;
	age = now_ms > s->bh_since_ms ?
	    (double)(now_ms - s->bh_since_ms) / 1000 : 0;
	x->bh_at = now - age;
	TAILQ_INSERT_TAIL(&h->bh_holds, x, bh_entry);
	h->bh_n++;
	h->bh_epoch++;
	apply(h, br);
	return 0;
}

void
broker_health_expire(struct broker_health *h, double now)
{
	struct broker_hold *x, *xn;

	if (h->bh_down_keep <= 0)
		return;
	TAILQ_FOREACH_SAFE(x, &h->bh_holds, bh_entry, xn)
		if (x->bh_kind == BROKER_HOLD_DOWN &&
		    now - x->bh_at > h->bh_down_keep)
			hold_remove(h, x);
}

/* 1 if a processor of n runs a guest's worker or was given one. */
static int
runs_work(const struct broker_node *n)
{
	const struct broker_slot *s;
	uint16_t i;

	for (i = 0; i < n->bn_nslots; i++) {
		s = &n->bn_slots[i];
		if (s->bs_assigned != 0 || (s->bs_job != 0 &&
		    (s->bs_state == PROTO_NS_RUNNING ||
		    s->bs_state == PROTO_NS_SWITCHING ||
		    s->bs_state == PROTO_NS_STOPPING ||
		    s->bs_state == PROTO_NS_SUSPENDED)))
			return 1;
	}
	return 0;
}

uint8_t
broker_health_state(const struct broker_node *n)
{
	if (!n->bn_drain)
		return n->bn_state;
	if (n->bn_drain == 2)
		return PROTO_NS_DOWN;
	return runs_work(n) ? PROTO_NS_DRAIN : PROTO_NS_DRAINED;
}

static void
row(const struct broker_hold *x, struct broker *br,
    struct proto_health_row *r)
{
	const struct broker_node *n = NULL, *o;

	memset(r, 0, sizeof(*r));
	r->hr_node = x->bh_node;
	r->hr_addr = x->bh_addr;
	strlcpy(r->hr_host, x->bh_host, sizeof(r->hr_host));
	strlcpy(r->hr_reason, x->bh_reason, sizeof(r->hr_reason));
	strlcpy(r->hr_user, x->bh_user, sizeof(r->hr_user));
	r->hr_since_ms = x->bh_since_ms;
	if (x->bh_kind == BROKER_HOLD_DOWN) {
		r->hr_state = PROTO_NS_DOWN;
		return;
	}
	if (x->bh_kind == BROKER_HOLD_FAULT) {
		r->hr_state = PROTO_NS_DOWN;
		if ((n = broker_node_by_addr(br, &x->bh_addr)) != NULL)
			r->hr_node = n->bn_id;
		return;
	}
	/* A drained node not registered now runs nothing of ours. */
	if ((n = broker_node_by_addr(br, &x->bh_addr)) == NULL)
		TAILQ_FOREACH(o, &br->br_nodes, bn_entry)
			if (holds(x, o)) {
				n = o;
				break;
			}
	r->hr_state = n != NULL ? broker_health_state(n) : PROTO_NS_DRAINED;
	if (n != NULL)
		r->hr_node = n->bn_id;
}

void
broker_health_rows(const struct broker_health *h, struct broker *br,
    struct proto_health *out)
{
	const struct broker_hold *x;
	int kind;

	out->he_n = 0;
	out->he_total = h->bh_n;
	for (kind = BROKER_HOLD_DRAIN; kind <= BROKER_HOLD_FAULT; kind++)
		TAILQ_FOREACH(x, &h->bh_holds, bh_entry)
			if (x->bh_kind == kind &&
			    out->he_n < PROTO_HEALTH_ROWS_MAX)
				row(x, br, &out->he_rows[out->he_n++]);
}

const struct broker_hold *
broker_health_first_down(const struct broker_health *h)
{
	const struct broker_hold *x;

	TAILQ_FOREACH(x, &h->bh_holds, bh_entry)
		if (x->bh_kind == BROKER_HOLD_DOWN)
			return x;
	return NULL;
}

const struct broker_hold *
broker_health_next_down(const struct broker_hold *x)
{
	while ((x = TAILQ_NEXT(x, bh_entry)) != NULL)
		if (x->bh_kind == BROKER_HOLD_DOWN)
			return x;
	return NULL;
}

uint32_t
broker_health_ndown(const struct broker_health *h)
{
	const struct broker_hold *x;
	uint32_t k = 0;

	TAILQ_FOREACH(x, &h->bh_holds, bh_entry)
		k += x->bh_kind == BROKER_HOLD_DOWN;
	return k;
}
