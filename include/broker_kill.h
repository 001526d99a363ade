/*
 * broker_kill — CilkJobBroker ending jobs for CilkKill(1), without I/O:
 * who may end which job (its user, or an administrator), taking it out
 * of the registry (so the next push lacks it and its nodes stop their
 * workers, as after an unregistration), and a memory of the jobs ended
 * lately.  The memory answers a repeated request ("already ended": a
 * tool resends when an answer is lost) and a re-registration of an
 * ended job by its job manager, which must learn that it was ended
 * instead of bringing the job back.
 */
#ifndef CILKNOW_BROKER_KILL_H
#define CILKNOW_BROKER_KILL_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include "broker.h"
#include "proto_kill.h"

#define BROKER_ENDED_MAX	PROTO_ROWS_MAX	/* jobs remembered */

struct broker_ended {
	TAILQ_ENTRY(broker_ended) be_entry;
	uint32_t	 be_job;
	uint64_t	 be_boot;	/* of its job manager */
	char		 be_user[MSG_NAME_MAX + 1];	/* the job's */
	char		 be_by[MSG_NAME_MAX + 1];	/* who ended it */
	struct msg_addr	 be_addr;	/* its job manager */
	char		 be_command[PROTO_COMMAND_MAX];
	double		 be_at;		/* now_mono() when ended */
};

TAILQ_HEAD(broker_ended_list, broker_ended);

struct broker_kill {
	struct broker_ended_list bk_ended;	/* oldest first */
	uint32_t		 bk_n;
};

/* Called for every job ended, after it left the registry. */
typedef void	broker_ended_fn(const struct broker_ended *, void *);

void	broker_kill_init(struct broker_kill *);
void	broker_kill_fini(struct broker_kill *);

/*
 * Carries out a KILL_REQ by user `by` (authenticated; admin: 1 if an
 * administrator).  The jobs form: a row per id asked for: ended if by
 * may end it, else not yours; already ended if it is remembered and by
 * may end it; else no such job.  The user form: by must be that user
 * or an administrator (else -1 with why); every job of the user is
 * ended, and those remembered come as already ended.  0 with the rows
 * in *ans.  fn is called for each job ended.
 */
int	broker_kill(struct broker_kill *, struct broker *,
	    const struct proto_kill_req *, const char *by, int admin,
	    double now, struct proto_kill_ans *ans, broker_ended_fn *fn,
	    void *arg, char *why, size_t whysz);

/* The ended job of that job manager (id and boot), or NULL. */
const struct broker_ended *broker_kill_find(const struct broker_kill *,
	    uint32_t job, uint64_t boot);
/*
 * The same for a registration of that job: remembered as of now, so
 * that a job manager that keeps registering is kept out for as long as
 * it does, not only until the memory expires.
 */
const struct broker_ended *broker_kill_seen(struct broker_kill *,
	    uint32_t job, uint64_t boot, double now);

/* Forgets jobs ended more than limit seconds ago. */
void	broker_kill_expire(struct broker_kill *, double now, double limit);

#endif
