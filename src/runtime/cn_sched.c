/*
 * cn_sched — spawn, spawn_next, send and the ready closures of one
 * worker (include/cn_sched.h).  The fast path of a spawn is a budget
 * decrement, a plain call and a look at the ready stack; everything
 * else is on the slow path.
 */
#include "cn_sched.h"
#include "cn_steal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
cn_sched_init(struct cn_sched *s, struct cn_ctx *c,
    const struct cn_tprogram *p, int32_t budget, uint32_t lazy)
{
	memset(s, 0, sizeof(*s));
	s->s_ctx = c;
	s->s_pub = (struct cn_ctx_pub *)(void *)c;
	s->s_prog = p;
	s->s_budget = budget > 0 ? budget : 1;
	s->s_pace = s->s_budget;
	s->s_lazy = lazy;
	cn_cstore_init(&s->s_store, 0);
	s->s_root = 1;
	s->s_pub->cp_sched = s;
	/* Kept for thieves: the first spawns, the largest pieces. */
	s->s_refill = lazy;
	s->s_pub->cp_budget = lazy > 0 ? 0 : s->s_budget;
}

void
cn_sched_fini(struct cn_sched *s)
{
	cn_cstore_fini(&s->s_store);
	free(s->s_ready);
	free(s->s_answer);
	if (s->s_pub != NULL && s->s_pub->cp_sched == s)
		s->s_pub->cp_sched = NULL;
	s->s_ready = NULL;
	s->s_answer = NULL;
}

void
cn_sched_fail(struct cn_sched *s, const char *what, int err)
{
	if (s->s_failed++ == 0)
		snprintf(s->s_why, sizeof(s->s_why), "%s: %s", what,
		    strerror(err));
}

static inline struct cn_sched *
sched_of(struct cn_ctx *c)
{
	struct cn_sched *s;

	if (c == NULL || (s = ((struct cn_ctx_pub *)(void *)c)->cp_sched) ==
	    NULL)
		errno = EINVAL;
	return c == NULL ? NULL : s;
}

/* Room for one more ready closure, before anything is filled. */
static int
ready_room(struct cn_sched *s)
{
	struct cn_closure **nr;
	size_t cap;

	if (s->s_nready < s->s_capready)
		return 0;
	cap = s->s_capready ? s->s_capready * 2 : 256;
	if ((nr = reallocarray(s->s_ready, cap, sizeof(*nr))) == NULL)
		return -1;
	s->s_ready = nr;
	s->s_capready = cap;
	return 0;
}

static int
known(struct cn_sched *s, cn_thread *fn)
{
	uint16_t i;

	if (fn == s->s_known[0] || fn == s->s_known[1])
		return 0;
	for (i = 0; i < s->s_prog->tp_nthreads; i++)
		if (s->s_prog->tp_threads[i] == fn)
			break;
	if ((fn == NULL || i == s->s_prog->tp_nthreads) && !cn_for_owns(fn)) {
		errno = ENOENT;
		return -1;
	}
	s->s_known[1] = s->s_known[0];
	s->s_known[0] = fn;
	return 0;
}

static void
run_closure(struct cn_sched *s, struct cn_closure *cl)
{
	struct cn_closure *prev = s->s_cur;

	s->s_cur = cl;
	cl->cl_fn(s->s_ctx, cl->cl_k, cl->cl_arg, cl->cl_len);
	s->s_cur = prev;
	s->s_threads++;
	s->s_from_closure++;
	cn_closure_free(&s->s_store, cl);
}

/* Runs what became ready above mark, newest first. */
static void
drain(struct cn_sched *s, size_t mark)
{
	while (s->s_nready > mark)
		run_closure(s, s->s_ready[--s->s_nready]);
}

static inline void
run_inline(struct cn_sched *s, cn_thread *fn, struct cn_cont k,
    const void *arg, size_t len)
{
	struct cn_closure *prev = s->s_cur;
	size_t mark = s->s_nready;

	s->s_cur = NULL;
	fn(s->s_ctx, k, arg, len);
	s->s_cur = prev;
	s->s_threads++;
	if (s->s_nready > mark)
		drain(s, mark);
}

/*
 * A look at the network on every slow path (the look keeps its own
 * gap).  One that was due says the spawns are far apart, so the next
 * slow path comes sooner: a coarse program (matmul's blocks, some ms
 * each) answers thieves between its pieces, a fine one looks every
 * s_budget spawns.
 */
static void
pace(struct cn_sched *s)
{
	if (s->s_poll(s->s_poll_arg))
		s->s_pace = s->s_pace > 4 ? s->s_pace / 4 : 1;
	else if (s->s_pace < s->s_budget)
		s->s_pace = s->s_pace > s->s_budget / 2 ? s->s_budget :
		    s->s_pace * 2;
}

int
cn_spawn_thread(struct cn_ctx *c, cn_thread *fn, struct cn_cont k,
    const void *arg, size_t len)
{
	struct cn_closure *cl;
	struct cn_sched *s;

	if ((s = sched_of(c)) == NULL)
		return -1;
	if (fn != s->s_known[0] && known(s, fn) == -1)
		return -1;
	if (len > CN_VALUE_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	if (s->s_pub->cp_budget-- > 0) {
		run_inline(s, fn, k, arg, len);
		return 0;
	}
	if (s->s_poll != NULL)
		pace(s);
	s->s_pub->cp_budget = s->s_pace;
	if (s->s_nready < s->s_lazy) {
		/* Kept for a thief: it runs here, LIFO, if none comes. */
		if (ready_room(s) == -1 || (cl = cn_closure_new(&s->s_store,
		    fn, k, arg, len, 0)) == NULL)
			return -1;
		s->s_ready[s->s_nready++] = cl;
		/*
		 * More at once only for a new piece of work's first spawns:
		 * kept whenever fewer than s_lazy waited, half of fib's
		 * spawns became closures, most of them run here at once.
		 */
		if (s->s_refill > 0 && --s->s_refill > 0 &&
		    s->s_nready < s->s_lazy)
			s->s_pub->cp_budget = 0;
		return 0;
	}
	run_inline(s, fn, k, arg, len);
	return 0;
}

int
cn_spawn_next(struct cn_ctx *c, cn_thread *fn, struct cn_cont k,
    const void *arg, size_t len, unsigned nslots, struct cn_cont *slots)
{
	struct cn_closure *cl;
	struct cn_sched *s;
	unsigned i;

	if ((s = sched_of(c)) == NULL)
		return -1;
	if (nslots == 0 || nslots > CN_SLOTS_MAX || slots == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (fn != s->s_known[0] && known(s, fn) == -1)
		return -1;
	if ((cl = cn_closure_new(&s->s_store, fn, k, arg, len,
	    nslots)) == NULL)
		return -1;
	for (i = 0; i < nslots; i++)
		slots[i] = cn_closure_cont(&s->s_store, cl, i);
	return 0;
}

int
cn_send(struct cn_ctx *c, struct cn_cont k, const void *p, size_t len)
{
	struct cn_closure *ready;
	struct cn_sched *s;

	if ((s = sched_of(c)) == NULL)
		return -1;
	if (len > CN_VALUE_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	if (len > 0 && p == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (k.k_index == 0 && !s->s_root && s->s_remote != NULL)
		return s->s_remote(s->s_net, k, p, len);	/* the root's */
	if (k.k_index != 0 && (k.k_owner != s->s_store.cs_owner ||
	    (k.k_index & CN_K_BOOK))) {
		/* Another process's closure, or a victim's book. */
		if (s->s_remote == NULL) {
			errno = ESTALE;
			return -1;
		}
		return s->s_remote(s->s_net, k, p, len);
	}
	if (k.k_index == 0) {		/* the job's answer */
		if (k.k_owner != 0 || k.k_gen != 0 || k.k_slot != 0) {
			errno = ESTALE;
			return -1;
		}
		if (s->s_answered) {
			errno = EALREADY;
			return -1;
		}
		if ((s->s_answer = malloc(len ? len : 1)) == NULL)
			return -1;
		if (len > 0)
			memcpy(s->s_answer, p, len);
		s->s_answer_len = len;
		s->s_answered = 1;
		return 0;
	}
	if (ready_room(s) == -1 ||
	    cn_closure_send(&s->s_store, k, p, len, &ready) == -1)
		return -1;
	if (ready != NULL)
		s->s_ready[s->s_nready++] = ready;
	return 0;
}

const void *
cn_slot(struct cn_ctx *c, unsigned i, size_t *len)
{
	struct cn_sched *s;

	if ((s = sched_of(c)) == NULL)
		return NULL;
	return cn_closure_slot(s->s_cur, i, len);
}

int
cn_sched_run(struct cn_sched *s, uint16_t fn, const void *arg, size_t len,
    char *why, size_t whylen)
{
	struct cn_cont answer;

	memset(&answer, 0, sizeof(answer));
	if (fn >= s->s_prog->tp_nthreads || s->s_prog->tp_threads[fn] ==
	    NULL || len > CN_VALUE_MAX) {
		snprintf(why, whylen, "no thread %u, or its argument is over "
		    "%u bytes", fn, CN_VALUE_MAX);
		errno = EINVAL;
		return -1;
	}
	run_inline(s, s->s_prog->tp_threads[fn], answer, arg, len);
	drain(s, 0);
	/* Values still to come from thieves: steal meanwhile. */
	while (s->s_idle != NULL && !s->s_answered && !s->s_failed) {
		if (s->s_idle(s->s_net) == -1)
			break;
		drain(s, 0);
	}
	if (s->s_failed) {
		snprintf(why, whylen, "%s", s->s_why);
		errno = ENOMSG;
		return -1;
	}
	/*
	 * With thieves, closures may outlive the answer: work a lost
	 * worker lent on, run again from its victim's books meanwhile,
	 * whose value has nowhere to go.
	 */
	if (!s->s_answered || (s->s_store.cs_live > 0 && s->s_idle == NULL)) {
		if (s->s_store.cs_live == 0)
			snprintf(why, whylen, "no value was sent to the "
			    "root's continuation");
		else
			snprintf(why, whylen, "%s%llu closures still wait for "
			    "values that no thread will send",
			    s->s_answered ? "" : "no answer: ",
			    (unsigned long long)s->s_store.cs_live);
		errno = ENOMSG;
		return -1;
	}
	return 0;
}

void
cn_sched_drain(struct cn_sched *s)
{
	drain(s, 0);
}

static int
index_of(const struct cn_sched *s, cn_thread *fn, uint16_t *ix)
{
	uint16_t i;

	for (i = 0; i < s->s_prog->tp_nthreads; i++)
		if (s->s_prog->tp_threads[i] == fn) {
			*ix = i;
			return 0;
		}
	return -1;
}

/*
 * A ready successor as a closure of no slots that packs it (cn_succ.c),
 * the successor itself freed; NULL (and it stays) if it cannot travel.
 */
static struct cn_closure *
successor_out(struct cn_sched *s, struct cn_closure *cl, uint16_t *fn)
{
	struct cn_closure *t;
	uint8_t *buf;
	size_t len;
	uint16_t ix;

	if (index_of(s, cl->cl_fn, &ix) == -1 ||
	    (buf = cn_succ_pack(cl, ix, &len)) == NULL)
		return NULL;
	t = cn_closure_new(&s->s_store, cl->cl_fn, cl->cl_k, buf, len, 0);
	free(buf);
	if (t == NULL)
		return NULL;
	cn_closure_free(&s->s_store, cl);
	*fn = CN_FN_SUCC;
	return t;
}

/*
 * The next spawns are kept for thieves, up to s_lazy of them: those of
 * a piece of work from elsewhere (its largest), and after a thief came.
 */
static void
new_piece(struct cn_sched *s)
{
	if (s->s_lazy == 0)
		return;
	s->s_refill = s->s_lazy;
	s->s_pub->cp_budget = 0;
}

struct cn_closure *
cn_sched_take_oldest(struct cn_sched *s, uint16_t *fn)
{
	struct cn_closure *cl;
	size_t i;

	for (i = 0; i < s->s_nready; i++) {
		cl = s->s_ready[i];
		if (cl->cl_nslots != 0) {
			if ((cl = successor_out(s, cl, fn)) == NULL)
				continue;
		} else if (cn_for_portable(cl->cl_fn, cl->cl_arg, cl->cl_len))
			*fn = CN_FN_FOR;
		else if (index_of(s, cl->cl_fn, fn) == -1)
			continue;
		memmove(s->s_ready + i, s->s_ready + i + 1,
		    (s->s_nready - i - 1) * sizeof(*s->s_ready));
		s->s_nready--;
		new_piece(s);	/* more for thieves, soon */
		return cl;
	}
	new_piece(s);	/* a thief found none: some, soon */
	return NULL;
}

int
cn_sched_push(struct cn_sched *s, uint16_t fn, struct cn_cont k,
    const void *arg, size_t len)
{
	struct cn_closure *cl;
	cn_thread *run;

	if (fn == CN_FN_SUCC) {
		if (ready_room(s) == -1 || (cl = cn_succ_unpack(&s->s_store,
		    s->s_prog, k, arg, len)) == NULL)
			return -1;
		s->s_ready[s->s_nready++] = cl;
		new_piece(s);
		return 0;
	}
	if (fn == CN_FN_FOR)
		run = cn_for_split();	/* if its argument passes */
	else if (fn >= s->s_prog->tp_nthreads ||
	    (run = s->s_prog->tp_threads[fn]) == NULL) {
		errno = ENOENT;
		return -1;
	}
	if (ready_room(s) == -1 || (cl = cn_closure_new(&s->s_store,
	    run, k, arg, len, 0)) == NULL)
		return -1;
	if (fn == CN_FN_FOR &&
	    (cl->cl_fn = cn_for_import(cl->cl_arg, cl->cl_len)) == NULL) {
		cn_closure_free(&s->s_store, cl);
		errno = ENOENT;
		return -1;
	}
	s->s_ready[s->s_nready++] = cl;
	new_piece(s);
	return 0;
}
