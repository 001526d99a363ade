/*
 * lpad_spec_test — the launch pad's spec file and control messages:
 * spec round trips with awkward argv and env bytes, every refusal of
 * the spec parser, file reading and writing, the control codec with
 * truncation at every byte, trailing bytes, bit flips and bad values,
 * and the status and log files a node manager reads back.
 */
#include "lpad.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static const char *awkward[] = {
	"hello world",
	"tab\there\tand\tthere",
	"double \"quotes\" and 'single'",
	"a=b=c",
	"h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac",
	"  leading and trailing  ",
	"",
	"#not a comment",
	"end",
	"back\\slash $HOME `cmd` *?[",
	"carriage\rreturn",
	"echo one\necho two",		/* sh -c scripts: argvx */
	"\n",
	"newline\nand back\\slash, literal \\n, trailing\\",
};

static const char *awkward_env[] = {
	"PATH=/usr/bin:/bin",
	"SPACES=a b\tc",
	"EMPTY=",
	"EQ=x=y=z",
	"UTF8=\xe6\x97\xa5\xe6\x9c\xac \xe2\x9c\x93",
	"QUOTE=\"'\\",
	"SCRIPT=line 1\nline 2\\n",	/* envx */
};

static char	tmpdir[] = "/tmp/lpad_spec_test.XXXXXX";

static void	make_spec(struct lpad_spec *);
static int	spec_equal(const struct lpad_spec *,
		    const struct lpad_spec *);
static int	parse_str(const char *, char *, size_t);
static void	test_roundtrip(void);
static void	test_parse_defaults(void);
static void	test_malformed(void);
static void	test_files(void);
static void	test_builders(void);
static void	test_every_size(void);
static void	make_status(struct lpad_msg *);
static void	sample_msgs(struct lpad_msg *, size_t *);
static void	test_names(void);
static void	test_msg_roundtrip(void);
static void	test_msg_truncation(void);
static void	test_msg_bad(void);
static void	test_msg_flips(void);
static void	write_file(const char *, const char *);
static void	test_exit_and_log(void);

static void
make_spec(struct lpad_spec *sp)
{
	size_t i;

	lpad_spec_init(sp);
	strlcpy(sp->ls_worker, "w-17", sizeof(sp->ls_worker));
	sp->ls_job = 4294967295U;
	sp->ls_task = 3;
	strlcpy(sp->ls_node, "node-1.example", sizeof(sp->ls_node));
	strlcpy(sp->ls_user, "ann_b.c-d", sizeof(sp->ls_user));
	strlcpy(sp->ls_cwd, "/home/ann/dir with space/\xc3\xa9",
	    sizeof(sp->ls_cwd));
	sp->ls_nice = -20;
	sp->ls_sched = LPAD_SCHED_IDLE;
	sp->ls_rlim_cpu = 3600;
	sp->ls_rlim_as = 2048;
	sp->ls_rlim_nofile = 64;
	sp->ls_allow_root = 1;
	if (lpad_spec_add_arg(sp, "/bin/echo") == -1)
		abort();
	for (i = 0; i < sizeof(awkward) / sizeof(awkward[0]); i++)
		if (lpad_spec_add_arg(sp, awkward[i]) == -1)
			abort();
	for (i = 0; i < sizeof(awkward_env) / sizeof(awkward_env[0]); i++)
		if (lpad_spec_add_env(sp, awkward_env[i]) == -1)
			abort();
}

static int
spec_equal(const struct lpad_spec *a, const struct lpad_spec *b)
{
	size_t i;

	if (strcmp(a->ls_worker, b->ls_worker) || a->ls_job != b->ls_job ||
	    a->ls_task != b->ls_task || strcmp(a->ls_node, b->ls_node) ||
	    strcmp(a->ls_user, b->ls_user) || strcmp(a->ls_cwd, b->ls_cwd) ||
	    a->ls_nice != b->ls_nice || a->ls_sched != b->ls_sched ||
	    a->ls_rlim_cpu != b->ls_rlim_cpu ||
	    a->ls_rlim_as != b->ls_rlim_as ||
	    a->ls_rlim_nofile != b->ls_rlim_nofile ||
	    a->ls_allow_root != b->ls_allow_root ||
	    a->ls_argc != b->ls_argc || a->ls_envc != b->ls_envc)
		return 0;
	for (i = 0; i < a->ls_argc; i++)
		if (strcmp(a->ls_argv[i], b->ls_argv[i]) != 0)
			return 0;
	for (i = 0; i < a->ls_envc; i++)
		if (strcmp(a->ls_env[i], b->ls_env[i]) != 0)
			return 0;
	return a->ls_argv[a->ls_argc] == NULL && b->ls_env[b->ls_envc] == NULL;
}

static void
test_roundtrip(void)
{
	struct lpad_spec a, b;
	char why[256], *t1, *t2;
	size_t l1, l2;

	make_spec(&a);
	ok(lpad_spec_check(&a, why, sizeof(why)) == 0, "awkward spec is valid");
	t1 = lpad_spec_encode(&a, &l1);
	ok(t1 != NULL, "encode");
	lpad_spec_init(&b);
	ok(lpad_spec_parse(&b, t1, l1, why, sizeof(why)) == 0,
	    "parse what encode wrote");
	ok(spec_equal(&a, &b), "round trip keeps every field, argv and env "
	    "(spaces, tabs, quotes, '=', UTF-8, empty, CR)");
	is_int(b.ls_argc, 1 + sizeof(awkward) / sizeof(awkward[0]),
	    "argc");
	is_str(b.ls_argv[7], "", "an empty argument survives");
	is_str(b.ls_argv[6], "  leading and trailing  ",
	    "leading and trailing blanks survive");
	is_str(b.ls_argv[9], "end", "an argument \"end\" is not the end");
	t2 = lpad_spec_encode(&b, &l2);
	ok(t2 != NULL && l1 == l2 && memcmp(t1, t2, l1) == 0,
	    "encoding the parsed spec gives the same bytes");
	ok(memcmp(t1, LPAD_SPEC_MAGIC "\n", strlen(LPAD_SPEC_MAGIC) + 1) == 0,
	    "the first line is the magic");
	ok(l1 > 4 && memcmp(t1 + l1 - 4, "end\n", 4) == 0,
	    "the last line is end");
	free(t1);
	free(t2);
	lpad_spec_clear(&a);
	lpad_spec_clear(&b);
	is_int(a.ls_argc, 0, "clear empties argv");
}

/* Parses a NUL-terminated text; 0 or -1. */
static int
parse_str(const char *text, char *why, size_t whysz)
{
	struct lpad_spec sp;
	int rc;

	lpad_spec_init(&sp);
	why[0] = '\0';
	rc = lpad_spec_parse(&sp, text, strlen(text), why, whysz);
	lpad_spec_clear(&sp);
	return rc;
}

#define HDR	LPAD_SPEC_MAGIC "\nworker w1\njob 7\nuser ann\ncwd /tmp\n"

static void
test_parse_defaults(void)
{
	struct lpad_spec sp;
	char why[256];
	const char *t = HDR "# a comment\n\nargv /bin/true\nend\n";

	lpad_spec_init(&sp);
	ok(lpad_spec_parse(&sp, t, strlen(t), why, sizeof(why)) == 0,
	    "minimal spec with a comment and a blank line");
	is_int(sp.ls_nice, 19, "nice defaults to 19");
	is_int(sp.ls_sched, LPAD_SCHED_NICE, "sched defaults to nice");
	is_int(sp.ls_task, 0, "task defaults to 0");
	is_str(sp.ls_node, "", "node defaults to empty (the host name)");
	is_int(sp.ls_allow_root, 0, "allow_root defaults to 0");
	is_int(sp.ls_rlim_cpu + sp.ls_rlim_as + sp.ls_rlim_nofile, 0,
	    "no resource limits by default");
	is_int(sp.ls_envc, 0, "no env by default");
	lpad_spec_clear(&sp);
}

static void
test_malformed(void)
{
	static const struct {
		const char	*text;
		const char	*reason;	/* part of why */
		const char	*name;
	} bad[] = {
		{ HDR "end\n", "no argv", "missing argv" },
		{ HDR "argvx a\\qb\nend\n", "bad value",
		    "argvx with an unknown escape" },
		{ HDR "argvx trailing\\\nend\n", "bad value",
		    "argvx ending in a lone backslash" },
		{ HDR "argv x\nenvx NOEQUALS\\n\nend\n", "bad value",
		    "envx that is not NAME=VALUE" },
		{ HDR "argv \nend\n", "no argv", "empty argv[0]" },
		{ LPAD_SPEC_MAGIC "\nworker w1\njob 7\nuser Ann\ncwd /tmp\n"
		    "argv x\nend\n", "bad value", "user name with capitals" },
		{ LPAD_SPEC_MAGIC "\nworker w1\njob 7\nuser 1ann\ncwd /tmp\n"
		    "argv x\nend\n", "bad value", "user name starting with a "
		    "digit" },
		{ LPAD_SPEC_MAGIC "\nworker w1\njob 7\nuser a b\ncwd /tmp\n"
		    "argv x\nend\n", "bad value", "user name with a space" },
		{ LPAD_SPEC_MAGIC "\nworker w1\njob 7\nuser "
		    "abcdefghijklmnopqrstuvwxyzabcdefg\ncwd /tmp\nargv x\n"
		    "end\n", "bad value", "user name of 33 bytes" },
		{ LPAD_SPEC_MAGIC "\nworker w1\njob 7\ncwd /tmp\nargv x\n"
		    "end\n", "no user", "missing user" },
		{ HDR "nice 20\nargv x\nend\n", "bad value", "nice 20" },
		{ HDR "nice -21\nargv x\nend\n", "bad value", "nice -21" },
		{ HDR "nice +5\nargv x\nend\n", "bad value", "nice +5" },
		{ HDR "nice  5\nargv x\nend\n", "bad value", "nice with a "
		    "second blank" },
		{ HDR "nice 5 \nargv x\nend\n", "bad value", "nice with a "
		    "trailing blank" },
		{ HDR "nice high\nargv x\nend\n", "bad value", "nice high" },
		{ HDR "nice \nargv x\nend\n", "bad value", "nice empty" },
		{ HDR "nicety 5\nargv x\nend\n", "unknown key", "unknown key" },
		{ HDR "Argv x\nend\n", "unknown key", "keys are "
		    "case-sensitive" },
		{ HDR "argv\nend\n", "key value", "a key without a blank" },
		{ HDR "argv x\n", "no \"end\"", "no end line" },
		{ HDR "argv x\nend", "no newline", "no final newline" },
		{ HDR "argv x\nend\nargv y\n", "after", "text after end" },
		{ HDR "argv x\nend\n\n", "after", "a blank line after end" },
		{ "cilknow-lpad-spec 2\nworker w1\nargv x\nend\n", "line 1",
		    "another version" },
		{ "worker w1\n" LPAD_SPEC_MAGIC "\nargv x\nend\n", "line 1",
		    "magic not first" },
		{ "", "empty", "empty text" },
		{ HDR "job 8\nargv x\nend\n", "twice", "job given twice" },
		{ HDR "cwd /var\nargv x\nend\n", "twice", "cwd given twice" },
		{ LPAD_SPEC_MAGIC "\nworker W1\njob 7\nuser ann\ncwd /tmp\n"
		    "argv x\nend\n", "bad value", "worker with a capital" },
		{ LPAD_SPEC_MAGIC "\nworker -w\njob 7\nuser ann\ncwd /tmp\n"
		    "argv x\nend\n", "bad value", "worker starting with '-'" },
		{ LPAD_SPEC_MAGIC "\nworker w/1\njob 7\nuser ann\ncwd /tmp\n"
		    "argv x\nend\n", "bad value", "worker with a slash" },
		{ LPAD_SPEC_MAGIC "\nworker w1\njob 7\nuser ann\ncwd tmp\n"
		    "argv x\nend\n", "bad value", "relative cwd" },
		{ LPAD_SPEC_MAGIC "\njob 7\nuser ann\ncwd /tmp\nargv x\nend\n",
		    "no worker", "missing worker" },
		{ LPAD_SPEC_MAGIC "\nworker w1\njob 4294967296\nuser ann\n"
		    "cwd /tmp\nargv x\nend\n", "bad value", "job over 2^32-1" },
		{ LPAD_SPEC_MAGIC "\nworker w1\njob -1\nuser ann\n"
		    "cwd /tmp\nargv x\nend\n", "bad value", "negative job" },
		{ HDR "env NOEQUALS\nargv x\nend\n", "bad value",
		    "env without '='" },
		{ HDR "env =value\nargv x\nend\n", "bad value",
		    "env with an empty name" },
		{ HDR "sched fifo\nargv x\nend\n", "bad value", "sched fifo" },
		{ HDR "allow_root 2\nargv x\nend\n", "bad value",
		    "allow_root 2" },
		{ HDR "rlimit_as 99999999999999999999\nargv x\nend\n",
		    "bad value", "rlimit_as overflow" },
		{ HDR "node bad/name\nargv x\nend\n", "bad value",
		    "node with a slash" },
	};
	struct lpad_spec sp;
	char why[256], *big, *p;
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok(parse_str(bad[i].text, why, sizeof(why)) == -1 &&
		    strstr(why, bad[i].reason) != NULL,
		    "refused: %s", bad[i].name);
		if (strstr(why, bad[i].reason) == NULL)
			printf("#   why: %s\n", why);
	}

	/* NUL inside a line. */
	lpad_spec_init(&sp);
	{
		static const char t[] = HDR "argv a\0b\nend\n";

		ok(lpad_spec_parse(&sp, t, sizeof(t) - 1, why, sizeof(why))
		    == -1 && strstr(why, "NUL") != NULL, "refused: a NUL byte");
	}

	/* One argv line over LPAD_ARG_MAX. */
	big = malloc(LPAD_SPEC_MAX + 64);
	p = big + snprintf(big, 64, "%sargv ", HDR);
	memset(p, 'x', LPAD_ARG_MAX + 1);
	p += LPAD_ARG_MAX + 1;
	strcpy(p, "\nend\n");
	ok(parse_str(big, why, sizeof(why)) == -1 &&
	    strstr(why, "over") != NULL, "refused: an argv entry over %d bytes",
	    LPAD_ARG_MAX);
	p[-1] = '\0';
	p = big + strlen(HDR) + 5 + LPAD_ARG_MAX;
	strcpy(p, "\nend\n");
	ok(parse_str(big, why, sizeof(why)) == 0,
	    "an argv entry of exactly %d bytes is fine", LPAD_ARG_MAX);

	/* More argv entries than LPAD_ARGS_MAX. */
	p = big + snprintf(big, 64, "%s", HDR);
	for (n = 0; n < LPAD_ARGS_MAX + 1; n++)
		p += sprintf(p, "argv %zu\n", n);
	strcpy(p, "end\n");
	ok(parse_str(big, why, sizeof(why)) == -1 &&
	    strstr(why, "more than") != NULL, "refused: %d argv entries",
	    LPAD_ARGS_MAX + 1);

	/* The whole text over LPAD_SPEC_MAX. */
	p = big + snprintf(big, 64, "%s", HDR);
	while ((size_t)(p - big) < LPAD_SPEC_MAX)
		p += sprintf(p, "# padding padding padding padding\n");
	strcpy(p, "argv x\nend\n");
	ok(parse_str(big, why, sizeof(why)) == -1 &&
	    strstr(why, "over") != NULL, "refused: a spec over %d bytes",
	    LPAD_SPEC_MAX);
	free(big);

	/* A failed parse leaves nothing allocated behind. */
	lpad_spec_init(&sp);
	{
		const char *t = HDR "argv a\nargv b\nbogus 1\nend\n";

		ok(lpad_spec_parse(&sp, t, strlen(t), why, sizeof(why)) == -1 &&
		    sp.ls_argc == 0, "a failed parse clears argv");
		ok(strstr(why, "line 8") != NULL, "and names the line (%s)",
		    why);
	}
}

/*
 * Specs of every length across the encoder's buffer sizes (1024, 2048,
 * 4096): each must parse back.  A buffer exactly full once lost its
 * last newline to snprintf's NUL.
 */
static void
test_every_size(void)
{
	struct lpad_spec sp, back;
	char arg[LPAD_ARG_MAX + 1], why[256], *t;
	size_t len, n, bad = 0, len0 = 0, tried = 0;
	int light = tap_many(2) == 1;

	for (n = 0; n < 4200; n += n < 4000 ? 1 : 50) {
		/*
		 * Under valgrind (tap_many), only the sizes within 16 bytes
		 * of a buffer size: an argument of n 'a's adds n bytes to
		 * the spec of an empty one (len0).
		 */
		if (light && n > 0) {
			size_t l = len0 + n % LPAD_ARG_MAX, b, near = 0;

			for (b = 1024; b <= 4096; b *= 2)
				near |= l + 16 >= b && l <= b + 16;
			if (!near)
				continue;
		}
		tried++;
		make_spec(&sp);
		memset(arg, 'a', n % LPAD_ARG_MAX);
		arg[n % LPAD_ARG_MAX] = '\0';
		if (lpad_spec_add_arg(&sp, arg) == -1 ||
		    (t = lpad_spec_encode(&sp, &len)) == NULL) {
			bad++;
			lpad_spec_clear(&sp);
			continue;
		}
		if (n == 0)
			len0 = len;
		lpad_spec_init(&back);
		if (memchr(t, '\0', len) != NULL ||
		    lpad_spec_parse(&back, t, len, why, sizeof(why)) == -1 ||
		    !spec_equal(&sp, &back)) {
			if (bad++ == 0)
				printf("# size %zu: %s\n", len, why);
		}
		free(t);
		lpad_spec_clear(&back);
		lpad_spec_clear(&sp);
	}
	is_int(bad, 0, "specs of %s size up to 4 KiB round-trip (%zu)",
	    light ? "every buffer-filling" : "every", tried);
}

static void
test_builders(void)
{
	struct lpad_spec sp;
	char why[256], *t, big[LPAD_ARG_MAX + 2];
	size_t len, i;
	int rc = 0;

	make_spec(&sp);
	ok(lpad_spec_add_arg(&sp, "new\nline") == 0,
	    "add_arg takes a newline (written as argvx)");
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ok(lpad_spec_add_arg(&sp, big) == -1 && errno == E2BIG,
	    "add_arg refuses an entry over %d bytes", LPAD_ARG_MAX);
	for (i = sp.ls_argc; i < LPAD_ARGS_MAX; i++)
		rc |= lpad_spec_add_arg(&sp, "z");
	ok(rc == 0 && lpad_spec_add_arg(&sp, "z") == -1 && errno == E2BIG,
	    "add_arg stops at %d entries", LPAD_ARGS_MAX);
	lpad_spec_clear(&sp);

	/*
	 * An entry at the limit made of newlines takes twice its bytes once
	 * escaped: what the job manager passed, the launch pad reads back.
	 */
	{
		struct lpad_spec back;
		char nl[LPAD_ARG_MAX + 1];

		make_spec(&sp);
		memcpy(nl, "NL=", 3);
		memset(nl + 3, '\n', LPAD_ARG_MAX - 3);
		nl[LPAD_ARG_MAX] = '\0';
		lpad_spec_init(&back);
		ok(lpad_spec_add_env(&sp, nl) == 0, "add_env takes %d bytes "
		    "of newlines", LPAD_ARG_MAX);
		t = lpad_spec_encode(&sp, &len);
		ok(t != NULL && lpad_spec_parse(&back, t, len, why,
		    sizeof(why)) == 0, "and its escaped line of %d bytes "
		    "parses", 2 * LPAD_ARG_MAX - 3);
		ok(back.ls_envc > 0 && strcmp(back.ls_env[back.ls_envc - 1],
		    nl) == 0, "to the same entry");
		free(t);
		lpad_spec_clear(&back);
		lpad_spec_clear(&sp);
	}

	make_spec(&sp);
	sp.ls_nice = 20;
	ok(lpad_spec_check(&sp, why, sizeof(why)) == -1 &&
	    strstr(why, "nice") != NULL, "check refuses nice 20");
	t = lpad_spec_encode(&sp, &len);
	ok(t == NULL && errno == EINVAL, "encode refuses an invalid spec");
	free(t);
	sp.ls_nice = 0;
	strlcpy(sp.ls_user, "ro ot", sizeof(sp.ls_user));
	ok(lpad_spec_check(&sp, why, sizeof(why)) == -1 &&
	    strstr(why, "user") != NULL, "check refuses a bad user name");
	lpad_spec_clear(&sp);
}

static void
test_files(void)
{
	struct lpad_spec a, b;
	char path[256], link[256], why[256];

	make_spec(&a);
	snprintf(path, sizeof(path), "%s/w.spec", tmpdir);
	{
		char *text;
		size_t len;
		int fd;

		text = lpad_spec_encode(&a, &len);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ok(text != NULL && fd != -1 &&
		    write(fd, text, len) == (ssize_t)len && close(fd) == 0,
		    "write a spec file, mode 0600");
		free(text);
	}
	lpad_spec_init(&b);
	ok(lpad_spec_read(&b, path, why, sizeof(why)) == 0 &&
	    spec_equal(&a, &b), "read it back, equal");
	lpad_spec_clear(&b);

	chmod(path, 0620);
	ok(lpad_spec_read(&b, path, why, sizeof(why)) == -1 &&
	    strstr(why, "writable") != NULL,
	    "a group-writable spec is refused");
	chmod(path, 0600);
	snprintf(link, sizeof(link), "%s/link.spec", tmpdir);
	ok(symlink(path, link) == 0 &&
	    lpad_spec_read(&b, link, why, sizeof(why)) == -1,
	    "a symlinked spec is refused");
	ok(lpad_spec_read(&b, tmpdir, why, sizeof(why)) == -1,
	    "a folder is refused");
	unlink(link);
	unlink(path);
	lpad_spec_clear(&a);
}

/* The node manager's way: a sealed memory file read as a descriptor. */
static void
test_memfd(void)
{
	struct lpad_spec a, b;
	const char *trunc = "cilknow-lpad-spec 1\nworker w1\n";
	char why[256], *big;
	int fd, p[2];

	make_spec(&a);
	fd = lpad_spec_memfd(&a);
	ok(fd != -1, "the spec in a memory file");
	ok(fd != -1 && (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0,
	    "close-on-exec");
	ok(fd != -1 && (fcntl(fd, F_GET_SEALS) & (F_SEAL_WRITE |
	    F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) == (F_SEAL_WRITE |
	    F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
	    "sealed against writing, growing, shrinking and unsealing");
	ok(fd != -1 && write(fd, "x", 1) == -1 && errno == EPERM,
	    "a write is refused");
	lpad_spec_init(&b);
	ok(fd != -1 && lpad_spec_read_fd(&b, fd, why, sizeof(why)) == 0 &&
	    spec_equal(&a, &b), "read back from its descriptor, equal");
	lpad_spec_clear(&b);
	if (fd != -1)
		close(fd);
	a.ls_nice = 99;
	ok(lpad_spec_memfd(&a) == -1 && errno == EINVAL,
	    "an invalid spec makes no memory file");
	lpad_spec_clear(&a);

	/* Truncated: no "end" line. */
	ok(pipe(p) == 0, "pipe");
	(void)!write(p[1], trunc, strlen(trunc));
	close(p[1]);
	ok(lpad_spec_read_fd(&b, p[0], why, sizeof(why)) == -1 &&
	    strstr(why, "end") != NULL, "a truncated spec is refused (%s)",
	    why);
	close(p[0]);

	/* Over LPAD_SPEC_MAX, from a file as standard input would be. */
	big = malloc(LPAD_SPEC_MAX + 2);
	fd = memfd_create("big", 0);
	if (big != NULL)
		memset(big, 'x', LPAD_SPEC_MAX + 2);
	ok(big != NULL && fd != -1 && write(fd, big, LPAD_SPEC_MAX + 2) ==
	    LPAD_SPEC_MAX + 2 && lseek(fd, 0, SEEK_SET) == 0 &&
	    lpad_spec_read_fd(&b, fd, why, sizeof(why)) == -1 &&
	    errno == EFBIG && strstr(why, "over") != NULL,
	    "an oversized spec is refused (%s)", why);
	free(big);
	if (fd != -1)
		close(fd);
	ok(lpad_spec_read_fd(&b, -1, why, sizeof(why)) == -1 &&
	    errno == EBADF, "a bad descriptor is an error (%s)", why);
}

static void
make_status(struct lpad_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->lm_type = LPAD_MSG_STATUS_REPLY;
	strlcpy(m->lm_status.st_worker, "w-17", sizeof(m->lm_status.st_worker));
	strlcpy(m->lm_status.st_user, "ann", sizeof(m->lm_status.st_user));
	m->lm_status.st_job = 0xdeadbeef;
	m->lm_status.st_task = 9;
	m->lm_status.st_lpad_pid = 100;
	m->lm_status.st_pid = 101;
	m->lm_status.st_pgid = 101;
	m->lm_status.st_state = LPAD_STATE_EXITED;
	m->lm_status.st_stopping = 0;
	m->lm_status.st_how = LPAD_HOW_SIGNAL;
	m->lm_status.st_code = 9;
	m->lm_status.st_start_ms = 1700000000000ULL;
	m->lm_status.st_end_ms = 1700000001234ULL;
	m->lm_status.st_out_size = 1ULL << 40;
	m->lm_status.st_err_size = 17;
	m->lm_status.st_cpu_ms = 1500;
	m->lm_status.st_maxrss_kb = 204800;
}

/* Every message type, one sample each. */
static void
sample_msgs(struct lpad_msg *ms, size_t *n)
{
	memset(ms, 0, 6 * sizeof(*ms));
	ms[0].lm_type = LPAD_MSG_STATUS;
	ms[1].lm_type = LPAD_MSG_SIGNAL;
	ms[1].lm_signo = SIGUSR2;
	ms[2].lm_type = LPAD_MSG_STOP;
	ms[2].lm_grace_ms = 1500;
	ms[3].lm_type = LPAD_MSG_QUIT;
	make_status(&ms[4]);
	ms[5].lm_type = LPAD_MSG_RESULT;
	ms[5].lm_req = LPAD_MSG_SIGNAL;
	ms[5].lm_error = ESRCH;
	*n = 6;
}

static void
test_msg_roundtrip(void)
{
	struct lpad_msg ms[6], back;
	uint8_t buf[LPAD_MSG_LEN];
	size_t n, i, len;
	int rc;

	sample_msgs(ms, &n);
	for (i = 0; i < n; i++) {
		len = 0;
		rc = lpad_msg_encode(&ms[i], buf, sizeof(buf), &len);
		ok(rc == 0 && lpad_msg_decode(&back, buf, len) == 0 &&
		    memcmp(&back, &ms[i], sizeof(back)) == 0,
		    "message type %u round-trips (%zu bytes)", ms[i].lm_type,
		    len);
		ok(buf[0] == LPAD_PROTO_VERSION && buf[1] == ms[i].lm_type,
		    "version and type bytes lead");
	}
	/* Byte layout of two small ones. */
	lpad_msg_encode(&ms[2], buf, sizeof(buf), &len);
	ok(len == 6 && memcmp(buf, "\x01\x03\x00\x00\x05\xdc", 6) == 0,
	    "STOP 1500 ms is 01 03 000005dc");
	lpad_msg_encode(&ms[1], buf, sizeof(buf), &len);
	ok(len == 6 && buf[5] == SIGUSR2 && buf[2] == 0,
	    "SIGNAL carries a big-endian u32");
	ok(lpad_msg_encode(&ms[4], buf, 10, &len) == -1,
	    "encode refuses a buffer too small");
}

static void
test_msg_truncation(void)
{
	struct lpad_msg ms[6], back;
	uint8_t buf[LPAD_MSG_LEN + 1];
	size_t n, i, len, cut;
	int all;

	sample_msgs(ms, &n);
	for (i = 0; i < n; i++) {
		lpad_msg_encode(&ms[i], buf, sizeof(buf), &len);
		all = 1;
		for (cut = 0; cut < len; cut++) {
			/* A status without usage: an older launch pad's. */
			if (ms[i].lm_type == LPAD_MSG_STATUS_REPLY &&
			    cut == len - 16)
				continue;
			if (lpad_msg_decode(&back, buf, cut) != -1 ||
			    errno != EBADMSG)
				all = 0;
		}
		ok(all, "type %u: truncation at each of %zu bytes refused",
		    ms[i].lm_type, len);
		buf[len] = 0;
		ok(lpad_msg_decode(&back, buf, len + 1) == -1,
		    "type %u: a trailing byte refused", ms[i].lm_type);
		ok(lpad_msg_decode(&back, buf, len) == 0,
		    "type %u: the exact bytes decode", ms[i].lm_type);
	}
}

static void
test_msg_bad(void)
{
	struct lpad_msg m, back;
	uint8_t buf[LPAD_MSG_LEN + 8];
	size_t len;
	static const int bad_sigs[] = { 0, SIGSEGV, SIGCHLD, SIGALRM, 64,
	    1000 };
	static const int good_sigs[] = { SIGQUIT, SIGTERM, SIGKILL, SIGSTOP,
	    SIGCONT, SIGHUP, SIGINT, SIGUSR1, SIGUSR2 };
	size_t i;
	int all;

	ok(lpad_msg_decode(&back, (const uint8_t *)"\x02\x01", 2) == -1,
	    "version 2 refused");
	ok(lpad_msg_decode(&back, (const uint8_t *)"\x01\x00", 2) == -1,
	    "type 0 refused");
	ok(lpad_msg_decode(&back, (const uint8_t *)"\x01\x07", 2) == -1,
	    "type 7 (past the last) refused");
	ok(lpad_msg_decode(&back, (const uint8_t *)"\x01\xff", 2) == -1,
	    "type 255 refused");
	ok(lpad_msg_decode(&back, (const uint8_t *)"\x01\x01", 2) == 0 &&
	    back.lm_type == LPAD_MSG_STATUS, "STATUS is two bytes");

	all = 1;
	for (i = 0; i < sizeof(good_sigs) / sizeof(good_sigs[0]); i++)
		all &= lpad_signal_ok(good_sigs[i]);
	ok(all, "the nine allowed signals pass");
	for (i = 0; i < sizeof(bad_sigs) / sizeof(bad_sigs[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.lm_type = LPAD_MSG_SIGNAL;
		m.lm_signo = SIGTERM;
		lpad_msg_encode(&m, buf, sizeof(buf), &len);
		buf[2] = (uint8_t)((unsigned)bad_sigs[i] >> 24);
		buf[3] = (uint8_t)((unsigned)bad_sigs[i] >> 16);
		buf[4] = (uint8_t)((unsigned)bad_sigs[i] >> 8);
		buf[5] = (uint8_t)bad_sigs[i];
		ok(lpad_msg_decode(&back, buf, len) == -1,
		    "SIGNAL %d refused by the decoder", bad_sigs[i]);
		m.lm_signo = (uint32_t)bad_sigs[i];
		ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
		    "and by the encoder");
	}
	memset(&m, 0, sizeof(m));
	m.lm_type = LPAD_MSG_STOP;
	m.lm_grace_ms = LPAD_GRACE_MAX_MS + 1;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "STOP over a day refused");
	ok(lpad_msg_decode(&back, (const uint8_t *)"\x01\x03\xff\xff\xff\xff",
	    6) == -1, "STOP of 2^32-1 ms refused by the decoder");

	make_status(&m);
	m.lm_status.st_state = LPAD_STATE_RUNNING;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "running with an exit code refused");
	m.lm_status.st_how = LPAD_HOW_UNDEF;
	m.lm_status.st_code = 0;
	m.lm_status.st_end_ms = 0;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "running with a usage refused");
	m.lm_status.st_cpu_ms = LPAD_USAGE_NONE;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "running with a peak memory refused");
	m.lm_status.st_maxrss_kb = LPAD_USAGE_NONE;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == 0,
	    "running without one is fine");
	make_status(&m);
	m.lm_status.st_how = LPAD_HOW_UNDEF;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "exited without a how refused");
	make_status(&m);
	m.lm_status.st_how = LPAD_HOW_EXITED;
	m.lm_status.st_code = 256;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "exit status 256 refused");
	make_status(&m);
	m.lm_status.st_state = LPAD_STATE_MAX;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "state out of range refused");
	make_status(&m);
	m.lm_status.st_pid = 0;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "pid 0 refused");
	make_status(&m);
	strlcpy(m.lm_status.st_worker, "W!", sizeof(m.lm_status.st_worker));
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "bad worker id refused");

	/* A status reply whose worker string claims more than is there. */
	make_status(&m);
	lpad_msg_encode(&m, buf, sizeof(buf), &len);
	buf[2] = 0xff;
	ok(lpad_msg_decode(&back, buf, len) == -1,
	    "a string length past the end refused");
	buf[2] = 0;
	buf[3] = 40;
	ok(lpad_msg_decode(&back, buf, len) == -1,
	    "a string longer than its field refused");
	memset(buf, 0, sizeof(buf));
	buf[0] = 1;
	buf[1] = LPAD_MSG_STATUS;
	ok(lpad_msg_decode(&back, buf, LPAD_MSG_LEN + 1) == -1,
	    "a message over %d bytes refused", LPAD_MSG_LEN);
	memset(&m, 0, sizeof(m));
	m.lm_type = LPAD_MSG_RESULT;
	m.lm_req = LPAD_MSG_RESULT;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1,
	    "a RESULT answering a RESULT refused");
}

/* The usage a status reply carries, and one from an older launch pad. */
static void
test_msg_usage(void)
{
	struct lpad_msg m, back;
	uint8_t buf[LPAD_MSG_LEN + 32];
	size_t len;

	make_status(&m);
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    lpad_msg_decode(&back, buf, len) == 0 &&
	    back.lm_status.st_cpu_ms == 1500 &&
	    back.lm_status.st_maxrss_kb == 204800,
	    "status: CPU ms and peak KiB survive");
	ok(memcmp(buf + len - 16, "\0\0\0\0\0\0\x05\xdc", 8) == 0 &&
	    memcmp(buf + len - 8, "\0\0\0\0\0\x03\x20\0", 8) == 0,
	    "... as the last 16 bytes, big-endian");
	ok(lpad_msg_decode(&back, buf, len - 16) == 0 &&
	    back.lm_status.st_cpu_ms == LPAD_USAGE_NONE &&
	    back.lm_status.st_maxrss_kb == LPAD_USAGE_NONE &&
	    back.lm_status.st_code == 9,
	    "a status without them (an older launch pad): not measured");
	ok(lpad_msg_decode(&back, buf, len - 8) == -1 &&
	    lpad_msg_decode(&back, buf, len - 1) == -1 &&
	    lpad_msg_decode(&back, buf, len - 15) == -1,
	    "a usage of 8, 15 or 1 bytes refused");
	memset(buf + len, 0, 16);
	ok(lpad_msg_decode(&back, buf, len + 8) == -1 &&
	    lpad_msg_decode(&back, buf, len + 16) == -1,
	    "8 or 16 bytes more refused");
	m.lm_status.st_cpu_ms = m.lm_status.st_maxrss_kb = LPAD_USAGE_NONE;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == 0 &&
	    lpad_msg_decode(&back, buf, len) == 0 &&
	    memcmp(&back, &m, sizeof(m)) == 0,
	    "exited, not measured: round trip");
	/* A running worker's reply with a usage in it is refused. */
	m.lm_status.st_state = LPAD_STATE_RUNNING;
	m.lm_status.st_how = LPAD_HOW_UNDEF;
	m.lm_status.st_code = 0;
	m.lm_status.st_end_ms = 0;
	ok(lpad_msg_encode(&m, buf, sizeof(buf), &len) == 0, "running encodes");
	buf[len - 1] = 0;
	ok(lpad_msg_decode(&back, buf, len) == -1,
	    "running with a peak memory refused by the decoder");
}

/* Every single-bit flip either fails or decodes to a valid message. */
static void
test_msg_flips(void)
{
	struct lpad_msg ms[6], back;
	uint8_t buf[LPAD_MSG_LEN], re[LPAD_MSG_LEN];
	size_t n, i, len, len2, bit;
	int consistent = 1, refused = 0;

	sample_msgs(ms, &n);
	for (i = 0; i < n; i++) {
		lpad_msg_encode(&ms[i], buf, sizeof(buf), &len);
		for (bit = 0; bit < len * 8; bit++) {
			buf[bit / 8] ^= (uint8_t)(1 << (bit % 8));
			if (lpad_msg_decode(&back, buf, len) == -1)
				refused++;
			else if (lpad_msg_encode(&back, re, sizeof(re),
			    &len2) == -1 || len2 != len ||
			    memcmp(re, buf, len) != 0)
				consistent = 0;
			buf[bit / 8] ^= (uint8_t)(1 << (bit % 8));
		}
	}
	ok(consistent, "every bit flip that decodes re-encodes to the same "
	    "bytes");
	ok(refused > 0, "and %d flips were refused", refused);
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp;

	if ((fp = fopen(path, "w")) == NULL)
		abort();
	fputs(text, fp);
	fclose(fp);
}

static void
test_exit_and_log(void)
{
	struct lpad_status st;
	char dir[256], path[300], buf[64], lnk[300];
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s/workers", tmpdir);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/workers/w1", tmpdir);
	mkdir(dir, 0700);

	memset(&st, 0, sizeof(st));
	ok(lpad_read_exit(tmpdir, "w1", &st) == -1 && errno == ENOENT,
	    "no status file yet: ENOENT");
	snprintf(path, sizeof(path), "%s/status", dir);
	write_file(path, "exited 3\nstart_ms 10\nend_ms 20\n");
	ok(lpad_read_exit(tmpdir, "w1", &st) == 0 &&
	    st.st_state == LPAD_STATE_EXITED && st.st_how == LPAD_HOW_EXITED &&
	    st.st_code == 3 && st.st_start_ms == 10 && st.st_end_ms == 20,
	    "status \"exited 3\" read back");
	write_file(path, "signal 9\nstart_ms 10\nend_ms 20\n");
	ok(lpad_read_exit(tmpdir, "w1", &st) == 0 &&
	    st.st_how == LPAD_HOW_SIGNAL && st.st_code == 9,
	    "status \"signal 9\" read back");
	lpad_status_str(&st, buf, sizeof(buf));
	is_str(buf, "signal 9", "lpad_status_str");
	write_file(path, "signal 0\nstart_ms 10\nend_ms 20\n");
	ok(lpad_read_exit(tmpdir, "w1", &st) == -1 && errno == EBADMSG,
	    "signal 0 refused");
	write_file(path, "exited 3\nstart_ms 10\nend_ms 20\nmore\n");
	ok(lpad_read_exit(tmpdir, "w1", &st) == -1, "trailing text refused");
	write_file(path, "exited  3\nstart_ms 10\nend_ms 20\n");
	ok(lpad_read_exit(tmpdir, "w1", &st) == -1, "two blanks refused");
	write_file(path, "exited 3\nstart_ms 10\n");
	ok(lpad_read_exit(tmpdir, "w1", &st) == -1, "truncated refused");
	write_file(path, "running 0\nstart_ms 10\nend_ms 20\n");
	ok(lpad_read_exit(tmpdir, "w1", &st) == -1, "unknown word refused");
	ok(lpad_read_exit(tmpdir, "../w1", &st) == -1 && errno == EINVAL,
	    "a worker id with a slash refused");

	snprintf(path, sizeof(path), "%s/out.log", dir);
	write_file(path, "0123456789");
	n = lpad_read_log(tmpdir, "w1", LPAD_STREAM_OUT, 0, buf, 4);
	ok(n == 4 && memcmp(buf, "0123", 4) == 0, "read_log from 0");
	n = lpad_read_log(tmpdir, "w1", LPAD_STREAM_OUT, 4, buf, sizeof(buf));
	ok(n == 6 && memcmp(buf, "456789", 6) == 0, "read_log from offset 4");
	n = lpad_read_log(tmpdir, "w1", LPAD_STREAM_OUT, 10, buf, sizeof(buf));
	ok(n == 0, "read_log at the end gives 0");
	ok(lpad_read_log(tmpdir, "w1", LPAD_STREAM_ERR, 0, buf, 4) == -1 &&
	    errno == ENOENT, "no err.log: ENOENT");
	snprintf(lnk, sizeof(lnk), "%s/err.log", dir);
	ok(symlink(path, lnk) == 0 &&
	    lpad_read_log(tmpdir, "w1", LPAD_STREAM_ERR, 0, buf, 4) == -1,
	    "a symlinked log refused");
	unlink(lnk);
	ok(link(path, lnk) == 0 &&
	    lpad_read_log(tmpdir, "w1", LPAD_STREAM_ERR, 0, buf, 4) == -1 &&
	    errno == EPERM, "a hard-linked log refused");
	unlink(lnk);
	ok(lpad_read_log(tmpdir, "w1", LPAD_STREAM_UNDEF, 0, buf, 4) == -1 &&
	    errno == EINVAL, "stream 0 refused");
	unlink(path);
	snprintf(path, sizeof(path), "%s/status", dir);
	unlink(path);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/workers", tmpdir);
	rmdir(dir);
}

static void
test_names(void)
{
	char buf[LPAD_PATH_MAX];

	ok(lpad_worker_ok("a") && lpad_worker_ok("w-1") &&
	    lpad_worker_ok("0abc"), "good worker ids");
	ok(!lpad_worker_ok("") && !lpad_worker_ok("-a") &&
	    !lpad_worker_ok("a_b") && !lpad_worker_ok("A") &&
	    !lpad_worker_ok("abcdefghijklmnopqrstuvwxyz0123456"),
	    "bad worker ids");
	ok(lpad_user_ok("_x") && lpad_user_ok("ann.b-c") &&
	    !lpad_user_ok("ann!") && !lpad_user_ok("-ann"), "user names");
	ok(lpad_sock_path("/run/c", "w1", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "/run/c/lpad/w1.sock") == 0, "socket path");
	ok(lpad_worker_dir("/var/c", "w1", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "/var/c/workers/w1") == 0, "worker folder");
	ok(lpad_sock_path("/run/c", "../x", buf, sizeof(buf)) == -1,
	    "a bad worker id makes no path");
	ok(lpad_sock_path("/run/c", "w1", buf, 10) == -1 &&
	    errno == ENAMETOOLONG, "too long");
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip();
	test_parse_defaults();
	test_malformed();
	test_builders();
	test_every_size();
	test_files();
	test_memfd();
	test_msg_roundtrip();
	test_msg_truncation();
	test_msg_bad();
	test_msg_flips();
	test_msg_usage();
	test_exit_and_log();
	test_names();
	rmdir(tmpdir);
	return tap_done();
}
