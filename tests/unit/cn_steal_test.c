/*
 * cn_steal_test — the stealing messages and the victim's books
 * (include/cn_steal.h): every message round-trips; every truncation of
 * every message, a byte more, and the forged fields (a chunk past its
 * transfer, a size over CN_VALUE_MAX, a closure whose continuation is
 * not a book, a member id past the ids handed out, a zero serial) are
 * refused.  The books take a value once: twice, from another worker,
 * to a struck or reused entry, or after the thief was lost (its
 * closures handed back to run again), it is refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cn_steal.h"
#include "tap.h"

static struct cn_member mb_in[CN_MEMBERS_MAX], mb_out[CN_MEMBERS_MAX];
static uint8_t buf[MSG_PAYLOAD_MAX];

static void
sample(enum cn_steal_handler h, struct cn_smsg *m)
{
	static const uint8_t data[300] = { 1, 2, 3, 4, 5 };
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->sm_from = 7;
	m->sm_members = mb_in;
	switch (h) {
	case CN_H_MEMBERS_ASK:
		m->sm_version = 41;
		break;
	case CN_H_MEMBERS:
		m->sm_version = 42;
		m->sm_maxid = 9;
		m->sm_nmembers = 3;
		for (i = 0; i < 3; i++) {
			memset(&mb_in[i], 0, sizeof(mb_in[i]));
			mb_in[i].mb_id = 2 * i + 1;
			mb_in[i].mb_root = i == 0;
			mb_in[i].mb_addr.ma_family = 4;
			mb_in[i].mb_addr.ma_addr[0] = 127;
			mb_in[i].mb_addr.ma_addr[3] = (uint8_t)(i + 2);
			mb_in[i].mb_addr.ma_port = (uint16_t)(5000 + i);
		}
		break;
	case CN_H_TSTEAL:
	case CN_H_TNONE:
		m->sm_serial = 12;
		break;
	case CN_H_XFER:
		m->sm_serial = 99;
		m->sm_kind = CN_X_CLOSURE;
		m->sm_k.k_owner = 3;
		m->sm_k.k_index = CN_K_BOOK | 5;
		m->sm_k.k_gen = 8;
		m->sm_fn = 2;
		m->sm_steal = 12;
		m->sm_total = 1000;
		m->sm_off = 600;
		m->sm_len = sizeof(data);
		m->sm_data = data;
		break;
	case CN_H_XFER_ACK:
		m->sm_serial = 99;
		m->sm_acked = 900;
		break;
	case CN_H_TSTATS:
		for (i = 0; i < CN_TSTATS_N; i++)
			m->sm_stat[i] = 1000 * i + 1;
		break;
	default:
		break;
	}
}

static int
same(enum cn_steal_handler h, const struct cn_smsg *a,
    const struct cn_smsg *b)
{
	uint32_t i;

	if (a->sm_from != b->sm_from || a->sm_serial != b->sm_serial ||
	    a->sm_version != b->sm_version || a->sm_maxid != b->sm_maxid ||
	    a->sm_nmembers != b->sm_nmembers || a->sm_kind != b->sm_kind ||
	    memcmp(&a->sm_k, &b->sm_k, sizeof(a->sm_k)) != 0 ||
	    a->sm_fn != b->sm_fn || a->sm_steal != b->sm_steal ||
	    a->sm_total != b->sm_total || a->sm_off != b->sm_off ||
	    a->sm_len != b->sm_len || a->sm_acked != b->sm_acked ||
	    a->sm_done != b->sm_done ||
	    memcmp(a->sm_stat, b->sm_stat, sizeof(a->sm_stat)) != 0)
		return 0;
	if (h == CN_H_XFER && memcmp(a->sm_data, b->sm_data, a->sm_len) != 0)
		return 0;
	for (i = 0; i < a->sm_nmembers; i++)
		if (a->sm_members[i].mb_id != b->sm_members[i].mb_id ||
		    a->sm_members[i].mb_root != b->sm_members[i].mb_root ||
		    !msg_addr_eq(&a->sm_members[i].mb_addr,
		    &b->sm_members[i].mb_addr))
			return 0;
	return 1;
}

static void
test_round_trips(void)
{
	enum cn_steal_handler h;
	struct cn_smsg m, d;
	size_t len, cut;
	int bad;

	for (h = CN_H_MEMBERS_ASK; h < CN_H_STEAL_END; h++) {
		sample(h, &m);
		len = cn_smsg_enc(h, &m, buf, sizeof(buf));
		ok(len > 0, "message %d encodes", h);
		d.sm_members = mb_out;
		ok(cn_smsg_dec(h, &d, buf, len) == 0 && same(h, &m, &d),
		    "message %d round-trips", h);
		for (bad = 0, cut = 0; cut < len; cut++) {
			d.sm_members = mb_out;
			if (cn_smsg_dec(h, &d, buf, cut) != -1)
				bad++;
		}
		ok(bad == 0, "message %d: all %zu truncations refused", h,
		    len);
		buf[len] = 0;
		d.sm_members = mb_out;
		ok(cn_smsg_dec(h, &d, buf, len + 1) == -1,
		    "message %d: a byte more is refused", h);
	}
	d.sm_members = mb_out;
	ok(cn_smsg_dec(CN_H_STEAL_END, &d, buf, 4) == -1,
	    "an unknown message is refused");
}

/* Encodes m, lets fix() change the bytes, expects a refusal. */
static void
refused(enum cn_steal_handler h, struct cn_smsg *m, const char *what)
{
	struct cn_smsg d;
	size_t len;

	len = cn_smsg_enc(h, m, buf, sizeof(buf));
	d.sm_members = mb_out;
	ok(len == 0 || cn_smsg_dec(h, &d, buf, len) == -1, "refused: %s",
	    what);
}

/* The XFER's fields after sm_from, by offset, for forging. */
#define X_SERIAL	4
#define X_KIND		12
#define X_INDEX		17
#define X_TOTAL		39
#define X_OFF		43
#define X_LEN		47

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void
forged_xfer(size_t at, uint32_t v, const char *what)
{
	struct cn_smsg m, d;
	size_t len;

	sample(CN_H_XFER, &m);
	len = cn_smsg_enc(CN_H_XFER, &m, buf, sizeof(buf));
	put32(buf + at, v);
	d.sm_members = mb_out;
	ok(len > 0 && cn_smsg_dec(CN_H_XFER, &d, buf, len) == -1,
	    "refused: %s", what);
}

static void
test_refusals(void)
{
	struct cn_smsg m, d;
	size_t len;

	/* The sample's offsets are what the forging below assumes. */
	sample(CN_H_XFER, &m);
	len = cn_smsg_enc(CN_H_XFER, &m, buf, sizeof(buf));
	ok(len == X_LEN + 4 + m.sm_len && buf[X_KIND] == CN_X_CLOSURE,
	    "the XFER's layout");
	forged_xfer(X_TOTAL, CN_VALUE_MAX + 1, "a transfer over CN_VALUE_MAX");
	forged_xfer(X_OFF, 800, "a chunk past its transfer's end");
	forged_xfer(X_OFF, 1001, "an offset past the end");
	forged_xfer(X_LEN, 301, "a chunk longer than its bytes");
	forged_xfer(X_INDEX, 5, "a closure whose continuation is no book");
	sample(CN_H_XFER, &m);
	len = cn_smsg_enc(CN_H_XFER, &m, buf, sizeof(buf));
	buf[X_KIND] = CN_X_MAX;
	d.sm_members = mb_out;
	ok(cn_smsg_dec(CN_H_XFER, &d, buf, len) == -1,
	    "refused: an unknown kind of transfer");
	memset(buf + X_SERIAL, 0, 8);
	buf[X_KIND] = CN_X_CLOSURE;
	ok(cn_smsg_dec(CN_H_XFER, &d, buf, len) == -1,
	    "refused: transfer 0");

	sample(CN_H_XFER, &m);
	m.sm_len = CN_XFER_CHUNK + 1;
	m.sm_total = CN_VALUE_MAX;
	m.sm_off = 0;
	m.sm_data = calloc(1, CN_XFER_CHUNK + 1);
	refused(CN_H_XFER, &m, "a chunk over CN_XFER_CHUNK (not encoded)");
	free((void *)(uintptr_t)m.sm_data);

	sample(CN_H_TSTEAL, &m);
	m.sm_serial = 0;
	refused(CN_H_TSTEAL, &m, "steal request 0");
	sample(CN_H_MEMBERS, &m);
	m.sm_maxid = 4;			/* member 5 was never handed out */
	refused(CN_H_MEMBERS, &m, "a member past the ids handed out");
	sample(CN_H_MEMBERS, &m);
	mb_in[1].mb_root = 2;
	refused(CN_H_MEMBERS, &m, "a root flag of 2");
	sample(CN_H_MEMBERS, &m);
	len = cn_smsg_enc(CN_H_MEMBERS, &m, buf, sizeof(buf));
	put32(buf + 16, CN_MEMBERS_MAX + 1);
	d.sm_members = mb_out;
	ok(cn_smsg_dec(CN_H_MEMBERS, &d, buf, len) == -1,
	    "refused: more members than CN_MEMBERS_MAX");
	d.sm_members = NULL;
	sample(CN_H_MEMBERS, &m);
	len = cn_smsg_enc(CN_H_MEMBERS, &m, buf, sizeof(buf));
	ok(cn_smsg_dec(CN_H_MEMBERS, &d, buf, len) == -1,
	    "refused: members with nowhere to put them");
	sample(CN_H_XFER_ACK, &m);
	m.sm_done = 2;
	refused(CN_H_XFER_ACK, &m, "a done flag of 2");
}

struct reruns {
	int		n;
	uint16_t	fn;
	struct cn_cont	k;
	char		arg[16];
};

static void
on_rerun(void *arg, const struct cn_book *e)
{
	struct reruns *r = arg;

	r->n++;
	r->fn = e->b_fn;
	r->k = e->b_k;
	memcpy(r->arg, e->b_arg, e->b_len < sizeof(r->arg) ? e->b_len :
	    sizeof(r->arg));
}

static void
test_books(void)
{
	struct cn_books b;
	struct cn_cont k, bk, bk2, bk3, got, stale;
	struct reruns r;
	int i, taken;

	cn_books_init(&b, 4);
	memset(&k, 0, sizeof(k));
	k.k_owner = 9;
	k.k_index = 3;
	k.k_gen = 1;
	k.k_slot = 1;
	ok(cn_books_lend(&b, 6, 1, 2, k, "abc", 4, &bk) == 0 &&
	    bk.k_owner == 4 && (bk.k_index & CN_K_BOOK) && bk.k_slot == 0,
	    "a closure lent: its book names us");
	ok(cn_books_find(&b, 6, 1) != NULL && cn_books_find(&b, 6, 2) ==
	    NULL && cn_books_find(&b, 7, 1) == NULL,
	    "found by thief and request, not otherwise");
	errno = 0;
	ok(cn_books_take(&b, bk, 7, &got) == -1 && errno == EPERM,
	    "a value from another worker is refused (EPERM)");
	ok(cn_books_take(&b, bk, 6, &got) == 0 && memcmp(&got, &k,
	    sizeof(k)) == 0, "its thief's value goes on to the closure's "
	    "own continuation");
	errno = 0;
	ok(cn_books_take(&b, bk, 6, &got) == -1 && errno == ESTALE,
	    "the same value again is refused (ESTALE)");
	ok(b.bk_live == 0, "the entry is struck");

	/* Reused index, new generation: the old continuation stays dead. */
	ok(cn_books_lend(&b, 6, 2, 1, k, "x", 1, &bk2) == 0 &&
	    bk2.k_index == bk.k_index && bk2.k_gen != bk.k_gen,
	    "an entry is reused under a new generation");
	errno = 0;
	ok(cn_books_take(&b, bk, 6, &got) == -1 && errno == ESTALE,
	    "a replayed value for the old generation is refused");
	stale = bk2;
	stale.k_slot = 1;
	ok(cn_books_take(&b, stale, 6, &got) == -1, "slot 1 of a book: no");
	stale = bk2;
	stale.k_owner = 5;
	ok(cn_books_take(&b, stale, 6, &got) == -1, "another owner's: no");
	stale = bk2;
	stale.k_index = CN_K_BOOK | 77;
	ok(cn_books_take(&b, stale, 6, &got) == -1, "an index never lent: no");
	stale.k_index = 1;
	ok(cn_books_take(&b, stale, 6, &got) == -1, "not a book: no");

	/* The thief is lost: its closures come back, its values do not. */
	ok(cn_books_lend(&b, 8, 1, 3, got, "other", 6, &bk3) == 0,
	    "a second thief's closure");
	memset(&r, 0, sizeof(r));
	ok(cn_books_lost(&b, 6, on_rerun, &r) == 1 && r.n == 1 &&
	    r.fn == 1 && r.arg[0] == 'x' && memcmp(&r.k, &k, sizeof(k)) == 0,
	    "a lost thief's closure is handed back to run again, once");
	ok(cn_books_lost(&b, 6, on_rerun, &r) == 0 && r.n == 1,
	    "and only once");
	errno = 0;
	ok(cn_books_take(&b, bk2, 6, &got) == -1 && errno == ESTALE,
	    "a late value from the lost thief is refused");
	ok(cn_books_take(&b, bk3, 8, &got) == 0,
	    "the other thief's value is taken");

	/* Many at once, each taken exactly once in any order. */
	for (i = 0, taken = 0; i < 200; i++) {
		struct cn_cont e;

		if (cn_books_lend(&b, 10 + (uint32_t)(i % 3), (uint64_t)i + 1,
		    0, k, &i, sizeof(i), &e) == -1)
			break;
		if (cn_books_take(&b, e, 10 + (uint32_t)(i % 3), &got) == 0)
			taken++;
		if (cn_books_take(&b, e, 10 + (uint32_t)(i % 3), &got) == 0)
			taken += 1000;
	}
	ok(i == 200 && taken == 200, "200 lent: each value taken once");
	cn_books_fini(&b);
}

int
main(void)
{
	test_round_trips();
	test_refusals();
	test_books();
	return tap_done();
}
