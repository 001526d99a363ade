/*
 * cn_test — the runtime's pure parts: task packing (frames, records,
 * the clearinghouse's messages: round trips, every truncation, trailing
 * bytes, lying lengths), result combination, and the exactly-once
 * accounting of work units under duplicates, reordering and lost
 * workers, including a randomized simulation of a whole job.
 */
#include <stdint.h>
#include <string.h>

#include "cn.h"
#include "tap.h"

static int
frame_eq(const struct cn_frame *a, const struct cn_frame *b)
{
	return a->fr_fn == b->fr_fn && a->fr_len == b->fr_len &&
	    memcmp(a->fr_arg, b->fr_arg, a->fr_len) == 0;
}

static struct cn_frame
frame(uint16_t fn, uint32_t v)
{
	struct cn_frame f;

	memset(&f, 0, sizeof(f));
	f.fr_fn = fn;
	f.fr_len = sizeof(v);
	memcpy(f.fr_arg, &v, sizeof(v));
	return f;
}

static void
test_frames(void)
{
	struct cn_frame f = frame(3, 0xdeadbeef), g;
	uint8_t buf[128];
	struct wire_w w;
	struct wire_r r;
	size_t len, i;
	int bad = 0;

	wire_w_init(&w, buf, sizeof(buf));
	ok(cn_frame_put(&w, &f) == 0, "a frame packs");
	len = w.ww_len;
	is_int(len, 4 + 4, "into 4 bytes of header and its argument");
	wire_r_init(&r, buf, len);
	ok(cn_frame_get(&r, &g) == 0 && frame_eq(&f, &g) &&
	    wire_get_end(&r) == 0, "and unpacks the same");
	for (i = 0; i < len; i++) {
		wire_r_init(&r, buf, i);
		bad += cn_frame_get(&r, &g) == 0;
	}
	is_int(bad, 0, "every truncation of a frame is refused");
	buf[3] = CN_ARG_MAX + 1;	/* length field lies */
	wire_r_init(&r, buf, sizeof(buf));
	ok(cn_frame_get(&r, &g) == -1, "an argument over CN_ARG_MAX is "
	    "refused");
	f.fr_len = CN_ARG_MAX + 1;
	wire_w_init(&w, buf, sizeof(buf));
	ok(cn_frame_put(&w, &f) == -1, "and is not packed either");
}

static int nrec;
static uint32_t keysum;

static void
count_rec(void *arg, uint32_t key, const void *p, size_t len)
{
	(void)arg;
	(void)p;
	nrec++;
	keysum += key + (uint32_t)len;
}

static void
test_records(void)
{
	uint8_t buf[64];
	struct wire_w w;

	wire_w_init(&w, buf, sizeof(buf));
	wire_put_u32(&w, 7);
	wire_put_u32(&w, 3);
	wire_put_bytes(&w, "abc", 3);
	wire_put_u32(&w, 9);
	wire_put_u32(&w, 0);
	nrec = 0;
	keysum = 0;
	ok(cn_records_walk(buf, w.ww_len, count_rec, NULL) == 0 &&
	    nrec == 2 && keysum == 7 + 3 + 9, "records are walked in order");
	nrec = 0;
	ok(cn_records_walk(buf, w.ww_len - 1, count_rec, NULL) == -1 &&
	    nrec == 0, "a truncated list hands out nothing at all");
	buf[7] = 200;			/* first length lies */
	ok(cn_records_walk(buf, w.ww_len, count_rec, NULL) == -1 &&
	    nrec == 0, "nor does one whose length lies");
}

static void
test_messages(void)
{
	static struct cn_msg m, d;
	static uint8_t buf[MSG_PAYLOAD_MAX];
	uint8_t rec[16];
	enum cn_handler h;
	size_t len, i;
	int bad, rt = 0, trunc = 0, trail = 0;

	memset(rec, 0, sizeof(rec));
	rec[7] = 8;			/* key 0, 8 bytes */
	for (h = CN_H_REGISTER; h < CN_H_MAX; h++) {
		memset(&m, 0, sizeof(m));
		m.cm_worker = 5;
		m.cm_unit = 77;
		m.cm_attempt = 2;
		m.cm_count = 3;
		m.cm_seq = 99;
		m.cm_sum = -42;
		m.cm_stat[0] = 1;
		m.cm_stat[3] = 4;
		if (h == CN_H_HEARTBEAT)
			m.cm_stat[1] = CN_BEAT_STARVED;
		strlcpy(m.cm_node, "127.0.0.9", sizeof(m.cm_node));
		if (h == CN_H_REGISTER) {
			m.cm_root = 1;
			for (i = 0; i < sizeof(m.cm_exe); i++)
				m.cm_exe[i] = (uint8_t)(i * 7 + 1);
			memset(m.cm_box_pk, 0x5a, sizeof(m.cm_box_pk));
		}
		if (h == CN_H_WELCOME) {
			m.cm_keyid = 0xdeadbeef;
			for (i = 0; i < sizeof(m.cm_sealed); i++)
				m.cm_sealed[i] = (uint8_t)(i * 3 + 2);
		}
		if (h == CN_H_REGISTER || h == CN_H_ASSIGN ||
		    h == CN_H_EXPORT) {
			m.cm_nframes = h == CN_H_EXPORT ? 2 : 1;
			m.cm_frames[0] = frame(1, 11);
			m.cm_frames[1] = frame(2, 22);
		}
		if (h == CN_H_DONE || h == CN_H_RESULT) {
			m.cm_data = rec;
			m.cm_len = sizeof(rec);
		}
		if ((len = cn_msg_enc(h, &m, buf, sizeof(buf))) == 0 ||
		    cn_msg_dec(h, &d, buf, len) == -1) {
			printf("# handler %d does not round-trip\n", h);
			continue;
		}
		bad = 0;
		if ((h == CN_H_WELCOME || h == CN_H_EXPORT ||
		    h == CN_H_DONE) && d.cm_worker != 5)
			bad++;
		if ((h == CN_H_DONE || h == CN_H_FINISH) && d.cm_sum != -42)
			bad++;
		if (h == CN_H_REGISTER && (memcmp(d.cm_exe, m.cm_exe,
		    sizeof(m.cm_exe)) != 0 || memcmp(d.cm_box_pk, m.cm_box_pk,
		    sizeof(m.cm_box_pk)) != 0))
			bad++;
		if (h == CN_H_WELCOME && (d.cm_keyid != m.cm_keyid ||
		    memcmp(d.cm_sealed, m.cm_sealed, sizeof(m.cm_sealed)) != 0))
			bad++;
		if (h == CN_H_ALIVE && (d.cm_worker != 5 || d.cm_seq != 99))
			bad++;
		if (h == CN_H_HEARTBEAT && (d.cm_stat[0] != 1 ||
		    d.cm_stat[1] != CN_BEAT_STARVED))
			bad++;
		if ((h == CN_H_ASSIGN || h == CN_H_EXPORT) &&
		    (d.cm_nframes != m.cm_nframes ||
		    !frame_eq(&d.cm_frames[0], &m.cm_frames[0])))
			bad++;
		if ((h == CN_H_DONE || h == CN_H_RESULT) &&
		    (d.cm_len != sizeof(rec) ||
		    memcmp(d.cm_data, rec, sizeof(rec)) != 0))
			bad++;
		rt += bad == 0;
		for (i = 0; i < len; i++)
			trunc += cn_msg_dec(h, &d, buf, i) == 0;
		buf[len] = 0;
		trail += cn_msg_dec(h, &d, buf, len + 1) == 0;
	}
	is_int(rt, CN_H_MAX - CN_H_REGISTER, "every message round-trips");
	is_int(trunc, 0, "every truncation of every message is refused");
	is_int(trail, 0, "trailing bytes are refused");
	ok(cn_msg_dec(CN_H_UNDEF, &d, buf, 4) == -1 &&
	    cn_msg_dec(CN_H_MAX, &d, buf, 4) == -1, "unknown types too");
}

/* The small cases, one rule at a time. */
static void
test_tree_rules(void)
{
	struct cn_tree t;
	struct cn_frame f[3] = { frame(0, 1), frame(0, 2), frame(0, 3) };
	uint32_t a, b;

	ok(cn_tree_init(&t) == 0 && cn_tree_root(&t, 1, &f[0]) == 0,
	    "a tree with its root unit on worker 1");
	ok(cn_tree_root(&t, 1, &f[0]) == -1, "only one root");
	ok(cn_tree_export(&t, 2, 1, 1, f, 2) == 1,
	    "an export from a worker not running the unit is stale");
	ok(cn_tree_export(&t, 1, 1, 1, f, 2) == 0, "the root exports two");
	is_int(cn_tree_done(&t, 1, 1, 1, 3, 100, NULL, 0), 2,
	    "DONE naming more exports than arrived waits");
	is_int(cn_tree_done(&t, 1, 1, 1, 1, 100, NULL, 0), 1,
	    "DONE naming fewer is dropped");
	ok(cn_tree_export(&t, 1, 1, 1, &f[2], 1) == 0, "a third export");
	a = cn_tree_assign(&t, 2);
	b = cn_tree_assign(&t, 3);
	ok(a == 2 && b == 3, "thieves get the oldest first");
	is_int(cn_tree_done(&t, 1, 1, 1, 3, 100, NULL, 0), 0,
	    "the root is done once all three exports are in");
	is_int(t.t_sum, 100, "a final unit counts");
	is_int(cn_tree_done(&t, 1, 1, 1, 3, 100, NULL, 0), 1,
	    "a repeated DONE is stale");
	is_int(t.t_sum, 100, "and counts nothing");
	is_int(cn_tree_done(&t, 2, a, 1, 0, 10, NULL, 0), 0, "unit 2 done");
	is_int(t.t_sum, 110, "under a final parent it is final at once");
	ok(!cn_tree_finished(&t), "unit 4 still open");
	ok(cn_tree_lost(&t, 3) == 0, "worker 3 is lost");
	is_int(t.t_reissued, 1, "its unit is reissued");
	is_int(cn_tree_done(&t, 3, b, 1, 0, 1000, NULL, 0), 1,
	    "a late DONE from the lost worker is stale");
	ok(cn_tree_assign(&t, 2) == 4, "the pool is FIFO: the third unit "
	    "first");
	is_int(cn_tree_done(&t, 2, 4, 1, 0, 3, NULL, 0), 0, "done");
	ok(cn_tree_assign(&t, 2) == b, "then the lost unit, elsewhere");
	is_int(cn_tree_done(&t, 2, b, 1, 0, 20, NULL, 0), 1,
	    "a DONE naming the old attempt is stale");
	is_int(cn_tree_done(&t, 2, b, 2, 0, 20, NULL, 0), 0,
	    "the new attempt's DONE counts");
	ok(cn_tree_finished(&t), "every unit final: finished");
	is_int(t.t_sum, 133, "sum of the final units, each once");
	is_int(t.t_migrated, 4, "four assignments away from the creator");
	cn_tree_fini(&t);

	/* A lost attempt's exports are cancelled, done or not. */
	ok(cn_tree_init(&t) == 0 && cn_tree_root(&t, 1, &f[0]) == 0 &&
	    cn_tree_export(&t, 1, 1, 1, f, 1) == 0, "root exports unit 2");
	a = cn_tree_assign(&t, 2);
	ok(cn_tree_export(&t, 2, a, 1, &f[1], 1) == 0,
	    "worker 2 exports unit 3 from unit 2");
	b = cn_tree_assign(&t, 3);
	is_int(cn_tree_done(&t, 3, b, 1, 0, 7, NULL, 0), 0,
	    "unit 3 done (not final: its parent is not)");
	is_int(t.t_sum, 0, "nothing counts yet");
	ok(cn_tree_lost(&t, 2) == 0, "worker 2, running unit 2, is lost");
	is_int(cn_tree_unit(&t, b)->u_state, CN_U_CANCELLED,
	    "unit 3, exported by the lost attempt, is cancelled");
	ok(cn_tree_assign(&t, 3) == a, "unit 2 runs again");
	is_int(cn_tree_done(&t, 3, a, 2, 0, 7 + 5, NULL, 0), 0,
	    "and is done with its whole subtree");
	is_int(cn_tree_done(&t, 1, 1, 1, 1, 1, NULL, 0), 0, "root done");
	ok(cn_tree_finished(&t) && t.t_sum == 13,
	    "finished with unit 3's work counted once (got %lld)",
	    (long long)t.t_sum);
	cn_tree_fini(&t);
}

/* Workers 2 and 3 share a host; 1 and 4 are elsewhere. */
static int
host_of_2(uint32_t creator, void *arg)
{
	(void)arg;
	return creator == 2 || creator == 3;
}

/*
 * A thief takes the oldest unit exported on its host, else nothing
 * (the clearinghouse then takes the oldest of all); cancelled units
 * leave the pool on the way; the rest of the pool stays FIFO.
 */
static void
test_tree_near(void)
{
	struct cn_tree t;
	struct cn_frame f[3] = { frame(0, 1), frame(0, 2), frame(0, 3) };
	uint32_t a, b, c;

	ok(cn_tree_init(&t) == 0 && cn_tree_root(&t, 1, &f[0]) == 0 &&
	    cn_tree_export(&t, 1, 1, 1, f, 2) == 0,
	    "the root (elsewhere) exports units 2 and 3");
	is_int(cn_tree_assign_near(&t, 3, host_of_2, NULL), 0,
	    "a thief on host 2 finds nothing of its host");
	a = cn_tree_assign(&t, 2);
	ok(a == 2 && cn_tree_export(&t, 2, a, 1, &f[2], 1) == 0 &&
	    cn_tree_export(&t, 2, a, 1, f, 1) == 0,
	    "worker 2 runs unit 2 and exports units 4 and 5");
	b = cn_tree_assign_near(&t, 3, host_of_2, NULL);
	is_int(b, 4, "worker 3 takes the oldest of its host's, past unit 3");
	is_int(cn_tree_unit(&t, b)->u_worker, 3, "and runs it");
	ok(cn_tree_lost(&t, 1) == 0 &&
	    cn_tree_unit(&t, 1)->u_state == CN_U_POOL &&
	    cn_tree_unit(&t, 3)->u_state == CN_U_CANCELLED, "the root is "
	    "lost: its unit back in the pool, unit 3 (its export) cancelled");
	is_int(cn_tree_unit(&t, 5)->u_state, CN_U_CANCELLED,
	    "and so is unit 5, under unit 2");
	is_int(cn_tree_assign_near(&t, 4, host_of_2, NULL), 0,
	    "nothing of host 2 is left");
	is_int(t.t_pool_head, 1, "cancelled units left the pool on the way");
	is_int(t.t_pool_tail, 1, "and its tail is right");
	c = cn_tree_assign(&t, 4);
	ok(c == 1 && t.t_pool_head == 0 && t.t_pool_tail == 0,
	    "the root unit goes to a worker elsewhere; the pool is empty");
	ok(cn_tree_export(&t, 4, 1, 2, f, 1) == 0 &&
	    cn_tree_assign(&t, 2) == 6, "and the pool works after");
	ok(cn_tree_check(&t) == NULL, "the books' invariant holds");
	cn_tree_fini(&t);
}

/* Records of final units reach the root once. */
static int finals;

static void
on_final(struct cn_tree *t, uint32_t id, void *arg)
{
	(void)t;
	(void)id;
	(void)arg;
	finals++;
}

static void
test_tree_records(void)
{
	struct cn_tree t;
	struct cn_frame f = frame(0, 1);
	uint8_t rec[12] = { 0, 0, 0, 1, 0, 0, 0, 4, 'a', 'b', 'c', 'd' };

	finals = 0;
	ok(cn_tree_init(&t) == 0 && cn_tree_root(&t, 1, &f) == 0 &&
	    cn_tree_export(&t, 1, 1, 1, &f, 1) == 0, "a root and a child");
	t.t_on_final = on_final;
	ok(cn_tree_assign(&t, 2) == 2 && cn_tree_done(&t, 2, 2, 1, 0, 0, rec,
	    sizeof(rec)) == 0, "the child is done with a record");
	is_int(finals, 0, "not final while its parent runs");
	ok(cn_tree_done(&t, 1, 1, 1, 1, 0, rec, sizeof(rec)) == 0, "root done");
	is_int(finals, 2, "then both units' records are final, once each");
	ok(cn_tree_unit(&t, 2)->u_nrecords == sizeof(rec),
	    "the records are kept for the root");
	cn_tree_fini(&t);
}

/*
 * A whole job, simulated: fib(N) as frames, worker processes that run
 * units, export their oldest frames at random, repeat messages, and get
 * lost at random.  Whatever happens, the sum is fib(N), exactly.
 */
struct sim_w {
	int		 alive;
	uint32_t	 unit, attempt, exports;
	int64_t		 sum;
	struct cn_frame	 dq[4096];
	int		 lo, hi;
};

static uint64_t rng_state = 88172645463325252ULL;

static uint32_t
rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

static uint64_t
fib(uint32_t n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int
sim_step(struct cn_tree *t, struct sim_w *w, uint32_t id)
{
	struct cn_frame f, k;
	uint32_t n;

	if (w->hi == w->lo) {
		int r = cn_tree_done(t, id, w->unit, w->attempt, w->exports,
		    w->sum, NULL, 0);

		if (rnd(4) == 0)	/* a repeat of the DONE */
			(void)cn_tree_done(t, id, w->unit, w->attempt,
			    w->exports, w->sum, NULL, 0);
		w->unit = 0;
		return r == -1 ? -1 : 0;
	}
	if (rnd(8) == 0 && w->hi - w->lo >= 2) {	/* a thief asks */
		f = w->dq[w->lo++];
		if (cn_tree_export(t, id, w->unit, w->attempt, &f, 1) == -1)
			return -1;
		w->exports++;
		return 0;
	}
	f = w->dq[--w->hi];
	memcpy(&n, f.fr_arg, sizeof(n));
	if (n < 2) {
		w->sum += n;
		return 0;
	}
	k = frame(0, n - 1);
	w->dq[w->hi++] = k;
	k = frame(0, n - 2);
	w->dq[w->hi++] = k;
	return 0;
}

static int
sim_run(uint32_t N, int nw, int losses, uint64_t *reissued)
{
	static struct sim_w w[8];
	struct cn_tree t;
	struct cn_frame root = frame(0, N);
	int i, steps = 0, lost = 0;
	uint32_t id;

	memset(w, 0, sizeof(w));
	if (cn_tree_init(&t) == -1 || cn_tree_root(&t, 1, &root) == -1)
		return -1;
	for (i = 1; i < nw; i++)
		w[i].alive = 1;
	w[1].unit = 1;
	w[1].attempt = 1;
	w[1].dq[w[1].hi++] = root;
	while (!cn_tree_finished(&t) && steps++ < 10000000) {
		i = 1 + (int)rnd((uint32_t)nw - 1);
		if (!w[i].alive)
			continue;
		if (w[i].unit == 0) {
			if ((id = cn_tree_assign(&t, (uint32_t)i)) == 0)
				continue;
			w[i].unit = id;
			w[i].attempt = cn_tree_unit(&t, id)->u_attempt;
			w[i].exports = 0;
			w[i].sum = 0;
			w[i].lo = w[i].hi = 0;
			w[i].dq[w[i].hi++] = cn_tree_unit(&t, id)->u_frame;
			continue;
		}
		/* Lose a worker (never the root: it holds the answer). */
		if (i > 1 && lost < losses && rnd(2000) == 0) {
			lost++;
			if (cn_tree_lost(&t, (uint32_t)i) == -1)
				return -1;
			w[i].unit = 0;	/* it comes back as new */
			continue;
		}
		if (sim_step(&t, &w[i], (uint32_t)i) == -1)
			return -1;
	}
	*reissued = t.t_reissued;
	i = cn_tree_finished(&t) && (uint64_t)t.t_sum == fib(N) ? 0 : -1;
	if (i == -1)
		printf("# sum %lld, want %llu, finished %d\n",
		    (long long)t.t_sum, (unsigned long long)fib(N),
		    cn_tree_finished(&t));
	cn_tree_fini(&t);
	return i;
}

static void
test_simulation(void)
{
	uint64_t reissued = 0, total = 0;
	int run, bad = 0;

	for (run = 0; run < 50; run++) {
		if (sim_run(18, 2 + run % 6, run % 5, &reissued) == -1)
			bad++;
		total += reissued;
	}
	is_int(bad, 0, "50 simulated jobs: fib(18) exactly, with repeats "
	    "and lost workers");
	ok(total > 0, "the simulation did lose workers (%llu units redone)",
	    (unsigned long long)total);
}

static void
test_useful(void)
{
	struct cn_useful u;
	int i, changed = 0;

	memset(&u, 0, sizeof(u));
	for (i = 0; i < CN_USEFUL_WINDOW - 1; i++)
		changed += cn_useful_tick(&u, 2, 3, 0);
	is_int(changed, 0, "no estimate before a window is over");
	ok(cn_useful_tick(&u, 2, 3, 0) == 1 && u.uw_cap == 2,
	    "workers starving all the window: the busy ones are useful");
	for (i = 0; i < CN_USEFUL_WINDOW; i++)
		changed = cn_useful_tick(&u, 2, 3, 0);
	is_int(changed, 0, "the same estimate is not told twice");
	for (i = 0; i < CN_USEFUL_WINDOW; i++)
		changed = cn_useful_tick(&u, 5, 0, 0);
	ok(changed == 1 && u.uw_cap == 0, "nobody idle: no cap");
	for (i = 0; i < CN_USEFUL_WINDOW; i++)
		changed = cn_useful_tick(&u, 2, 3, 1);
	ok(changed == 0 && u.uw_cap == 0,
	    "idle workers with units pooled are not starving");
	for (i = 0; i < CN_USEFUL_WINDOW; i++)
		changed = cn_useful_tick(&u, 0, 4, 0);
	ok(changed == 1 && u.uw_cap == 1, "never below one worker");
	for (i = 0; i < CN_USEFUL_WINDOW; i++)
		changed = cn_useful_tick(&u, 3, (uint32_t)(i % 2), 0);
	ok(changed == 0 && u.uw_cap == 1,
	    "starving half the time: the estimate stays");
}

/* Checkpoints: what counted and what is left, and recovery from them. */
static void
test_checkpoint(void)
{
	struct cn_tree t, r;
	struct cn_frame f[3] = { frame(0, 1), frame(0, 2), frame(0, 3) };
	struct cn_frame *got = NULL;
	uint8_t rec[12] = { 0, 0, 0, 5, 0, 0, 0, 4, 'r', 'o', 'w', '5' };
	const uint8_t *grec;
	uint8_t *img;
	size_t len, glen, i;
	int64_t sum;
	uint32_t n, a, bad = 0;

	ok(cn_tree_init(&t) == 0 && cn_tree_root(&t, 1, &f[0]) == 0 &&
	    cn_tree_export(&t, 1, 1, 1, &f[1], 2) == 0, "root exports two");
	a = cn_tree_assign(&t, 2);
	ok(cn_tree_export(&t, 2, a, 1, &f[0], 1) == 0,
	    "the first exports one more");
	ok(cn_tree_done(&t, 1, 1, 1, 2, 100, NULL, 0) == 0, "root done");
	img = cn_ckpt_enc(&t, rec, sizeof(rec), &len);
	ok(img != NULL && cn_ckpt_dec(img, len, &sum, &got, &n, &grec,
	    &glen) == 0, "a checkpoint encodes and decodes");
	ok(sum == 100 && n == 2 && frame_eq(&got[0], &f[1]) &&
	    frame_eq(&got[1], &f[2]) && glen == sizeof(rec) &&
	    memcmp(grec, rec, glen) == 0,
	    "it holds the final sum, the records, and the frontier: the "
	    "two units under the final root, not the one under a running "
	    "unit");
	free(got);
	for (i = 0; i < len; i++) {
		got = NULL;
		bad += cn_ckpt_dec(img, i, &sum, &got, &n, &grec, &glen) == 0;
		free(got);
	}
	is_int(bad, 0, "every truncated checkpoint is refused");
	img[0] ^= 1;
	ok(cn_ckpt_dec(img, len, &sum, &got, &n, &grec, &glen) == -1,
	    "a bad magic is refused");
	img[0] ^= 1;
	ok(cn_ckpt_dec(img, len, &sum, &got, &n, &grec, &glen) == 0 &&
	    cn_tree_init(&r) == 0 && cn_tree_recover(&r, sum, got, n) == 0,
	    "a tree recovered from it");
	a = cn_tree_assign(&r, 7);
	ok(cn_tree_done(&r, 7, a, 1, 0, 20, NULL, 0) == 0 &&
	    !cn_tree_finished(&r), "one frontier unit done");
	a = cn_tree_assign(&r, 7);
	ok(cn_tree_done(&r, 7, a, 1, 0, 30, NULL, 0) == 0 &&
	    cn_tree_finished(&r) && r.t_sum == 150,
	    "the other: finished, sum 150 (got %lld)", (long long)r.t_sum);
	free(got);
	free(img);
	cn_tree_fini(&r);
	cn_tree_fini(&t);
}

int
main(void)
{
	test_frames();
	test_records();
	test_messages();
	test_tree_rules();
	test_tree_near();
	test_tree_records();
	test_simulation();
	test_useful();
	test_checkpoint();
	return tap_done();
}
