/*
 * fuzz_pred — libFuzzer target for the idleness predicate language
 * (pred.h): what CilkPred users send (a command, parsed by root on
 * every node) and what predicate files and PRED_PUSH carry (a set).
 *
 * The input, up to its first NUL, is taken in turn as
 *   - one predicate line (pred_parse),
 *   - one command, split into words as a PRED_REQ is (pred_cmd_parse),
 *   - a whole set, one predicate a line (proto_pred_set_parse),
 *   - a decimal of three places (pred_decimal_parse).
 * The oracle is the canonical text: whatever parses must print, the
 * printed text must parse to an equal value, and that must print the
 * same text again.  An oracle failure calls abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pred.h"
#include "proto_pred.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* p prints, and its text parses back to p and prints the same. */
static void
pred_canonical(const struct pred *p)
{
	char text[PRED_TEXT_MAX], again[PRED_TEXT_MAX], err[256];
	struct pred q;

	if (pred_format(p, text, sizeof(text)) == -1 ||
	    pred_parse(text, &q, err, sizeof(err)) == -1 ||
	    !pred_equal(p, &q) ||
	    pred_format(&q, again, sizeof(again)) == -1 ||
	    strcmp(text, again) != 0)
		abort();
}

static void
fz_line(const char *s)
{
	struct pred p;
	char err[256];

	if (pred_parse(s, &p, err, sizeof(err)) == 0)
		pred_canonical(&p);
}

static void
fz_cmd(const char *s)
{
	char words[PROTO_PRED_CMD_MAX], text[PRED_TEXT_MAX], err[256];
	char *argv[PRED_ARGS_MAX];
	struct pred_scope scope;
	struct pred_cmd cmd;
	int argc;

	if (proto_pred_split(s, words, sizeof(words), argv, PRED_ARGS_MAX,
	    &argc) == -1 || pred_cmd_parse(argc, argv, &cmd, err,
	    sizeof(err)) == -1)
		return;
	if (cmd.cm_action <= PRED_A_UNDEF || cmd.cm_action >= PRED_A_MAX)
		abort();
	if (cmd.cm_action == PRED_A_ADD)
		pred_canonical(&cmd.cm_pred);
	if (!cmd.cm_has_scope)
		return;
	/* The scope alone: its text names the same scope. */
	if (pred_scope_format(&cmd.cm_pred.pr_scope, text,
	    sizeof(text)) == -1 ||
	    proto_pred_split(text, words, sizeof(words), argv,
	    PRED_ARGS_MAX, &argc) == -1 ||
	    pred_scope_parse(argc, argv, &scope, err, sizeof(err)) == -1 ||
	    !pred_scope_equal(&scope, &cmd.cm_pred.pr_scope))
		abort();
}

static void
fz_set(const char *s)
{
	struct pred_set *a, *b;
	char *text = NULL, *again = NULL, err[256];

	if ((a = pred_set_new()) == NULL || (b = pred_set_new()) == NULL)
		abort();
	if (proto_pred_set_parse(a, s, err, sizeof(err)) == 0) {
		if ((text = proto_pred_set_text(a, NULL)) == NULL ||
		    proto_pred_set_parse(b, text, err, sizeof(err)) == -1 ||
		    !pred_set_equal(a, b) ||
		    (again = proto_pred_set_text(b, NULL)) == NULL ||
		    strcmp(text, again) != 0)
			abort();
	}
	free(text);
	free(again);
	pred_set_free(a);
	pred_set_free(b);
}

static void
fz_decimal(const char *s)
{
	char text[64];
	int64_t v, w;

	if (pred_decimal_parse(s, strlen(s), PRED_LOAD_SCALE, INT64_MAX,
	    &v) == -1)
		return;
	if (v < 0 || pred_decimal_format(v, PRED_LOAD_SCALE, text,
	    sizeof(text)) == -1 || pred_decimal_parse(text, strlen(text),
	    PRED_LOAD_SCALE, INT64_MAX, &w) == -1 || v != w)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *s;

	/* Exactly as long as the text, so reading past it is caught. */
	if ((s = malloc(len + 1)) == NULL)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	fz_line(s);
	fz_cmd(s);
	fz_set(s);
	fz_decimal(s);
	free(s);
	return 0;
}
