/*
 * cn_sched — one worker's scheduler of a program of threads (cilknow(3),
 * "Threads"): the closures it holds, its ready closures (LIFO: the
 * newest runs first, a thief would take the oldest), and the job's
 * answer.  A spawn runs its child at once as a plain call unless fewer
 * than s_lazy ready closures wait (then it becomes a closure, kept for
 * thieves), and only every s_budget spawns does it look at anything
 * but its budget: lazy closure creation, the work-first rule.  Calls
 * s_poll (the network) on its slow path, which comes sooner while the
 * looks find one due (spawns far apart).  No I/O of its own.
 */
#ifndef CILKNOW_CN_SCHED_H
#define CILKNOW_CN_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "cilknow.h"
#include "cn_closure.h"

struct cn_sched {
	struct cn_ctx		*s_ctx;		/* what threads are given */
	struct cn_ctx_pub	*s_pub;		/* its first member */
	const struct cn_tprogram	*s_prog;
	struct cn_cstore	 s_store;
	struct cn_closure	**s_ready;	/* LIFO */
	size_t			 s_nready, s_capready;
	struct cn_closure	*s_cur;		/* successor running, or NULL */
	cn_thread		*s_known[2];	/* last threads found registered */
	int32_t			 s_budget;	/* spawns between slow paths */
	uint32_t		 s_lazy;	/* closures kept for thieves */
	uint32_t		 s_refill;	/* of them, still kept at once */
	/* a look at the network: 1 if one was due (cn_sched_poll) */
	int			(*s_poll)(void *);
	void			*s_poll_arg;
	int32_t			 s_pace;	/* spawns to the next look */
	uint8_t			*s_answer;
	size_t			 s_answer_len;
	int			 s_answered;
	int			 s_failed;	/* a runtime thread failed */
	char			 s_why[160];
	/*
	 * Stealing (cn_steal.c): the answer is ours (the root, or alone);
	 * a value for another process's closure or for a book entry goes
	 * to s_remote; with nothing ready and no answer yet the root calls
	 * s_idle (-1: give up), which may make closures ready.
	 */
	int			 s_root;
	int			(*s_remote)(void *, struct cn_cont,
				    const void *, size_t);
	int			(*s_idle)(void *);
	void			*s_net;
	uint64_t		 s_threads;	/* threads run */
	uint64_t		 s_from_closure; /* of those, from a closure */
};

/*
 * Scheduler of prog's threads for ctx (whose cn_ctx_pub gets
 * cp_sched): budget INT32_MAX and lazy 0 run every spawn as a call.
 */
void	cn_sched_init(struct cn_sched *, struct cn_ctx *,
	    const struct cn_tprogram *, int32_t budget, uint32_t lazy);
void	cn_sched_fini(struct cn_sched *);
/*
 * Runs the thread tp_threads[fn](arg), its continuation the answer,
 * until no closure is ready.  0 when the answer came and no closure
 * waits; -1 with errno (ENOMSG: no answer, or closures wait for values
 * that will never come) and why.
 */
int	cn_sched_run(struct cn_sched *, uint16_t fn, const void *arg,
	    size_t len, char *why, size_t whylen);
/* Runs every ready closure, newest first. */
void	cn_sched_drain(struct cn_sched *);
/*
 * The oldest ready closure a thief may take, out of the ready stack,
 * with its table index in *fn: a thread of the program's table, a
 * portable cn_for half (CN_FN_FOR), or a ready successor of a thread
 * of the table whose argument and values fit in CN_VALUE_MAX, given as
 * a closure of no slots whose argument packs it (CN_FN_SUCC).  NULL if
 * none.  The caller copies what it needs and frees it with
 * cn_closure_free(&s->s_store, cl).
 */
struct cn_closure *cn_sched_take_oldest(struct cn_sched *, uint16_t *fn);
/* A ready closure for tp_threads[fn](arg), value to k.  0 or -1. */
int	cn_sched_push(struct cn_sched *, uint16_t fn, struct cn_cont k,
	    const void *arg, size_t len);
/* A thread of the runtime's own failed: the job fails, saying why. */
void	cn_sched_fail(struct cn_sched *, const char *what, int err);
/* cn_for's threads, which are not in any program's table. */
int	cn_for_owns(cn_thread *);
/*
 * cn_for's splitting thread travels between the job's processes under
 * this index: 1 if the closure fn(arg) is one whose body and combine
 * lie in the executable, so that another process can name them.
 */
#define CN_FN_FOR	0xffff
/*
 * A ready successor travels under this index, its argument packed by
 * cn_succ_pack (cn_succ.c): cn_sched_push makes it a successor again,
 * every slot filled, or refuses it (ENOENT) unless it is exactly that.
 */
#define CN_FN_SUCC	0xfffe
uint8_t	*cn_succ_pack(const struct cn_closure *, uint16_t fn, size_t *len);
struct cn_closure *cn_succ_unpack(struct cn_cstore *,
	    const struct cn_tprogram *, struct cn_cont k, const void *,
	    size_t);
int	cn_for_portable(cn_thread *fn, const void *arg, size_t len);
/*
 * A CN_FN_FOR closure's argument from another process, its functions
 * made ours in place: the thread to run, or NULL (not code of ours).
 */
cn_thread *cn_for_import(void *arg, size_t len);
cn_thread *cn_for_split(void);	/* the splitting thread itself */

#endif
