/*
 * cn_rt — the runtime's process state, shared by its files (not
 * installed): the local deque (cn_local.c), the link to the
 * clearinghouse (cn_link.c), the start of a root (cn_start.c).
 */
#ifndef CILKNOW_CN_RT_H
#define CILKNOW_CN_RT_H

#include <sys/types.h>

#include <stdatomic.h>

#include "cn.h"
#include "conf.h"
#include "evloop.h"
#include "msg.h"
#include "proto_root.h"

#define CN_LAZY		8	/* frames kept waiting for thieves */
#define CN_BUDGET	64	/* plain-call spawns between checks */
#define CN_POLL_GAP	0.002	/* seconds between looks at the network */
#define CN_TICK		0.1	/* retransmission and heartbeat timer */
#define CN_RESEND	0.25	/* an unanswered message goes again */
#define CN_HEARTBEAT	0.5
#define CN_SILENCE	30.0	/* no word from the clearinghouse: give up */
#define CN_QUIT_GRACE	10.0	/* longest hand-back on SIGQUIT */
#define CN_CKPT_FLUSH	1.0	/* root, checkpointing: hand back this often */
#define CN_FN_THREADS	0xffff	/* the root frame of a program of threads */

struct cn_ctx {
	struct cn_ctx_pub c_pub;	/* first: cilknow.h's CN_SPAWN */
	const struct cn_program	*c_prog;
	/* Local work. */
	struct cn_frame	*c_frames;
	size_t		 c_lo, c_hi, c_cap;
	uint8_t		*c_rec;
	size_t		 c_nrec, c_caprec;
	uint64_t	 c_tasks;
	void		(*c_poll)(struct cn_ctx *);	/* NULL: alone */
	int		 c_stop;	/* hand-back: push, run nothing */
	unsigned	 c_slow;	/* calls of cn_spawn */
	int		 c_running;	/* inside cn_local_run */
	double		 c_next_poll;
	int		 c_alone;
	int		 c_worker;
	/* The link. */
	struct conf	*c_conf;
	struct msg_keyring *c_keys;
	struct evloop	*c_loop;
	struct msg_ep	*c_ep;
	struct msg_addr	 c_chouse;
	pid_t		 c_chouse_pid;
	char		 c_user[MSG_NAME_MAX + 1];
	uint32_t	 c_id;		/* 0 until welcomed */
	/* Ours, for the job key's box in the WELCOME (cn.h). */
	uint8_t		 c_box_pk[CN_BOX_PK];
	uint8_t		 c_box_sk[CN_BOX_PK];
	/*
	 * Given up for lost while a task was on the C stack: what that
	 * task still computes belongs to the lost worker, so nothing is
	 * sent or taken until the stack unwinds; then we join anew.
	 */
	int		 c_lost;
	double		 c_last_listen;	/* last look at the network */
	/* The heartbeat thread (cn_beat.c): what it says, and to whom. */
	_Atomic uint32_t c_beat_id;	/* 0: say nothing */
	_Atomic uint64_t c_beat_tasks;
	_Atomic uint32_t c_beat_want;	/* enum cn_beat_want */
	int		 c_beat_on;
	int		 c_have_unit;
	uint32_t	 c_unit, c_attempt, c_nexports;
	struct cn_frame	 c_root_frame;
	int		 c_exe_said;	/* cn_exe_digest's failure, said */
	/* Frames on their way out; one batch in flight. */
	struct cn_frame	*c_outq;
	size_t		 c_noutq, c_capoutq;
	uint16_t	 c_inflight;
	uint64_t	 c_seq;
	int		 c_done_sent;
	int		 c_flush;	/* hand back, then steal again */
	int		 c_quit;	/* SIGQUIT: hand back, then leave */
	double		 c_quit_by;
	int		 c_leave_sent;
	int		 c_finished;
	int		 c_failed;	/* root: the clearinghouse died */
	int		 c_ckpt;	/* root: checkpoints are kept */
	double		 c_last_flush;
	double		 c_last_heard, c_last_sent_hb, c_last_steal;
	double		 c_last_out, c_last_done, c_last_reg;
	uint8_t		*c_seen;	/* root: units whose records came */
	size_t		 c_nseen;
	struct cn_stats	 c_st;
	/* Root: the home node manager's backup (cn_home.c). */
	struct msg_addr	 c_home;
	uint8_t		*c_home_msg;	/* ROOT_BACKUP; NULL: none */
	size_t		 c_home_len;
	double		 c_home_at;
	double		 c_home_sealed;	/* its description signed then */
	struct proto_desc c_home_desc;	/* what is signed again */
	struct proto_root_backup c_home_b;
	struct proto_root_done c_home_done;
	uint8_t		 c_buf[MSG_PAYLOAD_MAX];
	uint8_t		 c_out[MSG_PAYLOAD_MAX]; /* last EXPORT, for resending */
	size_t		 c_outlen;
	uint8_t		 c_done[MSG_PAYLOAD_MAX]; /* last DONE */
	size_t		 c_donelen;
	struct cn_msg	 c_msg;
	/* A program of threads (cn_threads.c): its root, its answer. */
	int		 c_threads;
	const struct cn_tprogram *c_tprog;
	uint16_t	 c_thread_fn;
	const void	*c_thread_arg;
	size_t		 c_thread_len;
	int		 c_thread_rc, c_thread_err, c_thread_ran;
	char		 c_thread_why[256];
	uint64_t	 c_thread_threads, c_thread_closures;
	double		 c_thread_secs;	/* from the root thread's start */
	uint8_t		*c_answer;
	size_t		 c_answer_len;
	/* Stealing worker to worker (cn_steal.c); NULL: none. */
	struct cn_net	*c_net;
};

/*
 * A worker's heartbeat comes from a thread of its own, so that a long
 * task or a busy machine does not make a live worker look lost.  0, or
 * -1 with errno.
 */
int	cn_beat_start(struct cn_ctx *);

int	cn_local_push(struct cn_ctx *, const struct cn_frame *);
int	cn_local_take_oldest(struct cn_ctx *, struct cn_frame *);
size_t	cn_local_pending(const struct cn_ctx *);
int	cn_local_run(struct cn_ctx *);
void	cn_local_stop(struct cn_ctx *);

/*
 * Runs the program of threads' root thread here (alone, or as the root
 * unit of the job), to its answer.  0, or -1 with c_thread_why.
 */
int	cn_threads_run(struct cn_ctx *);

/*
 * Starts CilkChouse for this program (its own path and arguments), which
 * starts the job manager; 0 with its pid and port, or -1 with why.
 */
int	cn_start_chouse(const char *conf, const char *ckpt,
	    const char *recover, int argc, char **argv, pid_t *pid,
	    uint16_t *port, char *why, size_t whylen);

/*
 * Stealing between the processes of a program of threads (cn_steal.c):
 * open with the link; a scheduler attached under its continuations'
 * owner (the root 0, a worker its id); the handlers of cn_steal.h's
 * messages; idle (steal, then listen; -1: stop); a worker's turn of its
 * loop; the job's counts into st (the root).
 */
struct cn_sched;
int	cn_net_open(struct cn_ctx *);
void	cn_net_close(struct cn_ctx *);
void	cn_net_attach(struct cn_ctx *, struct cn_sched *, uint32_t owner);
void	cn_net_detach(struct cn_ctx *);
void	cn_net_welcome(struct cn_ctx *);
void	cn_net_reset(struct cn_ctx *);
void	cn_net_abandon(struct cn_ctx *);
void	cn_net_tick(struct cn_ctx *, double now);
/* The clearinghouse's member list is at this version (its ALIVE). */
void	cn_net_members_at(struct cn_ctx *, uint64_t version);
/*
 * The name a member of the job signs with under the job's key: "w" and
 * its worker id.  The sender sets it, the receiver checks it against
 * the id the message claims.
 */
#define CN_MEMBER_NAME_MAX	16
void	cn_member_name(uint32_t id, char name[CN_MEMBER_NAME_MAX]);
int	cn_net_idle(void *);
int	cn_net_work(struct cn_ctx *);
void	cn_net_stats(struct cn_ctx *, struct cn_stats *);
uint32_t cn_net_members(const struct cn_ctx *);	/* the root too */
uint32_t cn_net_thieves(const struct cn_ctx *);	/* members that asked us */
#define CN_MIN_WORKERS_WAIT	120.0	/* CILKNOW_MIN_WORKERS at most */
msg_handler_fn	cn_net_on_members, cn_net_on_tsteal, cn_net_on_tnone,
		cn_net_on_xfer, cn_net_on_xfer_ack, cn_net_on_tstats;
/* One turn of the event loop, waiting up to wait seconds. */
int	cn_link_look(struct cn_ctx *, double wait);
/* A scheduler's look (cn_sched.h s_poll; arg the ctx): 1 if one was due. */
int	cn_sched_poll(void *);

/* The link: set up, run until finished (root) or exit (worker). */
int	cn_link_open(struct cn_ctx *, const char *conf, char *why, size_t);
int	cn_link_run(struct cn_ctx *);
void	cn_link_close(struct cn_ctx *);

/*
 * CILKNOW_HOME: the job's recovery command (self -Recover=ckpt argv)
 * to the home node manager now and every few seconds (tick), and a
 * ROOT_DONE when it ends (done).  open: 0 also when there is no home.
 */
int	cn_home_open(struct cn_ctx *, const char *ckpt, const char *self,
	    int argc, char **argv);
void	cn_home_tick(struct cn_ctx *, double now);
void	cn_home_done(struct cn_ctx *);

#endif
