/* CilkNodeManager's parts: registration, idleness, workers, relay. */
#ifndef CILKNODEMANAGER_H
#define CILKNODEMANAGER_H

#include <sys/queue.h>

#include <limits.h>

#include "contain.h"
#include "cookie.h"
#include "dctx.h"
#include "loadmodel.h"
#include "nmpriv.h"
#include "nodecore.h"
#include "nodedown.h"
#include "nodeworker.h"
#include "pred.h"
#include "proto.h"
#include "proto_pred.h"
#include "proto_hist.h"
#include "sensors.h"
#include "fairshare.h"

#define FETCH_TRIES	8	/* description requests before giving up */
#define FETCH_WAIT	0.5	/* seconds between them */
#define RELAY_WAIT	0.5	/* seconds before output is sent again */
#define WORKER_ID_MAX	48
#define FAILED_PAUSE	10.0	/* seconds before retrying a failed job */
#define NODE_INPUT_MAX	32	/* input devices read */
#define NODE_POLL_IDLE	5.0	/* s between looks for the owner, no worker */
#define NODE_POLL_WORKING 1.0	/* with a worker: retreat within a second */

struct node;
struct slot;

struct relay_stream {
	uint64_t	rs_base;	/* stream offset of the log's byte 0 */
	uint64_t	rs_acked;	/* the job manager has all before */
	uint64_t	rs_sent;	/* end of what is in flight */
	double		rs_sent_at;
};

struct worker {
	TAILQ_ENTRY(worker) w_entry;
	char		 w_id[WORKER_ID_MAX];
	struct slot	*w_slot;	/* the processor it runs on */
	char		 w_name[PROTO_HOST_MAX];	/* its slot's name */
	struct nw	 w_nw;		/* its state: nodeworker.h, only */
	uint32_t	 w_job;
	uint32_t	 w_task;
	uint16_t	 w_cpus;	/* processors it holds (--cpus) */
	uint32_t	 w_mem_mb;	/* memory it was promised (--mem) */
	char		 w_user[MSG_NAME_MAX + 1];
	struct msg_addr	 w_jobmgr;
	pid_t		 w_lpad;
	uint32_t	 w_req;		/* STARTING: our SPAWN request */
	int32_t		 w_status;	/* when EXITED */
	uint64_t	 w_cpu_ms;	/* when EXITED: the parent's word */
	uint64_t	 w_maxrss_kb;	/* (LPAD_USAGE_NONE: not known) */
	char		 w_why[PROTO_REASON_MAX];	/* it never ran: why */
	struct relay_stream w_out[PROTO_STREAM_MAX];
	double		 w_seen;	/* its job manager last answered */
	struct stagein	*w_stagein;	/* STARTING: fetching its files */
};

TAILQ_HEAD(worker_list, worker);

/*
 * One of the node's processors.  Each lent one runs at most one worker,
 * switches jobs and pairs for fair share on its own; its name is what
 * its workers are called at their job managers: the node's name for
 * the first, NAME/K for the others.
 */
struct slot {
	struct node	*s_node;
	uint16_t	 s_index;
	char		 s_name[PROTO_HOST_MAX];
	int		 s_lent;	/* the owner does not keep it */
	enum proto_node_state s_state;
	struct worker	*s_current;	/* the one running, if any */
	uint32_t	 s_want_job;	/* assigned, being fetched */
	uint16_t	 s_want_cpus;	/* processors its worker takes */
	uint32_t	 s_want_mem_mb;	/* memory it needs */
	int		 s_want_room;	/* stop others' workers to hold them */
	struct slot	*s_held;	/* held for that processor's worker,
					   which takes more than one (needs.c) */
	struct msg_addr	 s_want_jobmgr;
	char		 s_want_user[MSG_NAME_MAX + 1];
	int		 s_fetch_tries;
	uint64_t	 s_fetch_id;	/* DESC_REQ's dr_fetch: one a switch */
	struct evtimer	*s_fetch_timer;
	double		 s_jobmgr_seen;
	double		 s_pair_block_until;	/* just switched */
	struct msg_addr	 s_pair_peer;		/* asked, not answered */
	double		 s_pair_asked_at;
};

/* An input device (input.c). */
struct node_input {
	char			ni_path[PATH_MAX];
	struct sensors_input	ni_dev;
};

struct node {
	struct dctx	 n_dc;
	struct msg_addr	 n_broker;
	char		 n_name[PROTO_HOST_MAX];
	struct msg_addr	 n_listen;	/* where the engine listens */
	uint32_t	 n_id;
	uint64_t	 n_boot;
	double		 n_interval, n_grace, n_timeout;
	double		 n_grace_fast;	/* stop_grace_fast (freeze.c) */
	char		 n_state_dir[PATH_MAX];
	char		 n_run_dir[PATH_MAX];
	char		 n_lpad_bin[PATH_MAX];
	char		 n_engine_dir[PATH_MAX];	/* the engine's files */

	/* The privileged parent's (parent.c). */
	struct contain_base n_cb;
	struct contain_limits n_limits;
	long long	 n_log_gid;	/* the engine's group; -1: ours */
	int		 n_prepared;	/* prepare() ran: main.c */

	/* The engine's requests to the parent (chan.c), on n_dc.dc_chan. */
	uint32_t	 n_chan_req;
	char		 n_cg_base[PATH_MAX];	/* cgroup-relative; "": trees */
	int		 n_hello;	/* the parent has told us every worker
					   it adopted: we may register */
	int		 n_root;	/* may run jobs as other users */
	char		 n_self[MSG_NAME_MAX + 1];	/* our login */

	/* The broker. */
	double		 n_acked_at;	/* last NODE_ACK, 0: never */
	double		 n_sent_at;	/* last NODE_REGISTER */
	int		 n_waiting;	/* for the answer to it */
	int		 n_silent;	/* the broker did not answer */
	int		 n_silent_why;	/* what was logged: register.c */
	int		 n_leaving;	/* SIGUSR1: leave.c (2: timed out) */
	double		 n_leave_by;
	double		 n_backoff;
	struct evtimer	*n_reg_timer;
	struct proto_push n_push;
	int		 n_have_push;

	struct priv_view n_view;	/* the engine's files (view.c) */
	uint32_t	 n_cpu_quota;	/* processors by cgroup, before
					   the split; 0: none */

	/* Idleness. */
	char		 n_sensor_path[PATH_MAX];	/* "" = system */
	struct pred_meas n_meas;
	int		 n_owner_away;	/* the predicates hold */
	struct loadmodel n_loadmodel;	/* own workers' load */
	struct node_input n_input[NODE_INPUT_MAX];	/* the parent's */
	int		 n_input_scanned;	/* node_input_scan() ran */
	double		 n_input_saved_at;	/* last_input written */
	struct sensors_logind n_logind;	/* the parent's: idle hint */
	double		 n_logind_retry;	/* next try to connect */
	uint32_t	 n_sense_asked;	/* the engine's SENSE unanswered */
	int		 n_sense_again;	/* asked again meanwhile */
	size_t		 n_ninput;
	struct evtimer	*n_sense_timer;
	double		 n_sense_due;	/* when it fires (mono) */

	/* Predicates (npred.c). */
	char		 n_pred_path[PATH_MAX];		/* node=H ones */
	char		 n_pred_cache[PATH_MAX];	/* the broker's */
	struct pred_set	*n_pred_node;
	struct pred_set	*n_pred_cluster;
	int		 n_pred_have_cluster;	/* else: the default */
	struct pred_set	*n_pred_all;	/* both: what the node judges by */
	struct cookie_key n_cookie;	/* large answers to users: cookie.h */
	struct pred_user n_cluster[PRED_MEAS_USERS_MAX];
	size_t		 n_ncluster;
	double		 n_cluster_at;
	struct proto_pred_users n_users_sent;
	double		 n_users_sent_at;

	/* Jobs, on the node's processors. */
	enum proto_node_state n_state;	/* the sum of the slots' */
	struct worker_list n_workers;	/* running and draining */
	uint16_t	 n_total;	/* processors (slots) */
	uint16_t	 n_lent;	/* of them lent */
	uint32_t	 n_keep_become;	/* processors the owner's load keeps
					   (pred_eval_keep), as last sensed,
					   by the thresholds to become ... */
	uint32_t	 n_keep_stay;	/* ... and to stay idle */
	struct slot	 n_slots[NC_SLOTS_MAX];
	uint32_t	 n_failed_job;	/* could not start it here ... */
	double		 n_failed_at;	/* ... at this time */
	double		 n_checked_at;	/* last job-manager ping */
	uint64_t	 n_started, n_refused;
	struct nd_count	 n_nd;		/* node faults in a row (ndown.c) */
	double		 n_down_at;	/* when it went down, reported */

	/* The fair-share exchange (pair.c). */
	double		 n_quantum;
	struct sched_rng n_rng;
	struct sched_rule n_rule;
	double		 n_push_at;		/* the last push came */
	double		 n_paired_on;		/* n_push_at when we last asked */
	uint64_t	 n_pair_sent, n_pair_switches;

	/* The last hour, for xCilkNodeInfo (history.c). */
	struct proto_hist_ring n_hist;
	uint8_t		 n_buf[MSG_PAYLOAD_MAX];
};

struct lpad_spec;
/* stagein.c: a task's --stage-in files, fetched before it starts. */
int	node_stagein_begin(struct node *, struct worker *, const uint8_t *,
	    size_t, const struct stage_list *, char *why, size_t);
/* spool.c: what was fetched, and its spool, gone. */
void	node_stagein_free(struct node *, struct worker *);
void	node_on_stage(struct msg_ep *, const struct msg_in *, void *);
int	node_stagein_on_desc(struct node *, const struct msg_in *);
/* ndown.c: node faults in a row take the node down (nodedown.h). */
void	node_fault_counted(struct node *, const char *why);
void	node_start_counted(struct node *);
int	node_down_on_assign(struct node *);
/* refuse.c: DESC_REFUSED to the job manager (proto_refuse.h). */
void	node_desc_refused(struct node *, struct slot *, const char *why);
void	node_fetch_withdraw(struct node *, struct slot *, const char *why);
int	node_fetch_refusal(const struct node *, const struct slot *,
	    double since, char *why, size_t whysz);
/* pcheck.c: 0, or -1 and why the node itself cannot start a worker. */
int	node_start_check(const struct node *, const char *user, char *why,
	    size_t whylen);
/* parent.c's part of staging (pstage.c): the spec's staging keys. */
int	node_stage_spec(struct node *, struct lpad_spec *,
	    const struct proto_desc *, const char *spool, const char *worker,
	    char *why, size_t);

/*
 * pbind.c: d is for this node (a job's: its name; a root's: an address
 * of ours) and young enough (replay_window; root_restart_window).
 */
int	node_desc_bound(const struct node *, const struct proto_desc *,
	    int root, char *why, size_t whylen);
/* endall.c: -k, every worker and launch pad ended; the exit status. */
int	node_end_workers(const char *run_dir, double grace);
/* parent.c: worker_nice, 0 to 19, or -1 where it is not a nice level. */
int	node_guest_nice(const struct conf *);
/* parent.c: what the privileged parent does beyond dctx's (priv.h). */
extern const struct dctx_parent node_parent;
/* events.c: what the parent tells the engine (dctx's ds_chan_msg). */
int	node_chan_msg(struct dctx *, uint16_t type, const uint8_t *body,
	    size_t len);
/* chan.c: the engine's requests to the parent. */
uint32_t node_chan_spawn(struct node *, uint8_t kind, const char *tag,
	    const uint8_t *desc, size_t len);
void	node_chan_stop(struct node *, const char *worker, double grace);
void	node_chan_freeze(struct node *, const char *worker, int freeze);
void	node_chan_forget(struct node *, const char *worker);
void	node_chan_vacate(struct node *, const char *worker, double grace,
	    double fast);
uint32_t node_chan_sense(struct node *);	/* its req */
int	node_chan_pidq_ok(uint32_t pid, const char *user);
uint32_t node_chan_pidq(struct node *, uint32_t pid, uint64_t start,
	    const char *user);			/* its req */
/* procq.c: the parent's PIDA for a clearinghouse's question; 0: not
   one of ours. */
int	node_procq_on_pida(struct node *, const struct nmpriv_msg *);
/* roots.c: the same for a root's (checked before procq's). */
int	node_roots_on_pida(struct node *, const struct nmpriv_msg *);
/* roots.c: before the split, what the engine could not read after. */
void	node_roots_prepare(void);
/* register.c: the broker hears of us; down by itself: why (ndown.c). */
void	node_register_now(struct node *);
void	node_register_start(struct node *);
void	node_on_ack(struct msg_ep *, const struct msg_in *, void *);
void	node_down_report(struct node *);
/* push.c: the broker's PUSH and JOB_GONE. */
void	node_on_push(struct msg_ep *, const struct msg_in *, void *);
void	node_on_job_gone(struct msg_ep *, const struct msg_in *, void *);
/* leave.c: SIGUSR1 stops every worker, reports their ends, exits. */
void	node_leave_start(struct node *);
/* idle.c: the owner's coming and going, acted on. */
void	node_idle_start(struct node *);
void	node_idle_update(struct node *);	/* asks for a measurement */
void	node_idle_on_meas(struct node *, const struct nmpriv_msg *);
/* sense.c: 1 if the owner is away, by the parent's measurement (MEAS). */
int	node_sense(struct node *, const struct nmpriv_msg *);
/* The next look within NODE_POLL_WORKING (a processor switches). */
void	node_sense_soon(struct node *);
/* The parent's INPUT: devices read, time since the last input. */
void	node_idle_on_input(struct node *, const struct nmpriv_msg *);
/* input.c: the parent's; tell: how the parent tells the engine */
void	node_input_teller(void (*tell)(const struct nmpriv_msg *));
void	node_input_scan(struct node *);
void	node_input_tell(struct node *);
void	node_input_stop(struct node *);
int	node_input_idle(const struct node *, double *idle);
/* pproc.c: the parent's answer to PIDQ, the launch pads' pids given. */
void	node_pid_answer(const struct node *, const struct nmpriv_msg *q,
	    const pid_t *lpads, size_t nlpads, struct nmpriv_msg *a);
/* view.c: what the engine sees, started as root; 0, or -1 with err. */
int	node_view(struct node *, char *err, size_t errlen);
/* measure.c: the parent's sensors; 0, or -1 with err. */
int	node_measure(struct node *, struct pred_meas *, char *err,
	    size_t errlen);
void	node_measure_start(struct node *);
void	node_measure_stop(struct node *);
/* npred.c */
int	node_pred_init(struct node *, char *err, size_t errlen);
void	node_pred_fini(struct node *);
/* stay: compare with the thresholds to stay idle, else to become idle. */
int	node_pred_eval(struct node *, struct pred_eval *, int stay);
void	node_pred_report_users(struct node *);
/* The set judged by, again from the broker's (or default) and ours. */
int	node_pred_rebuild(struct node *);
/* The cluster's users (PRED_PUSH) with their idle times aged to now. */
size_t	node_pred_cluster_now(const struct node *, struct pred_user *);
/* predmsg.c: PRED_PUSH from the broker, PRED_REQ from CilkPred. */
void	node_on_pred_req(struct msg_ep *, const struct msg_in *, void *);
/* The checks that waited for a measurement, answered by it. */
void	node_pred_checks_answer(struct node *);
void	node_on_pred_push(struct msg_ep *, const struct msg_in *, void *);
/* wevents.c: what happens to workers, as it comes. */
void	node_on_desc(struct msg_ep *, const struct msg_in *, void *);
void	node_on_pong(struct msg_ep *, const struct msg_in *, void *);
void	node_on_error(struct msg_ep *, const struct msg_in *, void *);
void	node_on_output_ack(struct msg_ep *, const struct msg_in *, void *);
void	node_workers_start(struct node *);
void	node_on_spawned(struct node *, const struct nmpriv_msg *);
void	node_on_worker(struct node *, const struct nmpriv_msg *);
/* worker.c: switching jobs; what nodeworker decided, done. */
void	node_on_assign(struct msg_ep *, const struct msg_in *, void *);
void	node_stop_slot(struct node *, struct slot *, const char *why);
void	node_stop_all(struct node *, const char *why);
/* What nodeworker decides by; what it decided, done (may free w). */
void	node_nw_conf(const struct node *, struct nw_conf *);
void	node_worker_act(struct node *, struct worker *, struct nw_step,
	    const char *why);
/* The owner back (frozen or stopped) or away (thawed): every worker. */
void	node_workers_owner(struct node *, int back);
/* A worker that could not start; its job manager hears why. */
void	node_start_failed(struct node *, struct worker *, const char *why,
	    int node_fault);
void	node_facts(const struct node *, const struct slot *,
	    struct nc_facts *);
void	node_update_state(struct node *);
/* A job that could not start: not taken again for a while. */
void	node_forget_assignment(struct node *, struct slot *);
void	node_take_job(struct node *, struct slot *, uint32_t,
	    const struct msg_addr *, const char *user, uint16_t cpus,
	    uint32_t mem_mb, int room, const char *why);
int	node_may_take(struct node *, const struct slot *, uint32_t job,
	    const char *user);
void	node_next_task(struct node *, struct slot *, uint32_t job,
	    const struct msg_addr *jobmgr, const char *user, uint16_t cpus,
	    uint32_t mem_mb);
/* Holds the processors a task takes, stopping others' with room. */
int	node_hold(struct node *, struct slot *, uint16_t cpus,
	    uint32_t mem_mb, int room, char *why, size_t);
void	node_held_taken(struct node *, struct slot *, const char *why);
/* reap.c: worker folders whose launch pad is gone (the parent's). */
void	node_reap_start(struct node *);
void	node_reap_roots(struct node *);
/* freeze.c: the owner back, a worker that lingers frozen (vacate.h). */
struct vacate;
int	node_vacate_fast(const struct node *);
int	node_vacate_plan(struct vacate *, const char *worker, double grace,
	    double fast);
int	node_vacate_step(struct vacate *, const char *worker, const char *cg,
	    pid_t lpad);
/* needs.c: a task's --cpus and --mem on this node. */
uint32_t node_mem_lendable(const struct node *, const struct slot *except);
int	node_fits(const struct node *, const struct slot *, uint16_t cpus,
	    uint32_t mem_mb, int room);
/* The free processors it takes held; how many more node_hold stops. */
int	node_hold_free(struct node *, struct slot *, uint16_t cpus,
	    uint32_t mem_mb, int room, char *why, size_t);
int	node_slot_evictable(const struct slot *, const struct slot *);
void	node_holds_settle(struct node *);
const struct proto_push_job *node_push_job(const struct node *, uint32_t);
/* slots.c */
void	node_slots_init(struct node *);
int	node_slots_running(const struct node *);
/* lend.c: lends the processors the owner does not keep; stops the rest. */
void	node_slots_lend(struct node *);
/* The slot of that index or name; NULL if none. */
struct slot *node_slot_at(struct node *, uint32_t index);
struct slot *node_slot_named(struct node *, const char *name);
/* roots.c */
void	node_roots_start(struct node *);
void	node_roots_stop(void);
void	node_on_root_backup(struct msg_ep *, const struct msg_in *, void *);
void	node_on_root_done(struct msg_ep *, const struct msg_in *, void *);
void	node_on_proc_ask(struct msg_ep *, const struct msg_in *, void *);
int	node_roots_on_spawned(struct node *, const struct nmpriv_msg *);
int	node_roots_on_worker(struct node *, const struct nmpriv_msg *);
/* pair.c */
void	node_pair_start(struct node *);
void	node_on_pair_req(struct msg_ep *, const struct msg_in *, void *);
void	node_on_pair(struct msg_ep *, const struct msg_in *, void *);
/* history.c */
void	node_hist_start(struct node *);
void	node_hist_sample(struct node *);
void	node_on_hist_req(struct msg_ep *, const struct msg_in *, void *);
/* relay.c */
void	node_relay(struct node *, struct worker *);
void	node_relay_alive(struct node *, struct worker *);
void	node_worker_free(struct node *, struct worker *);

#endif
