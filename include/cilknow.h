/*
 * cilknow — the parallel runtime a program links to run adaptively
 * parallel on the workstations the macroscheduler recruits (cilknow(3)).
 *
 * A program is a table of task functions.  A task may spawn subtasks
 * (cn_spawn), add to the job's sum (cn_add) and emit keyed records
 * (cn_emit); the runtime combines the sums of every task and hands every
 * record to the root's cp_record, each exactly once, whatever happens
 * to the workers.  Tasks do not wait for their children: the answer is
 * the combination of all of them, so a program whose result is a sum,
 * a count or a set of disjoint pieces needs nothing else.
 *
 * A program may instead be written as Cilk's continuation-passing
 * threads (cn_thread): a thread runs to completion on its argument,
 * spawns children each with a continuation (where its value goes),
 * spawns a successor with empty slots (cn_spawn_next: the join, ready
 * when every slot is filled) and sends values (cn_send); the value sent
 * to the root thread's continuation is the job's answer.
 *
 * Run by a user, a program becomes the root: it starts its
 * clearinghouse (CilkChouse(8)), which registers the job through a
 * CilkJobManager, and computes at once.  Started by a node manager with
 * -NoChouse -Host=H -Port=P it joins that clearinghouse as a worker.
 */
#ifndef CILKNOW_H
#define CILKNOW_H

#include <stddef.h>
#include <stdint.h>

#define CN_ARG_MAX	48	/* bytes of a task's argument */
#define CN_RECORD_MAX	16384	/* bytes of one record */
#define CN_VALUE_MAX	(1u << 20) /* bytes of a thread's argument or value */
#define CN_SLOTS_MAX	1024	/* slots of one successor */

struct cn_ctx;

/*
 * The part of a task's context the CN_SPAWN fast path touches (the
 * context starts with it): how many more spawns may run at once as plain
 * calls before the runtime looks at its deque and the network again.
 */
struct cn_ctx_pub {
	int32_t		cp_budget;
	int64_t		cp_sum;		/* of the work unit being run */
	void		*cp_sched;	/* threads' scheduler; NULL: none */
};

/*
 * A continuation: where a value goes, one slot of a closure waiting for
 * its join, or the job's answer.  A plain value a thread may copy into
 * arguments; valid until its slot is filled.
 */
struct cn_cont {
	uint32_t	k_owner;	/* the worker holding the closure */
	uint32_t	k_index;	/* the closure; 0: the job's answer */
	uint32_t	k_gen;
	uint32_t	k_slot;
};

/* A task: its argument (len bytes, at most CN_ARG_MAX) is a copy. */
typedef void	cn_fn(struct cn_ctx *, const void *arg, size_t len);
/*
 * A thread: run to completion on its argument (len bytes, at most
 * CN_VALUE_MAX), its value going to k.  A successor's slot values are
 * read with cn_slot.
 */
typedef void	cn_thread(struct cn_ctx *, struct cn_cont k, const void *arg,
		    size_t len);

struct cn_program {
	const char	 *cp_name;	/* for messages */
	cn_fn *const	 *cp_fns;	/* task functions, by index */
	uint16_t	  cp_nfns;
	/* Root only: every record of every task, exactly once. */
	void		(*cp_record)(void *, uint32_t key, const void *,
			    size_t);
	void		 *cp_arg;
};

/*
 * A program of threads (cn_run_thread): every thread it spawns, so that
 * closures can travel between its processes.
 */
struct cn_tprogram {
	const char	 *tp_name;	/* for messages */
	cn_thread *const *tp_threads;
	uint16_t	  tp_nthreads;
};

struct cn_stats {
	int64_t		cs_sum;		/* the job's combined sum */
	uint64_t	cs_tasks;	/* tasks run by this process */
	uint64_t	cs_global;	/* work units the clearinghouse handed out */
	uint64_t	cs_migrated;	/* of those, run away from their creator */
	uint64_t	cs_reissued;	/* redone after a worker was lost */
	uint32_t	cs_workers;	/* most workers at once */
	int		cs_alone;	/* ran without a clearinghouse */
	double		cs_seconds;
	/* A program of threads: the value sent to the root's continuation. */
	const void	*cs_answer;	/* the runtime's, until exit */
	size_t		 cs_answer_len;
	uint64_t	 cs_threads;	/* threads run by this process */
	uint64_t	 cs_closures;	/* of those, run from a closure */
	/* The whole job's, as its workers last told the root (Phish). */
	uint64_t	 cs_threads_all;	/* threads run */
	uint64_t	 cs_stolen;	/* closures stolen worker to worker */
	uint64_t	 cs_attempts;	/* steal requests */
	uint64_t	 cs_sends;	/* values sent to another process */
	uint64_t	 cs_bytes;	/* value and closure bytes moved */
	uint64_t	 cs_lost;	/* workers lost */
	uint64_t	 cs_rerun;	/* closures re-run after their thief
					   was lost */
	uint64_t	 cs_late;	/* values refused: late or twice */
};

/*
 * Takes the runtime's own arguments out of argv (-NoChouse -Host=H
 * -Port=P -Conf=F --, or -Alone to run without a clearinghouse), so
 * the program parses only its own.  Call first.  0, or -1 (usage).
 */
int	cn_init(int *argc, char ***argv);
/*
 * Runs the job whose first task is fn(arg).  In the root, returns 0
 * when every task is done, with the combined result in *st (may be
 * NULL); -1 on failure.  In a worker it never returns: the process
 * exits when the job ends or its node takes it back.
 */
int	cn_run(const struct cn_program *, uint16_t fn, const void *arg,
	    size_t len, struct cn_stats *st);
/*
 * cn_run for a program of threads: the root thread tp_threads[fn](arg),
 * whose continuation is the job's answer, handed back in st->cs_answer
 * (cs_answer_len bytes).  -1 with errno ENOMSG if the job ended with no
 * answer or with closures still waiting for values (said on stderr).
 */
int	cn_run_thread(const struct cn_tprogram *, uint16_t fn,
	    const void *arg, size_t len, struct cn_stats *st);
/* 1 in a worker started by a node manager, 0 in the root. */
int	cn_is_worker(void);

/*
 * Within a task.  cn_spawn leaves fn(arg) to be run later, here or by
 * a thief; when enough work is already waiting for thieves, it runs it
 * at once as a plain call (lazy task creation: only the oldest, largest
 * pieces wait in the deque).  CN_SPAWN is the same with the plain call
 * inlined, for fine-grained programs: fnptr must be the table's entry
 * at index fn.
 */
void	cn_spawn(struct cn_ctx *, uint16_t fn, const void *arg, size_t len);
#define CN_SPAWN(c, fn, fnptr, arg, len) do {				\
	if (((struct cn_ctx_pub *)(void *)(c))->cp_budget-- > 0)	\
		(fnptr)((c), (arg), (len));				\
	else								\
		cn_spawn((c), (fn), (arg), (len));			\
} while (0)

/*
 * Within a thread (cilknow(3), "Threads").  cn_spawn with five arguments
 * spawns the child thread fn(arg) whose value goes to k; unless it is
 * kept for a thief it runs at once as a plain call.  cn_spawn_next
 * makes the successor fn(arg), value to k, with nslots empty slots whose
 * continuations it writes to slots[]: it runs once every slot has been
 * filled.  cn_send fills k with len bytes (a copy).  All three: 0, or -1
 * with errno EMSGSIZE (more than CN_VALUE_MAX bytes), ENOENT (fn not in
 * tp_threads), EINVAL (not in a thread, nslots 0 or more than
 * CN_SLOTS_MAX), ESTALE (no such closure, or it ran), ERANGE (no such
 * slot), EALREADY (slot or answer already filled), ENOMEM.
 */
int	cn_spawn_thread(struct cn_ctx *, cn_thread *fn, struct cn_cont k,
	    const void *arg, size_t len);
int	cn_spawn_next(struct cn_ctx *, cn_thread *fn, struct cn_cont k,
	    const void *arg, size_t len, unsigned nslots,
	    struct cn_cont *slots);
int	cn_send(struct cn_ctx *, struct cn_cont k, const void *, size_t len);
/* Slot i of the running successor (its length in *len); NULL if none. */
const void *cn_slot(struct cn_ctx *, unsigned i, size_t *len);

/*
 * A parallel loop: body(lo, hi) over pieces of [lo, hi) of at most
 * grain indices, each writing a value of vlen bytes; combine(into, from)
 * merges the value of a piece into that of the piece before it; the
 * value of the whole range goes to k.  arg (len bytes) is handed to
 * every body.  0, or -1 with errno as cn_spawn's (EINVAL: grain < 1,
 * hi < lo, combine NULL with vlen > 0).
 */
typedef void	cn_for_body(struct cn_ctx *, int64_t lo, int64_t hi,
		    const void *arg, size_t len, void *val);
typedef void	cn_for_combine(void *into, const void *from, size_t vlen);
int	cn_for(struct cn_ctx *, struct cn_cont k, int64_t lo, int64_t hi,
	    int64_t grain, cn_for_body *, cn_for_combine *, size_t vlen,
	    const void *arg, size_t len);

/* cn_spawn by its number of arguments: 4 a task, 5 a thread. */
#define CN_SPAWN_PICK_(a, b, c, d, e, name, ...)	name
#define cn_spawn(...)	CN_SPAWN_PICK_(__VA_ARGS__, cn_spawn_thread,	\
	cn_spawn, 0)(__VA_ARGS__)

void	cn_add(struct cn_ctx *, int64_t);
#define CN_ADD(c, v)	(((struct cn_ctx_pub *)(void *)(c))->cp_sum += (v))
/* -1 (errno EMSGSIZE) if len > CN_RECORD_MAX. */
int	cn_emit(struct cn_ctx *, uint32_t key, const void *, size_t len);

#endif
