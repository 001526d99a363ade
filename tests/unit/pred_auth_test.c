/* Unit tests of who may change which predicates (pred_auth). */
#include <string.h>

#include "pred_auth.h"
#include "tap.h"

static struct pred_scope
scope(const char *words)
{
	struct pred_scope s;
	char buf[256], *argv[8], *p, *save = NULL;
	int argc = 0;

	strlcpy(buf, words, sizeof(buf));
	for (p = strtok_r(buf, " ", &save); p != NULL && argc < 8;
	    p = strtok_r(NULL, " ", &save))
		argv[argc++] = p;
	memset(&s, 0, sizeof(s));
	if (pred_scope_parse(argc, argv, &s, NULL, 0) == -1)
		printf("# bad scope %s\n", words);
	return s;
}

static int
may(const char *words, const char *user, const char *owners, char *why,
    size_t whylen)
{
	struct pred_scope s = scope(words);

	return pred_auth_check(&s, user, "root,admin2", owners, why, whylen);
}

int
main(void)
{
	char why[256];

	ok(pred_auth_listed("root,ann", "ann"), "ann is listed");
	ok(!pred_auth_listed("root,anna", "ann"), "anna is not ann");
	ok(!pred_auth_listed("", "ann"), "an empty list lists nobody");
	ok(!pred_auth_listed("root", ""), "the empty name is never listed");

	ok(may("always", "root", "", why, sizeof(why)) == 0,
	    "root may change always");
	ok(may("always", "admin2", "", why, sizeof(why)) == 0,
	    "any admin may change always");
	ok(may("always", "ann", "", why, sizeof(why)) == -1 &&
	    strstr(why, "only an administrator") != NULL,
	    "ann may not change always: %s", why);
	ok(may("user=ann", "ann", "", why, sizeof(why)) == 0,
	    "ann may change user=ann");
	ok(may("user=ann global", "ann", "", why, sizeof(why)) == 0,
	    "ann may change user=ann global");
	ok(may("user=ann node=h", "ann", "", why, sizeof(why)) == 0,
	    "ann may change user=ann node=h");
	ok(may("user=bob", "ann", "", why, sizeof(why)) == -1 &&
	    strstr(why, "only bob or an administrator") != NULL,
	    "ann may not change bob's: %s", why);
	ok(may("user=bob global", "root", "", why, sizeof(why)) == 0,
	    "root may change bob's");
	ok(may("node=h", "ann", "ann,carl", why, sizeof(why)) == 0,
	    "an owner may change node=h");
	ok(may("node=h", "bob", "ann,carl", why, sizeof(why)) == -1 &&
	    strstr(why, "only the owners of h") != NULL,
	    "a non-owner may not: %s", why);
	ok(may("node=h", "root", NULL, why, sizeof(why)) == -1 &&
	    strstr(why, "kept by the node manager") != NULL,
	    "where node predicates are not kept, nobody changes them");
	ok(may("user=ann", "", "", why, sizeof(why)) == -1,
	    "an unsigned request changes nothing");
	return tap_done();
}
