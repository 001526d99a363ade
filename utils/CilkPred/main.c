/*
 * CilkPred — view, add and delete idleness predicates, and explain why
 * a node is or is not idle (cilknow-predicates(5)).  node=H predicates
 * and "node=H check" go to H's node manager, found in the broker's node
 * list; the always and user predicates go to the broker.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "brokerq.h"
#include "cilkpred.h"
#include "json.h"
#include "log.h"

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkPred [-v] [-c file] [-o key=value] [-b host[:port]] "
	    "[--json]\n"
	    "                [scope ...] [list]\n"
	    "       CilkPred [options] scope ... add condition[,condition...]\n"
	    "       CilkPred [options] scope ... del condition\n"
	    "       CilkPred [options] node=host check\n"
	    "scopes: always, node=host, user=user, user=user global,\n"
	    "        user=user node=host\n"
	    "conditions: idletime=S users=N load=A,B,C mem=MB "
	    "hours=HH:MM-HH:MM,\n"
	    "        with become:stay thresholds as in "
	    "load=.35,.30,.25:.8,.6,.5\n");
	exit(status);
}

/* The command in canonical words, for the daemon to parse again. */
static int
canonical(const struct pred_cmd *cmd, char *buf, size_t bufsz)
{
	char scope[PRED_TEXT_MAX], cond[PRED_TEXT_MAX];
	const struct pred_scope *s = &cmd->cm_pred.pr_scope;

	if (cmd->cm_has_scope &&
	    pred_scope_format(s, scope, sizeof(scope)) == -1)
		return -1;
	switch (cmd->cm_action) {
	case PRED_A_ADD:
		return pred_format(&cmd->cm_pred, buf, bufsz) == -1 ? -1 : 0;
	case PRED_A_DEL:
		if (cmd->cm_del_value) {
			if (pred_cond_format(&cmd->cm_del, cond,
			    sizeof(cond)) == -1)
				return -1;
		} else
			strlcpy(cond, pred_ctype_name(cmd->cm_del.pc_type),
			    sizeof(cond));
		return snprintf(buf, bufsz, "%s del %s", scope, cond) >=
		    (int)bufsz ? -1 : 0;
	case PRED_A_CHECK:
		return snprintf(buf, bufsz, "%s check", scope) >= (int)bufsz ?
		    -1 : 0;
	default:
		return snprintf(buf, bufsz, "%s%slist", cmd->cm_has_scope ?
		    scope : "", cmd->cm_has_scope ? " " : "") >= (int)bufsz ?
		    -1 : 0;
	}
}

/*
 * The node manager of host (a name or an address), from the broker's
 * list of nodes, and the name it registered with into name: the node
 * manager knows itself by that name only.
 */
static int
find_node(const struct conf *cf, const char *host, struct msg_addr *addr,
    char *name, size_t namesz, char *err, size_t errlen)
{
	struct brokerq_reply rep;
	char text[64];
	uint32_t i;
	int rc;

	if ((rc = brokerq_list(cf, PROTO_LIST_NODES, &rep, err, errlen)) !=
	    CLI_EXIT_OK)
		return rc;
	for (i = 0; i < rep.bq_n; i++) {
		brokerq_host(&rep.bq_nodes[i].nw_addr, text, sizeof(text));
		if (strcmp(text, host) == 0 ||
		    pred_node_match(host, rep.bq_nodes[i].nw_host))
			break;
	}
	if (i == rep.bq_n) {
		snprintf(err, errlen, "node %s is not registered with the "
		    "broker at %s (see CilkNodes)", host, rep.bq_broker);
		rc = CLI_EXIT_FAILURE;
	} else {
		*addr = rep.bq_nodes[i].nw_addr;
		strlcpy(name, rep.bq_nodes[i].nw_host, namesz);
	}
	brokerq_reply_free(&rep);
	return rc;
}

static int
print_set_json(const struct pred_set *set, const char *node)
{
	const struct pred *p;
	char text[PRED_TEXT_MAX];
	int first = 1;

	printf("{\"schema\": 1, \"node\": ");
	if (node != NULL && node[0] != '\0')
		json_put_str(stdout, node);
	else
		printf("null");
	printf(", \"predicates\": [");
	for (p = pred_set_first(set); p != NULL; p = pred_set_next(p)) {
		printf("%s{\"scope\": ", first ? "" : ", ");
		if (pred_scope_format(&p->pr_scope, text, sizeof(text)) == -1)
			return -1;
		json_put_str(stdout, text);
		printf(", \"predicate\": ");
		if (pred_format(p, text, sizeof(text)) == -1)
			return -1;
		json_put_str(stdout, text);
		printf("}");
		first = 0;
	}
	printf("]}\n");
	return 0;
}

static int
print_check(const struct proto_pred_ans *a, const struct pred_set *set,
    int json)
{
	struct pred_ctx ctx;
	struct pred_eval ev;
	char node[PRED_NODE_MAX + 1];
	int rc;

	if (!a->pa_has_meas) {
		warnx("the node manager sent no measurements");
		return -1;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.px_node = a->pa_node;
	ctx.px_meas = &a->pa_meas;
	ctx.px_cluster = a->pa_cluster;
	ctx.px_ncluster = a->pa_ncluster;
	ctx.px_idle = a->pa_idle;
	if (pred_eval(set, &ctx, &ev) == -1) {
		warn("evaluating");
		return -1;
	}
	brokerq_safe(node, sizeof(node), a->pa_node);
	if (json) {
		printf("{\"schema\": 1, \"node\": ");
		json_put_str(stdout, a->pa_node);
		printf(", \"lent\": %s, ", a->pa_idle ? "true" : "false");
		rc = pred_eval_print_json(&ev, stdout);
		printf("}\n");
	} else {
		printf("node %s (%s, so the %s thresholds apply)\n", node,
		    a->pa_idle ? "counted idle" : "counted busy",
		    a->pa_idle ? "stay" : "become");
		rc = pred_eval_print_text(&ev, stdout);
	}
	pred_eval_fini(&ev);
	return rc;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct proto_pred_req req;
	static struct proto_pred_ans ans;
	struct cli_common cc;
	struct pred_cmd cmd;
	struct pred_set *set;
	struct msg_addr to;
	struct conf *cf;
	char why[BROKERQ_ERR_MAX], what[PRED_NODE_MAX + 64];
	char name[PROTO_HOST_MAX];
	const struct pred_scope *sc;
	int ch, rc, to_node;

	memset(&cc, 0, sizeof(cc));
	/* Options may follow the words too: "node=x check --json". */
	/* Every option is a common one (or -h, -V). */
	while ((ch = cli_getopt(&cc, argc, argv, "b:c:ho:vV", longopts,
	    "CilkPred", usage)) != -1)
		usage(CLI_EXIT_USAGE);
	argc -= optind;
	argv += optind;
	if (pred_cmd_parse(argc, argv, &cmd, why, sizeof(why)) == -1)
		errx(CLI_EXIT_USAGE, "%s (CilkPred -h shows the usage)", why);
	log_init(1, "CilkPred", cc.cc_verbose);
	if (sodium_init() < 0)
		errx(CLI_EXIT_FAILURE, "libsodium failed to initialise");
	if ((cf = cli_conf_load(&cc, "CilkPred")) == NULL)
		return CLI_EXIT_USAGE;
	sc = &cmd.cm_pred.pr_scope;
	req.pq_action = (uint8_t)cmd.cm_action;
	if (canonical(&cmd, req.pq_cmd, sizeof(req.pq_cmd)) == -1)
		errx(CLI_EXIT_USAGE, "the command is too long");
	/* node=H predicates and checks live with H's node manager. */
	to_node = cmd.cm_action == PRED_A_CHECK ||
	    (cmd.cm_has_scope && sc->ps_type == PRED_S_NODE);
	if (to_node) {
		snprintf(what, sizeof(what), "the node manager of %s",
		    sc->ps_node);
		rc = find_node(cf, sc->ps_node, &to, name, sizeof(name), why,
		    sizeof(why));
		/* node=ADDR: ask the node by the name it goes by. */
		if (rc == CLI_EXIT_OK && name[0] != '\0') {
			strlcpy(cmd.cm_pred.pr_scope.ps_node, name,
			    sizeof(cmd.cm_pred.pr_scope.ps_node));
			if (canonical(&cmd, req.pq_cmd,
			    sizeof(req.pq_cmd)) == -1)
				errx(CLI_EXIT_USAGE, "the command is too long");
		}
	} else {
		strlcpy(what, "the broker", sizeof(what));
		rc = msg_addr_parse(&to, conf_get(cf, "broker"), 7410) == -1 ?
		    CLI_EXIT_USAGE : CLI_EXIT_OK;
		if (rc != CLI_EXIT_OK)
			snprintf(why, sizeof(why), "broker %s: bad or unknown "
			    "address", conf_get(cf, "broker"));
	}
	if (rc == CLI_EXIT_OK)
		rc = cilkpred_ask(cf, &to, what, &req,
		    cmd.cm_action == PRED_A_ADD || cmd.cm_action == PRED_A_DEL,
		    &ans, why, sizeof(why));
	conf_free(cf);
	if (rc != CLI_EXIT_OK) {
		brokerq_warn("CilkPred", why);
		return rc;
	}
	if ((set = pred_set_new()) == NULL)
		errx(CLI_EXIT_FAILURE, "out of memory");
	if (proto_pred_set_parse(set, ans.pa_text, why, sizeof(why)) == -1)
		errx(CLI_EXIT_FAILURE, "unreadable predicates from %s: %s",
		    what, why);
	rc = CLI_EXIT_OK;
	if (cmd.cm_action == PRED_A_CHECK) {
		if (print_check(&ans, set, cc.cc_json) == -1)
			rc = CLI_EXIT_FAILURE;
	} else if (cc.cc_json) {
		if (print_set_json(set, to_node ? ans.pa_node : NULL) == -1)
			rc = CLI_EXIT_FAILURE;
	} else {
		if (pred_set_print(set, NULL, stdout) == -1)
			rc = CLI_EXIT_FAILURE;
		if (cmd.cm_action == PRED_A_DEL && pred_set_count(set) == 0) {
			char scope[PRED_TEXT_MAX];

			(void)pred_scope_format(sc, scope, sizeof(scope));
			printf("# %s: no predicate left\n", scope);
		}
	}
	pred_set_free(set);
	proto_pred_ans_free(&ans);
	return cli_stdout_done(rc);
}
