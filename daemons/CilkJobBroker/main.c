/* CilkJobBroker — the cluster's registry of nodes and jobs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "bacct.h"
#include "bhealth.h"
#include "bkill.h"
#include "bpersist.h"
#include "blist.h"
#include "bpred.h"
#include "bview.h"
#include "bpush.h"
#include "breg.h"
#include "broker.h"
#include "broker_wait.h"
#include "cookie.h"
#include "dctx.h"
#include "gone.h"
#include "jobid.h"
#include "log.h"
#include "mono.h"
#include "msg_keyring.h"

/* Changes within this many seconds go out as one schedule and push. */
#define BATCH_DELAY	0.005

struct bctx {
	struct dctx	 b_dc;
	struct broker	 b_br;
	struct bpred	 b_pred;		/* pred.c */
	struct bkill	 b_kill;		/* kill.c */
	struct bhealth	 b_health;	/* health.c: drain, down */
	struct bpush	 b_push;		/* push.c */
	struct blist	 b_list;		/* list.c */
	struct cookie_key b_cookie;	/* user-scheme lists, predicates */
	struct breg	 b_reg;		/* reg.c: cookie and rate */
	struct jobid	 b_jobid;		/* jobid.c */
	struct bacct	 b_acct;		/* acct.c: CilkHist */
	struct bpersist	 b_persist;	/* persist.c: registry.db */
	struct broker_waits b_waits;	/* held by --after: CilkPs */
	struct evtimer	*b_soon;	/* batched schedule-and-push */
	uint8_t		 b_buf[MSG_PAYLOAD_MAX];
};

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkJobBroker [-fnvV] [-c file] [-o key=value]\n"
	    "  -f  stay in the foreground, log to stderr\n"
	    "  -n  check the configuration and keys, then exit\n");
	exit(status);
}

static void
on_assign(struct broker_node *n, uint16_t slot, struct broker_job *j,
    int room, void *arg)
{
	struct bctx *b = arg;
	struct proto_assign a;
	size_t len;

	memset(&a, 0, sizeof(a));
	a.as_job = j->bj_id;
	a.as_slot = slot;
	a.as_jobmgr = j->bj_addr;
	strlcpy(a.as_user, j->bj_user, sizeof(a.as_user));
	a.as_cpus = j->bj_cpus;
	a.as_mem_mb = j->bj_mem_mb;
	a.as_room = (uint8_t)room;
	log_info("assign: job %u (%s) to node %u (%s) processor %u%s",
	    j->bj_id, j->bj_command, n->bn_id, n->bn_host, slot,
	    room ? ", making room" : "");
	if ((len = proto_assign_enc(&a, b->b_buf, sizeof(b->b_buf))) == 0 ||
	    msg_ep_send(b->b_dc.dc_ep, &n->bn_addr, MSG_SCHEME_CLUSTER,
	    PROTO_H_ASSIGN, b->b_buf, len) == -1)
		log_warn("assign: send to node %u", n->bn_id);
}

static void
schedule_now(struct evloop *loop, void *arg)
{
	struct bctx *b = arg;

	(void)loop;
	b->b_soon = NULL;
	broker_schedule(&b->b_br, now_mono(), on_assign, b);
	bpush_changed(&b->b_push);
	bpersist_changed(&b->b_persist);
}

/* Changes come in bursts; one schedule and one push per burst. */
static void
schedule_soon(struct bctx *b)
{
	if (b->b_soon == NULL)
		b->b_soon = evloop_timer_add(b->b_dc.dc_loop, BATCH_DELAY,
		    schedule_now, b);
}

#define GONE_NAMED	10	/* nodes and jobs named per tick; then a sum */

struct gone {
	struct bctx	*g_b;
	int		 g_k;	/* how many so far */
};

/*
 * Says which node or job it forgets, the first GONE_NAMED of a tick; a
 * node forgotten is listed as down (health.c).
 */
static void
on_gone(const struct broker_node *n, const struct broker_job *j,
    double silent, void *arg)
{
	struct gone *g = arg;
	int *k = &g->g_k;
	char addr[64];

	if (n != NULL)
		bhealth_down(&g->g_b->b_health, n, silent);
	if ((*k)++ >= GONE_NAMED)
		return;
	if (n != NULL) {
		msg_addr_text(&n->bn_addr, addr, sizeof(addr));
		log_warning("node %u (%s at %s) silent for %.0f s: forgotten, "
		    "its work goes elsewhere", n->bn_id, n->bn_host, addr,
		    silent);
	} else {
		msg_addr_text(&j->bj_addr, addr, sizeof(addr));
		log_info("job %u of %s (job manager %s) silent for %.0f s: "
		    "forgotten", j->bj_id, j->bj_user, addr, silent);
	}
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct bctx *b = arg;
	double interval = b->b_br.br_interval;
	struct gone gone = { b, 0 };

	bpred_expire(&b->b_pred, now_mono());
	bkill_expire(&b->b_kill, now_mono());
	bacct_expire(&b->b_acct, now_mono());
	bhealth_expire(&b->b_health, now_mono());
	broker_wait_expire(&b->b_waits, now_mono(), 3 * interval);

	if (broker_expire(&b->b_br, now_mono(), on_gone, &gone) > GONE_NAMED)
		log_warning("and %d more nodes or jobs silent for %g s: "
		    "forgotten", gone.g_k - GONE_NAMED, 3 * interval);
	broker_schedule(&b->b_br, now_mono(), on_assign, b);
	bpush_changed(&b->b_push);
	bpersist_changed(&b->b_persist);
	evloop_timer_add(loop, interval / 2, on_tick, b);
}

static void
on_node_register(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct bctx *b = arg;
	struct proto_node_reg r;
	struct broker_node *n;
	struct proto_ack ack;
	uint64_t epoch = b->b_br.br_epoch;	/* rises if anything changed */
	uint8_t buf[64];
	size_t len;

	if (proto_node_reg_dec(&r, in->mi_data, in->mi_len) == -1) {
		log_debug("node register: malformed, from %s", in->mi_name);
		return;
	}
	if ((n = broker_node_register(&b->b_br, &r, &in->mi_from,
	    now_mono())) == NULL) {
		proto_reply_error(ep, in, "node table full");
		return;
	}
	/* Drained again if a drain names it; no longer down. */
	broker_health_on_register(&b->b_health.bh_mem, &b->b_br, n);
	ack.ak_id = n->bn_id;
	ack.ak_interval_ms = (uint32_t)(b->b_br.br_interval * 1000);
	if ((len = proto_ack_enc(&ack, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_NODE_ACK, buf, len);
	/* Predicates with every registration: a new node learns them. */
	bpred_push_to(&b->b_pred, &n->bn_addr);
	/* Its counts and a fresh sample of peers, every interval. */
	bpush_to(&b->b_push, n);
	/* A node that changed nothing changes no one's job. */
	if (b->b_br.br_epoch != epoch)
		schedule_soon(b);
}

static void
on_job_register(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct bctx *b = arg;
	struct proto_job_reg r;
	struct broker_job *j;
	struct proto_ack ack;
	const char *why = "malformed";
	uint64_t epoch = b->b_br.br_epoch;	/* rises for a new job */
	uint8_t buf[64];
	size_t len;

	/* As configured now (a SIGHUP may have changed it). */
	if (conf_get_count(b->b_dc.dc_conf, "user_jobs",
	    &b->b_br.br_user_jobs) == -1)
		b->b_br.br_user_jobs = 64;
	/* Only a user may speak for a user's job. */
	if (msg_user_name_ok(in->mi_name) &&
	    proto_job_reg_dec(&r, in->mi_data, in->mi_len) == 0) {
		/* Its address's cookie, its user's rate (reg.c). */
		if (!breg_admit(&b->b_reg, b->b_dc.dc_conf, ep, in, &r,
		    now_mono()))
			return;
		/* Ended by CilkKill: it stays ended. */
		if (bkill_on_register(&b->b_kill, ep, in, &r))
			return;
		j = broker_job_register(&b->b_br, &r, in->mi_name,
		    &in->mi_from, now_mono(), &why);
	} else
		j = NULL;
	if (j == NULL) {
		if (breg_may_log(&b->b_reg, in->mi_name, now_mono()))
			log_info("job register from %s refused: %s",
			    in->mi_name, why);
		proto_reply_error(ep, in, why);
		return;
	}
	if (r.jr_job != j->bj_id && b->b_br.br_epoch != epoch &&
	    breg_may_log(&b->b_reg, j->bj_user, now_mono()))
		log_info("job %u registered by %s: %s", j->bj_id,
		    j->bj_user, j->bj_command);
	else if (r.jr_job == j->bj_id && b->b_br.br_epoch != epoch &&
	    breg_may_log(&b->b_reg, j->bj_user, now_mono()))
		/* A job this broker did not know: it restarted, or forgot. */
		log_info("job %u of %s is known again, %.1f s after this "
		    "broker started", j->bj_id, j->bj_user,
		    now_mono() - b->b_push.bu_started);
	if (b->b_br.br_epoch != epoch)
		bacct_job_registered(&b->b_acct, j);
	broker_wait_forget(&b->b_waits, &in->mi_from);	/* held no more */
	jobid_save(&b->b_jobid, &b->b_br);
	ack.ak_id = j->bj_id;
	ack.ak_interval_ms = (uint32_t)(b->b_br.br_interval * 1000);
	if ((len = proto_ack_enc(&ack, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_JOB_ACK, buf, len);
	schedule_soon(b);
}

static void
on_job_unregister(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct bctx *b = arg;
	struct proto_job_unreg u;
	struct proto_ack ack;
	const char *why = "malformed";
	uint8_t buf[64];
	size_t len;

	if (proto_job_unreg_dec(&u, in->mi_data, in->mi_len) == -1 ||
	    (u.ju_job == 0 && !msg_user_name_ok(in->mi_name) &&
	    (why = "job 0 is withdrawn by users only") != NULL) ||
	    (u.ju_job != 0 && broker_job_unregister(&b->b_br, u.ju_job,
	    in->mi_name, &why) == -1)) {
		log_debug("job unregister from %s: %s", in->mi_name, why);
		proto_reply_error(ep, in, why);
		return;
	}
	/*
	 * Job 0: a job manager that gave up before it heard our answer;
	 * nothing of it left behind is what it asks, so it is answered.
	 */
	if (u.ju_job == 0) {
		bacct_withdraw(&b->b_acct, in->mi_name, &in->mi_from);
		if (broker_job_withdraw(&b->b_br, in->mi_name,
		    &in->mi_from) > 0)
			log_info("job of %s withdrawn by its job manager",
			    in->mi_name);
	} else {
		if (breg_may_log(&b->b_reg, in->mi_name, now_mono()))
			log_info("job %u unregistered by %s", u.ju_job,
			    in->mi_name);
		bacct_job_left(&b->b_acct, u.ju_job, ACCT_ST_ENDED);
		broker_tell_gone(ep, &b->b_br, u.ju_job);
	}
	ack.ak_id = u.ju_job;
	ack.ak_interval_ms = (uint32_t)(b->b_br.br_interval * 1000);
	if ((len = proto_ack_enc(&ack, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_JOB_ACK, buf, len);
	schedule_soon(b);
}

static void
on_list(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	blist_on_list(&((struct bctx *)arg)->b_list, ep, in);
}

static void
on_list_page(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	blist_on_page(&((struct bctx *)arg)->b_list, ep, in);
}

static void
on_pred_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	bpred_on_req(&((struct bctx *)arg)->b_pred, ep, in);
}

static void
on_kill_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	bkill_on_req(&((struct bctx *)arg)->b_kill, ep, in);
}

/* bkill: jobs left the registry; the nodes hear it in one push. */
static void
kill_changed(void *arg)
{
	schedule_soon(arg);
}

static void
on_health_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	bhealth_on_req(&((struct bctx *)arg)->b_health, ep, in);
}

static void
on_pred_users(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	bpred_on_users(&((struct bctx *)arg)->b_pred, ep, in);
}

static void
on_acct(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	bacct_on_acct(&((struct bctx *)arg)->b_acct, ep, in);
}

static void
on_acct_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	bacct_on_req(&((struct bctx *)arg)->b_acct, ep, in);
}

static void
on_after_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct bctx *b = arg;
	struct proto_job_unreg q;

	/* Its job manager waits: CilkPs lists it (broker_wait.h). */
	if (msg_user_name_ok(in->mi_name) &&
	    proto_job_unreg_dec(&q, in->mi_data, in->mi_len) == 0 &&
	    q.ju_job != 0)
		(void)broker_wait_note(&b->b_waits, in->mi_name, &in->mi_from,
		    q.ju_job, b->b_br.br_user_jobs, now_mono());
	bacct_on_after(&b->b_acct, ep, in);
}

static void
on_node_down(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	bhealth_on_node_down(&((struct bctx *)arg)->b_health, ep, in);
}

static const struct msg_handler handlers[PROTO_H_MAX] = {
	[PROTO_H_NODE_REGISTER] = { "node-register",
	    MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER), on_node_register },
	[PROTO_H_JOB_REGISTER] = { "job-register",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), on_job_register },
	[PROTO_H_JOB_UNREGISTER] = { "job-unregister",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), on_job_unregister },
	[PROTO_H_LIST] = { "list", MSG_SCHEMES_ALL, on_list },
	[PROTO_H_LIST_PAGE] = { "list-page", MSG_SCHEMES_ALL, on_list_page },
	[PROTO_H_PRED_REQ] = { "pred-req", MSG_SCHEMES_ALL, on_pred_req },
	[PROTO_H_PRED_USERS] = { "pred-users",
	    MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER), on_pred_users },
	[PROTO_H_NODE_DOWN] = { "node-down",
	    MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER), on_node_down },
	/* Only a user's key speaks for a user. */
	[PROTO_H_KILL_REQ] = { "kill-req", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_kill_req },
	/* CilkNodes drain, resume: users only, checked in health.c. */
	[PROTO_H_HEALTH_REQ] = { "health-req", MSG_SCHEMES_ALL,
	    on_health_req },
	/* Accounting: users only, each checked in acct.c. */
	[PROTO_H_ACCT] = { "acct", MSG_SCHEME_BIT(MSG_SCHEME_USER), on_acct },
	[PROTO_H_ACCT_REQ] = { "acct-req", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_acct_req },
	[PROTO_H_AFTER_REQ] = { "after-req", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_after_req },
};

/*
 * The stored predicates must read cleanly (also for -n).  As root this
 * runs after the drop: the file is written by what parses the network.
 */
static int
check(struct dctx *dc, char *err, size_t errlen)
{
	struct bctx *b = dc->dc_arg;
	char dir[PATH_MAX];

	/*
	 * Users' public keys were loaded at start, as root if started so;
	 * a reload (SIGHUP) reads them again as who we are now.
	 */
	if (conf_get_path(dc->dc_conf, "user_keys", dir, sizeof(dir)) == 0 &&
	    access(dir, R_OK | X_OK) == -1 && errno != ENOENT)
		log_warning("user_keys %s: %s: a reload will find no user's "
		    "key, and users' requests will be refused", dir,
		    strerror(errno));
	if (bpred_init(&b->b_pred, dc, &b->b_br, err, errlen) == -1)
		return -1;
	b->b_pred.bp_cookie = &b->b_cookie;	/* made in main */
	if (jobid_init(&b->b_jobid, dc, err, errlen) == -1)
		return -1;
	if (bpersist_init(&b->b_persist, dc, &b->b_br, err, errlen) == -1)
		return -1;
	return bacct_init(&b->b_acct, dc, &b->b_br, err, errlen);
}

/* Read at start only (beyond dctx's own): see cilknow.conf(5), RELOAD. */
static const char *const restart_keys[] = {
	"broker",		/* where we listen when listen is unset */
	"jobs_max",		/* broker_init */
	"nodes_max",		/* broker_init */
	"register_interval",	/* broker_init */
	"munge_socket", "user_keys",	/* the engine's view (view.c) */
	"service_user",		/* the drop */
	"state_dir",		/* bpred_init */
	NULL
};

int
main(int argc, char *argv[])
{
	static struct bctx b;
	struct daemon_args da;
	struct dctx_spec sp = {
		.ds_prog = "CilkJobBroker",
		.ds_keys = MSG_KR_CLUSTER | MSG_KR_USERS,
		.ds_principal = "broker",
		.ds_table = handlers,
		.ds_ntable = PROTO_H_MAX,
		.ds_check = check,
		.ds_restart = restart_keys,
		/* Root only reads the keys; see CilkJobBroker(8). */
		.ds_privsep = 1,
		.ds_prepare = bview_prepare,	/* our folder, the engine's view */
	};

	/* The unprivileged half calls itself "CilkJobBroker: engine". */
	setproctitle_init(argc, argv, environ);
	daemon_getopt(&da, argc, argv, "CilkJobBroker", NULL, NULL, NULL,
	    usage);
	if (optind != argc)
		usage(CLI_EXIT_USAGE);
	/* The broker listens where everyone is told to find it. */
	sp.ds_default_listen = NULL;
	sp.ds_default_port = 7410;
	dctx_start(&b.b_dc, &sp, &da, &b);
	broker_init(&b.b_br, dctx_seconds(&b.b_dc, "register_interval", 60));
	if (conf_get_count(b.b_dc.dc_conf, "nodes_max",
	    &b.b_br.br_nodes_max) == -1 ||
	    conf_get_count(b.b_dc.dc_conf, "jobs_max",
	    &b.b_br.br_jobs_max) == -1)
		log_warning("nodes_max, jobs_max: unreadable; %u and %u",
		    b.b_br.br_nodes_max, b.b_br.br_jobs_max);
	b.b_br.br_next_job = b.b_jobid.ji_saved + 1;	/* check() read it */
	/* Ids stay unique in the history even if last_job was lost. */
	if (bacct_max_job(&b.b_acct) >= b.b_br.br_next_job)
		b.b_br.br_next_job = bacct_max_job(&b.b_acct) + 1;
	/* Nodes and jobs as the broker before us left them (persist.c). */
	bpersist_load(&b.b_persist);
	bpush_init(&b.b_push, &b.b_dc, &b.b_br);
	cookie_init(&b.b_cookie);
	if (breg_init(&b.b_reg, &b.b_cookie) == -1)
		fatalx("out of memory");
	blist_init(&b.b_list, &b.b_br, &b.b_cookie);
	bkill_init(&b.b_kill, &b.b_dc, &b.b_br, kill_changed, &b);
	b.b_kill.bk_acct = &b.b_acct;
	b.b_kill.bk_cookie = &b.b_cookie;
	bacct_start(&b.b_acct, &b.b_cookie);
	bhealth_init(&b.b_health, &b.b_dc, &b.b_br, &b.b_push, &b.b_cookie,
	    kill_changed, &b);
	b.b_list.bl_health = &b.b_health.bh_mem;
	bpersist_load_holds(&b.b_persist, &b.b_health.bh_mem);
	broker_wait_init(&b.b_waits);
	b.b_list.bl_waits = &b.b_waits;
	evloop_timer_add(b.b_dc.dc_loop, b.b_br.br_interval / 2, on_tick,
	    &b);
	dctx_ready(&b.b_dc);
	if (dctx_run(&b.b_dc) == -1)
		log_warn("event loop");
	bpred_fini(&b.b_pred);
	bkill_fini(&b.b_kill);
	bpersist_fini(&b.b_persist);	/* saves the holds: before */
	bhealth_fini(&b.b_health);
	bacct_fini(&b.b_acct);
	bpush_fini(&b.b_push);
	breg_fini(&b.b_reg);
	broker_fini(&b.b_br);
	dctx_stop(&b.b_dc);
	return 0;
}
