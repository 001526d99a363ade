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

struct cn_ctx;

/*
 * The part of a task's context the CN_SPAWN fast path touches (the
 * context starts with it): how many more spawns may run at once as plain
 * calls before the runtime looks at its deque and the network again.
 */
struct cn_ctx_pub {
	int32_t		cp_budget;
	int64_t		cp_sum;		/* of the work unit being run */
};

/* A task: its argument (len bytes, at most CN_ARG_MAX) is a copy. */
typedef void	cn_fn(struct cn_ctx *, const void *arg, size_t len);

struct cn_program {
	const char	 *cp_name;	/* for messages */
	cn_fn *const	 *cp_fns;	/* task functions, by index */
	uint16_t	  cp_nfns;
	/* Root only: every record of every task, exactly once. */
	void		(*cp_record)(void *, uint32_t key, const void *,
			    size_t);
	void		 *cp_arg;
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
void	cn_add(struct cn_ctx *, int64_t);
#define CN_ADD(c, v)	(((struct cn_ctx_pub *)(void *)(c))->cp_sum += (v))
/* -1 (errno EMSGSIZE) if len > CN_RECORD_MAX. */
int	cn_emit(struct cn_ctx *, uint32_t key, const void *, size_t len);

#endif
