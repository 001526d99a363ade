/*
 * CilkNodeManager: the roots whose jobs it backs up (the home node of
 * a checkpointing root, cilknow(3) CILKNOW_HOME).  A root sends a
 * ROOT_BACKUP every few seconds: its pid and a job description signed
 * by its user, whose argv is the recovery command (PROG -Recover=CKPT
 * ARGS).  We keep it in state_dir/roots/KEY, KEY naming the user and
 * the checkpoint, and watch the pid.  When the root is gone without a
 * ROOT_DONE, and its checkpoint is still there, we start the recovery
 * command as the user through a launch pad, as a worker is started;
 * after our own restart (the machine crashed) every recorded root is
 * gone and is restarted.  The record is forgotten after ROOT_DONE,
 * once the restarted root ends, or after ROOTS_TRIES restarts.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "log.h"
#include "lpad.h"
#include "mono.h"
#include "node.h"
#include "pred_auth.h"
#include "proto_proc.h"
#include "proto_root.h"

#define ROOTS_TICK	1.0	/* seconds between looks at the roots */
#define ROOTS_TRIES	3	/* restarts of one job, at most */
#define ROOTS_MAX	256	/* records kept, all users together */
#define ROOTS_PER_USER	4	/* records one user may have here */
#define ROOTS_ADOPT	5.0	/* s for the parent to name live ones */
#define ROOTS_MAGIC	"CNRB"
#define ROOTS_BOOT	40	/* bytes of a boot id */

/* The record file: magic, u32 tries, boot id, launch pad id, message. */
struct root_hdr {
	char		rh_magic[4];
	uint32_t	rh_tries;
	char		rh_boot[ROOTS_BOOT];
	char		rh_lpad[WORKER_ID_MAX];
};

struct root {
	TAILQ_ENTRY(root) r_entry;
	char		 r_key[20];
	char		 r_user[MSG_NAME_MAX + 1];
	char		 r_ckpt[PROTO_PATH_MAX];
	uint32_t	 r_pid;
	uint64_t	 r_start;
	struct root_hdr	 r_hdr;
	uint8_t		*r_msg;		/* the ROOT_BACKUP payload */
	size_t		 r_len;
	uint32_t	 r_req;		/* our SPAWN, while unanswered */
	uint32_t	 r_asked;	/* our PIDQ, while unanswered */
	/*
	 * Its restarted worker (nodeworker.h): NONE with rh_lpad set is
	 * one recorded before our restart that the parent has not named
	 * yet; STOPPING, stopped for the owner: started again once lent.
	 */
	struct nw	 r_nw;
};

static TAILQ_HEAD(, root) roots = TAILQ_HEAD_INITIALIZER(roots);
static size_t nroots;
static double roots_started;
static char boot_id[ROOTS_BOOT];
/* The tick runs while there are roots: an idle node sleeps without. */
static struct evtimer *roots_timer;

static void	roots_arm(struct node *);

/* Before the split: the engine's view has no /proc of its own to read. */
void
node_roots_prepare(void)
{
	int fd;
	ssize_t n;

	memset(boot_id, 0, sizeof(boot_id));
	if ((fd = open("/proc/sys/kernel/random/boot_id",
	    O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, boot_id, sizeof(boot_id) - 1);
	close(fd);
	if (n > 0)
		boot_id[strcspn(boot_id, "\n")] = '\0';
}

/* A file name for (user, checkpoint): one record per job. */
static void
root_key(const char *user, const char *ckpt, char *key, size_t cap)
{
	crypto_generichash_state st;
	uint8_t h[8];

	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	crypto_generichash_update(&st, (const uint8_t *)user,
	    strlen(user) + 1);
	crypto_generichash_update(&st, (const uint8_t *)ckpt, strlen(ckpt));
	crypto_generichash_final(&st, h, sizeof(h));
	snprintf(key, cap, "r%02x%02x%02x%02x%02x%02x%02x%02x", h[0], h[1],
	    h[2], h[3], h[4], h[5], h[6], h[7]);
}

static struct root *
root_find(const char *key)
{
	struct root *r;

	TAILQ_FOREACH(r, &roots, r_entry)
		if (strcmp(r->r_key, key) == 0)
			return r;
	return NULL;
}

/* Keys are short: a name that does not fit is no key of ours. */
static int
root_path(const struct node *n, const char *key, char *buf, size_t cap)
{
	int len = snprintf(buf, cap, "%s/roots/%.19s", n->n_engine_dir, key);

	return len < 0 || (size_t)len >= cap ? -1 : 0;
}

/* Atomically: a crash leaves the old record or the new, whole. */
static int
root_save(struct node *n, const struct root *r)
{
	char dir[PATH_MAX + 8], path[PATH_MAX + 32], tmp[PATH_MAX + 40];
	int fd;

	snprintf(dir, sizeof(dir), "%s/roots", n->n_engine_dir);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		goto fail;
	if (root_path(n, r->r_key, path, sizeof(path)) == -1) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		goto fail;
	if (write(fd, &r->r_hdr, sizeof(r->r_hdr)) !=
	    (ssize_t)sizeof(r->r_hdr) ||
	    write(fd, r->r_msg, r->r_len) != (ssize_t)r->r_len ||
	    fsync(fd) == -1) {
		close(fd);
		(void)unlink(tmp);
		goto fail;
	}
	if (close(fd) == -1 || rename(tmp, path) == -1)
		goto fail;
	return 0;
 fail:
	log_warn("%s: root %s", __func__, r->r_key);
	return -1;
}

static void
root_free(struct root *r)
{
	free(r->r_msg);
	free(r);
}

/* Forgets r: its file, its launch pad (which may leave when done). */
static void
root_forget(struct node *n, struct root *r, const char *why)
{
	char path[PATH_MAX + 32];

	log_info("root of %s (pid %u, %s): forgotten: %s", r->r_user,
	    r->r_pid, r->r_ckpt, why);
	/*
	 * A restarted root still running goes on (it may be printing its
	 * answer); its launch pad is let go when the parent says it ended.
	 */
	if (root_path(n, r->r_key, path, sizeof(path)) == 0 &&
	    unlink(path) == -1 && errno != ENOENT)
		log_warn("unlink %s", path);
	TAILQ_REMOVE(&roots, r, r_entry);
	nroots--;
	root_free(r);
}

/*
 * Checks a ROOT_BACKUP: the description's signature by its user (never
 * trust anyone else), sent by that same user, a user we may run jobs
 * for, a recovery command.  On success d is open (proto_desc_free it).
 */
static int
root_check(struct node *n, const char *sender, const uint8_t *p,
    size_t len, struct proto_root_backup *b, struct proto_desc *d,
    char *ckpt, size_t ckptlen, char *why, size_t whylen)
{
	if (proto_root_backup_dec(b, p, len) == -1) {
		snprintf(why, whylen, "malformed");
		return -1;
	}
	if (proto_desc_open_for(d, PROTO_DESC_ROOT, n->n_dc.dc_keys,
	    now_mono(), b->rb_desc, b->rb_desclen, why, whylen) == -1)
		return -1;
	if (sender != NULL && strcmp(d->de_user, sender) != 0)
		snprintf(why, whylen, "sent by %s for user %s", sender,
		    d->de_user);
	else if (!n->n_root && strcmp(d->de_user, n->n_self) != 0)
		snprintf(why, whylen, "user %s: this node manager runs as "
		    "%s, not root", d->de_user, n->n_self);
	else if (d->de_job != b->rb_pid)
		snprintf(why, whylen, "signed for pid %u, not %u", d->de_job,
		    b->rb_pid);
	else if (proto_root_ckpt(d, ckpt, ckptlen) == -1)
		snprintf(why, whylen, "not a recovery command");
	else if (d->de_cwd[0] != '/')
		snprintf(why, whylen, "no absolute working folder");
	else
		return 0;
	proto_desc_free(d);
	return -1;
}

static size_t
roots_of(const char *user)
{
	const struct root *r;
	size_t k = 0;

	TAILQ_FOREACH(r, &roots, r_entry)
		if (strcmp(r->r_user, user) == 0)
			k++;
	return k;
}

static int
is_owner(struct node *n, const char *user)
{
	return pred_auth_listed(conf_get(n->n_dc.dc_conf, "owners"), user);
}

/* A peer can make this line repeat; see log_rate(). */
static struct log_rate refused_log = LOG_RATE_DEFAULT;

/* The same root's backup, signed again: the record keeps the newest. */
static void
root_renew(struct node *n, struct root *r, const uint8_t *msg, size_t len)
{
	uint8_t *copy;

	if ((copy = malloc(len)) == NULL) {
		log_warn("%s", __func__);
		return;
	}
	memcpy(copy, msg, len);
	free(r->r_msg);
	r->r_msg = copy;
	r->r_len = len;
	(void)root_save(n, r);
}

static void
refused(const char *sender, const char *why)
{
	static uint64_t n;

	++n;
	if (log_rate(&refused_log, now_mono(), "refused ROOT_BACKUPs"))
		log_warnx("ROOT_BACKUP from %s refused: %s (%llu refused so "
		    "far)", sender, why, (unsigned long long)n);
}

/*
 * Backups whose pid the parent is asked about (PIDQ), a few at a time:
 * more are dropped, and their roots send them again.
 */
#define ROOTS_ASKING_MAX	8

struct root_asked {
	uint32_t	 ra_req;	/* 0: a free slot */
	char		 ra_sender[MSG_NAME_MAX + 1];
	char		 ra_user[LPAD_USER_MAX + 1];
	char		 ra_ckpt[PROTO_PATH_MAX];
	uint32_t	 ra_pid;
	uint64_t	 ra_start;
	uint8_t		*ra_msg;	/* the ROOT_BACKUP payload */
	size_t		 ra_len;
};

static struct root_asked asked[ROOTS_ASKING_MAX];

/* Kept (or renewed) now that the parent vouched for its pid. */
static void
root_keep(struct node *n, const struct root_asked *a)
{
	struct root *r;
	char key[20], why[256];
	int fresh = 0;

	root_key(a->ra_user, a->ra_ckpt, key, sizeof(key));
	r = root_find(key);
	if (r == NULL && nroots >= ROOTS_MAX) {
		snprintf(why, sizeof(why), "%d roots kept already", ROOTS_MAX);
		refused(a->ra_sender, why);
		return;
	}
	if (r == NULL && roots_of(a->ra_user) >= ROOTS_PER_USER) {
		snprintf(why, sizeof(why), "%s has %d roots kept here already",
		    a->ra_user, ROOTS_PER_USER);
		refused(a->ra_sender, why);
		return;
	}
	if (r == NULL) {
		if ((r = calloc(1, sizeof(*r))) == NULL) {
			log_warn("%s", __func__);
			return;
		}
		fresh = 1;
		memcpy(r->r_hdr.rh_magic, ROOTS_MAGIC, 4);
		strlcpy(r->r_key, key, sizeof(r->r_key));
		strlcpy(r->r_user, a->ra_user, sizeof(r->r_user));
		strlcpy(r->r_ckpt, a->ra_ckpt, sizeof(r->r_ckpt));
	}
	free(r->r_msg);
	if ((r->r_msg = malloc(a->ra_len)) == NULL) {
		log_warn("%s", __func__);
		if (!fresh) {
			TAILQ_REMOVE(&roots, r, r_entry);
			nroots--;
		}
		root_free(r);
		return;
	}
	memcpy(r->r_msg, a->ra_msg, a->ra_len);
	r->r_len = a->ra_len;
	r->r_pid = a->ra_pid;
	r->r_start = a->ra_start;
	r->r_asked = 0;
	strlcpy(r->r_hdr.rh_boot, boot_id, sizeof(r->r_hdr.rh_boot));
	if (fresh) {
		TAILQ_INSERT_TAIL(&roots, r, r_entry);
		nroots++;
		roots_arm(n);
	}
	(void)root_save(n, r);
	log_info("root of %s (pid %u) backed up: it recovers from %s",
	    r->r_user, r->r_pid, r->r_ckpt);
}

/* Its pid to the parent, the backup kept until it answers. */
static void
root_ask(struct node *n, const struct msg_in *in, const char *user,
    const char *ckpt, uint32_t pid, uint64_t start)
{
	struct root_asked *a = NULL;
	char why[256];
	size_t i;

	if (!node_chan_pidq_ok(pid, user)) {
		snprintf(why, sizeof(why), "pid %u is no process of %s on "
		    "this machine", pid, user);
		refused(in->mi_name, why);
		return;
	}
	for (i = 0; i < ROOTS_ASKING_MAX && a == NULL; i++)
		if (asked[i].ra_req == 0)
			a = &asked[i];
	if (a == NULL || (a->ra_msg = malloc(in->mi_len)) == NULL) {
		log_debug("%s: no room to ask about pid %u", __func__, pid);
		return;		/* it comes again */
	}
	memcpy(a->ra_msg, in->mi_data, in->mi_len);
	a->ra_len = in->mi_len;
	strlcpy(a->ra_sender, in->mi_name, sizeof(a->ra_sender));
	strlcpy(a->ra_user, user, sizeof(a->ra_user));
	strlcpy(a->ra_ckpt, ckpt, sizeof(a->ra_ckpt));
	a->ra_pid = pid;
	a->ra_start = start;
	a->ra_req = node_chan_pidq(n, pid, start, user);
}

void
node_on_root_backup(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_root_backup b;
	struct proto_desc d;
	struct root *r;
	char ckpt[PROTO_PATH_MAX], key[20], why[256];

	(void)ep;
	if (root_check(n, in->mi_name, in->mi_data, in->mi_len, &b, &d,
	    ckpt, sizeof(ckpt), why, sizeof(why)) == -1) {
		refused(in->mi_name, why);
		return;
	}
	root_key(d.de_user, ckpt, key, sizeof(key));
	if ((r = root_find(key)) != NULL && r->r_pid == b.rb_pid &&
	    r->r_start == b.rb_start) {
		proto_desc_free(&d);
		/*
		 * A repeat (its pid vouched for when it came first), or
		 * signed again (cn_home.c): keep the newest.
		 */
		if (r->r_len != in->mi_len ||
		    memcmp(r->r_msg, in->mi_data, in->mi_len) != 0)
			root_renew(n, r, in->mi_data, in->mi_len);
		return;
	}
	root_ask(n, in, d.de_user, ckpt, b.rb_pid, b.rb_start);
	proto_desc_free(&d);
}

void
node_on_root_done(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_root_done m;
	struct root *r;
	char key[20];

	(void)ep;
	if (proto_root_done_dec(&m, in->mi_data, in->mi_len) == -1)
		return;
	/* The user's own job only: the key is the sender's. */
	root_key(in->mi_name, m.rd_ckpt, key, sizeof(key));
	if ((r = root_find(key)) != NULL)
		root_forget(n, r, "the job ended");
}

/*
 * Asks the parent to start the recovery command as the user, like a
 * worker: the parent checks the user's signature itself, and runs it
 * as a guest unless the user owns this node.
 */
static int
root_restart(struct node *n, struct root *r)
{
	struct proto_root_backup b;
	struct proto_desc d;
	char ckpt[PROTO_PATH_MAX], why[512];

	/* Checked again: the file is ours, but the key may be revoked. */
	if (root_check(n, NULL, r->r_msg, r->r_len, &b, &d, ckpt,
	    sizeof(ckpt), why, sizeof(why)) == -1) {
		log_warnx("root of %s: backup refused now: %s", r->r_user,
		    why);
		return -1;
	}
	proto_desc_free(&d);
	memset(&r->r_nw, 0, sizeof(r->r_nw));	/* a new worker */
	(void)nw_begin(&r->r_nw, 0, now_mono());
	r->r_req = node_chan_spawn(n, NMPRIV_KIND_ROOT, r->r_key, b.rb_desc,
	    b.rb_desclen);
	r->r_hdr.rh_lpad[0] = '\0';
	log_debug("root of %s (pid %u) is gone: restarting it", r->r_user,
	    r->r_pid);
	return 0;
}

int
node_roots_on_spawned(struct node *n, const struct nmpriv_msg *m)
{
	struct proto_root_backup b;
	struct proto_desc d;
	struct nw_conf c;
	struct root *r;
	char ckpt[PROTO_PATH_MAX], why[256];

	TAILQ_FOREACH(r, &roots, r_entry)
		if (r->r_req != 0 && r->r_req == m->nm_req)
			break;
	if (r == NULL)
		return 0;
	r->r_req = 0;
	if (m->nm_flag != 1) {
		(void)nw_refused(&r->r_nw, m->nm_flag == NMPRIV_SPAWN_NODE,
		    now_mono());
		root_forget(n, r, m->nm_why);
		return 1;
	}
	node_nw_conf(n, &c);
	/* A guest root runs on even when the owner is back: the tick. */
	if (!(nw_spawned(&r->r_nw, &c, 0, now_mono()).ns_act & NW_A_RECORD))
		return 1;
	strlcpy(r->r_hdr.rh_lpad, m->nm_worker, sizeof(r->r_hdr.rh_lpad));
	(void)root_save(n, r);
	if (root_check(n, NULL, r->r_msg, r->r_len, &b, &d, ckpt,
	    sizeof(ckpt), why, sizeof(why)) == 0) {
		log_info("root of %s (pid %u) is gone: restarted `%s %s` in %s "
		    "(launch pad %u, worker %s, output in %s/workers/%s)",
		    r->r_user, r->r_pid, d.de_argv[0], d.de_argc > 1 ?
		    d.de_argv[1] : "", d.de_cwd, m->nm_lpad, m->nm_worker,
		    n->n_state_dir, m->nm_worker);
		proto_desc_free(&d);
	}
	return 1;
}

int
node_roots_on_worker(struct node *n, const struct nmpriv_msg *m)
{
	struct nw_conf c;
	struct nw none;
	struct nw_step st;
	struct root *r;
	enum nw_parent p = m->nm_state == NMPRIV_W_EXITED ? NW_P_EXITED :
	    NW_P_RUNNING;	/* a root is never frozen */
	enum nw_state was;
	char why[64];

	node_nw_conf(n, &c);
	TAILQ_FOREACH(r, &roots, r_entry)
		if (strcmp(r->r_hdr.rh_lpad, m->nm_worker) == 0)
			break;
	if (r == NULL) {
		/* A restarted root whose record is gone: it ends. */
		memset(&none, 0, sizeof(none));
		st = nw_adopted(&none, &c, p, 0, 1, 0, now_mono());
		if (st.ns_act & NW_A_STOP)
			node_chan_stop(n, m->nm_worker, n->n_grace);
		else if (st.ns_act & NW_A_FORGET)
			node_chan_forget(n, m->nm_worker);
		return 1;
	}
	/* Recorded before our restart: the parent has it (adopted). */
	if (r->r_nw.nw_state == NW_NONE)
		(void)nw_adopted(&r->r_nw, &c, p == NW_P_EXITED ? NW_P_RUNNING :
		    p, 1, 1, 0, now_mono());
	if (p != NW_P_EXITED)
		return 1;
	was = r->r_nw.nw_state;
	if (nw_exited(&r->r_nw, now_mono()).ns_act == NW_A_NONE)
		return 1;	/* told twice */
	node_chan_forget(n, m->nm_worker);
	if (was == NW_STOPPING) {
		/* Stopped for the owner: again once the node is lent. */
		r->r_hdr.rh_lpad[0] = '\0';
		(void)root_save(n, r);
		return 1;
	}
	snprintf(why, sizeof(why), "the restarted root %s %u",
	    m->nm_how == LPAD_HOW_SIGNAL ? "was killed by signal" : "exited",
	    m->nm_code);
	r->r_hdr.rh_lpad[0] = '\0';
	root_forget(n, r, why);
	return 1;
}

/* Its process is gone: restarted, or forgotten after too many tries. */
static void
root_gone(struct node *n, struct root *r)
{
	if (r->r_hdr.rh_tries >= ROOTS_TRIES) {
		root_forget(n, r, "restarted too often");
		return;
	}
	if (root_restart(n, r) == -1) {
		root_forget(n, r, "cannot restart it");
		return;
	}
	r->r_hdr.rh_tries++;
	(void)root_save(n, r);
}

static void
on_roots_tick(struct evloop *loop, void *arg)
{
	struct node *n = arg;
	struct root *r, *next;
	struct nw_conf c;
	int owner;

	(void)loop;
	roots_timer = NULL;
	node_nw_conf(n, &c);
	TAILQ_FOREACH_SAFE(r, &roots, r_entry, next) {
		owner = is_owner(n, r->r_user);
		if (r->r_nw.nw_state == NW_STARTING)
			continue;		/* being started */
		if (r->r_hdr.rh_lpad[0] != '\0') {
			/* A guest root goes when the owner comes back. */
			if (r->r_nw.nw_state == NW_RUNNING &&
			    !n->n_owner_away && !owner &&
			    (nw_stop(&r->r_nw, &c, now_mono()).ns_act &
			    NW_A_STOP))
				node_chan_stop(n, r->r_hdr.rh_lpad,
				    n->n_grace);
			else if (r->r_nw.nw_state == NW_NONE &&
			    now_mono() - roots_started > ROOTS_ADOPT)
				r->r_hdr.rh_lpad[0] = '\0';	/* gone */
			continue;
		}
		if (!n->n_owner_away && !owner)
			continue;
		/* Another boot, or no pid to ask about: gone. */
		if (strcmp(r->r_hdr.rh_boot, boot_id) != 0 ||
		    !node_chan_pidq_ok(r->r_pid, r->r_user))
			root_gone(n, r);
		else if (r->r_asked == 0)	/* is it alive? */
			r->r_asked = node_chan_pidq(n, r->r_pid, r->r_start,
			    r->r_user);
	}
	roots_arm(n);
}

int
node_roots_on_pida(struct node *n, const struct nmpriv_msg *m)
{
	struct root_asked *a;
	struct root *r;
	char why[256];
	size_t i;

	for (i = 0; i < ROOTS_ASKING_MAX; i++) {
		a = &asked[i];
		if (a->ra_req == 0 || a->ra_req != m->nm_req)
			continue;
		if (m->nm_state == PROTO_PROC_NONE ||
		    !(m->nm_flag & NMPRIV_PID_STARTED)) {
			snprintf(why, sizeof(why), "pid %u is no process of "
			    "%s on this machine", a->ra_pid, a->ra_user);
			refused(a->ra_sender, why);
		} else if (m->nm_flag & NMPRIV_PID_WORKER) {
			snprintf(why, sizeof(why), "pid %u is a guest worker "
			    "on this node, not a root of its own", a->ra_pid);
			refused(a->ra_sender, why);
		} else
			root_keep(n, a);
		free(a->ra_msg);
		memset(a, 0, sizeof(*a));
		return 1;
	}
	TAILQ_FOREACH(r, &roots, r_entry) {
		if (r->r_asked == 0 || r->r_asked != m->nm_req)
			continue;
		r->r_asked = 0;
		/* Alive (same pid, same start), or changed meanwhile. */
		if ((m->nm_flag & NMPRIV_PID_STARTED) ||
		    r->r_nw.nw_state == NW_STARTING ||
		    r->r_hdr.rh_lpad[0] != '\0' ||
		    (!n->n_owner_away && !is_owner(n, r->r_user)))
			return 1;
		root_gone(n, r);
		return 1;
	}
	return 0;
}

static void
roots_arm(struct node *n)
{
	if (roots_timer == NULL && !TAILQ_EMPTY(&roots))
		roots_timer = evloop_timer_add(n->n_dc.dc_loop, ROOTS_TICK,
		    on_roots_tick, n);
}

/* Reads one record back; a bad one is logged and removed. */
static void
root_load(struct node *n, const char *name)
{
	struct proto_root_backup b;
	struct proto_desc d;
	struct root *r;
	struct stat sb;
	char path[PATH_MAX + 32], ckpt[PROTO_PATH_MAX], why[256];
	ssize_t got;
	int fd = -1;

	if (strlen(name) >= sizeof(r->r_key) ||
	    root_path(n, name, path, sizeof(path)) == -1 ||
	    (r = calloc(1, sizeof(*r))) == NULL)
		return;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1 ||
	    fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size <= (off_t)sizeof(r->r_hdr) ||
	    sb.st_size > (off_t)(sizeof(r->r_hdr) + MSG_PAYLOAD_MAX)) {
		snprintf(why, sizeof(why), "not a record");
		goto bad;
	}
	r->r_len = (size_t)sb.st_size - sizeof(r->r_hdr);
	if ((r->r_msg = malloc(r->r_len)) == NULL ||
	    read(fd, &r->r_hdr, sizeof(r->r_hdr)) !=
	    (ssize_t)sizeof(r->r_hdr) ||
	    (got = read(fd, r->r_msg, r->r_len)) != (ssize_t)r->r_len ||
	    memcmp(r->r_hdr.rh_magic, ROOTS_MAGIC, 4) != 0) {
		snprintf(why, sizeof(why), "short or not a record");
		goto bad;
	}
	r->r_hdr.rh_boot[sizeof(r->r_hdr.rh_boot) - 1] = '\0';
	r->r_hdr.rh_lpad[sizeof(r->r_hdr.rh_lpad) - 1] = '\0';
	if (r->r_hdr.rh_lpad[0] != '\0' && !lpad_worker_ok(r->r_hdr.rh_lpad)) {
		snprintf(why, sizeof(why), "bad launch pad id");
		goto bad;
	}
	if (root_check(n, NULL, r->r_msg, r->r_len, &b, &d, ckpt,
	    sizeof(ckpt), why, sizeof(why)) == -1)
		goto bad;
	strlcpy(r->r_user, d.de_user, sizeof(r->r_user));
	strlcpy(r->r_ckpt, ckpt, sizeof(r->r_ckpt));
	proto_desc_free(&d);
	r->r_pid = b.rb_pid;
	r->r_start = b.rb_start;
	root_key(r->r_user, r->r_ckpt, r->r_key, sizeof(r->r_key));
	if (strcmp(r->r_key, name) != 0 || root_find(r->r_key) != NULL) {
		snprintf(why, sizeof(why), "misnamed");
		goto bad;
	}
	close(fd);
	TAILQ_INSERT_TAIL(&roots, r, r_entry);
	nroots++;
	log_info("root of %s (pid %u): backup kept, recovers from %s",
	    r->r_user, r->r_pid, r->r_ckpt);
	return;
 bad:
	log_warnx("%s: %s; removed", path, why);
	if (fd != -1)
		close(fd);
	(void)unlink(path);
	root_free(r);
}

void
node_roots_start(struct node *n)
{
	char dir[PATH_MAX + 8];
	struct dirent *e;
	DIR *dp;

	roots_started = now_mono();
	snprintf(dir, sizeof(dir), "%s/roots", n->n_engine_dir);
	if ((dp = opendir(dir)) != NULL) {
		while ((e = readdir(dp)) != NULL)
			if (e->d_name[0] == 'r' && strchr(e->d_name, '.') ==
			    NULL)
				root_load(n, e->d_name);
		closedir(dp);
	} else if (errno != ENOENT)
		log_warn("%s", dir);
	roots_arm(n);
}

void
node_roots_stop(void)
{
	struct root *r;

	while ((r = TAILQ_FIRST(&roots)) != NULL) {
		TAILQ_REMOVE(&roots, r, r_entry);
		nroots--;
		root_free(r);
	}
}
