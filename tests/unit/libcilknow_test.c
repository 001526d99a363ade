/*
 * libcilknow_test — the runtime as a user's program links it: with
 * libcilknow.a alone (the Makefile links no in-tree library here), and
 * with functions and data of its own named like the runtime's insides
 * (log_info, fatal, conf_new, log_warnx, msg_ep_new), of other types.
 * It must link, its names must stay its own, the runtime must keep
 * calling its own, and a job must run.  Then the library itself: it
 * defines no global name but those of src/runtime/cilknow.sym, which
 * are exactly the functions cilknow.h declares.
 */
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cilknow.h"
#include "tap.h"

/*
 * The program's own.  Once armed, a call means the runtime reached the
 * program's function instead of its own: say so and die.
 */
int		 log_info(int);
const char	*fatal(const char *, int);
double		 conf_new(double, double);
void		 log_warnx(void);
extern char	 msg_ep_new[16];

static int armed;
char msg_ep_new[16] = "mine";
static int warned;

static void
trap_runtime(const char *name)
{
	if (!armed)
		return;
	printf("# the runtime called the program's %s\n", name);
	fflush(stdout);
	_exit(77);
}

int
log_info(int x)
{
	trap_runtime("log_info");
	return x * 3;
}

const char *
fatal(const char *s, int skip)
{
	trap_runtime("fatal");
	return s + skip;
}

double
conf_new(double a, double b)
{
	trap_runtime("conf_new");
	return a / b;
}

void
log_warnx(void)
{
	trap_runtime("log_warnx");
	warned++;
}

/* ---- a job: the leaves of a binary tree, each emitting its depth ----- */

enum { LEAVES, NFNS };
static void leaves(struct cn_ctx *, const void *, size_t);
static cn_fn *const fns[NFNS] = { leaves };
static uint32_t nrecords, badrecords;

static void
leaves(struct cn_ctx *c, const void *arg, size_t len)
{
	uint32_t d;

	if (len != sizeof(d))
		return;
	memcpy(&d, arg, sizeof(d));
	if (d == 0) {
		CN_ADD(c, 1);
		(void)cn_emit(c, 7, "leaf", 4);
		return;
	}
	d--;
	CN_SPAWN(c, LEAVES, leaves, &d, sizeof(d));
	cn_spawn(c, LEAVES, &d, sizeof(d));
}

static void
record(void *arg, uint32_t key, const void *p, size_t len)
{
	(void)arg;
	if (key == 7 && len == 4 && memcmp(p, "leaf", 4) == 0)
		nrecords++;
	else
		badrecords++;
}

static void
test_own_names(void)
{
	ok(log_info(5) == 15 && strcmp(fatal("xyz", 1), "yz") == 0 &&
	    conf_new(3.0, 2.0) == 1.5 && strcmp(msg_ep_new, "mine") == 0,
	    "the program's log_info, fatal, conf_new, msg_ep_new are its own");
	log_warnx();
	is_int(warned, 1, "and so is its log_warnx");
}

/*
 * A worker whose configuration is missing: the runtime reads it with its
 * own conf_new, says why on stderr and exits 1 before any message.
 */
static void
test_runtime_names(void)
{
	char conf[] = "-Conf=/nonexistent/cilknow/cilknow.conf";
	char *av[] = { "libcilknow_test", "-NoChouse", "-Host=127.0.0.1",
	    "-Port=9", conf, "--", NULL };
	struct cn_program p = { "libcilknow_test", fns, NFNS, NULL, NULL };
	char **argv = av, out[2048];
	int argc = 6, fd[2], status;
	uint32_t d = 2;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(fd) == -1 || (pid = fork()) == -1) {
		ok(0, "fork a worker: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		(void)dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		armed = 1;
		if (cn_init(&argc, &argv) == -1)
			_exit(2);
		(void)cn_run(&p, LEAVES, &d, sizeof(d), NULL);
		_exit(3);		/* a worker never returns */
	}
	close(fd[1]);
	while (n < sizeof(out) - 1 &&
	    (r = read(fd[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	if (!ok(WIFEXITED(status) && WEXITSTATUS(status) == 1 &&
	    strstr(out, "cannot join the clearinghouse") != NULL,
	    "a worker with no configuration exits 1, its runtime calling "
	    "its own conf_new"))
		printf("#   status %#x, stderr: %s\n", status, out);
}

static void
test_alone(void)
{
	char *av[] = { "libcilknow_test", "-Alone", "mine", NULL };
	struct cn_program p = { "libcilknow_test", fns, NFNS, record, NULL };
	struct cn_stats st;
	char **argv = av;
	int argc = 3, rc;
	uint32_t d = 10;

	if (!ok(cn_init(&argc, &argv) == 0 && argc == 2 &&
	    strcmp(argv[1], "mine") == 0, "cn_init takes -Alone, leaves "
	    "the program's argument"))
		return;
	memset(&st, 0, sizeof(st));
	armed = 1;
	rc = cn_run(&p, LEAVES, &d, sizeof(d), &st);
	armed = 0;
	ok(rc == 0 && st.cs_alone, "cn_run runs the job alone");
	is_int(st.cs_sum, 1024, "its sum counts every leaf");
	is_int(nrecords, 1024, "every record reaches cp_record once");
	is_int(badrecords, 0, "intact");
}

/* ---- the library's names --------------------------------------------- */

#define NAMES_MAX	64

struct names {
	char	n_name[NAMES_MAX][64];
	int	n_len;
};

static int
names_has(const struct names *ns, const char *s)
{
	int i;

	for (i = 0; i < ns->n_len; i++)
		if (strcmp(ns->n_name[i], s) == 0)
			return 1;
	return 0;
}

static int
names_add(struct names *ns, const char *s, size_t len)
{
	if (ns->n_len == NAMES_MAX || len == 0 ||
	    len >= sizeof(ns->n_name[0]))
		return -1;
	memcpy(ns->n_name[ns->n_len], s, len);
	ns->n_name[ns->n_len][len] = '\0';
	if (!names_has(ns, ns->n_name[ns->n_len]))
		ns->n_len++;
	return 0;
}

/* cilknow.sym: a name a line; # starts a comment line. */
static int
read_list(const char *path, struct names *ns)
{
	char line[256];
	FILE *f;
	int rc = 0;

	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (names_add(ns, line, strlen(line)) == -1)
			rc = -1;
	}
	fclose(f);
	return rc;
}

/*
 * The functions cilknow.h declares: a line that starts a prototype at
 * the left margin (not a typedef, a struct, a macro or a comment), and
 * the cn_ name before its "(".
 */
static int
read_header(const char *path, struct names *ns)
{
	char line[512], *p, *e;
	FILE *f;
	int rc = 0;

	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (!islower((unsigned char)line[0]) ||
		    strncmp(line, "typedef", 7) == 0 ||
		    strncmp(line, "struct", 6) == 0 ||
		    (e = strchr(line, '(')) == NULL)
			continue;
		for (p = e; p > line && (isalnum((unsigned char)p[-1]) ||
		    p[-1] == '_'); p--)
			;
		if (strncmp(p, "cn_", 3) == 0 &&
		    names_add(ns, p, (size_t)(e - p)) == -1)
			rc = -1;
	}
	fclose(f);
	return rc;
}

static void
test_names(void)
{
	struct names list, hdr, lib;
	char top[PATH_MAX], path[PATH_MAX + 64], cmd[PATH_MAX + 128];
	char line[512], sym[256], type;
	const char *t = getenv("CILKNOW_TOP");
	unsigned long long addr;
	int i, bad, n;
	ssize_t len;
	FILE *f;

	memset(&list, 0, sizeof(list));
	memset(&hdr, 0, sizeof(hdr));
	memset(&lib, 0, sizeof(lib));
	snprintf(top, sizeof(top), "%s", t != NULL ? t : ".");
	snprintf(path, sizeof(path), "%s/src/runtime/cilknow.sym", top);
	if (!ok(read_list(path, &list) == 0 && list.n_len > 0,
	    "the list of public names reads"))
		return;
	snprintf(path, sizeof(path), "%s/include/cilknow.h", top);
	if (!ok(read_header(path, &hdr) == 0 && hdr.n_len > 0,
	    "cilknow.h's functions read"))
		return;
	bad = 0;
	for (i = 0; i < hdr.n_len; i++)
		if (!names_has(&list, hdr.n_name[i])) {
			printf("#   %s is declared but not listed\n",
			    hdr.n_name[i]);
			bad++;
		}
	for (i = 0; i < list.n_len; i++)
		if (!names_has(&hdr, list.n_name[i])) {
			printf("#   %s is listed but not declared\n",
			    list.n_name[i]);
			bad++;
		}
	is_int(bad, 0, "cilknow.sym lists exactly the functions of "
	    "cilknow.h (%d)", list.n_len);

	/* BUILD/tests/this -> BUILD/lib/libcilknow.a */
	if ((len = readlink("/proc/self/exe", path, sizeof(path) - 1)) <= 0) {
		ok(0, "readlink /proc/self/exe: %s", strerror(errno));
		return;
	}
	path[len] = '\0';
	for (i = 0; i < 2 && strrchr(path, '/') != NULL; i++)
		*strrchr(path, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "nm -g --defined-only '%s/lib/libcilknow.a'",
	    path);
	if ((f = popen(cmd, "r")) == NULL) {
		ok(0, "%s: %s", cmd, strerror(errno));
		return;
	}
	bad = n = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0' || line[strlen(line) - 1] == ':')
			continue;	/* "member.o:", blank lines */
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3) {
			ok(0, "nm says \"%s\"", line);
			continue;
		}
		n++;
		if (!names_has(&list, sym)) {
			if (bad++ < 10)
				printf("#   the library exports %s\n", sym);
		} else if (type == 'T')
			(void)names_add(&lib, sym, strlen(sym));
	}
	if (pclose(f) != 0 || n == 0) {
		ok(0, "%s: fails or finds nothing", cmd);
		return;
	}
	if (!ok(bad == 0, "libcilknow.a defines no global name but the "
	    "listed ones"))
		printf("#   %d names too many\n", bad);
	is_int(lib.n_len, list.n_len, "and defines every listed one, as code");
}

int
main(void)
{
	(void)unsetenv("CILKNOW_ALONE");
	test_own_names();
	test_runtime_names();
	test_alone();
	test_names();
	return tap_done();
}
