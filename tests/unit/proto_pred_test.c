/* Unit tests of the predicate messages (proto_pred). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto_pred.h"
#include "tap.h"
#include "codec_robust.h"
#include "proto_rt.h"

static void
test_req(void)
{
	static uint8_t buf[MSG_PAYLOAD_MAX];
	struct proto_pred_req q, r;
	char *argv[] = { "user=lisiecki", "global", "add", "idletime=900" };
	char *out[8], words[256];
	size_t len;
	int n;

	memset(&q, 0, sizeof(q));
	q.pq_action = PRED_A_ADD;
	ok(proto_pred_join(4, argv, q.pq_cmd, sizeof(q.pq_cmd)) == 0,
	    "join the words of a command");
	is_str(q.pq_cmd, "user=lisiecki global add idletime=900",
	    "joined with single blanks");
	len = proto_pred_req_enc(&q, buf, sizeof(buf));
	ok(len > 0, "PRED_REQ encodes");
	ok(proto_pred_req_dec(&r, buf, len) == 0 && r.pq_action ==
	    PRED_A_ADD && strcmp(r.pq_cmd, q.pq_cmd) == 0,
	    "PRED_REQ round trip");
	robust("PRED_REQ", rt_proto_pred_req, buf, len);
	ok(proto_pred_split(r.pq_cmd, words, sizeof(words), out, 8, &n) ==
	    0 && n == 4 && strcmp(out[3], "idletime=900") == 0,
	    "split gives the words back");
	ok(proto_pred_split(r.pq_cmd, words, sizeof(words), out, 3, &n) ==
	    -1, "split refuses more words than room");
	ok(buf[len - 1] == 0 && !r.pq_has_cookie,
	    "without a cookie: a flag of 0 ends it");
	ok(proto_pred_req_dec(&r, buf, len - 1) == -1,
	    "a request without the cookie flag is refused");
	buf[len - 1] = 2;
	ok(proto_pred_req_dec(&r, buf, len) == -1, "a cookie flag of 2 refused");
	buf[len - 1] = 1;
	ok(proto_pred_req_dec(&r, buf, len) == -1,
	    "a cookie flag of 1 without the cookie refused");
	q.pq_has_cookie = 1;
	memset(q.pq_cookie, 0xc5, sizeof(q.pq_cookie));
	q.pq_cookie[0] = 0x01;
	len = proto_pred_req_enc(&q, buf, sizeof(buf));
	ok(len > 0 && proto_pred_req_dec(&r, buf, len) == 0 &&
	    r.pq_has_cookie && memcmp(r.pq_cookie, q.pq_cookie,
	    PROTO_COOKIE_LEN) == 0 && strcmp(r.pq_cmd, q.pq_cmd) == 0,
	    "PRED_REQ with a cookie round trip");
	robust("PRED_REQ with a cookie", rt_proto_pred_req, buf, len);
	ok(proto_pred_req_dec(&r, buf, len - 1) == -1,
	    "a cookie one byte short refused");
	buf[0] = PRED_A_MAX;
	ok(proto_pred_req_dec(&r, buf, len) == -1, "unknown action refused");
	buf[0] = PRED_A_UNDEF;
	ok(proto_pred_req_dec(&r, buf, len) == -1, "action 0 refused");
	{
		char *bad[] = { "a b", "add" };

		ok(proto_pred_join(2, bad, q.pq_cmd, sizeof(q.pq_cmd)) == -1,
		    "join refuses a word with a blank");
	}
}

static void
test_ans(void)
{
	static uint8_t buf[MSG_PAYLOAD_MAX];
	static struct proto_pred_ans a, b;
	size_t len;

	memset(&a, 0, sizeof(a));
	a.pa_action = PRED_A_CHECK;
	strlcpy(a.pa_node, "127.0.0.3", sizeof(a.pa_node));
	a.pa_text = "always add idletime=900\nuser=ann add idletime=60\n";
	a.pa_has_meas = 1;
	a.pa_idle = 1;
	a.pa_meas.pm_idle = 12.5;
	a.pa_meas.pm_nusers = 2;
	a.pa_meas.pm_load[0] = 0.25;
	a.pa_meas.pm_load[1] = 0.5;
	a.pa_meas.pm_load[2] = NAN;
	a.pa_meas.pm_mem = -1;
	a.pa_meas.pm_tod = -1;
	a.pa_meas.pm_nuser = 1;
	strlcpy(a.pa_meas.pm_user[0].pu_name, "ann",
	    sizeof(a.pa_meas.pm_user[0].pu_name));
	a.pa_meas.pm_user[0].pu_idle = 3;
	a.pa_ncluster = 1;
	strlcpy(a.pa_cluster[0].pu_name, "bob",
	    sizeof(a.pa_cluster[0].pu_name));
	a.pa_cluster[0].pu_idle = -1;
	len = proto_pred_ans_enc(&a, buf, sizeof(buf));
	ok(len > 0, "PRED_ANSWER encodes");
	ok(proto_pred_ans_dec(&b, buf, len) == 0, "PRED_ANSWER decodes");
	ok(b.pa_text != NULL && strcmp(b.pa_text, a.pa_text) == 0 &&
	    strcmp(b.pa_node, "127.0.0.3") == 0 && b.pa_idle == 1 &&
	    b.pa_meas.pm_idle == 12.5 && b.pa_meas.pm_nusers == 2 &&
	    b.pa_meas.pm_load[1] == 0.5 && isnan(b.pa_meas.pm_load[2]) &&
	    b.pa_meas.pm_mem == -1 && b.pa_meas.pm_tod == -1 &&
	    b.pa_meas.pm_nuser == 1 &&
	    strcmp(b.pa_meas.pm_user[0].pu_name, "ann") == 0 &&
	    b.pa_ncluster == 1 && b.pa_cluster[0].pu_idle == -1,
	    "PRED_ANSWER round trip, unknown values kept");
	proto_pred_ans_free(&b);
	robust("PRED_ANSWER", rt_proto_pred_ans, buf, len);

	a.pa_meas.pm_idle = INFINITY;
	len = proto_pred_ans_enc(&a, buf, sizeof(buf));
	ok(len > 0 && proto_pred_ans_dec(&b, buf, len) == -1,
	    "an infinite measurement is refused");
	proto_pred_ans_free(&b);

	memset(&a, 0, sizeof(a));
	a.pa_action = PRED_A_LIST;
	len = proto_pred_ans_enc(&a, buf, sizeof(buf));
	ok(len > 0 && proto_pred_ans_dec(&b, buf, len) == 0 &&
	    b.pa_text != NULL && b.pa_text[0] == '\0' && !b.pa_has_meas,
	    "an empty list answer");
	proto_pred_ans_free(&b);
	robust("PRED_ANSWER (list)", rt_proto_pred_ans, buf, len);
}

static void
test_push_users(void)
{
	static uint8_t buf[MSG_PAYLOAD_MAX];
	static struct proto_pred_push p, q;
	static struct proto_pred_users u, v;
	size_t len;

	memset(&p, 0, sizeof(p));
	p.pp_epoch = 7;
	p.pp_text = "always add load=0.2,0.2,0.2\n";
	p.pp_ncluster = 2;
	strlcpy(p.pp_cluster[0].pu_name, "ann", sizeof(p.pp_cluster[0].pu_name));
	strlcpy(p.pp_cluster[1].pu_name, "bob", sizeof(p.pp_cluster[1].pu_name));
	p.pp_cluster[1].pu_idle = 99;
	len = proto_pred_push_enc(&p, buf, sizeof(buf));
	ok(len > 0 && proto_pred_push_dec(&q, buf, len) == 0 &&
	    q.pp_epoch == 7 && strcmp(q.pp_text, p.pp_text) == 0 &&
	    q.pp_ncluster == 2 && q.pp_cluster[1].pu_idle == 99,
	    "PRED_PUSH round trip");
	proto_pred_push_free(&q);
	robust("PRED_PUSH", rt_proto_pred_push, buf, len);

	memset(&u, 0, sizeof(u));
	u.pu_n = 1;
	strlcpy(u.pu_user[0].pu_name, "ann", sizeof(u.pu_user[0].pu_name));
	u.pu_user[0].pu_idle = 1.5;
	len = proto_pred_users_enc(&u, buf, sizeof(buf));
	ok(len > 0 && proto_pred_users_dec(&v, buf, len) == 0 &&
	    v.pu_n == 1 && v.pu_user[0].pu_idle == 1.5,
	    "PRED_USERS round trip");
	robust("PRED_USERS", rt_proto_pred_users, buf, len);
	buf[1] = 200;	/* more users than PRED_MEAS_USERS_MAX */
	ok(proto_pred_users_dec(&v, buf, len) == -1,
	    "an oversized user count is refused");
}

static void
test_set_text(void)
{
	struct pred_set *s = pred_set_new(), *t = pred_set_new();
	char err[256], *text;

	ok(s != NULL && t != NULL, "sets");
	ok(proto_pred_set_parse(s, "# comment\nuser=lisiecki global add "
	    "idletime=900\n\nalways node=vulture add load=.2,.2,.2\n", err,
	    sizeof(err)) == 0, "a set parses from text");
	is_int(pred_set_count(s), 2, "two predicates");
	text = proto_pred_set_text(s, NULL);
	ok(text != NULL && strstr(text, "node=vulture add load=0.2,0.2,0.2\n")
	    != NULL, "canonical text");
	ok(proto_pred_set_parse(t, text, err, sizeof(err)) == 0 &&
	    pred_set_equal(s, t), "text round trip gives the same set");
	free(text);
	ok(proto_pred_set_parse(t, "always add idle=5\n", err, sizeof(err))
	    == -1 && strstr(err, "idle=5") != NULL,
	    "a bad line is refused, naming the word (%s)", err);
	is_int(pred_set_count(t), 2, "and the set is unchanged");
	pred_set_free(s);
	pred_set_free(t);
}

/* words_cmd: WORDS (a blank-separated command) as a command. */
static int
words_cmd(const char *words, struct pred_cmd *cmd, char *why, size_t whysz)
{
	char buf[1024], *argv[16], *w;
	int argc = 0;

	strlcpy(buf, words, sizeof(buf));
	for (w = strtok(buf, " "); w != NULL && argc < 16; w = strtok(NULL, " "))
		argv[argc++] = w;
	return pred_cmd_parse(argc, argv, cmd, why, whysz);
}

/* change: WORDS on *set, stored under dir. */
static int
change(struct pred_set **set, const char *path, const char *words,
    char *why, size_t whysz)
{
	struct pred_cmd cmd;

	if (words_cmd(words, &cmd, why, whysz) == -1)
		return -2;
	return proto_pred_set_change(set, path, &cmd, why, whysz);
}

/* The length of set's text, as pushed. */
static size_t
text_len(struct pred_set *set)
{
	char *text = proto_pred_set_text(set, NULL);
	size_t n = text != NULL ? strlen(text) : 0;

	free(text);
	return n;
}

/* No user fills the store, and what is stored can always be pushed. */
static void
test_quota(void)
{
	char dir[] = "/tmp/proto_pred_test.XXXXXX", path[256], why[256];
	char words[1024], node[200];
	struct pred_set *set = pred_set_new();
	int i, rc = 0, u;

	if (mkdtemp(dir) == NULL || set == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/predicates", dir);
	for (i = 0; i < PROTO_PRED_USER_MAX; i++) {
		snprintf(words, sizeof(words), "user=alice node=h%d add "
		    "idletime=60", i);
		if ((rc = change(&set, path, words, why, sizeof(why))) != 0)
			break;
	}
	is_int(rc, 0, "alice keeps %d predicates", PROTO_PRED_USER_MAX);
	is_int(change(&set, path, "user=alice node=one-more add idletime=60",
	    why, sizeof(why)), -1, "her next one is refused");
	ok(strstr(why, "alice keeps 16 predicates already") != NULL,
	    "saying why (%s)", why);
	is_int(change(&set, path, "user=alice node=h3 add idletime=90", why,
	    sizeof(why)), 0, "she may still change one she keeps");
	is_int(change(&set, path, "user=alice node=h3 del idletime", why,
	    sizeof(why)), 0, "and delete one");
	is_int(change(&set, path, "user=bob global add idletime=30", why,
	    sizeof(why)), 0, "bob still adds his");
	/* Many users with long node names: the text would outgrow a push. */
	memset(node, 'n', sizeof(node) - 1);
	node[sizeof(node) - 1] = '\0';
	/*
	 * Most of them straight into the set, a user at a time while the
	 * text has room for more than one user's: each change re-reads
	 * the whole set, and one at a time they took 30 s under valgrind.
	 */
	for (u = 0, rc = 0; u < 100 && rc == 0 &&
	    text_len(set) + 2 * PROTO_PRED_USER_MAX * sizeof(node) <
	    PROTO_PRED_TEXT_MAX; u++)
		for (i = 0; i < PROTO_PRED_USER_MAX && rc == 0; i++) {
			struct pred_cmd cmd;

			snprintf(words, sizeof(words), "user=u%d node=%s%d add "
			    "idletime=60", u, node, i);
			rc = words_cmd(words, &cmd, why, sizeof(why)) == 0 &&
			    pred_set_apply(set, &cmd, why, sizeof(why)) == 0 ?
			    0 : -2;
		}
	is_int(rc, 0, "%d users' predicates put straight into the set", u);
	for (; u < 100 && rc == 0; u++)
		for (i = 0; i < PROTO_PRED_USER_MAX && rc == 0; i++) {
			snprintf(words, sizeof(words), "user=u%d node=%s%d add "
			    "idletime=60", u, node, i);
			rc = change(&set, path, words, why, sizeof(why));
		}
	is_int(rc, -1, "many users' predicates fill the store at last");
	ok(strstr(why, "too large to send to the nodes") != NULL,
	    "refused as too large to push (%s)", why);
	{
		char *text = proto_pred_set_text(set, NULL);

		ok(text != NULL && strlen(text) <= PROTO_PRED_TEXT_MAX,
		    "what is stored fits in one push (%zu bytes)",
		    text != NULL ? strlen(text) : 0);
		free(text);
	}
	is_int(change(&set, path, "user=bob global del idletime", why,
	    sizeof(why)),
	    0, "a del always passes");
	{
		struct pred_set *back = pred_set_new();

		ok(back != NULL && pred_set_load(back, path, 0, stdout) == 0 &&
		    pred_set_equal(back, set),
		    "and what was saved loads back the same");
		pred_set_free(back);
	}
	pred_set_free(set);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	test_quota();
	test_req();
	test_ans();
	test_push_users();
	test_set_text();
	return tap_done();
}
