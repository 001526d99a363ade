/*
 * cn_held_test — a victim's answer to a newcomer's steal
 * (src/runtime/cn_steal.c) over real UDP on 127.0.0.1: a TSTEAL from a
 * worker the victim's member list does not name yet is held, and lent
 * its closure as soon as a list names that worker at the address it
 * came from, with no resend from the thief.  A steal held from another
 * address than the listed one, claimed under another worker's name, or
 * held past the thief's own resend gets nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "../../src/runtime/cn_rt.h"
#include "cn_sched.h"
#include "cn_steal.h"
#include "evloop.h"
#include "mono.h"
#include "tap.h"

#define JOB_KEY_ID	7
#define USER		"tester"

static void	work(struct cn_ctx *, struct cn_cont, const void *, size_t);

static cn_thread *const threads[] = { work };
static const struct cn_tprogram tprog = { "cn_held_test", threads, 1 };
static const struct cn_program prog = { "cn_held_test", NULL, 0, NULL,
    NULL };

static uint8_t	job_key[32];

/* What the thief's endpoint received: closures lent to it. */
struct thief {
	struct msg_keyring *kr;
	struct msg_ep	*ep;
	struct msg_addr	 addr;
	unsigned	 closures;
	uint64_t	 steal;		/* the TSTEAL the last one answers */
};

static void
work(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	(void)c; (void)k; (void)arg; (void)len;
}

static void
on_xfer(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct thief *t = arg;
	struct cn_smsg m;

	(void)ep;
	memset(&m, 0, sizeof(m));
	if (cn_smsg_dec(CN_H_XFER, &m, in->mi_data, in->mi_len) == 0 &&
	    m.sm_kind == CN_X_CLOSURE && m.sm_off == 0 &&
	    strcmp(in->mi_name, "w1") == 0) {
		t->closures++;
		t->steal = m.sm_steal;
	}
}

static const struct msg_handler thief_handlers[CN_H_STEAL_END] = {
	[CN_H_XFER] = { "xfer", MSG_SCHEME_BIT(MSG_SCHEME_JOB), on_xfer },
};

static struct msg_keyring *
job_ring(const char *name)
{
	struct msg_keyring *kr;

	if ((kr = calloc(1, sizeof(*kr))) == NULL ||
	    msg_keyring_set_job(kr, JOB_KEY_ID, job_key, name) == -1) {
		fprintf(stderr, "cn_held_test: keyring: %s\n",
		    strerror(errno));
		exit(2);
	}
	return kr;
}

static struct msg_addr
loopback(void)
{
	struct msg_addr a;

	memset(&a, 0, sizeof(a));
	a.ma_family = 4;
	a.ma_addr[0] = 127;
	a.ma_addr[3] = 1;
	return a;
}

static struct msg_ep *
endpoint(struct evloop *loop, struct msg_keyring *kr,
    const struct msg_handler *table, size_t n, void *arg)
{
	struct msg_addr a = loopback();
	struct msg_ep *ep;

	if ((ep = msg_ep_new(loop, kr, table, n, arg,
	    NULL)) == NULL || msg_ep_bind(ep, &a) == -1) {
		fprintf(stderr, "cn_held_test: endpoint: %s\n",
		    strerror(errno));
		exit(2);
	}
	return ep;
}

/* A victim: the root (id 1), one closure ready, knowing only itself. */
static void
victim(struct cn_ctx *c, struct cn_sched *s, struct evloop *loop)
{
	struct cn_cont k;
	uint32_t arg = 42;

	memset(c, 0, sizeof(*c));
	c->c_prog = &prog;
	c->c_id = 1;
	strlcpy(c->c_user, USER, sizeof(c->c_user));
	c->c_chouse = loopback();
	c->c_chouse.ma_port = 9;	/* nobody: asks for members go nowhere */
	c->c_keys = job_ring("w1");
	c->c_ep = endpoint(loop, c->c_keys, NULL, 0, c);
	if (cn_net_open(c) == -1)
		exit(2);
	cn_sched_init(s, c, &tprog, 64, 8);
	cn_net_attach(c, s, 1);
	memset(&k, 0, sizeof(k));
	if (cn_sched_push(s, 0, k, &arg, sizeof(arg)) == -1)
		exit(2);
}

/* TSTEAL number serial from worker id, signed as name, sent from addr. */
static void
tsteal(struct cn_ctx *c, uint32_t id, const char *name,
    const struct msg_addr *from, uint64_t serial)
{
	uint8_t buf[256];
	struct cn_smsg m;
	struct msg_in in;

	memset(&m, 0, sizeof(m));
	m.sm_from = id;
	m.sm_serial = serial;
	memset(&in, 0, sizeof(in));
	in.mi_scheme = MSG_SCHEME_JOB;
	in.mi_name = name;
	in.mi_from = *from;
	in.mi_data = buf;
	if ((in.mi_len = cn_smsg_enc(CN_H_TSTEAL, &m, buf, sizeof(buf))) == 0)
		exit(2);
	cn_net_on_tsteal(c->c_ep, &in, c);
}

/* The clearinghouse's list, version v: the root and worker 2 at at. */
static void
members(struct cn_ctx *c, uint64_t v, const struct msg_addr *at)
{
	static uint8_t buf[MSG_PAYLOAD_MAX];
	struct cn_member mb[2];
	struct cn_smsg m;
	struct msg_in in;

	memset(mb, 0, sizeof(mb));
	mb[0].mb_id = 1;
	mb[0].mb_root = 1;
	mb[0].mb_addr = *msg_ep_addr(c->c_ep);
	mb[1].mb_id = 2;
	mb[1].mb_addr = *at;
	memset(&m, 0, sizeof(m));
	m.sm_version = v;
	m.sm_maxid = 2;
	m.sm_nmembers = 2;
	m.sm_members = mb;
	memset(&in, 0, sizeof(in));
	in.mi_scheme = MSG_SCHEME_USER;
	in.mi_name = USER;
	in.mi_from = c->c_chouse;
	in.mi_data = buf;
	if ((in.mi_len = cn_smsg_enc(CN_H_MEMBERS, &m, buf, sizeof(buf))) == 0)
		exit(2);
	cn_net_on_members(c->c_ep, &in, c);
}

/* The loop's turns until the thief has n closures, at most secs. */
static void
settle(struct evloop *loop, const struct thief *t, unsigned n, double secs)
{
	double until = now_mono() + secs;

	while (t->closures < n && now_mono() < until)
		(void)evloop_run_once(loop, 0.05);
}

/* A victim with one closure ready and a thief's endpoint, on one loop. */
struct scene {
	struct evloop	*loop;
	struct cn_sched	 s;
	struct cn_ctx	 c;
	struct thief	 t;
};

static void
scene_open(struct scene *sc)
{
	if ((sc->loop = evloop_new()) == NULL)
		exit(2);
	memset(&sc->t, 0, sizeof(sc->t));
	sc->t.kr = job_ring("w2");
	sc->t.ep = endpoint(sc->loop, sc->t.kr, thief_handlers,
	    CN_H_STEAL_END, &sc->t);
	sc->t.addr = *msg_ep_addr(sc->t.ep);
	victim(&sc->c, &sc->s, sc->loop);
}

static void
scene_close(struct scene *sc)
{
	cn_net_detach(&sc->c);
	cn_net_close(&sc->c);
	cn_sched_fini(&sc->s);
	msg_ep_free(sc->c.c_ep);
	msg_ep_free(sc->t.ep);
	msg_keyring_clear(sc->c.c_keys);
	msg_keyring_clear(sc->t.kr);
	free(sc->c.c_keys);
	free(sc->t.kr);
	evloop_free(sc->loop);
}

static void
test_held_then_lent(void)
{
	struct scene sc;

	scene_open(&sc);
	tsteal(&sc.c, 2, "w2", &sc.t.addr, 5);
	(void)evloop_run_once(sc.loop, 0);	/* held well within its resend */
	ok(sc.t.closures == 0,
	    "a newcomer's steal before the list: nothing yet");
	members(&sc.c, 1, &sc.t.addr);
	settle(sc.loop, &sc.t, 1, 2.0);
	ok(sc.t.closures == 1 && sc.t.steal == 5,
	    "the list names it there: its held steal 5 is lent the closure "
	    "(%u closures, for %llu)", sc.t.closures,
	    (unsigned long long)sc.t.steal);
	ok(sc.s.s_nready == 0, "the victim's ready closure is gone (%zu)",
	    sc.s.s_nready);
	scene_close(&sc);
}

static void
test_held_refused(void)
{
	struct msg_addr elsewhere;
	struct scene sc;

	scene_open(&sc);
	elsewhere = sc.t.addr;
	elsewhere.ma_port = (uint16_t)(sc.t.addr.ma_port == 65535 ? 1 :
	    sc.t.addr.ma_port + 1);
	tsteal(&sc.c, 2, "w2", &elsewhere, 5);	/* not where the list says */
	tsteal(&sc.c, 2, "w3", &sc.t.addr, 6);	/* w3 speaking for w2 */
	members(&sc.c, 1, &sc.t.addr);
	settle(sc.loop, &sc.t, 1, 0.5);
	ok(sc.t.closures == 0 && sc.s.s_nready == 1,
	    "held from another address, or under another name: nothing lent "
	    "(%u closures, %zu still ready)", sc.t.closures, sc.s.s_nready);
	tsteal(&sc.c, 2, "w2", &sc.t.addr, 7);
	settle(sc.loop, &sc.t, 1, 2.0);
	ok(sc.t.closures == 1 && sc.t.steal == 7,
	    "its next steal, from the listed address, is lent at once");
	scene_close(&sc);
}

static void
test_held_expires(void)
{
	struct scene sc;

	scene_open(&sc);
	tsteal(&sc.c, 2, "w2", &sc.t.addr, 5);
	settle(sc.loop, &sc.t, 1, CN_RESEND + 0.1);
	members(&sc.c, 1, &sc.t.addr);
	settle(sc.loop, &sc.t, 1, 0.5);
	ok(sc.t.closures == 0 && sc.s.s_nready == 1,
	    "a steal held past the thief's resend (%.2f s) is not lent: the "
	    "thief has asked again by then", CN_RESEND);
	scene_close(&sc);
}

int
main(void)
{
	if (sodium_init() == -1)
		return 2;
	randombytes_buf(job_key, sizeof(job_key));
	test_held_then_lent();
	test_held_refused();
	test_held_expires();
	return tap_done();
}
