/*
 * fake_node — registers a pretend node or job with the broker, as a
 * node manager or a job manager would, so tests can fill its tables:
 *
 *	fake_node [-c file] [-o k=v] [-b broker] [-a addr] [-H host]
 *	    [-W wait] node STATE LOAD IDLE USERS [JOB]
 *	fake_node [-c file] [-o k=v] [-b broker] [-a addr] [-W wait]
 *	    job PRI MAX AGE COMMAND
 *	fake_node [-c file] [-o k=v] [-b broker] [-a addr] [-W wait]
 *	    list jobs|nodes
 *	fake_node [-c file] [-o k=v] [-b daemon] [-a addr] [-W wait]
 *	    pred WORD...
 *	fake_node [-c file] [-o k=v] [-b node] [-a addr] [-W wait]
 *	    gone JOB
 *	fake_node [-c file] [-o k=v] [-b broker] [-a addr] [-W wait]
 *	    kill USER
 *
 * A node registers under the cluster scheme, a job under the user
 * scheme (the user_key's user).  LOAD is the 1-minute load (0.25), AGE
 * seconds since the job started.  Prints the id the broker gave and
 * exits 0 on its ACK, 1 on an ERROR, 2 on bad arguments, 3 when no
 * answer came within the wait (default: the timeout key).  A job
 * registers again at once with the broker's cookie when it gets one,
 * as a job manager does, unless -N: then it prints "request N answer
 * cookie M" and exits 2, as list does.  kill sends one user-scheme
 * KILL_REQ for every job of USER and prints "request N answer
 * cookie|kill M".  list sends
 * one user-scheme list request and prints "request N answer cookie|list
 * M" (payload bytes) for the first answer: a forger's view.  pred
 * does the same with one user-scheme PRED_REQ (the words of a CilkPred
 * command, "node=h check") to the broker or a node manager (-b), and
 * prints "request N answer cookie|pred M".  gone sends JOB_GONE for
 * JOB under the cluster scheme, as only the broker may (no answer comes:
 * exit 3 after the wait).
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cli.h"
#include "log.h"
#include "mono.h"
#include "msg_keyring.h"
#include "proto.h"
#include "proto_kill.h"
#include "proto_pred.h"

struct fake {
	struct evloop		*f_loop;
	struct msg_ep		*f_ep;
	struct msg_addr		 f_broker;
	enum msg_scheme		 f_scheme;
	uint16_t		 f_handler;	/* what we send */
	uint16_t		 f_ack;		/* what answers it */
	uint8_t			 f_buf[PROTO_PRED_CMD_MAX + 64];
	size_t			 f_len;
	int			 f_rc;		/* -1 while waiting */
	int			 f_nocookie;	/* -N: a forger's view */
	uint32_t		 f_id;
	char			 f_reason[PROTO_REASON_MAX];
};

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: fake_node [-c file] [-o key=value] "
	    "[-b broker] [-a addr] [-H host] [-W wait]\n"
	    "           node STATE LOAD IDLE USERS [JOB]\n"
	    "       fake_node [-c file] [-o key=value] [-b broker] [-a addr] "
	    "[-W wait]\n"
	    "           job PRI MAX AGE COMMAND\n"
	    "       fake_node [-c file] [-o key=value] [-b broker] [-a addr] "
	    "[-W wait]\n"
	    "           list jobs|nodes\n"
	    "       fake_node [-c file] [-o key=value] [-b daemon] [-a addr] "
	    "[-W wait]\n"
	    "           pred WORD...\n"
	    "       fake_node [-c file] [-o key=value] [-b node] [-a addr] "
	    "[-W wait]\n"
	    "           gone JOB\n"
	    "       fake_node [-c file] [-o key=value] [-b broker] [-a addr] "
	    "[-W wait] [-N]\n"
	    "           kill USER\n");
	exit(CLI_EXIT_USAGE);
}

static uint32_t
number(const char *s, const char *what, long long max)
{
	const char *errstr;
	long long v = strtonum(s, 0, max, &errstr);

	if (errstr != NULL) {
		warnx("%s %s: %s", what, s, errstr);
		usage();
	}
	return (uint32_t)v;
}

static void
on_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct fake *f = arg;
	struct proto_ack a;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &f->f_broker) ||
	    in->mi_hdr->mh_handler != f->f_ack ||
	    proto_ack_dec(&a, in->mi_data, in->mi_len) == -1 || a.ak_id == 0)
		return;
	f->f_id = a.ak_id;
	f->f_rc = 0;
	evloop_break(f->f_loop);
}

static void
on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct fake *f = arg;
	struct proto_error e;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &f->f_broker) ||
	    proto_error_dec(&e, in->mi_data, in->mi_len) == -1)
		return;
	strlcpy(f->f_reason, e.er_reason, sizeof(f->f_reason));
	f->f_rc = 1;
	evloop_break(f->f_loop);
}

/* list: what came back for one request, as an eavesdropped victim. */
static void
on_answer(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct fake *f = arg;

	struct proto_cookie c;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &f->f_broker))
		return;
	/* A registration: again at once with the cookie (it ends in 0). */
	if (f->f_ack != 0 && !f->f_nocookie &&
	    in->mi_hdr->mh_handler == PROTO_H_COOKIE &&
	    f->f_handler == PROTO_H_JOB_REGISTER && f->f_len > 0 &&
	    f->f_buf[f->f_len - 1] == 0 &&
	    f->f_len + PROTO_COOKIE_LEN <= sizeof(f->f_buf) &&
	    proto_cookie_dec(&c, in->mi_data, in->mi_len) == 0) {
		f->f_buf[f->f_len - 1] = 1;
		memcpy(f->f_buf + f->f_len, c.co_cookie, PROTO_COOKIE_LEN);
		f->f_len += PROTO_COOKIE_LEN;
		if (msg_ep_send(f->f_ep, &f->f_broker, f->f_scheme,
		    f->f_handler, f->f_buf, f->f_len) == -1)
			warn("send");
		return;
	}
	if (f->f_ack != 0 && !(f->f_nocookie &&
	    in->mi_hdr->mh_handler == PROTO_H_COOKIE))
		return;
	printf("request %zu answer %s %zu\n", f->f_len,
	    in->mi_hdr->mh_handler == PROTO_H_COOKIE ? "cookie" :
	    in->mi_hdr->mh_handler == PROTO_H_PRED_ANSWER ? "pred" :
	    in->mi_hdr->mh_handler == PROTO_H_KILL_ANSWER ? "kill" : "list",
	    in->mi_len);
	f->f_rc = 2;
	evloop_break(f->f_loop);
}

static const struct msg_handler table[PROTO_H_MAX] = {
	[PROTO_H_NODE_ACK] = { "node-ack", MSG_SCHEMES_ALL, on_ack },
	[PROTO_H_JOB_ACK] = { "job-ack", MSG_SCHEMES_ALL, on_ack },
	[PROTO_H_ERROR] = { "error", MSG_SCHEMES_ALL, on_error },
	[PROTO_H_COOKIE] = { "cookie", MSG_SCHEMES_ALL, on_answer },
	[PROTO_H_JOBS] = { "jobs", MSG_SCHEMES_ALL, on_answer },
	[PROTO_H_NODES] = { "nodes", MSG_SCHEMES_ALL, on_answer },
	[PROTO_H_PRED_ANSWER] = { "pred-answer", MSG_SCHEMES_ALL, on_answer },
	[PROTO_H_KILL_ANSWER] = { "kill-answer", MSG_SCHEMES_ALL, on_answer },
};

static void
on_resend(struct evloop *loop, void *arg)
{
	struct fake *f = arg;

	if (msg_ep_send(f->f_ep, &f->f_broker, f->f_scheme, f->f_handler,
	    f->f_buf, f->f_len) == -1)
		warn("send");
	evloop_timer_add(loop, 0.3, on_resend, f);
}

static void
on_deadline(struct evloop *loop, void *arg)
{
	(void)arg;
	evloop_break(loop);
}

static void
build_node(struct fake *f, int argc, char **argv, const char *host)
{
	struct proto_node_reg r;
	double load;
	char *end;

	if (argc != 5 && argc != 6)
		usage();
	memset(&r, 0, sizeof(r));
	randombytes_buf(&r.nr_boot, sizeof(r.nr_boot));
	strlcpy(r.nr_host, host, sizeof(r.nr_host));
	if ((r.nr_state = proto_state_from_name(argv[1])) == PROTO_NS_UNDEF) {
		warnx("%s: not a node state", argv[1]);
		usage();
	}
	load = strtod(argv[2], &end);
	if (*argv[2] == '\0' || *end != '\0' || !(load >= 0 && load < 1e6)) {
		warnx("%s: not a load", argv[2]);
		usage();
	}
	r.nr_load_milli = (uint32_t)(load * 1000 + 0.5);
	r.nr_idle = number(argv[3], "IDLE", UINT32_MAX);
	r.nr_users = (uint16_t)number(argv[4], "USERS", UINT16_MAX);
	if (argc == 6)
		r.nr_job = number(argv[5], "JOB", UINT32_MAX);
	f->f_scheme = MSG_SCHEME_CLUSTER;
	f->f_handler = PROTO_H_NODE_REGISTER;
	f->f_ack = PROTO_H_NODE_ACK;
	f->f_len = proto_node_reg_enc(&r, f->f_buf, sizeof(f->f_buf));
}

static void
build_job(struct fake *f, int argc, char **argv)
{
	struct proto_job_reg r;
	uint32_t age;

	if (argc != 5)
		usage();
	memset(&r, 0, sizeof(r));
	randombytes_buf(&r.jr_boot, sizeof(r.jr_boot));
	r.jr_pri = number(argv[1], "PRI", UINT32_MAX);
	r.jr_max = number(argv[2], "MAX", UINT32_MAX);
	age = number(argv[3], "AGE", 86400 * 1000);
	r.jr_start_ms = now_real_ms() - (uint64_t)age * 1000;
	if (strlcpy(r.jr_command, argv[4], sizeof(r.jr_command)) >=
	    sizeof(r.jr_command)) {
		warnx("COMMAND too long");
		usage();
	}
	f->f_scheme = MSG_SCHEME_USER;
	f->f_handler = PROTO_H_JOB_REGISTER;
	f->f_ack = PROTO_H_JOB_ACK;
	f->f_len = proto_job_reg_enc(&r, f->f_buf, sizeof(f->f_buf));
}

/* One list request, never answering a cookie: what a forger gets. */
static void
build_list(struct fake *f, int argc, char **argv)
{
	struct proto_list l;

	if (argc != 2 || (strcmp(argv[1], "jobs") != 0 &&
	    strcmp(argv[1], "nodes") != 0))
		usage();
	memset(&l, 0, sizeof(l));
	l.li_what = strcmp(argv[1], "jobs") == 0 ? PROTO_LIST_JOBS :
	    PROTO_LIST_NODES;
	f->f_scheme = MSG_SCHEME_USER;
	f->f_handler = PROTO_H_LIST;
	f->f_ack = 0;
	f->f_len = proto_list_enc(&l, f->f_buf, sizeof(f->f_buf));
}

/* A JOB_GONE from whoever we are: node managers heed only the broker. */
static void
build_gone(struct fake *f, int argc, char **argv)
{
	struct proto_job_unreg m;

	if (argc != 2)
		usage();
	m.ju_job = number(argv[1], "JOB", UINT32_MAX);
	f->f_scheme = MSG_SCHEME_CLUSTER;
	f->f_handler = PROTO_H_JOB_GONE;
	f->f_ack = 0;
	f->f_len = proto_job_unreg_enc(&m, f->f_buf, sizeof(f->f_buf));
}

/* One KILL_REQ of a user's jobs, never answering a cookie. */
static void
build_kill(struct fake *f, int argc, char **argv)
{
	struct proto_kill_req q;

	if (argc != 2)
		usage();
	memset(&q, 0, sizeof(q));
	q.kq_what = PROTO_KILL_USER;
	strlcpy(q.kq_user, argv[1], sizeof(q.kq_user));
	f->f_scheme = MSG_SCHEME_USER;
	f->f_handler = PROTO_H_KILL_REQ;
	f->f_ack = 0;
	f->f_len = proto_kill_req_enc(&q, f->f_buf, sizeof(f->f_buf));
}

/* One predicate request, never answering a cookie: what a forger gets. */
static void
build_pred(struct fake *f, int argc, char **argv)
{
	static struct proto_pred_req q;
	struct pred_cmd cmd;
	char why[256];

	memset(&q, 0, sizeof(q));
	if (pred_cmd_parse(argc - 1, argv + 1, &cmd, why, sizeof(why)) == -1) {
		warnx("%s", why);
		usage();
	}
	q.pq_action = (uint8_t)cmd.cm_action;
	if (proto_pred_join(argc - 1, argv + 1, q.pq_cmd,
	    sizeof(q.pq_cmd)) == -1)
		usage();
	f->f_scheme = MSG_SCHEME_USER;
	f->f_handler = PROTO_H_PRED_REQ;
	f->f_ack = 0;
	f->f_len = proto_pred_req_enc(&q, f->f_buf, sizeof(f->f_buf));
}

int
main(int argc, char *argv[])
{
	struct cli_common cc;
	struct msg_keyring *kr;
	struct msg_addr bind_addr;
	struct conf *cf;
	struct fake f;
	const char *bind_text = NULL, *host = "fake";
	char why[512];
	double wait = -1;
	int ch;

	memset(&cc, 0, sizeof(cc));
	memset(&f, 0, sizeof(f));
	while ((ch = getopt(argc, argv, "+a:b:c:H:No:vW:")) != -1) {
		switch (cli_common_opt(&cc, ch, optarg)) {
		case 1:
			continue;
		case -1:
			usage();
		}
		switch (ch) {
		case 'a':
			bind_text = optarg;
			break;
		case 'H':
			host = optarg;
			break;
		case 'N':
			f.f_nocookie = 1;
			break;
		case 'W':
			wait = atof(optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	log_init(1, "fake_node", cc.cc_verbose);
	if (sodium_init() < 0)
		errx(CLI_EXIT_FAILURE, "libsodium");
	if ((cf = cli_conf_load(&cc, "fake_node")) == NULL)
		return CLI_EXIT_USAGE;
	if (strcmp(argv[0], "node") == 0)
		build_node(&f, argc, argv, host);
	else if (strcmp(argv[0], "job") == 0)
		build_job(&f, argc, argv);
	else if (strcmp(argv[0], "list") == 0)
		build_list(&f, argc, argv);
	else if (strcmp(argv[0], "pred") == 0)
		build_pred(&f, argc, argv);
	else if (strcmp(argv[0], "gone") == 0)
		build_gone(&f, argc, argv);
	else if (strcmp(argv[0], "kill") == 0)
		build_kill(&f, argc, argv);
	else
		usage();
	if (f.f_len == 0)
		errx(CLI_EXIT_USAGE, "message too long");
	if (wait <= 0 && conf_get_seconds(cf, "timeout", &wait) == -1)
		wait = 3;
	if (msg_addr_parse(&f.f_broker, conf_get(cf, "broker"), 7410) == -1)
		errx(CLI_EXIT_USAGE, "%s: bad broker address",
		    conf_get(cf, "broker"));
	memset(&bind_addr, 0, sizeof(bind_addr));
	bind_addr.ma_family = f.f_broker.ma_family;
	if (bind_text != NULL && msg_addr_parse(&bind_addr, bind_text,
	    0) == -1)
		errx(CLI_EXIT_USAGE, "%s: bad address", bind_text);
	if ((kr = calloc(1, sizeof(*kr))) == NULL)
		err(CLI_EXIT_FAILURE, "calloc");
	if (msg_keyring_load(kr, cf, f.f_scheme == MSG_SCHEME_CLUSTER ?
	    MSG_KR_CLUSTER : MSG_KR_USER, "fake-node", why,
	    sizeof(why)) == -1)
		errx(CLI_EXIT_FAILURE, "%s", why);
	if ((f.f_loop = evloop_new()) == NULL ||
	    (f.f_ep = msg_ep_new(f.f_loop, kr, table, PROTO_H_MAX, &f,
	    NULL)) == NULL || msg_ep_bind(f.f_ep, &bind_addr) == -1)
		err(CLI_EXIT_FAILURE, "endpoint");
	f.f_rc = -1;
	evloop_timer_add(f.f_loop, wait, on_deadline, &f);
	on_resend(f.f_loop, &f);
	if (evloop_run(f.f_loop) == -1)
		warn("event loop");
	msg_ep_free(f.f_ep);
	evloop_free(f.f_loop);
	msg_keyring_clear(kr);
	free(kr);
	conf_free(cf);
	if (f.f_rc == 0) {
		printf("%u\n", f.f_id);
		return 0;
	}
	if (f.f_rc == 1) {
		warnx("refused: %s", f.f_reason);
		return CLI_EXIT_FAILURE;
	}
	if (f.f_rc == 2)
		return 0;	/* list: printed by on_answer */
	warnx("no answer within %g s", wait);
	return CLI_EXIT_TIMEOUT;
}
