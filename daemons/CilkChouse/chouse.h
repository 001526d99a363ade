/* CilkChouse's parts: the workers, the book-keeping, the job manager. */
#ifndef CILKCHOUSE_H
#define CILKCHOUSE_H

#include <sys/types.h>

#include "cn.h"
#include "cn_steal.h"
#include "dctx.h"
#include "proto.h"

#define CH_TICK		0.1	/* seconds between housekeeping rounds */
#define CH_GIVE_WAIT	0.5	/* an unanswered GIVE is given up */
#define CH_EMPTY_PAUSE	0.05	/* a victim with nothing is left alone */
#define CH_FINISH_TRIES	30	/* FINISH sent to the root at most */
#define CH_CKPT_EVERY	1.0	/* seconds between checkpoints */
#define CH_DEAF		0.5	/* a tick this late: we were not listening */
#define CH_ASK_WAIT	1.0	/* a node manager that does not answer */
#define CH_ASK_AGAIN	0.25
#define CH_SILENT_MAX	30.0	/* longest wait for a silent worker that runs */
/* Our handlers: the clearinghouse's, and the node managers' PROC. */
#define CH_HANDLERS	PROTO_H_MAX

struct ch_worker {
	uint32_t	 w_id;
	struct msg_addr	 w_addr;
	char		 w_node[64];
	/*
	 * Its host: workers from one network address (as we see it) whose
	 * node names agree up to a '/' ("10.0.0.3", "10.0.0.3/2").
	 */
	uint32_t	 w_host;
	uint64_t	 w_pid;
	/* Where its node manager listens: asked before we give it up. */
	struct msg_addr	 w_nodemgr;
	double		 w_suspect;	/* silent since; 0: not suspected */
	double		 w_asked;	/* question open since; 0: none */
	double		 w_last_ask;
	double		 w_runs_until;	/* its node said it runs */
	int		 w_root;
	int		 w_gone;
	int		 w_idle;	/* asked for work */
	uint32_t	 w_unit;	/* last unit assigned */
	uint64_t	 w_next_seq;	/* next EXPORT batch expected */
	double		 w_last;	/* last heard */
	double		 w_give_sent;	/* 0: no GIVE outstanding */
	double		 w_empty_until;
	uint64_t	 w_tasks;
};

/*
 * What the clearinghouse does to the world, so that a deterministic
 * simulation (tests/unit/chsim_test.c) can run the same handlers over
 * a network, a clock and a die of its own.  NULL: the daemon's own
 * (msg_ep, now_mono, randombytes_uniform, the end of the event loop).
 */
struct ch_io {
	void	 *io_arg;
	int	(*io_send)(void *, const struct msg_addr *, uint16_t handler,
		    const uint8_t *, size_t);
	double	(*io_now)(void *);
	uint32_t (*io_uniform)(void *, uint32_t);
	void	(*io_over)(void *);	/* the job is over */
};

struct chouse {
	struct dctx	 h_dc;
	const struct ch_io *h_io;
	const char	*h_user;	/* the job's, and every worker's */
	struct cn_tree	 h_tree;
	struct ch_worker *h_w;		/* by id; 0 unused */
	uint32_t	 h_nw, h_capw;
	uint32_t	 h_live, h_live_max;
	uint32_t	 h_nhosts;
	uint64_t	 h_near;	/* units migrated within a host */
	uint32_t	*h_victims;	/* schedule's scratch */
	uint32_t	 h_capvictims;
	double		 h_timeout;	/* silence before a worker is lost */
	double		 h_last_tick;
	int		 h_report_fd;	/* -r: our port goes here */
	/* The job manager: started by us, ends when its stdin closes. */
	pid_t		 h_jm_pid;
	int		 h_jm_fd;
	char		 h_host[256];	/* where workers find us */
	int		 h_argc;
	char		**h_argv;	/* the program and its arguments */
	/* Records of final units, until the root has them. */
	uint32_t	*h_results;
	uint32_t	 h_nresults, h_capresults;
	int		 h_finishing;
	int		 h_finish_tries;
	int		 h_root_acked;
	int		 h_exit;
	struct cn_useful h_useful;
	/* The member list of programs of threads (cn_steal.h). */
	uint64_t	 h_mversion;	/* moves on at each join and loss */
	struct cn_member *h_members;
	/* Checkpoints (-k) and recovery (-R). */
	const char	*h_ckpt_path;
	/* The job's executable (cn.h): the first process's, once known. */
	uint8_t		 h_exe[CN_EXE_DIGEST];
	int		 h_have_exe;
	struct msg_addr	 h_refused;	/* said last (a repeat is not) */
	/* The job key (cn.h), made at the first REGISTER; id 0: not yet. */
	uint8_t		 h_job_key[CN_JOB_KEY];
	uint32_t	 h_job_keyid;
	const char	*h_recover_path;
	uint8_t		*h_ckpt_rec;	/* records of every final unit */
	size_t		 h_ckpt_nrec, h_ckpt_caprec;
	int		 h_ckpt_dirty;
	double		 h_ckpt_last;
	uint8_t		 h_buf[MSG_PAYLOAD_MAX];
	struct cn_msg	 h_msg;
};

const struct msg_handler *ch_table(void);
/* The books' callbacks; then ch_tick every CH_TICK (ch_start does both). */
void	ch_attach(struct chouse *);
void	ch_tick(struct chouse *);
void	ch_start(struct chouse *);
int	ch_jobmgr_start(struct chouse *);
void	ch_jobmgr_reap(struct chouse *, int wait);
int	ch_host(struct chouse *);
int	ch_recover(struct chouse *);
void	ch_checkpoint(struct chouse *, int force);

#endif
