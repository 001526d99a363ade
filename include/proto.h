/*
 * proto — the macroscheduler's messages: handler numbers, which scheme
 * each travels under, and the payload codecs.  Every decoder checks
 * every length against what is left and against a *_MAX, and refuses
 * leftover bytes.  Documented in cilknow-protocol(7).
 */
#ifndef CILKNOW_PROTO_H
#define CILKNOW_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "stage.h"
#include "wire.h"

enum proto_handler {
	PROTO_H_NODE_REGISTER = MSG_H_USER,	/* node -> broker, cluster */
	PROTO_H_NODE_ACK,			/* broker -> node, cluster */
	PROTO_H_JOB_REGISTER,			/* jobmgr -> broker, user */
	PROTO_H_JOB_ACK,			/* broker -> jobmgr, user */
	PROTO_H_JOB_UNREGISTER,			/* jobmgr -> broker, user */
	PROTO_H_LIST,				/* tool -> broker, any */
	PROTO_H_JOBS,				/* broker -> tool */
	PROTO_H_NODES,				/* broker -> tool */
	PROTO_H_ASSIGN,				/* broker -> node, cluster */
	PROTO_H_PUSH,				/* broker -> node, cluster */
	PROTO_H_DESC_REQ,			/* node -> jobmgr, user */
	PROTO_H_DESC,				/* jobmgr -> node, user */
	PROTO_H_OUTPUT,				/* node -> jobmgr, user */
	PROTO_H_OUTPUT_ACK,			/* jobmgr -> node, user */
	PROTO_H_ERROR,				/* any reply: refused, why */
	PROTO_H_PAIR_REQ,			/* node -> node, cluster */
	PROTO_H_PAIR,				/* node -> node, cluster */
	PROTO_H_PRED_REQ,			/* tool -> broker/node, any */
	PROTO_H_PRED_ANSWER,			/* broker/node -> tool */
	PROTO_H_PRED_PUSH,			/* broker -> node, cluster */
	PROTO_H_PRED_USERS,			/* node -> broker, cluster */
	PROTO_H_ROOT_BACKUP,			/* root -> home node, user */
	PROTO_H_ROOT_DONE,			/* root -> home node, user */
	PROTO_H_COOKIE,				/* broker -> tool: ask again
						   with this */
	PROTO_H_KILL_REQ,			/* tool -> broker, user */
	PROTO_H_KILL_ANSWER,			/* broker -> tool, user */
	PROTO_H_JOB_ENDED,			/* broker -> jobmgr, user */
	PROTO_H_PROC_ASK,			/* chouse -> node, user */
	PROTO_H_PROC,				/* node -> chouse, as @cluster */
	PROTO_H_HIST_REQ = 45,			/* tool -> node, any */
	PROTO_H_HIST = 46,			/* node -> tool */
	/* Listings of any size, a page at a time (proto_page.h). */
	PROTO_H_LIST_PAGE = 47,			/* tool -> broker, any */
	PROTO_H_JOBS_PAGE = 48,			/* broker -> tool */
	PROTO_H_NODES_PAGE = 49,		/* broker -> tool */
	PROTO_H_JOB_GONE = 50,			/* broker -> node, cluster: a
						   job left the registry */
	/* Accounting, CilkHist and --after (proto_acct.h). */
	PROTO_H_ACCT = 51,			/* jobmgr -> broker, user */
	PROTO_H_ACCT_ACK = 52,			/* broker -> jobmgr */
	PROTO_H_ACCT_REQ = 53,			/* tool -> broker, user */
	PROTO_H_ACCT_ROWS = 54,			/* broker -> tool */
	PROTO_H_AFTER_REQ = 55,			/* jobmgr -> broker, user */
	/* CilkPs -j: a job's task table (proto_tasks.h). */
	PROTO_H_TASKS_REQ = 56,			/* tool -> jobmgr, user */
	PROTO_H_TASKS = 57,			/* jobmgr -> tool, user */
	PROTO_H_STAGE_REQ = 60,			/* node -> jobmgr, user */
	PROTO_H_STAGE = 61,			/* jobmgr -> node, user */
	/* CilkNodes drain, resume, -R (proto_health.h). */
	PROTO_H_HEALTH_REQ = 62,		/* tool -> broker, any */
	PROTO_H_HEALTH = 63,			/* broker -> tool */
	PROTO_H_NODE_DOWN = 64,			/* node -> broker, cluster:
						   down by itself (nodedown.h) */
	PROTO_H_DESC_REFUSED = 65,		/* node -> jobmgr, user as
						   @cluster (proto_refuse.h) */
	PROTO_H_MAX
};

#define PROTO_NODE_PORT		7411	/* a node manager's default port */
#define PROTO_HOST_MAX		64
#define PROTO_COMMAND_MAX	256
#define PROTO_ARG_MAX		4096	/* one argv or env entry */
#define PROTO_ARGS_MAX		256	/* argv entries, env entries */
#define PROTO_PATH_MAX		1024
#define PROTO_ROWS_MAX		512	/* rows in one JOBS/NODES/PUSH */
#define PROTO_CHUNK_MAX		8192	/* output bytes in one message */
#define PROTO_REASON_MAX	200
#define PROTO_SLOTS_MAX		256	/* processors one node lends */
#define PROTO_NODE_JOBS_MAX	8	/* jobs named in one node row */
#define PROTO_MEM_MB_MAX	(1U << 30)	/* a MiB count: 1 PiB */

/*
 * A batch task's resource request (CilkRun --cpus, --mem), in the
 * signed environment of its description: the node holds the worker to
 * them, and the task reads how many processors it has.
 */
#define PROTO_CPUS_ENV		"CILKNOW_CPUS"
#define PROTO_MEM_ENV		"CILKNOW_MEM_MB"


enum proto_node_state {
	PROTO_NS_UNDEF = 0,
	PROTO_NS_BUSY,		/* the owner is using it */
	PROTO_NS_IDLE,		/* available, no job */
	PROTO_NS_RUNNING,	/* a worker runs */
	PROTO_NS_SWITCHING,	/* fetching and starting a job */
	PROTO_NS_STOPPING,	/* worker signalled, not gone yet */
	PROTO_NS_SUSPENDED,	/* worker frozen: the owner is back */
	/* Only the broker says these of a node (listings), never a node. */
	PROTO_NS_DRAIN,		/* drained by an administrator, still
				   running guest work */
	PROTO_NS_DRAINED,	/* drained, running none */
	PROTO_NS_DOWN,		/* forgotten: silent (proto_health.h) */
	PROTO_NS_MAX
};
/* The states a node may say of itself or of its processors. */
#define PROTO_NS_NODE_MAX	PROTO_NS_DRAIN

const char	*proto_state_name(enum proto_node_state);
enum proto_node_state proto_state_from_name(const char *);

/* One of a node's processors: what it does, for which job. */
struct proto_slot {
	uint8_t		ps_state;	/* enum proto_node_state */
	uint32_t	ps_job;		/* 0: none */
};

/*
 * NODE_REGISTER: who I am and what I do; the address is the sender's.
 * A node of nr_total processors lends nr_lent of them and says what
 * each of its first nr_nslots does; nr_state and nr_job sum them up.
 * nr_total 0 is a node of one processor whose slot is nr_state, nr_job.
 */
struct proto_node_reg {
	uint32_t	nr_node;	/* 0: give me an id */
	uint64_t	nr_boot;	/* random per node-manager start */
	char		nr_host[PROTO_HOST_MAX];
	uint8_t		nr_state;	/* enum proto_node_state */
	uint32_t	nr_job;		/* 0: none */
	uint32_t	nr_load_milli;	/* 1-minute load x 1000 */
	uint32_t	nr_idle;	/* seconds since input */
	uint16_t	nr_users;
	uint32_t	nr_pairs;	/* fair-share requests sent, ever */
	uint32_t	nr_switches;	/* jobs switched for fair share */
	uint16_t	nr_total;
	uint16_t	nr_lent;
	uint32_t	nr_mem_mb;	/* lendable memory, MiB (DESIGN 11):
					   free, less what running tasks
					   were promised */
	uint16_t	nr_nslots;
	struct proto_slot nr_slots[PROTO_SLOTS_MAX];
	uint8_t		nr_unenforced;	/* PROTO_LIMIT_* its workers cannot
					   be held to (no such controller) */
};

/* Kinds of worker limit (as CONTAIN_CTL_*, contain.h). */
#define PROTO_LIMIT_MEMORY	0x1
#define PROTO_LIMIT_PIDS	0x2
#define PROTO_LIMIT_CPU		0x4
#define PROTO_LIMIT_IO		0x8
#define PROTO_LIMIT_ALL		0xf

/* NODE_ACK and JOB_ACK: the id the broker gave. */
struct proto_ack {
	uint32_t	ak_id;
	uint32_t	ak_interval_ms;	/* register_interval */
};

#define PROTO_COOKIE_LEN	16

/*
 * JOB_REGISTER: a job manager announces (or re-announces) its job.  The
 * broker acts on it only with the cookie it sent to that address (else
 * it answers PROTO_H_COOKIE), so that a forged source address cannot
 * send the nodes' description requests to a victim.
 */
struct proto_job_reg {
	uint32_t	jr_job;		/* 0: new job */
	uint64_t	jr_boot;	/* random per job-manager start */
	uint32_t	jr_max;		/* useful workers, 0: no limit */
	uint32_t	jr_pri;		/* weight, >= 1 */
	uint64_t	jr_start_ms;	/* realtime the job started */
	char		jr_command[PROTO_COMMAND_MAX];
	uint16_t	jr_cpus;	/* processors a worker takes; 0: 1 */
	uint32_t	jr_mem_mb;	/* memory a worker needs, 0: any */
	uint8_t		jr_has_cookie;	/* the broker's cookie (cookie.h) */
	uint8_t		jr_cookie[PROTO_COOKIE_LEN];
};

/* JOB_UNREGISTER */
/* JOB_UNREGISTER's payload; JOB_GONE carries the same. */
struct proto_job_unreg {
	uint32_t	ju_job;
};

enum proto_list_what {
	PROTO_LIST_UNDEF = 0,
	PROTO_LIST_JOBS,
	PROTO_LIST_NODES,
	PROTO_LIST_MAX
};

/*
 * A list under the user scheme is answered in full only with the cookie
 * the broker gave this address (PROTO_H_COOKIE): a large answer goes
 * only where the asker can receive, so a forged source address cannot
 * turn the broker into an amplifier.
 */
struct proto_list {
	uint8_t		li_what;
	uint8_t		li_has_cookie;
	uint8_t		li_cookie[PROTO_COOKIE_LEN];
};

struct proto_cookie {
	uint8_t		co_cookie[PROTO_COOKIE_LEN];
};

struct proto_job_row {
	uint32_t	jw_job;
	char		jw_user[MSG_NAME_MAX + 1];
	struct msg_addr	jw_addr;	/* the job manager */
	uint32_t	jw_nodes;
	uint32_t	jw_max;
	uint32_t	jw_pri;
	uint32_t	jw_age;		/* seconds */
	char		jw_command[PROTO_COMMAND_MAX];
	uint16_t	jw_cpus;	/* processors a worker takes; 0: 1 */
	uint32_t	jw_mem_mb;	/* memory a worker needs */
	uint8_t		jw_pending;	/* enum proto_pending */
};

/* Why a job has no processor (CilkPs REASON). */
enum proto_pending {
	PROTO_PENDING_NONE = 0,	/* it has some, or has not been looked at */
	PROTO_PENDING_WAITING,	/* every processor that fits is in use */
	PROTO_PENDING_NOFIT,	/* no node lends what one worker takes */
	PROTO_PENDING_AFTER,	/* not registered yet: its job manager waits
				   for CilkRun --after JOB (broker_wait.h);
				   job 0 */
	PROTO_PENDING_MAX
};

struct proto_node_row {
	uint32_t	nw_node;
	struct msg_addr	nw_addr;
	char		nw_host[PROTO_HOST_MAX];
	uint8_t		nw_state;
	uint32_t	nw_job;
	uint32_t	nw_load_milli;
	uint32_t	nw_idle;
	uint16_t	nw_users;
	uint32_t	nw_seen_ms;	/* since its last registration */
	uint32_t	nw_pairs;	/* fair-share requests it sent */
	uint32_t	nw_switches;	/* jobs it switched for fair share */
	uint16_t	nw_running;	/* workers running */
	uint16_t	nw_lent;	/* processors lent */
	uint16_t	nw_total;	/* processors */
	uint32_t	nw_mem_mb;	/* lendable memory, MiB */
	uint8_t		nw_njobs;	/* the jobs of its workers */
	uint32_t	nw_jobs[PROTO_NODE_JOBS_MAX];
	uint8_t		nw_unenforced;	/* nr_unenforced */
};

/* ASSIGN: run this job on that processor, whose manager is there, for
 * this user. */
struct proto_assign {
	uint32_t	as_job;
	uint16_t	as_slot;
	struct msg_addr	as_jobmgr;
	char		as_user[MSG_NAME_MAX + 1];
	uint16_t	as_cpus;	/* processors its worker takes; 0: 1 */
	uint32_t	as_mem_mb;	/* memory it needs, 0: any */
	uint8_t		as_room;	/* 1: stop other jobs' workers on the
					   node to make room for it */
};

/* PUSH rows: every job's node count and every available node. */
struct proto_push_job {
	uint32_t	pj_job;
	uint32_t	pj_count;
	uint32_t	pj_pri;
	uint32_t	pj_max;
	uint16_t	pj_cpus;	/* processors a worker takes; 0: 1 */
	uint32_t	pj_mem_mb;	/* memory a worker needs */
	struct msg_addr	pj_jobmgr;
	char		pj_user[MSG_NAME_MAX + 1];
};

struct proto_push_node {
	uint32_t	pn_node;
	struct msg_addr	pn_addr;
	uint16_t	pn_slots;	/* processors it lends: a peer is
					   drawn in proportion */
};

struct proto_push {
	uint64_t		 pu_epoch;	/* rises with every change */
	uint32_t		 pu_uptime_ms;	/* since the broker started: a
						   job missing from a young
						   broker's push may just not
						   have re-registered yet */
	uint32_t		 pu_njobs;
	struct proto_push_job	*pu_jobs;
	uint32_t		 pu_nnodes;
	struct proto_push_node	*pu_nodes;
};

/*
 * What a job asks of a node whose owner returns, in its signed
 * environment (CilkRun --owner-return): "vacate" (stop the worker, the
 * default) or "suspend=SECONDS" (freeze it, thaw it if the node is idle
 * again within SECONDS, else stop it).  0 for vacate, else the seconds.
 */
#define PROTO_OWNER_RETURN_ENV	"CILKNOW_OWNER_RETURN"
struct proto_desc;
double	proto_owner_return(const struct proto_desc *);
/*
 * Its --cpus (1 if none) and --mem in MiB (0 if none); returns which it
 * asked for (PROTO_NEEDS_*), or -1 if either is malformed.
 */
#define PROTO_NEEDS_CPUS	1
#define PROTO_NEEDS_MEM		2
int	proto_desc_needs(const struct proto_desc *, uint16_t *cpus,
	    uint32_t *mem_mb);

/* DESC_REQ: the description of this job, for a worker on this node. */
struct proto_desc_req {
	uint32_t	dr_job;
	char		dr_node[PROTO_HOST_MAX];
	uint64_t	dr_fetch;	/* this fetch, the same in its retries:
					   another one from the node means it
					   lost what it ran (restarted) */
};

/*
 * A job description, signed by the job's user: a node manager checks
 * the signature against the user's public key before it starts
 * anything as that user, and keeps the signed bytes as its backup.
 */
struct proto_desc {
	uint32_t	 de_job;
	uint32_t	 de_task;	/* this worker's task number */
	char		 de_node[PROTO_HOST_MAX];	/* issued to this
						   worker: HOST or HOST/SLOT */
	char		 de_user[MSG_NAME_MAX + 1];
	char		 de_cwd[PROTO_PATH_MAX];
	uint32_t	 de_pri;
	uint32_t	 de_max;
	uint64_t	 de_issued_ms;	/* realtime when signed */
	uint16_t	 de_argc;
	char		*de_argv[PROTO_ARGS_MAX];
	uint16_t	 de_envc;
	char		*de_env[PROTO_ARGS_MAX];
	struct stage_list de_stage;	/* proto_stage.h */
};

/* OUTPUT: worker output, in order by byte offset, acknowledged. */
enum proto_stream {
	PROTO_STREAM_UNDEF = 0,
	PROTO_STREAM_OUT,
	PROTO_STREAM_ERR,
	PROTO_STREAM_EXIT,	/* offset = the exit status record */
	PROTO_STREAM_STAGE,	/* stage-out records (stage.h) */
	PROTO_STREAM_MAX
};

/*
 * The EXIT record: ou_status, and ou_len > 0 for a worker that never
 * started (ou_data says why).  After the data it carries what the
 * worker used, as the node measured it (CilkLaunchPad(8)): 16 bytes,
 * u64 CPU ms and u64 peak memory KiB, PROTO_USAGE_NONE where not
 * measured (and for one that never started); ou_has_usage says they
 * are there.  An EXIT without them (a node manager older than this)
 * decodes with ou_has_usage 0 and both PROTO_USAGE_NONE; other streams
 * carry none (asked to, the encoder refuses: 0).  For display only: proto_acct_usage() holds them to the
 * maxima below.
 */
#define PROTO_USAGE_NONE	UINT64_MAX
/*
 * The status of an EXIT with data from a worker the node could not start
 * for a reason of its own (the user unknown there, its spool full, a key
 * it lacks): not an exit code, not the program's failure (nodefault.h).
 * Any other status with data is a start the job itself made fail (its
 * working folder, its program missing).
 */
#define PROTO_EXIT_NODE_FAULT	256
#define PROTO_USAGE_CPU_MS_MAX	(1ULL << 40)	/* 34 years of CPU */
#define PROTO_USAGE_RSS_KB_MAX	(1ULL << 36)	/* 64 TiB */
struct proto_output {
	uint32_t	 ou_job;
	uint32_t	 ou_task;
	uint8_t		 ou_stream;
	uint64_t	 ou_offset;
	int32_t		 ou_status;	/* EXIT: >= 0 exit code, < 0 -signal */
	uint16_t	 ou_len;
	const uint8_t	*ou_data;	/* points into the message */
	char		 ou_node[PROTO_HOST_MAX];
	uint8_t		 ou_has_usage;	/* EXIT only, as above */
	uint64_t	 ou_cpu_ms;
	uint64_t	 ou_maxrss_kb;
};

struct proto_output_ack {
	uint32_t	oa_job;
	uint32_t	oa_task;
	uint8_t		oa_stream;
	uint64_t	oa_offset;	/* everything before it arrived */
};
/*
 * On the exit stream the offset is 1 once the exit is counted, and
 * PROTO_EXIT_ACK_MORE when, besides, the job has a task waiting that the
 * node's processor may ask for at once.
 */
#define PROTO_EXIT_ACK_MORE	2

/*
 * PAIR_REQ and PAIR: the fair-share exchange between two node managers
 * (DESIGN.md section 5).  Each says what it runs and that job's count
 * as it last heard it; a node that has just switched says it cannot
 * pair yet.
 */
struct proto_pair {
	uint16_t	pa_slot;	/* the asking processor, echoed */
	uint32_t	pa_job;		/* 0: runs nothing */
	uint32_t	pa_count;	/* nodes of that job, as last heard */
	uint32_t	pa_pri;
	uint32_t	pa_max;
	uint8_t		pa_busy;	/* just switched: no pairing now */
	struct msg_addr	pa_jobmgr;
	char		pa_user[MSG_NAME_MAX + 1];
};

struct proto_error {
	uint16_t	er_handler;	/* of the refused request */
	char		er_reason[PROTO_REASON_MAX];
};

/*
 * Encoders write into buf (cap bytes) and return the length, or 0 if it
 * did not fit.  Decoders return 0, or -1 on any malformed input.
 */
size_t	proto_node_reg_enc(const struct proto_node_reg *, uint8_t *, size_t);
int	proto_node_reg_dec(struct proto_node_reg *, const uint8_t *, size_t);
size_t	proto_ack_enc(const struct proto_ack *, uint8_t *, size_t);
int	proto_ack_dec(struct proto_ack *, const uint8_t *, size_t);
size_t	proto_job_reg_enc(const struct proto_job_reg *, uint8_t *, size_t);
int	proto_job_reg_dec(struct proto_job_reg *, const uint8_t *, size_t);
size_t	proto_job_unreg_enc(const struct proto_job_unreg *, uint8_t *,
	    size_t);
int	proto_job_unreg_dec(struct proto_job_unreg *, const uint8_t *,
	    size_t);
size_t	proto_list_enc(const struct proto_list *, uint8_t *, size_t);
int	proto_list_dec(struct proto_list *, const uint8_t *, size_t);
size_t	proto_cookie_enc(const struct proto_cookie *, uint8_t *, size_t);
int	proto_cookie_dec(struct proto_cookie *, const uint8_t *, size_t);
size_t	proto_jobs_enc(const struct proto_job_row *, uint32_t, uint8_t *,
	    size_t);
/* Rows go into an array the decoder allocates; free it. */
int	proto_jobs_dec(struct proto_job_row **, uint32_t *, const uint8_t *,
	    size_t);
size_t	proto_nodes_enc(const struct proto_node_row *, uint32_t, uint8_t *,
	    size_t);
int	proto_nodes_dec(struct proto_node_row **, uint32_t *,
	    const uint8_t *, size_t);
size_t	proto_assign_enc(const struct proto_assign *, uint8_t *, size_t);
int	proto_assign_dec(struct proto_assign *, const uint8_t *, size_t);
size_t	proto_push_enc(const struct proto_push *, uint8_t *, size_t);
int	proto_push_dec(struct proto_push *, const uint8_t *, size_t);
void	proto_push_free(struct proto_push *);
size_t	proto_desc_req_enc(const struct proto_desc_req *, uint8_t *, size_t);
int	proto_desc_req_dec(struct proto_desc_req *, const uint8_t *, size_t);
/* The description's own bytes (what the user's key signs). */
size_t	proto_desc_enc(const struct proto_desc *, uint8_t *, size_t);
int	proto_desc_dec(struct proto_desc *, const uint8_t *, size_t);
void	proto_desc_free(struct proto_desc *);
/*
 * What a signed description authorises, each in a signing domain of its
 * own: a job's worker (DESC), or a root's restart (ROOT_BACKUP).
 */
enum proto_desc_purpose {
	PROTO_DESC_JOB = 1,
	PROTO_DESC_ROOT
};
/*
 * DESC message: key id, description bytes, Ed25519 signature by key over
 * the purpose's domain and the bytes.  _open verifies against the public
 * key the keyring finds for the description's user and decodes it.
 * Without _for: PROTO_DESC_JOB.
 */
size_t	proto_desc_sign(const struct proto_desc *, const struct msg_key *,
	    uint8_t *, size_t);
size_t	proto_desc_sign_for(const struct proto_desc *,
	    enum proto_desc_purpose, const struct msg_key *, uint8_t *, size_t);
int	proto_desc_open(struct proto_desc *, struct msg_keyring *,
	    double now_mono, const uint8_t *, size_t, char *why, size_t);
int	proto_desc_open_for(struct proto_desc *, enum proto_desc_purpose,
	    struct msg_keyring *, double now_mono, const uint8_t *, size_t,
	    char *why, size_t);
/*
 * proto_desc_munge.c: _seal authorises a description as the keyring
 * can, with the user key or, for a process that speaks with munge,
 * with a MUNGE credential (key id 0).  _open calls _open_munge for such
 * a one, which decodes the credential with the local munged (each once
 * only).  _peek reads one without decoding its credential: for a
 * process that had the description under its user's own credential
 * and passes it to one that checks it.  _is_munge: key id 0.
 */
size_t	proto_desc_seal(const struct proto_desc *, struct msg_keyring *,
	    uint8_t *, size_t);
size_t	proto_desc_seal_for(const struct proto_desc *,
	    enum proto_desc_purpose, struct msg_keyring *, uint8_t *, size_t);
int	proto_desc_open_munge(struct proto_desc *, enum proto_desc_purpose,
	    struct msg_keyring *, const uint8_t *, size_t, char *why, size_t);
int	proto_desc_peek(struct proto_desc *, const uint8_t *, size_t,
	    char *why, size_t);
int	proto_desc_is_munge(const uint8_t *, size_t);
size_t	proto_output_enc(const struct proto_output *, uint8_t *, size_t);
int	proto_output_dec(struct proto_output *, const uint8_t *, size_t);
size_t	proto_output_ack_enc(const struct proto_output_ack *, uint8_t *,
	    size_t);
int	proto_output_ack_dec(struct proto_output_ack *, const uint8_t *,
	    size_t);
size_t	proto_pair_enc(const struct proto_pair *, uint8_t *, size_t);
int	proto_pair_dec(struct proto_pair *, const uint8_t *, size_t);
size_t	proto_error_enc(const struct proto_error *, uint8_t *, size_t);
int	proto_error_dec(struct proto_error *, const uint8_t *, size_t);
/* Answers the request in with PROTO_H_ERROR: refused, and why. */
void	proto_reply_error(struct msg_ep *, const struct msg_in *,
	    const char *why);

/* Addresses in payloads: family, 16 bytes, port. */
void	proto_put_addr(struct wire_w *, const struct msg_addr *);
int	proto_get_addr(struct wire_r *, struct msg_addr *);

#endif
