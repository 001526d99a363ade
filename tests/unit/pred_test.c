/*
 * pred_test — the predicate language, its canonical text, the stored
 * set and its file, and the evaluator.
 */
#include "pred.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static char tmpdir[] = "/tmp/pred_test.XXXXXX";

/* Splits line on blanks and parses it as a CilkPred command. */
static int
cmd(const char *line, struct pred_cmd *c, char *err, size_t errlen)
{
	char buf[1024], *w[PRED_ARGS_MAX + 8], *last, *t;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (t = strtok_r(buf, " ", &last); t != NULL && n < PRED_ARGS_MAX + 7;
	    t = strtok_r(NULL, " ", &last))
		w[n++] = t;
	w[n] = NULL;
	err[0] = '\0';
	return pred_cmd_parse(n, w, c, err, errlen);
}

/* Expects line to be rejected with exactly msg. */
static void
bad(const char *line, const char *msg)
{
	struct pred_cmd c, orig;
	char err[256];

	memset(&c, 0xa5, sizeof(c));
	orig = c;
	ok(cmd(line, &c, err, sizeof(err)) == -1, "rejects '%s'", line);
	is_str(err, msg, "  message for '%s'", line);
	ok(memcmp(&c, &orig, sizeof(c)) == 0, "  nothing stored for '%s'",
	    line);
}

static const char *
fmt(const struct pred *p)
{
	static char buf[PRED_TEXT_MAX];

	if (pred_format(p, buf, sizeof(buf)) == -1)
		return "(format failed)";
	return buf;
}

/* Parses "SCOPE add CONDS" and checks the canonical text. */
static void
canon(const char *in, const char *want)
{
	struct pred p, q;
	char err[256] = "";

	if (!ok(pred_parse(in, &p, err, sizeof(err)) == 0, "parse '%s'", in)) {
		printf("#   %s\n", err);
		return;
	}
	is_str(fmt(&p), want, "  canonical form of '%s'", in);
	ok(pred_parse(fmt(&p), &q, err, sizeof(err)) == 0 && pred_equal(&p, &q),
	    "  parse(print(p)) == p for '%s'", in);
}

static void
test_thesis_examples(void)
{
	char *ex1[] = { "user=lisiecki", "global", "add", "idletime=900",
	    NULL };
	char *ex2[] = { "always", "node=vulture", "add", "load=.2,.2,.2",
	    NULL };
	struct pred_cmd c;
	char err[256] = "";
	const struct pred_cond *pc;

	ok(pred_cmd_parse(4, ex1, &c, err, sizeof(err)) == 0,
	    "thesis: CilkPred user=lisiecki global add idletime=900");
	is_int(c.cm_action, PRED_A_ADD, "  action add");
	is_int(c.cm_pred.pr_scope.ps_type, PRED_S_USER_GLOBAL,
	    "  scope user global");
	is_str(c.cm_pred.pr_scope.ps_user, "lisiecki", "  user lisiecki");
	pc = &c.cm_pred.pr_cond[PRED_C_IDLETIME];
	ok(pc->pc_type == PRED_C_IDLETIME && pc->pc_val[0] == 900 &&
	    !pc->pc_has_stay, "  idletime 900, no stay threshold");
	is_int(pred_ncond(&c.cm_pred), 1, "  one condition");
	is_str(fmt(&c.cm_pred), "user=lisiecki global add idletime=900",
	    "  canonical text");

	ok(pred_cmd_parse(4, ex2, &c, err, sizeof(err)) == 0,
	    "thesis: CilkPred always node=vulture add load=.2,.2,.2");
	is_int(c.cm_pred.pr_scope.ps_type, PRED_S_NODE,
	    "  'always node=H' is the node scope");
	is_str(c.cm_pred.pr_scope.ps_node, "vulture", "  node vulture");
	pc = &c.cm_pred.pr_cond[PRED_C_LOAD];
	ok(pc->pc_type == PRED_C_LOAD && pc->pc_val[0] == 200 &&
	    pc->pc_val[1] == 200 && pc->pc_val[2] == 200 && !pc->pc_has_stay,
	    "  load 0.2,0.2,0.2");
	is_str(fmt(&c.cm_pred), "node=vulture add load=0.2,0.2,0.2",
	    "  canonical text");
}

static void
test_default(void)
{
	struct pred p;
	const struct pred_cond *l, *i;
	char err[256] = "";

	ok(pred_parse(PRED_DEFAULT_TEXT, &p, err, sizeof(err)) == 0,
	    "default predicate parses: %s", err);
	i = &p.pr_cond[PRED_C_IDLETIME];
	l = &p.pr_cond[PRED_C_LOAD];
	ok(p.pr_scope.ps_type == PRED_S_ALWAYS && i->pc_val[0] == 900,
	    "  always, idletime 900");
	ok(l->pc_has_stay && l->pc_val[0] == 350 && l->pc_val[1] == 300 &&
	    l->pc_val[2] == 250 && l->pc_stay[0] == 800 &&
	    l->pc_stay[1] == 600 && l->pc_stay[2] == 500,
	    "  load .35,.30,.25 to become idle, .80,.60,.50 to stay");
	is_str(fmt(&p), "always add idletime=900,"
	    "load=0.35,0.3,0.25:0.8,0.6,0.5", "  canonical text");
}

static void
test_scopes_actions(void)
{
	struct pred_cmd c;
	char err[256];

	ok(cmd("always add idletime=60", &c, err, sizeof(err)) == 0 &&
	    c.cm_pred.pr_scope.ps_type == PRED_S_ALWAYS, "scope always");
	ok(cmd("node=hawk add users=0", &c, err, sizeof(err)) == 0 &&
	    c.cm_pred.pr_scope.ps_type == PRED_S_NODE &&
	    strcmp(c.cm_pred.pr_scope.ps_node, "hawk") == 0, "scope node=H");
	ok(cmd("user=ann add idletime=60", &c, err, sizeof(err)) == 0 &&
	    c.cm_pred.pr_scope.ps_type == PRED_S_USER &&
	    strcmp(c.cm_pred.pr_scope.ps_user, "ann") == 0, "scope user=U");
	ok(cmd("user=ann global add idletime=60", &c, err, sizeof(err)) == 0 &&
	    c.cm_pred.pr_scope.ps_type == PRED_S_USER_GLOBAL,
	    "scope user=U global");
	ok(cmd("global user=ann add idletime=60", &c, err, sizeof(err)) == 0 &&
	    c.cm_pred.pr_scope.ps_type == PRED_S_USER_GLOBAL,
	    "scope words in any order");
	ok(cmd("user=ann node=hawk add idletime=60", &c, err, sizeof(err)) ==
	    0 && c.cm_pred.pr_scope.ps_type == PRED_S_USER_NODE &&
	    strcmp(c.cm_pred.pr_scope.ps_node, "hawk") == 0 &&
	    strcmp(c.cm_pred.pr_scope.ps_user, "ann") == 0,
	    "scope user=U node=H");
	ok(cmd("node=127.0.0.3 add idletime=60", &c, err, sizeof(err)) == 0,
	    "node may be an address");

	ok(cmd("", &c, err, sizeof(err)) == 0 &&
	    c.cm_action == PRED_A_LIST && !c.cm_has_scope,
	    "no words: list everything");
	ok(cmd("list", &c, err, sizeof(err)) == 0 &&
	    c.cm_action == PRED_A_LIST && !c.cm_has_scope, "list");
	ok(cmd("user=ann", &c, err, sizeof(err)) == 0 &&
	    c.cm_action == PRED_A_LIST && c.cm_has_scope &&
	    c.cm_pred.pr_scope.ps_type == PRED_S_USER,
	    "scope alone: list that scope");
	ok(cmd("node=hawk list", &c, err, sizeof(err)) == 0 &&
	    c.cm_action == PRED_A_LIST && c.cm_has_scope, "scope list");
	ok(cmd("node=hawk check", &c, err, sizeof(err)) == 0 &&
	    c.cm_action == PRED_A_CHECK &&
	    strcmp(c.cm_pred.pr_scope.ps_node, "hawk") == 0, "node=H check");
	ok(cmd("user=ann del load", &c, err, sizeof(err)) == 0 &&
	    c.cm_action == PRED_A_DEL && c.cm_del.pc_type == PRED_C_LOAD &&
	    !c.cm_del_value, "del by kind");
	ok(cmd("user=ann del idletime=60:30", &c, err, sizeof(err)) == 0 &&
	    c.cm_action == PRED_A_DEL && c.cm_del_value &&
	    c.cm_del.pc_val[0] == 60 && c.cm_del.pc_stay[0] == 30,
	    "del with a value");
	ok(cmd("always add idletime=600 load=1,1,1 mem=100", &c, err,
	    sizeof(err)) == 0 && pred_ncond(&c.cm_pred) == 3,
	    "add takes several words of conditions");
	ok(cmd("always add users=1:2,mem=512:256,hours=8:00-17:30", &c, err,
	    sizeof(err)) == 0 && c.cm_pred.pr_cond[PRED_C_USERS].pc_stay[0] ==
	    2 && c.cm_pred.pr_cond[PRED_C_MEM].pc_stay[0] == 256 &&
	    c.cm_pred.pr_cond[PRED_C_HOURS].pc_val[0] == 480 &&
	    c.cm_pred.pr_cond[PRED_C_HOURS].pc_val[1] == 1050,
	    "users and mem take stay thresholds, hours a range");
	ok(cmd("always add load=0.3500,1,2", &c, err, sizeof(err)) == 0 &&
	    c.cm_pred.pr_cond[PRED_C_LOAD].pc_val[0] == 350,
	    "trailing zeros beyond three decimals are fine");
}

static void
test_errors(void)
{
	bad("always add idle=5", "unknown condition 'idle=5'");
	bad("always add idletime=900,idle=5,load=1,1,1",
	    "unknown condition 'idle=5'");
	bad("always add load=.3x,.30,.25", "bad number '.3x' in load");
	bad("always add load=.35,.30", "load needs 3 numbers in "
	    "'load=.35,.30'");
	bad("always add load=.35,.30,idletime=900",
	    "bad number 'idletime=900' in load");
	bad("always add load=.35,.30,.25:.8,.6",
	    "load needs 3 numbers in 'load=.35,.30,.25:.8,.6'");
	bad("always add load=0.3505,1,1", "bad number '0.3505' in load");
	bad("always add load=1,1,1,1", "unknown condition '1'");
	bad("always add idletime=-5", "bad number '-5' in idletime");
	bad("always add idletime=1e3", "bad number '1e3' in idletime");
	bad("always add idletime=", "missing number in idletime");
	bad("always add idletime", "missing value in 'idletime'");
	bad("always add idletime=99999999999",
	    "number '99999999999' out of range in idletime (at most "
	    "315360000)");
	bad("always add idletime=900:600:300",
	    "unexpected ':' in 'idletime=900:600:300'");
	bad("always add idletime=600:900", "stay threshold stricter than "
	    "become threshold in 'idletime=600:900'");
	bad("always add load=.8,.6,.5:.35,.30,.25", "stay threshold stricter "
	    "than become threshold in 'load=.8,.6,.5:.35,.30,.25'");
	bad("always add hours=25:00-06:00",
	    "bad time range '25:00-06:00' in hours");
	bad("always add hours=08:00-08:00",
	    "bad time range '08:00-08:00' in hours");
	bad("always add hours=22:00", "bad time range '22:00' in hours");
	bad("always add hours=22:00-06:60",
	    "bad time range '22:00-06:60' in hours");
	bad("always add idletime=900,", "empty condition at end of "
	    "'idletime=900,'");
	bad("always add idletime=900,,users=1",
	    "empty condition in 'idletime=900,,users=1'");
	bad("always add idletime=900,idletime=600", "duplicate condition "
	    "'idletime' in 'idletime=900,idletime=600'");
	bad("always add idletime=900 idletime=600", "duplicate condition "
	    "'idletime' in 'idletime=600'");
	bad("sometimes add idletime=5", "unknown scope word 'sometimes'");
	bad("user=bob idletime=900", "missing action before 'idletime=900' "
	    "(add, del, list or check)");
	bad("always add", "missing condition after 'add'");
	bad("always del", "missing condition after 'del'");
	bad("add idletime=5", "add needs a scope before it (always, node=H, "
	    "user=U)");
	bad("global add idletime=5", "'global' needs user=U");
	bad("user=bob global node=x add idletime=5",
	    "'global' cannot be combined with 'node=x'");
	bad("always user=bob add idletime=5",
	    "'always' cannot be combined with 'user=bob'");
	bad("node=a node=b add idletime=5", "duplicate scope word 'node=b'");
	bad("user=b@d add idletime=5", "bad user name in 'user=b@d'");
	bad("user= add idletime=5", "bad user name in 'user='");
	bad("user=abcdefghijabcdefghijabcdefghijabc add idletime=5",
	    "bad user name in 'user=abcdefghijabcdefghijabcdefghijabc'");
	bad("node=-x add idletime=5", "bad node name in 'node=-x'");
	bad("always check", "check needs the scope node=H");
	bad("user=ann node=hawk check", "check needs the scope node=H");
	bad("always del load x", "unexpected word 'x' after 'del'");
	bad("always del load,users", "del takes one condition, not "
	    "'load,users'");
	bad("always list x", "unexpected word 'x' after 'list'");
	bad("node=hawk check now", "unexpected word 'now' after 'check'");
}

static void
test_canonical(void)
{
	struct pred p, q;
	char err[256] = "";
	int i, j, failed = 0;

	canon("always add idletime=900", "always add idletime=900");
	canon("always node=vulture add load=.2,.2,.2",
	    "node=vulture add load=0.2,0.2,0.2");
	canon("user=ann   global  add  idletime=900:600",
	    "user=ann global add idletime=900:600");
	canon("node=hawk user=ann add hours=22:00-06:00,users=1",
	    "user=ann node=hawk add users=1,hours=22:00-06:00");
	canon("always add hours=0:00-24:00", "always add hours=00:00-24:00");
	canon("always add mem=512:128,load=1.5,2,10.125:2,3,10.125,"
	    "idletime=0,users=0:3",
	    "always add idletime=0,users=0:3,load=1.5,2,10.125:2,3,10.125,"
	    "mem=512:128");

	/* Many generated predicates survive print and parse. */
	srandom(42);
	for (i = 0; i < 2000; i++) {
		memset(&p, 0, sizeof(p));
		p.pr_scope.ps_type = 1 + random() % (PRED_S_MAX - 1);
		if (p.pr_scope.ps_type >= PRED_S_USER)
			snprintf(p.pr_scope.ps_user, sizeof(p.pr_scope.ps_user),
			    "u%ld", random() % 100);
		if (p.pr_scope.ps_type == PRED_S_NODE ||
		    p.pr_scope.ps_type == PRED_S_USER_NODE)
			snprintf(p.pr_scope.ps_node, sizeof(p.pr_scope.ps_node),
			    "n%ld.example.org", random() % 100);
		for (j = PRED_C_UNDEF + 1; j < PRED_C_MAX; j++) {
			struct pred_cond *c = &p.pr_cond[j];

			if (random() % 2 && !(j == PRED_C_MAX - 1 &&
			    pred_ncond(&p) == 0))
				continue;
			c->pc_type = j;
			if (j == PRED_C_HOURS) {
				c->pc_val[0] = random() % 1440;
				c->pc_val[1] = (c->pc_val[0] + 1 +
				    random() % 1439) % 1440;
				continue;
			}
			c->pc_val[0] = random() % 90000;
			if (j == PRED_C_LOAD) {
				c->pc_val[1] = random() % 90000;
				c->pc_val[2] = random() % 90000;
			}
			if (random() % 2) {
				c->pc_has_stay = 1;
				c->pc_stay[0] = c->pc_val[0];
				c->pc_stay[1] = c->pc_val[1];
				c->pc_stay[2] = c->pc_val[2];
				if (j == PRED_C_IDLETIME || j == PRED_C_MEM)
					c->pc_stay[0] -= random() %
					    (c->pc_val[0] + 1);
				else {
					c->pc_stay[0] += random() % 1000;
					if (j == PRED_C_LOAD)
						c->pc_stay[2] += random() %
						    1000;
				}
			}
		}
		if (pred_parse(fmt(&p), &q, err, sizeof(err)) == -1 ||
		    !pred_equal(&p, &q)) {
			if (failed++ == 0)
				printf("# round trip failed: %s (%s)\n",
				    fmt(&p), err);
		}
	}
	is_int(failed, 0, "2000 generated predicates: parse(print(p)) == p");
}

static int
add(struct pred_set *set, const char *line)
{
	struct pred_cmd c;
	char err[256];

	if (cmd(line, &c, err, sizeof(err)) == -1) {
		printf("# %s: %s\n", line, err);
		return -1;
	}
	if (pred_set_apply(set, &c, err, sizeof(err)) == -1) {
		printf("# %s: %s\n", line, err);
		return -1;
	}
	return 0;
}

/* The set printed into a string (static buffer). */
static const char *
dump(const struct pred_set *set, const struct pred_scope *filter)
{
	static char buf[8192];
	FILE *fp;

	if ((fp = fmemopen(buf, sizeof(buf), "w")) == NULL)
		return "(fmemopen failed)";
	pred_set_print(set, filter, fp);
	fclose(fp);
	return buf;
}

static void
test_set(void)
{
	struct pred_set *set;
	struct pred_cmd c;
	struct pred bogus;
	char err[256];

	set = pred_set_new();
	ok(set != NULL, "pred_set_new");
	ok(add(set, "user=ann add idletime=300") == 0 &&
	    add(set, "always add idletime=900,load=.35,.3,.25:.8,.6,.5") == 0 &&
	    add(set, "always node=vulture add load=.2,.2,.2") == 0 &&
	    add(set, "user=ann global add idletime=60") == 0,
	    "add four predicates");
	is_int(pred_set_count(set), 4, "  four scopes");
	is_str(dump(set, NULL),
	    "always add idletime=900,load=0.35,0.3,0.25:0.8,0.6,0.5\n"
	    "node=vulture add load=0.2,0.2,0.2\n"
	    "user=ann add idletime=300\n"
	    "user=ann global add idletime=60\n", "  canonical order");
	ok(add(set, "user=ann add load=1,1,1") == 0 &&
	    add(set, "user=ann add idletime=600") == 0, "add to a scope");
	is_int(pred_set_count(set), 4, "  still four scopes");
	cmd("user=ann", &c, err, sizeof(err));
	is_str(dump(set, &c.cm_pred.pr_scope),
	    "user=ann add idletime=600,load=1,1,1\n",
	    "  a kind already there is replaced; list filters by scope");

	ok(cmd("user=ann del load=2,2,2", &c, err, sizeof(err)) == 0 &&
	    pred_set_apply(set, &c, err, sizeof(err)) == -1,
	    "del with a different value fails");
	is_str(err, "no such predicate 'user=ann load=2,2,2'", "  message");
	ok(cmd("user=bob del load", &c, err, sizeof(err)) == 0 &&
	    pred_set_apply(set, &c, err, sizeof(err)) == -1 &&
	    strcmp(err, "no such predicate 'user=bob load'") == 0,
	    "del of an absent scope fails: %s", err);
	ok(add(set, "user=ann del load=1,1,1") == 0, "del with the value");
	ok(add(set, "user=ann del idletime") == 0, "del by kind");
	is_int(pred_set_count(set), 3, "  a predicate without conditions "
	    "disappears");
	ok(cmd("node=x check", &c, err, sizeof(err)) == 0 &&
	    pred_set_apply(set, &c, err, sizeof(err)) == -1,
	    "apply refuses check");

	memset(&bogus, 0, sizeof(bogus));
	bogus.pr_scope.ps_type = PRED_S_USER;
	strlcpy(bogus.pr_scope.ps_user, "a b", sizeof(bogus.pr_scope.ps_user));
	bogus.pr_cond[PRED_C_USERS].pc_type = PRED_C_USERS;
	ok(pred_set_add(set, &bogus, err, sizeof(err)) == -1,
	    "add checks a hand-made predicate (bad user name)");
	strlcpy(bogus.pr_scope.ps_user, "ab", sizeof(bogus.pr_scope.ps_user));
	bogus.pr_cond[PRED_C_USERS].pc_val[0] = -1;
	ok(pred_set_add(set, &bogus, err, sizeof(err)) == -1,
	    "add checks a hand-made predicate (negative threshold)");
	bogus.pr_cond[PRED_C_USERS].pc_val[0] = 1;
	bogus.pr_cond[PRED_C_USERS].pc_type = PRED_C_LOAD;
	ok(pred_set_add(set, &bogus, err, sizeof(err)) == -1,
	    "add checks a hand-made predicate (kind in the wrong slot)");
	is_int(pred_set_count(set), 3, "  nothing added");

	ok(pred_set_default(set) == 0 && pred_set_count(set) == 1,
	    "pred_set_default");
	is_str(dump(set, NULL), "always add idletime=900,"
	    "load=0.35,0.3,0.25:0.8,0.6,0.5\n", "  is the built-in default");
	pred_set_free(set);
}

static int
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *fp;

	if ((fp = fopen(path, "w")) == NULL)
		return -1;
	fputs(text, fp);
	fclose(fp);
	return chmod(path, mode);
}

static int
count_dir(const char *dir)
{
	DIR *d;
	struct dirent *de;
	int n = 0;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void
test_store(void)
{
	struct pred_set *a, *b;
	char path[512], bad1[512], sub[128], msgs[2048], text[4096];
	struct stat st;
	FILE *errs;
	size_t len;
	int rc;

	snprintf(sub, sizeof(sub), "%s/store", tmpdir);
	mkdir(sub, 0700);
	snprintf(path, sizeof(path), "%s/preds", sub);
	a = pred_set_new();
	b = pred_set_new();
	add(a, "always add idletime=900,load=.35,.30,.25:.80,.60,.50");
	add(a, "always node=vulture add load=.2,.2,.2,hours=22:00-06:00");
	add(a, "user=lisiecki global add idletime=900");
	add(a, "user=ann node=hawk add users=1:2,mem=1024:512");
	add(a, "user=ann add idletime=120:60");

	ok(pred_set_save(a, path) == 0, "save");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
	    "  mode 0644");
	is_int(count_dir(sub), 1, "  no temporary file left behind");
	ok(pred_set_load(b, path, 0, NULL) == 0, "load");
	ok(pred_set_equal(a, b), "  load(save(set)) == set");
	add(a, "node=condor add users=0");
	ok(pred_set_save(a, path) == 0 && pred_set_load(b, path, 0, NULL) ==
	    0 && pred_set_equal(a, b) && pred_set_count(b) == 6,
	    "save over an existing file");
	is_int(count_dir(sub), 1, "  still one file");

	/* The saved text is the canonical listing with a comment on top. */
	{
		FILE *fp = fopen(path, "r");

		len = fp ? fread(text, 1, sizeof(text) - 1, fp) : 0;
		text[len] = '\0';
		if (fp)
			fclose(fp);
	}
	is_str(text, "# cilknow idleness predicates, cilknow-predicates(5)\n"
	    "always add idletime=900,load=0.35,0.3,0.25:0.8,0.6,0.5\n"
	    "node=condor add users=0\n"
	    "node=vulture add load=0.2,0.2,0.2,hours=22:00-06:00\n"
	    "user=ann add idletime=120:60\n"
	    "user=lisiecki global add idletime=900\n"
	    "user=ann node=hawk add users=1:2,mem=1024:512\n",
	    "  file contents");

	/* Errors: path:line, every one, and the set is left alone. */
	snprintf(bad1, sizeof(bad1), "%s/bad", sub);
	write_file(bad1, "# comment\n\n  always add idletime=60\n"
	    "always add idle=5\n"
	    "node=x add load=.3x,1,1\n"
	    "   # indented comment\n"
	    "always add idletime=30\n"
	    "user=ann del load\n", 0600);
	memset(msgs, 0, sizeof(msgs));
	errs = fmemopen(msgs, sizeof(msgs) - 1, "w");
	rc = pred_set_load(b, bad1, 0, errs);
	fclose(errs);
	is_int(rc, 4, "bad file: four errors");
	snprintf(text, sizeof(text),
	    "%s:4: unknown condition 'idle=5'\n"
	    "%s:5: bad number '.3x' in load\n"
	    "%s:7: duplicate condition 'idletime' for scope 'always'\n"
	    "%s:8: expected 'SCOPE add CONDITIONS'\n", bad1, bad1, bad1, bad1);
	is_str(msgs, text, "  reported as path:line: message");
	ok(pred_set_equal(a, b), "  set unchanged");

	write_file(bad1, "always add idletime=60\n", 0666);
	ok(pred_set_load(b, bad1, 0, NULL) == -1 && errno == EPERM,
	    "a file others may write is refused");
	ok(pred_set_equal(a, b), "  set unchanged");

	snprintf(bad1, sizeof(bad1), "%s/missing", sub);
	ok(pred_set_load(b, bad1, 0, NULL) == -1 && errno == ENOENT,
	    "missing file: ENOENT");
	ok(pred_set_equal(a, b), "  set unchanged");
	ok(pred_set_load(b, bad1, 1, NULL) == 0 && pred_set_count(b) == 0,
	    "missing file with missing_ok: empty set");
	ok(pred_set_load(b, sub, 0, NULL) == -1 && errno == EINVAL,
	    "a directory is refused");

	snprintf(bad1, sizeof(bad1), "%s/nodir/preds", sub);
	ok(pred_set_save(a, bad1) == -1 && errno == ENOENT,
	    "save into a missing directory fails");
	is_int(count_dir(sub), 2, "  and leaves nothing behind");

	pred_set_free(a);
	pred_set_free(b);
	snprintf(bad1, sizeof(bad1), "%s/bad", sub);
	unlink(bad1);
	unlink(path);
	rmdir(sub);
}

/* A measurement of a quiet node: idle 1000 s, no users, low load. */
static void
quiet(struct pred_meas *m)
{
	memset(m, 0, sizeof(*m));
	m->pm_idle = 1000;
	m->pm_load[0] = 0.10;
	m->pm_load[1] = 0.05;
	m->pm_load[2] = 0.01;
	m->pm_mem = 4096;
	m->pm_tod = 12 * 60;
}

static void
login(struct pred_meas *m, const char *user, double idle)
{
	struct pred_user *u = &m->pm_user[m->pm_nuser++];

	strlcpy(u->pu_name, user, sizeof(u->pu_name));
	u->pu_idle = idle;
	m->pm_nusers++;
}

/* Evaluates and returns pv_idle, or -1; *napplied the applicable count. */
static int
idle_on(const struct pred_set *set, const char *node,
    const struct pred_meas *m, const struct pred_user *cl, size_t ncl,
    int cur, size_t *napplied)
{
	struct pred_ctx x;
	struct pred_eval ev;
	int r;

	memset(&x, 0, sizeof(x));
	x.px_node = node;
	x.px_meas = m;
	x.px_cluster = cl;
	x.px_ncluster = ncl;
	x.px_idle = cur;
	if (pred_eval(set, &x, &ev) == -1)
		return -1;
	r = ev.pv_idle;
	if (napplied != NULL)
		*napplied = ev.pv_nres;
	pred_eval_fini(&ev);
	return r;
}

static void
test_eval_default(void)
{
	struct pred_meas m;
	struct pred_ctx x;
	struct pred_eval ev;
	size_t n;

	quiet(&m);
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 0, &n) == 1 && n == 1,
	    "default: a quiet node is idle");
	m.pm_idle = 899;
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 0, NULL) == 0,
	    "default: 899 s without input is busy");
	m.pm_idle = 900;
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 0, NULL) == 1,
	    "default: 900 s without input is idle");

	/* hysteresis on load */
	m.pm_load[0] = 0.50;
	m.pm_load[1] = 0.40;
	m.pm_load[2] = 0.30;
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 0, NULL) == 0,
	    "hysteresis: load .5,.4,.3 does not make a busy node idle");
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 1, NULL) == 1,
	    "hysteresis: load .5,.4,.3 keeps an idle node idle");
	m.pm_load[0] = 0.81;
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 1, NULL) == 0,
	    "hysteresis: 1-minute load .81 ends idleness");
	m.pm_load[0] = 0.35;
	m.pm_load[1] = 0.30;
	m.pm_load[2] = 0.25;
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 0, NULL) == 1,
	    "thresholds are inclusive (load .35,.30,.25)");
	m.pm_load[2] = 0.2504;
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 0, NULL) == 1,
	    "loads are compared in thousandths (.2504 rounds to .250)");
	m.pm_load[2] = 0.2506;
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 0, NULL) == 0,
	    "  .2506 rounds to .251 and fails");
	m.pm_load[2] = NAN;
	ok(idle_on(NULL, "hawk", &m, NULL, 0, 1, NULL) == 0,
	    "an unknown load fails");

	quiet(&m);
	memset(&x, 0, sizeof(x));
	x.px_node = "hawk";
	x.px_meas = &m;
	ok(pred_eval(NULL, &x, &ev) == 0 && ev.pv_default && ev.pv_nres == 1 &&
	    ev.pv_res[0].rs_default, "default is flagged in the explanation");
	pred_eval_fini(&ev);
	ok(pred_eval(NULL, NULL, &ev) == -1 && errno == EINVAL,
	    "no context: EINVAL");
}


/* keep_on: pred_eval_keep of an evaluation; *others its other answer. */
static uint32_t
keep_on(const struct pred_set *set, const struct pred_meas *m, int cur,
    int *others)
{
	struct pred_ctx x;
	struct pred_eval ev;
	uint32_t k;

	memset(&x, 0, sizeof(x));
	x.px_node = "hawk";
	x.px_meas = m;
	x.px_idle = cur;
	if (pred_eval(set, &x, &ev) == -1)
		return 12345;
	k = pred_eval_keep(&ev, others);
	pred_eval_fini(&ev);
	return k;
}

/* DESIGN 6: on several processors the load says how many the owner keeps. */
static void
test_eval_keep(void)
{
	struct pred_meas m;
	struct pred_set *set;
	struct pred p;
	int others = -1;

	quiet(&m);
	ok(keep_on(NULL, &m, 0, &others) == 0 && others == 1,
	    "default, a quiet node: the owner keeps none, the rest holds");
	m.pm_load[0] = m.pm_load[1] = m.pm_load[2] = 2;
	ok(keep_on(NULL, &m, 0, &others) == 2 && others == 1,
	    "load 2,2,2: ceil(2 - .35) = 2 kept to become idle");
	ok(keep_on(NULL, &m, 1, &others) == 2,
	    "and ceil(2 - .80) = 2 to stay idle");
	m.pm_load[0] = 1.7;
	m.pm_load[1] = m.pm_load[2] = 0;
	ok(keep_on(NULL, &m, 0, &others) == 2 &&
	    keep_on(NULL, &m, 1, &others) == 1,
	    "load 1.7: 2 kept to become idle, 1 to stay");
	m.pm_load[0] = 0.2;
	m.pm_load[2] = 0.26;
	ok(keep_on(NULL, &m, 0, &others) == 1,
	    "the most over the three averages: .26 over .25 keeps one");
	m.pm_load[2] = NAN;
	ok(keep_on(NULL, &m, 0, &others) == PRED_KEEP_ALL,
	    "an unknown load keeps them all");
	quiet(&m);
	m.pm_idle = 10;
	m.pm_load[0] = 3;
	ok(keep_on(NULL, &m, 0, &others) == 3 && others == 0,
	    "input 10 s ago: the other conditions fail, whatever the load");
	set = pred_set_new();
	ok(set != NULL && pred_parse("always add load=1,1,1", &p, NULL, 0) == 0 &&
	    pred_set_add(set, &p, NULL, 0) == 0 &&
	    pred_parse("always node=hawk add load=2.5,9,9", &p, NULL, 0) == 0 &&
	    pred_set_add(set, &p, NULL, 0) == 0, "two load predicates");
	quiet(&m);
	m.pm_load[0] = m.pm_load[1] = m.pm_load[2] = 3;
	ok(keep_on(set, &m, 0, &others) == 2 && others == 1,
	    "the most over every applicable load condition: ceil(3 - 1) = 2");
	pred_set_free(set);
}

static void
test_eval_scopes(void)
{
	struct pred_set *set;
	struct pred_meas m;
	struct pred_user cl[2];
	size_t n;

	set = pred_set_new();
	add(set, "always add load=1,1,1");
	add(set, "node=vulture add idletime=1200");
	add(set, "user=ann add idletime=300");
	add(set, "user=lisiecki global add idletime=900");
	add(set, "user=bob node=hawk add users=1");

	quiet(&m);
	ok(idle_on(set, "condor", &m, NULL, 0, 0, &n) == 1 && n == 1,
	    "only 'always' applies on a node nobody uses");
	ok(idle_on(set, "vulture", &m, NULL, 0, 0, &n) == 0 && n == 2,
	    "node=vulture applies on vulture (1000 s < 1200 s: busy)");
	ok(idle_on(set, "VULTURE.lcs.mit.edu", &m, NULL, 0, 0, &n) == 0 &&
	    n == 2, "  and on VULTURE.lcs.mit.edu");
	ok(idle_on(set, "vulture2", &m, NULL, 0, 0, &n) == 1 && n == 1,
	    "  not on vulture2");
	ok(pred_node_match("127.0.0.3", "127.0.0.3") &&
	    !pred_node_match("127", "127.0.0.3") &&
	    !pred_node_match("vulture.lcs", "vulture.lcs.mit.edu"),
	    "node names: addresses match exactly, short names only alone");
	m.pm_load[0] = 1.5;
	ok(idle_on(set, "condor", &m, NULL, 0, 0, NULL) == 0,
	    "'always' load fails everywhere");

	/* user=ann: where ann is logged in, on ann's own idleness */
	quiet(&m);
	login(&m, "ann", 200);
	ok(idle_on(set, "condor", &m, NULL, 0, 0, &n) == 0 && n == 2,
	    "user=ann applies where ann is logged in (200 s < 300 s)");
	m.pm_user[0].pu_idle = 400;
	m.pm_idle = 10;
	ok(idle_on(set, "condor", &m, NULL, 0, 0, &n) == 1 && n == 2,
	    "  measured on ann's tty (400 s), not the node's input (10 s)");
	quiet(&m);
	strlcpy(cl[0].pu_name, "ann", sizeof(cl[0].pu_name));
	cl[0].pu_idle = 5;
	ok(idle_on(set, "condor", &m, cl, 1, 0, &n) == 1 && n == 1,
	    "  not where ann is only logged in elsewhere");

	/* user=lisiecki global: everywhere while lisiecki is anywhere */
	quiet(&m);
	strlcpy(cl[0].pu_name, "lisiecki", sizeof(cl[0].pu_name));
	cl[0].pu_idle = 100;
	ok(idle_on(set, "condor", &m, cl, 1, 0, &n) == 0 && n == 2,
	    "user=U global applies while U is logged in elsewhere (100 s)");
	cl[0].pu_idle = 1000;
	ok(idle_on(set, "condor", &m, cl, 1, 0, &n) == 1 && n == 2,
	    "  and holds when U has been idle 1000 s");
	cl[0].pu_idle = -1;
	ok(idle_on(set, "condor", &m, cl, 1, 0, &n) == 0 && n == 2,
	    "  an unknown idle time fails");
	login(&m, "lisiecki", 50);
	cl[0].pu_idle = 5000;
	ok(idle_on(set, "condor", &m, cl, 1, 0, &n) == 0 && n == 2,
	    "  the least of local (50 s) and cluster-wide idle counts");
	quiet(&m);
	login(&m, "lisiecki", 5000);
	ok(idle_on(set, "condor", &m, NULL, 0, 0, &n) == 1 && n == 2,
	    "  a local login counts as logged in anywhere");
	quiet(&m);
	strlcpy(cl[0].pu_name, "someone", sizeof(cl[0].pu_name));
	ok(idle_on(set, "condor", &m, cl, 1, 0, &n) == 1 && n == 1,
	    "  does not apply when U is nowhere");

	/* user=bob node=hawk: on hawk while bob is logged in there */
	quiet(&m);
	login(&m, "bob", 5000);
	login(&m, "carl", 5000);
	ok(idle_on(set, "hawk", &m, NULL, 0, 0, &n) == 0 && n == 2,
	    "user=bob node=hawk applies on hawk with bob there (2 users > 1)");
	ok(idle_on(set, "condor", &m, NULL, 0, 0, &n) == 1 && n == 1,
	    "  not on another node");
	quiet(&m);
	login(&m, "carl", 5000);
	strlcpy(cl[0].pu_name, "bob", sizeof(cl[0].pu_name));
	ok(idle_on(set, "hawk", &m, cl, 1, 0, &n) == 1 && n == 1,
	    "  not on hawk while bob is elsewhere");

	pred_set_clear(set);
	add(set, "user=nobody add idletime=10");
	quiet(&m);
	m.pm_load[0] = 50;
	ok(idle_on(set, "hawk", &m, NULL, 0, 0, &n) == 1 && n == 0,
	    "stored predicates that do not apply: idle (no default)");
	pred_set_free(set);
}

static void
test_eval_conds(void)
{
	struct pred_set *set;
	struct pred_meas m;
	static const struct {
		int	tod;
		int	want;
	} wrap[] = {
		{ 22 * 60, 1 }, { 23 * 60 + 30, 1 }, { 0, 1 },
		{ 5 * 60 + 59, 1 },
		{ 6 * 60, 0 }, { 12 * 60, 0 }, { 21 * 60 + 59, 0 }, { -1, 0 },
	};
	size_t i;

	set = pred_set_new();
	add(set, "always add hours=22:00-06:00");
	quiet(&m);
	for (i = 0; i < sizeof(wrap) / sizeof(wrap[0]); i++) {
		m.pm_tod = wrap[i].tod;
		is_int(idle_on(set, "hawk", &m, NULL, 0, 0, NULL), wrap[i].want,
		    "hours=22:00-06:00 wraps midnight: minute %d", wrap[i].tod);
	}
	pred_set_clear(set);
	add(set, "always add hours=08:00-17:30");
	m.pm_tod = 8 * 60;
	ok(idle_on(set, "hawk", &m, NULL, 0, 0, NULL) == 1,
	    "hours=08:00-17:30 at 08:00");
	m.pm_tod = 17 * 60 + 30;
	ok(idle_on(set, "hawk", &m, NULL, 0, 0, NULL) == 0,
	    "  not at 17:30 (the end is exclusive)");

	pred_set_clear(set);
	add(set, "always add users=0:1,mem=1024:512,idletime=900:600");
	quiet(&m);
	m.pm_nusers = 1;
	ok(idle_on(set, "hawk", &m, NULL, 0, 0, NULL) == 0 &&
	    idle_on(set, "hawk", &m, NULL, 0, 1, NULL) == 1,
	    "users=0:1: one user blocks becoming idle, not staying idle");
	m.pm_nusers = 0;
	m.pm_mem = 700;
	ok(idle_on(set, "hawk", &m, NULL, 0, 0, NULL) == 0 &&
	    idle_on(set, "hawk", &m, NULL, 0, 1, NULL) == 1,
	    "mem=1024:512 with 700 MB free");
	m.pm_mem = -1;
	ok(idle_on(set, "hawk", &m, NULL, 0, 1, NULL) == 0,
	    "unknown free memory fails");
	m.pm_mem = 4096;
	m.pm_idle = 700;
	ok(idle_on(set, "hawk", &m, NULL, 0, 0, NULL) == 0 &&
	    idle_on(set, "hawk", &m, NULL, 0, 1, NULL) == 1,
	    "idletime=900:600 with 700 s");
	m.pm_idle = NAN;
	ok(idle_on(set, "hawk", &m, NULL, 0, 1, NULL) == 0,
	    "unknown idle time fails");
	pred_set_free(set);
}

static const char *
explain(const struct pred_set *set, const char *node,
    const struct pred_meas *m, const struct pred_user *cl, size_t ncl,
    int cur, int json)
{
	static char buf[8192];
	struct pred_ctx x;
	struct pred_eval ev;
	FILE *fp;

	memset(&x, 0, sizeof(x));
	x.px_node = node;
	x.px_meas = m;
	x.px_cluster = cl;
	x.px_ncluster = ncl;
	x.px_idle = cur;
	memset(buf, 0, sizeof(buf));
	if (pred_eval(set, &x, &ev) == -1)
		return "(eval failed)";
	if ((fp = fmemopen(buf, sizeof(buf) - 1, "w")) == NULL)
		return "(fmemopen failed)";
	if (json)
		pred_eval_print_json(&ev, fp);
	else
		pred_eval_print_text(&ev, fp);
	fclose(fp);
	pred_eval_fini(&ev);
	return buf;
}

static void
test_explain(void)
{
	struct pred_set *set;
	struct pred_meas m;
	struct pred_user cl[1];

	quiet(&m);
	m.pm_idle = 1234.7;
	m.pm_load[0] = 0.5;
	m.pm_load[1] = 0.25;
	m.pm_load[2] = 0.125;
	is_str(explain(NULL, "hawk", &m, NULL, 0, 1, 0),
	    "idle: yes (1 applicable predicate, all hold)\n"
	    "always add idletime=900,load=0.35,0.3,0.25:0.8,0.6,0.5 "
	    "(built-in default): pass\n"
	    "  idletime (input): 1234 >= 900: pass\n"
	    "  load: 0.5,0.25,0.125 <= 0.8,0.6,0.5 (stay threshold): pass\n",
	    "text explanation of the default on an idle node");
	is_str(explain(NULL, "hawk", &m, NULL, 0, 0, 1),
	    "\"idle\": false, \"default\": true, \"predicates\": [{\"scope\": "
	    "\"always\", \"predicate\": \"always add idletime=900,"
	    "load=0.35,0.3,0.25:0.8,0.6,0.5\", \"default\": true, "
	    "\"pass\": false, \"conditions\": [{\"condition\": \"idletime\", "
	    "\"source\": \"input\", \"value\": 1234, \"threshold\": 900, "
	    "\"using\": \"single\", \"pass\": true}, {\"condition\": \"load\", "
	    "\"source\": \"node\", \"value\": [0.5, 0.25, 0.125], "
	    "\"threshold\": [0.35, 0.3, 0.25], \"using\": \"become\", "
	    "\"pass\": false}]}]",
	    "JSON explanation of the default on a busy node");

	set = pred_set_new();
	add(set, "user=ann add idletime=300,hours=22:00-06:00,mem=512,"
	    "users=0");
	add(set, "user=lisiecki global add idletime=900");
	quiet(&m);
	login(&m, "ann", 42);
	m.pm_mem = -1;
	m.pm_tod = 23 * 60 + 5;
	strlcpy(cl[0].pu_name, "lisiecki", sizeof(cl[0].pu_name));
	cl[0].pu_idle = 1000;
	is_str(explain(set, "hawk", &m, cl, 1, 0, 0),
	    "idle: no (1 of 2 applicable predicates fails)\n"
	    "user=ann add idletime=300,users=0,mem=512,hours=22:00-06:00: "
	    "FAIL\n"
	    "  idletime (user ann here): 42 >= 300: FAIL\n"
	    "  users: 1 <= 0: FAIL\n"
	    "  mem: unknown >= 512: FAIL\n"
	    "  hours: 23:05 in 22:00-06:00: pass\n"
	    "user=lisiecki global add idletime=900: pass\n"
	    "  idletime (user lisiecki anywhere): 1000 >= 900: pass\n",
	    "text explanation of user scopes");
	is_str(explain(set, "hawk", &m, cl, 1, 0, 1),
	    "\"idle\": false, \"default\": false, \"predicates\": [{\"scope\": "
	    "\"user=ann\", \"predicate\": \"user=ann add idletime=300,users=0,"
	    "mem=512,hours=22:00-06:00\", \"default\": false, \"pass\": false, "
	    "\"conditions\": [{\"condition\": \"idletime\", \"source\": "
	    "\"user\", \"value\": 42, \"threshold\": 300, \"using\": "
	    "\"single\", \"pass\": false}, {\"condition\": \"users\", "
	    "\"source\": \"node\", \"value\": 1, \"threshold\": 0, \"using\": "
	    "\"single\", \"pass\": false}, {\"condition\": \"mem\", "
	    "\"source\": \"node\", \"value\": null, \"threshold\": 512, "
	    "\"using\": \"single\", \"pass\": false}, {\"condition\": "
	    "\"hours\", \"source\": \"node\", \"value\": \"23:05\", "
	    "\"threshold\": \"22:00-06:00\", \"using\": \"single\", "
	    "\"pass\": true}]}, {\"scope\": \"user=lisiecki global\", "
	    "\"predicate\": \"user=lisiecki global add idletime=900\", "
	    "\"default\": false, \"pass\": true, \"conditions\": "
	    "[{\"condition\": \"idletime\", \"source\": \"cluster\", "
	    "\"value\": 1000, \"threshold\": 900, \"using\": \"single\", "
	    "\"pass\": true}]}]",
	    "JSON explanation of user scopes");
	pred_set_clear(set);
	add(set, "user=nobody add idletime=1");
	is_str(explain(set, "hawk", &m, NULL, 0, 0, 0),
	    "idle: yes (no predicate applies)\n",
	    "text when nothing applies");
	is_str(explain(set, "hawk", &m, NULL, 0, 0, 1),
	    "\"idle\": true, \"default\": false, \"predicates\": []",
	    "JSON when nothing applies");
	pred_set_free(set);
}

static void
test_numbers(void)
{
	int64_t v;
	char buf[32];

	ok(pred_decimal_parse(".35", 3, 3, 1000, &v) == 0 && v == 350,
	    "decimal .35");
	ok(pred_decimal_parse("12", 2, 3, 100000, &v) == 0 && v == 12000,
	    "decimal 12");
	ok(pred_decimal_parse(".", 1, 3, 1000, &v) == -1 && errno == EINVAL,
	    "decimal '.' is not a number");
	ok(pred_decimal_parse("99999999999999999999", 20, 0, INT64_MAX, &v) ==
	    -1 && errno == ERANGE, "decimal overflow");
	ok(pred_decimal_parse(" 1", 2, 0, 10, &v) == -1, "no blanks");
	ok(pred_decimal_format(350, 3, buf, sizeof(buf)) == 4 &&
	    strcmp(buf, "0.35") == 0, "format 0.35");
	ok(pred_decimal_format(10125, 3, buf, sizeof(buf)) > 0 &&
	    strcmp(buf, "10.125") == 0, "format 10.125");
	ok(pred_decimal_format(7000, 3, buf, sizeof(buf)) > 0 &&
	    strcmp(buf, "7") == 0, "format 7");
	ok(pred_decimal_format(7000, 3, buf, 1) == -1 && errno == EOVERFLOW,
	    "format overflow");
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_numbers();
	test_thesis_examples();
	test_default();
	test_scopes_actions();
	test_errors();
	test_canonical();
	test_set();
	test_store();
	test_eval_default();
	test_eval_keep();
	test_eval_scopes();
	test_eval_conds();
	test_explain();
	ok(rmdir(tmpdir) == 0, "temporary directory cleaned up");
	return tap_done();
}
