/*
 * CilkNodeManager's privileged parent (DESIGN.md §9): it keeps the keys
 * it loaded, the cgroups and the launch pads, and nothing that reads the
 * network.  The engine (everything else, as the service user) asks it
 * over a socketpair, in nmpriv messages, to start, stop, freeze and
 * forget workers.  It obeys only what it can check itself: a worker is
 * started from a job description whose signature by the job's user the
 * parent verifies, with the priority, limits and cgroup the parent
 * chooses; a malformed message ends the engine, a request about a
 * worker it does not know is answered "gone".
 *
 * Each launch pad is held by one open control connection: the launch
 * pad pushes the worker's exit on it, and its end (EOF) means the launch
 * pad is gone, so the parent kills the worker's processes itself.  A
 * launch pad that does not answer a request within PAD_ANSWER seconds,
 * or a worker still there PAD_HARD seconds after its stop was due, is
 * dealt with the same way: nothing the job can reach decides whether
 * the owner gets the machine back.
 */
#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "contain.h"
#include "log.h"
#include "lpad.h"
#include "mono.h"
#include "nmpriv.h"
#include "node.h"
#include "msg_keyring.h"
#include "pred_auth.h"
#include "priv.h"
#include "seqq.h"
#include "vacate.h"

#define PAD_ANSWER	1.0	/* s a launch pad has to answer */
/*
 * s a new launch pad has for its first answer: on a loaded machine it
 * may start slowly, and a worker killed for that runs its task again,
 * its output twice (CilkRun(1)); a stop asks with PAD_ANSWER.
 */
#define PAD_FIRST_ANSWER 10.0
#define PAD_HARD	2.0	/* s past a stop's SIGKILL: ours */
#define PAD_TICK	0.1	/* s between deadline checks, while one is due */
#define PAD_LEAVE	30.0	/* s a forgotten launch pad has to end */
#define PAD_REAP	5.0	/* s for a killed cgroup to empty */

struct pad {
	TAILQ_ENTRY(pad) p_entry;
	char		 p_worker[LPAD_WORKER_MAX + 1];
	uint8_t		 p_kind;
	uint32_t	 p_job, p_task;
	char		 p_user[LPAD_USER_MAX + 1];
	pid_t		 p_lpad;
	pid_t		 p_pgid;
	char		 p_cg[PATH_MAX];
	int		 p_fd;		/* control connection, or -1 */
	uint8_t		 p_state;	/* enum nmpriv_wstate */
	uint8_t		 p_how;
	uint32_t	 p_code;
	uint64_t	 p_cpu_ms;	/* exited: its launch pad's figures */
	uint64_t	 p_maxrss_kb;
	double		 p_answer_by;	/* a request is unanswered; 0: none */
	double		 p_gone_by;	/* stopping: gone by then; 0: not */
	int		 p_spawning;	/* SPAWNED not yet told */
	uint32_t	 p_req;		/* the engine's SPAWN */
	struct lpad_start *p_start;	/* its launch pad is starting */
	int		 p_start_fd;	/* its report, in the loop; -1 */
	char		 p_skipped[64];	/* limits not enforced */
	double		 p_reap_by;	/* never started: its cgroup's end */
	int		 p_adopting;	/* its first answer after our restart */
	double		 p_leave_by;	/* forgotten: ended by then; 0: not */
	struct vacate	 p_vac;		/* VACATE: freeze, kill (freeze.c) */
};

static TAILQ_HEAD(, pad) pads = TAILQ_HEAD_INITIALIZER(pads);
static struct node	*pn;		/* the node's configuration */
static int		 orphans_due;	/* end_orphans() waits for a start */
static int		 hello_due;	/* HELLO waits for late adoptions */
static struct evtimer	*pad_timer;	/* armed while a deadline is due */

static void	pad_read(struct evloop *, int, short, void *);
static void	pad_leave_step(struct pad *, double);
static int	pad_attach_sync(struct pad *);
static void	pad_arm(void);
static void	hello(void);
static int	pad_starting(struct pad *);
static void	end_orphans(void);

/*
 * Never blocks (priv's queue): an engine that stops reading cannot stop
 * us from policing its workers.  One that leaves PRIV_QUEUE_MAX bytes
 * unread is ended (the service restarts both; launch pads are adopted).
 */
static void
tell(const struct nmpriv_msg *m)
{
	struct priv_chan *pc = &pn->n_dc.dc_chan;

	if (nmpriv_send(pc, m) == 0)
		return;
	if (errno == EOVERFLOW) {
		log_warnx("the engine leaves %zu bytes of news unread; "
		    "ending it", seqq_waiting(pc->pc_q));
		(void)kill(pc->pc_peer, SIGKILL);
	} else if (errno == EINVAL)
		log_warnx("%s: cannot encode %s", __func__,
		    nmpriv_type_name(m->nm_type));
	else
		log_warn("%s: %s to the engine", __func__,
		    nmpriv_type_name(m->nm_type));
}

static void
tell_worker(const struct pad *p)
{
	struct nmpriv_msg m;

	if (p->p_spawning)
		return;
	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_WORKER;
	strlcpy(m.nm_worker, p->p_worker, sizeof(m.nm_worker));
	m.nm_kind = p->p_kind;
	m.nm_job = p->p_job;
	m.nm_task = p->p_task;
	strlcpy(m.nm_user, p->p_user, sizeof(m.nm_user));
	m.nm_lpad = (uint32_t)p->p_lpad;
	m.nm_state = p->p_state;
	m.nm_how = p->p_how;
	m.nm_code = p->p_code;
	m.nm_cpu_ms = m.nm_maxrss_kb = LPAD_USAGE_NONE;
	if (p->p_state == NMPRIV_W_EXITED) {
		m.nm_cpu_ms = p->p_cpu_ms;
		m.nm_maxrss_kb = p->p_maxrss_kb;
	}
	tell(&m);
}

/* One the engine knows of: started, not starting or being reaped. */
static struct pad *
pad_find(const char *worker)
{
	struct pad *p;

	TAILQ_FOREACH(p, &pads, p_entry)
		if (p->p_start == NULL && p->p_reap_by == 0 &&
		    p->p_leave_by == 0 && !p->p_adopting &&
		    strcmp(p->p_worker, worker) == 0)
			return p;
	return NULL;
}

static void
pad_close(struct pad *p)
{
	if (p->p_fd == -1)
		return;
	evloop_del_fd(pn->n_dc.dc_loop, p->p_fd);
	close(p->p_fd);
	p->p_fd = -1;
}

static int
pad_send(struct pad *p, const struct lpad_msg *req)
{
	uint8_t buf[LPAD_MSG_LEN];
	size_t len;

	if (p->p_fd == -1 || lpad_msg_encode(req, buf, sizeof(buf),
	    &len) == -1 || send(p->p_fd, buf, len, MSG_NOSIGNAL |
	    MSG_DONTWAIT) == -1)
		return -1;
	return 0;
}

/*
 * Every process of the worker, killed by us: its cgroup, else the
 * launch pad's descendants and the worker's process group.
 */
static void
pad_kill(struct pad *p, const char *why)
{
	int n;

	log_warnx("worker %s: %s: killing its processes ourselves",
	    p->p_worker, why);
	n = contain_kill(p->p_cg, p->p_lpad);
	if (p->p_pgid > 1)
		(void)kill(-p->p_pgid, SIGKILL);
	if (n == -1)
		log_warn("%s: worker %s", __func__, p->p_worker);
}

/* The worker is over, whatever its launch pad says or does now. */
static void
pad_exited(struct pad *p, uint8_t how, uint32_t code)
{
	if (p->p_state == NMPRIV_W_EXITED)
		return;
	p->p_state = NMPRIV_W_EXITED;
	p->p_how = how;
	p->p_code = code;
	p->p_answer_by = p->p_gone_by = 0;
	vacate_clear(&p->p_vac);
	tell_worker(p);
}

/* The launch pad is gone or will not answer: nothing of it stays. */
static void
pad_lost(struct pad *p, const char *why)
{
	pad_close(p);
	if (p->p_adopting) {
		/*
		 * Never told to the engine: its processes, its launch pad
		 * and its folder go, and its cgroup once empty (pad_reaped).
		 * Its job runs the task again.
		 */
		pad_kill(p, why);
		if (p->p_lpad > 1 && kill(p->p_lpad, SIGKILL) == 0)
			log_info("worker %s: launch pad %d killed",
			    p->p_worker, (int)p->p_lpad);
		if (lpad_remove_folder(pn->n_state_dir, p->p_worker) == -1 &&
		    errno != ENOENT)
			log_warn("worker %s: its folder", p->p_worker);
		p->p_adopting = 0;
		p->p_answer_by = 0;
		p->p_reap_by = now_mono() + PAD_REAP;
		pad_arm();
		hello();
		return;
	}
	if (p->p_state != NMPRIV_W_EXITED) {
		pad_kill(p, why);
		if (p->p_lpad > 1 && kill(p->p_lpad, SIGKILL) == 0)
			log_info("worker %s: launch pad %d killed",
			    p->p_worker, (int)p->p_lpad);
		p->p_cpu_ms = p->p_maxrss_kb = LPAD_USAGE_NONE;
		pad_exited(p, LPAD_HOW_SIGNAL, SIGKILL);
	}
	if (p->p_cg[0] != '\0' && contain_count(p->p_cg, 0) == 0)
		(void)contain_remove(p->p_cg);
}

/* What an adopted worker's launch pad says of it, ours now. */
static void
pad_take(struct pad *p, const struct lpad_status *st)
{
	p->p_kind = p->p_worker[0] == 'r' ? NMPRIV_KIND_ROOT :
	    NMPRIV_KIND_WORKER;
	p->p_job = st->st_job;
	p->p_task = st->st_task;
	strlcpy(p->p_user, st->st_user, sizeof(p->p_user));
	p->p_lpad = (pid_t)st->st_lpad_pid;
	p->p_pgid = (pid_t)st->st_pgid;
	p->p_state = NMPRIV_W_RUNNING;
	if (st->st_state == LPAD_STATE_EXITED) {
		p->p_state = NMPRIV_W_EXITED;
		p->p_how = st->st_how;
		p->p_code = st->st_code;
		p->p_cpu_ms = st->st_cpu_ms;
		p->p_maxrss_kb = st->st_maxrss_kb;
	} else if (contain_frozen(p->p_cg) == 1)
		p->p_state = NMPRIV_W_FROZEN;
}

static void
pad_status(struct pad *p, const struct lpad_status *st)
{
	if (p->p_adopting) {
		p->p_adopting = 0;
		pad_take(p, st);
		log_info("adopted worker %s of job %u (%s) at its second asking",
		    p->p_worker, p->p_job, p->p_state == NMPRIV_W_EXITED ?
		    "exited" : "running");
		tell_worker(p);
		hello();
		return;
	}
	p->p_pgid = (pid_t)st->st_pgid;
	p->p_cpu_ms = st->st_cpu_ms;
	p->p_maxrss_kb = st->st_maxrss_kb;
	if (st->st_state == LPAD_STATE_EXITED)
		pad_exited(p, st->st_how, st->st_code);
}

static void
pad_read(struct evloop *loop, int fd, short revents, void *arg)
{
	struct pad *p = arg;
	uint8_t buf[LPAD_MSG_LEN + 1];
	struct lpad_msg m;
	ssize_t n;

	(void)loop;
	(void)fd;
	(void)revents;
	n = recv(p->p_fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (p->p_leave_by != 0) {	/* forgotten: only its end counts */
		if (n <= 0) {
			pad_close(p);
			pad_leave_step(p, now_mono());
		}
		return;
	}
	if (n <= 0) {
		pad_lost(p, "its launch pad is gone");
		return;
	}
	if ((size_t)n > LPAD_MSG_LEN ||
	    lpad_msg_decode(&m, buf, (size_t)n) == -1) {
		pad_lost(p, "its launch pad sent a malformed message");
		return;
	}
	/* Adopting, only its status is the answer awaited. */
	if (m.lm_type == LPAD_MSG_STATUS_REPLY || !p->p_adopting)
		p->p_answer_by = 0;
	if (m.lm_type == LPAD_MSG_STATUS_REPLY)
		pad_status(p, &m.lm_status);
}

/*
 * An adopted launch pad's pid before it says it: the kernel's word
 * (SO_PEERCRED of its socket, set when it listened), so that one that
 * never answers can still be ended.
 */
static void
pad_peer(struct pad *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (p->p_lpad <= 1 && getsockopt(p->p_fd, SOL_SOCKET, SO_PEERCRED,
	    &cred, &len) == 0 && len == sizeof(cred) && cred.pid > 1)
		p->p_lpad = cred.pid;
}

/* Holds the launch pad by a connection, and asks how the worker is. */
static int
pad_attach(struct pad *p)
{
	struct lpad_msg req;

	if ((p->p_fd = lpad_connect(pn->n_run_dir, p->p_worker)) == -1)
		return -1;
	pad_peer(p);
	if (fcntl(p->p_fd, F_SETFL, O_NONBLOCK) == -1 ||
	    evloop_add_fd(pn->n_dc.dc_loop, p->p_fd, POLLIN, pad_read,
	    p) == -1) {
		close(p->p_fd);
		p->p_fd = -1;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.lm_type = LPAD_MSG_STATUS;
	if (pad_send(p, &req) == -1)
		return -1;
	p->p_answer_by = now_mono() + PAD_FIRST_ANSWER;
	pad_arm();
	return 0;
}

/* A worker that never started: its cgroup goes once empty. */
static void
pad_reaped(struct pad *p, double now)
{
	int left = contain_count(p->p_cg, 0);

	if (left > 0 && now < p->p_reap_by)
		return;
	if (left > 0)
		log_warnx("worker %s: %d processes left in %s after it was "
		    "killed", p->p_worker, left, p->p_cg);
	else if (contain_remove(p->p_cg) == -1)
		log_warn("worker %s: remove its cgroup", p->p_worker);
	TAILQ_REMOVE(&pads, p, p_entry);
	free(p);
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct pad *p, *next;
	double now = now_mono();

	(void)loop;
	(void)arg;
	pad_timer = NULL;
	TAILQ_FOREACH_SAFE(p, &pads, p_entry, next) {
		if (p->p_start != NULL) {
			/* Its exit, if its SIGCHLD came before its last word. */
			if (p->p_start->lst_eof ||
			    now > p->p_start->lst_deadline)
				pad_starting(p);
			continue;
		}
		if (p->p_reap_by != 0) {
			pad_reaped(p, now);
			continue;
		}
		if (p->p_leave_by != 0) {
			pad_leave_step(p, now);
			continue;
		}
		if (p->p_answer_by != 0 && now > p->p_answer_by)
			pad_lost(p, "its launch pad did not answer");
		else if (p->p_gone_by != 0 && now > p->p_gone_by &&
		    p->p_state != NMPRIV_W_EXITED) {
			p->p_gone_by = 0;
			pad_kill(p, "still there after its stop");
		} else if (p->p_state != NMPRIV_W_EXITED &&
		    vacate_pending(&p->p_vac))
			(void)node_vacate_step(&p->p_vac, p->p_worker,
			    p->p_cg, p->p_lpad);
	}
	if (orphans_due)
		end_orphans();
	pad_arm();
}

/*
 * Deadlines are looked at only while one is due: an idle node's parent
 * sleeps until a message or a signal comes (CilkNodeManager(8)).
 */
static void
pad_arm(void)
{
	struct pad *p;

	if (pad_timer != NULL)
		return;
	TAILQ_FOREACH(p, &pads, p_entry)
		if (p->p_start != NULL || p->p_reap_by != 0 ||
		    p->p_leave_by != 0 || p->p_answer_by != 0 ||
		    ((p->p_gone_by != 0 ||
		    vacate_pending(&p->p_vac)) &&
		    p->p_state != NMPRIV_W_EXITED)) {
			pad_timer = evloop_timer_add(pn->n_dc.dc_loop,
			    PAD_TICK, on_tick, NULL);
			return;
		}
}

/* 1 if user is one of this node's owners. */
static int
is_owner(const char *user)
{
	return pred_auth_listed(conf_get(pn->n_dc.dc_conf, "owners"), user);
}

/* worker_nice as a number from 0 to 19, or -1 if it is not one. */
int
node_guest_nice(const struct conf *cf)
{
	const char *text = conf_get(cf, "worker_nice");
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < 0 || v > 19)
		return -1;
	return (int)v;
}

/* The launch pad's spec: what the user signed, and what we decide. */
static int
build_spec(struct lpad_spec *sp, const struct proto_desc *d, uint8_t kind,
    const char *worker, const char *cg)
{
	struct passwd *pw;
	uint16_t i;
	int guest = kind == NMPRIV_KIND_WORKER || !is_owner(d->de_user);
	int nice;

	strlcpy(sp->ls_worker, worker, sizeof(sp->ls_worker));
	sp->ls_job = d->de_job;
	sp->ls_task = d->de_task;
	strlcpy(sp->ls_node, pn->n_name, sizeof(sp->ls_node));
	strlcpy(sp->ls_user, d->de_user, sizeof(sp->ls_user));
	strlcpy(sp->ls_cwd, d->de_cwd, sizeof(sp->ls_cwd));
	strlcpy(sp->ls_cgroup, cg, sizeof(sp->ls_cgroup));
	/*
	 * A guest's output is relayed by the engine (its group reads it);
	 * a restarted root's stays in its folder for its user to read.
	 */
	sp->ls_log_gid = pn->n_log_gid;
	if (kind == NMPRIV_KIND_ROOT) {
		if ((pw = getpwnam(d->de_user)) == NULL)
			return -1;
		sp->ls_log_gid = pw->pw_gid;
	}
	/*
	 * The owner comes first: a guest at worker_nice (19, checked at
	 * start and reload; the lowest priority if it is bad all the same),
	 * SCHED_IDLE.
	 */
	nice = node_guest_nice(pn->n_dc.dc_conf);
	sp->ls_nice = !guest ? 0 : nice == -1 ? 19 : nice;
	sp->ls_sched = guest && strcmp(conf_get(pn->n_dc.dc_conf,
	    "worker_sched_idle"), "no") != 0 ? LPAD_SCHED_IDLE :
	    LPAD_SCHED_NICE;
	sp->ls_allow_root = strcmp(conf_get(pn->n_dc.dc_conf,
	    "allow_root_jobs"), "yes") == 0;
	for (i = 0; i < d->de_argc; i++)
		if (lpad_spec_add_arg(sp, d->de_argv[i]) == -1)
			return -1;
	for (i = 0; i < d->de_envc; i++)
		if (lpad_spec_add_env(sp, d->de_env[i]) == -1)
			return -1;
	/* Last, so that it wins: where the clearinghouse asks about us. */
	if (kind == NMPRIV_KIND_WORKER) {
		const char *l = conf_get(pn->n_dc.dc_conf, "listen");
		char env[PROTO_HOST_MAX + 64];

		snprintf(env, sizeof(env), "CILKNOW_NODE_MANAGER=%s",
		    *l != '\0' ? l : "0.0.0.0");
		if (lpad_spec_add_env(sp, env) == -1)
			return -1;
	}
	return 0;
}

/* A worker id that was never used here: the job and 48 random bits. */
static void
new_worker_id(const struct nmpriv_msg *req, const struct proto_desc *d,
    char *id, size_t idsz)
{
	uint8_t r[6];

	randombytes_buf(r, sizeof(r));
	if (req->nm_kind == NMPRIV_KIND_ROOT && req->nm_tag[0] != '\0')
		snprintf(id, idsz, "%.17s-%02x%02x%02x", req->nm_tag, r[0],
		    r[1], r[2]);
	else
		snprintf(id, idsz, "j%u-%02x%02x%02x%02x%02x%02x", d->de_job,
		    r[0], r[1], r[2], r[3], r[4], r[5]);
}

/*
 * Checks what only the user can authorise, ourselves: the signature
 * against the user's key in the domain of the kind asked for (a job's
 * description never passes for a root's backup), and that it was
 * issued to this node, recently (pbind.c): a description the engine
 * kept cannot start the job again later, or elsewhere.
 */
static int
check_desc(const struct nmpriv_msg *req, struct proto_desc *d, char *why,
    size_t whylen)
{
	int root = req->nm_kind == NMPRIV_KIND_ROOT;

	if (proto_desc_open_for(d, root ? PROTO_DESC_ROOT : PROTO_DESC_JOB,
	    pn->n_dc.dc_keys, now_mono(), req->nm_desc, req->nm_desclen, why,
	    whylen) == -1)
		return -1;
	if (node_desc_bound(pn, d, root, why, whylen) == -1) {
		proto_desc_free(d);
		return -1;
	}
	if (!pn->n_root && strcmp(d->de_user, pn->n_self) != 0) {
		snprintf(why, whylen, "user %s: this node manager runs as %s, "
		    "not root", d->de_user, pn->n_self);
		proto_desc_free(d);
		return -1;
	}
	return 0;
}

/*
 * The configured limits, and what the task asked for (CilkRun --cpus,
 * --mem): it is held to that many processors and that much memory,
 * never more than the node's own limit.
 */
static int
worker_limits(const struct proto_desc *d, struct contain_limits *lim,
    char *why, size_t whylen)
{
	uint64_t mem;
	uint32_t mem_mb;
	uint16_t cpus;
	int asked;

	*lim = pn->n_limits;
	if ((asked = proto_desc_needs(d, &cpus, &mem_mb)) == -1) {
		snprintf(why, whylen, "malformed %s or %s", PROTO_CPUS_ENV,
		    PROTO_MEM_ENV);
		return -1;
	}
	mem = (uint64_t)mem_mb << 20;
	if (mem != 0 && (lim->cl_memory_max == 0 || mem < lim->cl_memory_max))
		lim->cl_memory_max = mem;
	if (lim->cl_memory_high > lim->cl_memory_max &&
	    lim->cl_memory_max != 0)
		lim->cl_memory_high = 0;
	if (asked & PROTO_NEEDS_CPUS)
		lim->cl_cpu_max = cpus;
	return 0;
}

/* SPAWNED, refused: fault says whose (the node's, or the job's). */
static void
tell_refused(uint32_t req, int node_fault, const char *why)
{
	struct nmpriv_msg rep;

	memset(&rep, 0, sizeof(rep));
	rep.nm_type = NMPRIV_SPAWNED;
	rep.nm_req = req;
	rep.nm_flag = node_fault ? NMPRIV_SPAWN_NODE : 0;
	strlcpy(rep.nm_why, why, sizeof(rep.nm_why));
	tell(&rep);
}

/*
 * A worker that did not start: what is in its cgroup (a launch pad that
 * ended during its start may have exec'd the worker already, and a
 * worker may kill its launch pad at once) is killed, and the cgroup
 * removed once empty, from the tick (cgroup.kill is not waited for).
 */
static void
spawn_undo(struct pad *p)
{
	if (p->p_cg[0] == '\0' || contain_count(p->p_cg, 0) == 0) {
		if (p->p_cg[0] != '\0' && contain_remove(p->p_cg) == -1)
			log_warn("worker %s: remove its cgroup", p->p_worker);
		free(p);
		return;
	}
	if (contain_kill(p->p_cg, 0) == -1)
		log_warn("worker %s: kill its cgroup", p->p_worker);
	else
		log_warnx("worker %s: its launch pad ended during its start: "
		    "what it started is killed", p->p_worker);
	p->p_reap_by = now_mono() + PAD_REAP;
	TAILQ_INSERT_TAIL(&pads, p, p_entry);
	pad_arm();
}

/* The launch pad is up, or failed to come up (pad_starting). */
static void
spawn_done(struct pad *p, int rc, const char *why)
{
	struct nmpriv_msg rep;

	free(p->p_start);
	p->p_start = NULL;
	TAILQ_REMOVE(&pads, p, p_entry);
	if (rc == -1) {
		log_warnx("job %u: worker not started: %s", p->p_job, why);
		tell_refused(p->p_req, 1, why);	/* the node's */
		spawn_undo(p);
		return;
	}
	p->p_state = NMPRIV_W_RUNNING;
	TAILQ_INSERT_TAIL(&pads, p, p_entry);
	/* Its news waits for SPAWNED: the engine learns of it first. */
	p->p_spawning = 1;
	if (pad_attach(p) == -1)
		pad_lost(p, "no connection to its launch pad");
	/* Limits it asked for that cannot be applied here: a warning. */
	(p->p_skipped[0] ? log_warning : log_info)("job %u task %u of %s: "
	    "worker %s started (launch pad %d%s%s)", p->p_job, p->p_task,
	    p->p_user, p->p_worker, (int)p->p_lpad,
	    p->p_skipped[0] ? "; limits not enforced here: " : "",
	    p->p_skipped);
	memset(&rep, 0, sizeof(rep));
	rep.nm_type = NMPRIV_SPAWNED;
	rep.nm_req = p->p_req;
	rep.nm_flag = 1;
	strlcpy(rep.nm_worker, p->p_worker, sizeof(rep.nm_worker));
	rep.nm_lpad = (uint32_t)p->p_lpad;
	tell(&rep);
	p->p_spawning = 0;
	if (p->p_state == NMPRIV_W_EXITED)
		tell_worker(p);
}

static void
unwatch_start(struct pad *p)
{
	if (p->p_start_fd == -1)
		return;
	(void)evloop_del_fd(pn->n_dc.dc_loop, p->p_start_fd);
	p->p_start_fd = -1;
}

/*
 * Its report came, or a child ended, or the tick: has it started?  1
 * while it is still starting; 0 once it is done, and p may be freed.
 */
static int
pad_starting(struct pad *p)
{
	char why[512];
	pid_t lpid;
	int rc;

	if ((rc = lpad_spawn_poll(p->p_start, &lpid, why,
	    sizeof(why))) == 1)
		return 1;
	/* Its report is closed: out of the loop before anything reuses it. */
	unwatch_start(p);
	if (rc == 0)
		p->p_lpad = lpid;
	spawn_done(p, rc, why);
	return 0;
}

static void
on_start_report(struct evloop *loop, int fd, short revents, void *arg)
{
	struct pad *p = arg;

	(void)loop;
	(void)fd;
	(void)revents;
	/* All said: its exit comes with SIGCHLD (on_child). */
	if (pad_starting(p) == 1 && p->p_start->lst_eof)
		unwatch_start(p);
}

/*
 * Starts a worker as the engine asks, if the description allows it:
 * its launch pad comes up in the background, and SPAWNED says how it
 * went; nothing here waits.
 */
static void
do_spawn(const struct nmpriv_msg *req)
{
	struct lpad_spec sp;
	struct lpad_paths pp;
	struct proto_desc d;
	struct contain_limits lim;
	struct pad *p = NULL;
	char why[512];
	int node_fault = 1;	/* a refusal is the node's, unless said */

	lpad_spec_init(&sp);
	if (check_desc(req, &d, why, sizeof(why)) == -1) {
		log_warnx("refusing to start a worker: %s", why);
		goto refuse;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->p_start = calloc(1, sizeof(*p->p_start))) == NULL) {
		snprintf(why, sizeof(why), "out of memory");
		goto refuse_desc;
	}
	p->p_fd = -1;
	p->p_req = req->nm_req;
	p->p_kind = req->nm_kind;
	p->p_job = d.de_job;
	p->p_task = d.de_task;
	strlcpy(p->p_user, d.de_user, sizeof(p->p_user));
	new_worker_id(req, &d, p->p_worker, sizeof(p->p_worker));
	if (node_start_check(pn, d.de_user, why, sizeof(why)) == -1)
		goto refuse_desc;
	node_fault = 0;		/* what the job asks, below */
	if (worker_limits(&d, &lim, why, sizeof(why)) == -1)
		goto refuse_desc;
	node_fault = 1;
	if (contain_worker_create(&pn->n_cb, p->p_worker, &lim,
	    p->p_cg, sizeof(p->p_cg), p->p_skipped,
	    sizeof(p->p_skipped)) == -1) {
		snprintf(why, sizeof(why), "cgroup for worker %s: %s",
		    p->p_worker, strerror(errno));
		goto refuse_desc;
	}
	node_fault = 0;		/* its argv, environment and files */
	if (build_spec(&sp, &d, req->nm_kind, p->p_worker, p->p_cg) == -1) {
		snprintf(why, sizeof(why), "argv or environment refused");
		goto refuse_cg;
	}
	if (node_stage_spec(pn, &sp, &d, req->nm_kind == NMPRIV_KIND_WORKER ?
	    req->nm_tag : "", p->p_worker, why, sizeof(why)) == -1)
		goto refuse_cg;
	node_fault = 1;		/* a launch pad that does not come up */
	memset(&pp, 0, sizeof(pp));
	pp.lpp_run_dir = pn->n_run_dir;
	pp.lpp_state_dir = pn->n_state_dir;
	pp.lpp_conf = pn->n_dc.dc_args.da_cc.cc_conf_path;
	pp.lpp_linger = -1;
	pp.lpp_verbose = pn->n_dc.dc_args.da_cc.cc_verbose;
	if (lpad_spawn_begin(p->p_start, &sp, &pp, pn->n_lpad_bin, why,
	    sizeof(why)) == -1)
		goto refuse_cg;
	if (evloop_add_fd(pn->n_dc.dc_loop, p->p_start->lst_fd, POLLIN,
	    on_start_report, p) == -1) {
		p->p_start_fd = -1;
		snprintf(why, sizeof(why), "event loop: %s", strerror(errno));
		lpad_spawn_abort(p->p_start);
		goto refuse_cg;
	}
	p->p_start_fd = p->p_start->lst_fd;
	p->p_spawning = 1;
	TAILQ_INSERT_TAIL(&pads, p, p_entry);
	pad_arm();		/* its deadline */
	lpad_spec_clear(&sp);
	proto_desc_free(&d);
	return;
 refuse_cg:
	log_warnx("job %u: worker not started: %s", d.de_job, why);
	proto_desc_free(&d);
	lpad_spec_clear(&sp);
	free(p->p_start);
	p->p_start = NULL;
	tell_refused(req->nm_req, node_fault, why);
	spawn_undo(p);
	return;
 refuse_desc:
	log_warnx("job %u: worker not started: %s", d.de_job, why);
	proto_desc_free(&d);
 refuse:
	if (p != NULL)
		free(p->p_start);
	free(p);
	lpad_spec_clear(&sp);
	tell_refused(req->nm_req, node_fault, why);
}

static void
do_stop(struct pad *p, uint32_t grace_ms)
{
	struct lpad_msg req;

	if (p->p_state == NMPRIV_W_EXITED)
		return;
	memset(&req, 0, sizeof(req));
	req.lm_type = LPAD_MSG_STOP;
	req.lm_grace_ms = grace_ms;
	/* A frozen worker could not act on SIGQUIT. */
	if (p->p_state == NMPRIV_W_FROZEN)
		(void)contain_freeze(p->p_cg, p->p_lpad, 0);
	p->p_state = NMPRIV_W_RUNNING;
	if (pad_send(p, &req) == -1) {
		pad_lost(p, "its launch pad cannot be reached");
		return;
	}
	p->p_answer_by = now_mono() + PAD_ANSWER;
	p->p_gone_by = now_mono() + 2 * grace_ms / 1000.0 + PAD_HARD;
	pad_arm();
}

/* The owner is back: a stop, and a freeze if it lingers (freeze.c). */
static void
do_vacate(struct pad *p, uint32_t grace_ms, uint32_t fast_ms)
{
	do_stop(p, grace_ms);
	if (p->p_state == NMPRIV_W_EXITED || p->p_fd == -1 ||
	    !node_vacate_plan(&p->p_vac, p->p_worker, grace_ms / 1000.0,
	    fast_ms / 1000.0))
		return;
	p->p_gone_by = now_mono() + grace_ms / 1000.0 + PAD_HARD;
	pad_arm();
}

static void
do_freeze(struct pad *p, int freeze)
{
	if (p->p_state == NMPRIV_W_EXITED)
		return;
	if (contain_freeze(p->p_cg, p->p_lpad, freeze) == -1) {
		log_warn("worker %s: %s", p->p_worker, freeze ? "freeze" :
		    "thaw");
		return;
	}
	p->p_state = freeze ? NMPRIV_W_FROZEN : NMPRIV_W_RUNNING;
	log_info("worker %s %s", p->p_worker, freeze ? "frozen" : "thawed");
	tell_worker(p);
}

/*
 * 1 once a forgotten launch pad has ended: reaped here, or not (or no
 * longer) our child and its connection closed; 0 while it runs.
 */
static int
pad_ended(struct pad *p, int *ours)
{
	int status;
	pid_t r;

	*ours = 0;
	if (p->p_lpad <= 1)
		return p->p_fd == -1;
	while ((r = waitpid(p->p_lpad, &status, WNOHANG)) == -1 &&
	    errno == EINTR)
		;
	if (r == 0)
		*ours = 1;
	return r == p->p_lpad || (r == -1 && p->p_fd == -1);
}

/*
 * A forgotten worker's launch pad stays ours until it has ended: we are
 * its subreaper, and end_orphans kills a child of ours nobody knows,
 * even one still removing its worker's folder.  Once it has ended (or
 * PAD_LEAVE is over), what it should have taken along goes.
 */
static void
pad_leave_step(struct pad *p, double now)
{
	int ours;

	if (!pad_ended(p, &ours)) {
		if (now <= p->p_leave_by)
			return;
		if (ours) {
			log_warnx("worker %s: its launch pad %d did not end "
			    "within %.0f s of being forgotten; killed",
			    p->p_worker, (int)p->p_lpad, PAD_LEAVE);
			(void)kill(p->p_lpad, SIGKILL);
		}
	}
	pad_close(p);
	if (p->p_kind == NMPRIV_KIND_WORKER) {
		if (lpad_remove_folder(pn->n_state_dir, p->p_worker) == 0)
			log_warnx("worker %s: its launch pad left its folder; "
			    "removed", p->p_worker);
		else if (errno != ENOENT)
			log_warn("worker %s: its folder", p->p_worker);
	}
	TAILQ_REMOVE(&pads, p, p_entry);
	if (p->p_kind == NMPRIV_KIND_ROOT)
		node_reap_roots(pn);
	free(p);
}

static void
do_forget(struct pad *p)
{
	struct lpad_msg req;

	memset(&req, 0, sizeof(req));
	req.lm_type = LPAD_MSG_QUIT;
	if (p->p_state != NMPRIV_W_EXITED)
		pad_lost(p, "forgotten while it ran");
	/*
	 * A worker's launch pad takes its folder along; a restarted
	 * root's ends and leaves its folder for its user, a few a user
	 * (reap.c).  Either is awaited (its connection's end, pad_read).
	 */
	if (p->p_kind == NMPRIV_KIND_ROOT && p->p_lpad > 1 &&
	    kill(p->p_lpad, SIGTERM) == -1 && errno != ESRCH)
		log_warn("worker %s: end its launch pad", p->p_worker);
	if (p->p_kind == NMPRIV_KIND_WORKER && pad_send(p, &req) == -1)
		pad_close(p);	/* gone already: its folder is ours */
	p->p_answer_by = 0;
	p->p_leave_by = now_mono() + PAD_LEAVE;
	pad_leave_step(p, now_mono());
	pad_arm();
}

/*
 * A request about a worker we do not know: its launch pad went and we
 * forgot it while the engine still asked (the two cross).  Not the
 * engine's fault: it hears that the worker is gone, so that it forgets
 * it too; a FORGET needs no answer (or the two would echo forever).
 */
static void
unknown_worker(const struct nmpriv_msg *req)
{
	static struct log_rate said = LOG_RATE_DEFAULT;
	static unsigned long unknown;
	struct nmpriv_msg m;

	unknown++;
	if (log_rate(&said, now_mono(), "requests about gone workers"))
		log_info("the engine asked to %s worker %s, which is gone; "
		    "told so (%lu such requests)", nmpriv_type_name(
		    req->nm_type), req->nm_worker, unknown);
	if (req->nm_type == NMPRIV_FORGET)
		return;
	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_WORKER;
	strlcpy(m.nm_worker, req->nm_worker, sizeof(m.nm_worker));
	m.nm_kind = req->nm_worker[0] == 'r' ? NMPRIV_KIND_ROOT :
	    NMPRIV_KIND_WORKER;
	m.nm_state = NMPRIV_W_EXITED;
	m.nm_how = LPAD_HOW_SIGNAL;
	m.nm_code = SIGKILL;
	m.nm_cpu_ms = m.nm_maxrss_kb = LPAD_USAGE_NONE;
	tell(&m);
}

/* What the sensors measure now, to the engine (req 0: unasked). */
static void
tell_meas(uint32_t req)
{
	static struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_MEAS;
	m.nm_req = req;
	m.nm_flag = node_measure(pn, &m.nm_meas, m.nm_why,
	    sizeof(m.nm_why)) == 0;
	tell(&m);
}

/* What a process is, as the engine asked (PIDQ). */
static void
tell_pid(const struct nmpriv_msg *q)
{
	static struct nmpriv_msg a;
	pid_t lpads[64];
	struct pad *p;
	size_t k = 0;

	/* Guests' launch pads: a root we restarted is no guest. */
	TAILQ_FOREACH(p, &pads, p_entry)
		if (p->p_kind == NMPRIV_KIND_WORKER && p->p_lpad > 1 &&
		    k < sizeof(lpads) / sizeof(lpads[0]))
			lpads[k++] = p->p_lpad;
	node_pid_answer(pn, q, lpads, k, &a);
	tell(&a);
}

/* What the engine may ask. */
static int
from_engine(uint16_t type)
{
	return type == NMPRIV_SPAWN || type == NMPRIV_STOP ||
	    type == NMPRIV_FREEZE || type == NMPRIV_FORGET ||
	    type == NMPRIV_SENSE || type == NMPRIV_VACATE ||
	    type == NMPRIV_PIDQ;
}

static int
about_worker(uint16_t type)
{
	return type == NMPRIV_STOP || type == NMPRIV_FREEZE ||
	    type == NMPRIV_FORGET || type == NMPRIV_VACATE;
}

/* An engine's request, decoded once; -1: not one it may make. */
static int
engine_decode(struct nmpriv_msg *m, uint16_t type, const uint8_t *body,
    size_t len)
{
	if (!from_engine(type) || nmpriv_decode_body(m, type, body,
	    len) == -1)
		return -1;
	return 0;
}

static void
engine_act(const struct nmpriv_msg *m)
{
	struct pad *p = NULL;

	if (about_worker(m->nm_type) && (p = pad_find(m->nm_worker)) == NULL) {
		unknown_worker(m);
		return;
	}
	switch (m->nm_type) {
	case NMPRIV_SPAWN:
		do_spawn(m);
		break;
	case NMPRIV_STOP:
		do_stop(p, m->nm_grace_ms);
		break;
	case NMPRIV_FREEZE:
		do_freeze(p, m->nm_flag);
		break;
	case NMPRIV_VACATE:
		do_vacate(p, m->nm_grace_ms, m->nm_fast_ms);
		break;
	case NMPRIV_FORGET:
		do_forget(p);
		break;
	case NMPRIV_SENSE:
		node_input_scan(pn);	/* a keyboard plugged in since */
		tell_meas(m->nm_req);
		break;
	case NMPRIV_PIDQ:
		tell_pid(m);
		break;
	}
}

/*
 * The engine's requests (dctx_parent's dp_msg); a malformed one is the
 * engine's end (priv_fork ends it).
 */
static int
on_engine(struct dctx *dc, uint16_t type, const uint8_t *body, size_t len)
{
	struct nmpriv_msg m;

	(void)dc;
	if (engine_decode(&m, type, body, len) == -1)
		return -1;
	engine_act(&m);
	return 0;
}

/*
 * What the engine asked just before it ended (a restart's SIGTERM came
 * as it decided): its stops, freezes and forgets are done, so that a
 * worker it began to stop is not left running for the next node
 * manager to find; a start is not (nobody would take its output).
 */
static int
on_engine_last(struct dctx *dc, uint16_t type, const uint8_t *body,
    size_t len)
{
	struct nmpriv_msg m;
	struct pad *p;

	(void)dc;
	if (engine_decode(&m, type, body, len) == -1)
		return -1;
	if (!about_worker(m.nm_type) || (p = pad_find(m.nm_worker)) == NULL ||
	    (m.nm_type == NMPRIV_FREEZE && !m.nm_flag)) {
		log_info("after the engine's end: %s%s%s not done",
		    nmpriv_type_name(m.nm_type), about_worker(m.nm_type) ?
		    " of worker " : "", about_worker(m.nm_type) ?
		    m.nm_worker : "");
		return 0;
	}
	log_info("after the engine's end: %s of worker %s",
	    nmpriv_type_name(m.nm_type), p->p_worker);
	engine_act(&m);
	return 0;
}

/* At start: the launch pad's word on its worker, before the loop runs. */
static int
pad_attach_sync(struct pad *p)
{
	struct lpad_status st;

	if ((p->p_fd = lpad_connect(pn->n_run_dir, p->p_worker)) == -1 ||
	    lpad_status(p->p_fd, &st) == -1)
		return -1;
	pad_take(p, &st);
	if (fcntl(p->p_fd, F_SETFL, O_NONBLOCK) == -1 ||
	    evloop_add_fd(pn->n_dc.dc_loop, p->p_fd, POLLIN, pad_read,
	    p) == -1)
		return -1;
	return 0;
}

/* After our restart: every launch pad still there is ours again. */
static int
adopt_one(const char *worker, void *arg)
{
	struct pad *p;

	(void)arg;
	if (pad_find(worker) != NULL || (p = calloc(1, sizeof(*p))) == NULL)
		return 0;
	p->p_fd = -1;
	strlcpy(p->p_worker, worker, sizeof(p->p_worker));
	if (contain_worker_path(&pn->n_cb, worker, p->p_cg,
	    sizeof(p->p_cg)) == -1) {
		log_warn("adopt %s: its cgroup", worker);
		free(p);
		return 0;
	}
	if (pad_attach_sync(p) == -1) {
		/*
		 * Slow (a loaded machine) or stopped: asked again, in the
		 * loop, with a new launch pad's time.  A worker nobody
		 * polices must not run on: one that stays silent is ended.
		 */
		log_warnx("adopt %s: its launch pad did not answer (%s); "
		    "asking again", worker, strerror(errno));
		pad_close(p);
		p->p_adopting = 1;
		TAILQ_INSERT_TAIL(&pads, p, p_entry);
		if (pad_attach(p) == -1)
			pad_lost(p, "its launch pad cannot be reached");
		return 0;
	}
	log_info("adopted worker %s of job %u (%s)", worker, p->p_job,
	    p->p_state == NMPRIV_W_EXITED ? "exited" : "running");
	TAILQ_INSERT_TAIL(&pads, p, p_entry);
	return 0;
}

static void
adopt(struct node *n)
{
	if (lpad_list(n->n_run_dir, adopt_one, NULL) == -1 && errno != ENOENT)
		log_warn("%s: %s", __func__, n->n_run_dir);
}

/* Our children we know: the engine, launch pads and their starters. */
static int
known_child(pid_t pid, void *arg)
{
	struct pad *p;

	(void)arg;
	if (pid == pn->n_dc.dc_chan.pc_peer)
		return 1;
	TAILQ_FOREACH(p, &pads, p_entry)
		if (p->p_lpad == pid || (p->p_start != NULL &&
		    p->p_start->lst_child == pid))
			return 1;
	return 0;
}

/*
 * We are the subreaper of our launch pads: a guest that kills its
 * launch pad (which it can, as the same user, under a node manager
 * that is not root) becomes our child, and nothing would police it.
 * It is ended at once.  Not while a launch pad is starting: its daemon
 * is our child before its pid is known.
 */
static void
end_orphans(void)
{
	struct pad *p;
	int status, n;

	orphans_due = 1;
	TAILQ_FOREACH(p, &pads, p_entry) {
		if (p->p_start != NULL)
			return;		/* on_tick comes back */
		if (p->p_lpad > 1)	/* a dead one of ours: reaped */
			(void)waitpid(p->p_lpad, &status, WNOHANG);
	}
	orphans_due = 0;
	if ((n = contain_end_orphans(known_child, NULL)) == -1)
		log_warn("%s: /proc", __func__);
	else if (n > 0)
		log_warnx("ended %d process%s whose launch pad had died", n,
		    n == 1 ? "" : "es");
}

/* SIGCHLD (dp_children): the engine's end is priv_fork's to see. */
static void
on_children(struct dctx *dc)
{
	struct pad *p, *next;

	(void)dc;
	/* Launch pads starting reap their starting processes themselves. */
	TAILQ_FOREACH_SAFE(p, &pads, p_entry, next)
		if (p->p_start != NULL && p->p_start->lst_eof)
			pad_starting(p);
	end_orphans();
	pad_arm();
}

/* CilkNodeManager -k: the engine leaves the cluster (leave.c). */
static void
on_leave(struct evloop *loop, int signo, void *arg)
{
	pid_t engine = pn->n_dc.dc_chan.pc_peer;

	(void)loop;
	(void)arg;
	if (kill(engine, signo) == -1)
		log_warn("leave: kill %d", (int)engine);
}

/*
 * The parent's start (dp_start), right after the split: the engine
 * already runs and waits for HELLO before it registers.
 */
static void
parent_start(struct dctx *dc)
{
	struct node *n = dc->dc_arg;
	struct pad *p;

	pn = n;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
		log_warn("PR_SET_CHILD_SUBREAPER: a guest that kills its "
		    "launch pad will not be ended");
	if (evloop_signal(n->n_dc.dc_loop, SIGUSR1, on_leave, NULL) == -1)
		fatal("%s: event loop", __func__);
	/*
	 * The owner's presence first, measured before the adopted workers
	 * are told: the engine keeps one only if the owner is away.
	 */
	node_input_teller(tell);
	node_input_scan(n);
	node_measure_start(n);
	tell_meas(0);
	node_reap_start(n);	/* reap.c: folders of launch pads gone */
	adopt(n);
	TAILQ_FOREACH(p, &pads, p_entry)
		if (!p->p_adopting && p->p_reap_by == 0)
			tell_worker(p);
	hello_due = 1;
	hello();
	pad_arm();
}

/*
 * After the adopted workers, those asked again included: the engine
 * registers only then, so the broker cannot give a processor a job
 * before the engine knows the worker already running there (it would
 * start a second one and retire the first).
 */
static void
hello(void)
{
	struct nmpriv_msg m;
	struct pad *p;

	if (!hello_due)
		return;
	TAILQ_FOREACH(p, &pads, p_entry)
		if (p->p_adopting)
			return;
	hello_due = 0;
	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_HELLO;
	strlcpy(m.nm_path, pn->n_cb.cb_cgpath, sizeof(m.nm_path));
	tell(&m);
}

/*
 * Just before the parent exits (dp_exit), the engine gone: workers go on
 * without us, and a restarted node manager adopts them.
 */
static void
parent_exit(struct dctx *dc)
{
	struct node *n = dc->dc_arg;
	struct pad *p;

	while ((p = TAILQ_FIRST(&pads)) != NULL) {
		if (p->p_start != NULL) {
			unwatch_start(p);
			lpad_spawn_abort(p->p_start);
			free(p->p_start);
		}
		pad_close(p);
		/* An ended worker's empty cgroup; a running one stays. */
		if (p->p_cg[0] != '\0' && contain_count(p->p_cg, 0) == 0)
			(void)contain_remove(p->p_cg);
		TAILQ_REMOVE(&pads, p, p_entry);
		free(p);
	}
	node_input_stop(n);
	node_measure_stop(n);
	/* Ours, if nothing is left in it: a surviving worker keeps it. */
	if (n->n_cb.cb_mech == CONTAIN_CGROUP && rmdir(n->n_cb.cb_path) == -1 &&
	    errno != EBUSY && errno != ENOENT)
		log_warn("rmdir %s", n->n_cb.cb_path);
}

const struct dctx_parent node_parent = {
	.dp_keep_keys = 1,	/* it checks what users signed */
	.dp_start = parent_start,
	.dp_msg = on_engine,
	.dp_last = on_engine_last,
	.dp_children = on_children,
	.dp_exit = parent_exit,
};
