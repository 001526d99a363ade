/* CilkLocal start: folder, keys, config, the broker, the node managers. */
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "local.h"
#include "msg_keys.h"

#define BROKER_BIN	"CilkJobBroker"
#define NODE_BIN	"CilkNodeManager"

/*
 * start's tick while it waits for pings: notices daemons that died, so
 * that the wait ends as soon as every daemon either answered or died.
 */
static int
reap(struct local *lo, void *arg)
{
	struct local_daemon *d;
	size_t i;
	int status;

	(void)arg;
	for (i = 0; i < lo->lo_nd; i++) {
		d = &lo->lo_d[i];
		if (d->ld_exited)
			continue;
		if (waitpid(d->ld_pid, &status, WNOHANG) == d->ld_pid) {
			d->ld_exited = 1;
			d->ld_status = status;
		}
	}
	return 0;
}

/* Refuses when DIR/pids names a daemon of ours that still runs. */
static int
already_running(struct local *lo)
{
	char pids[PATH_MAX];
	size_t i, alive = 0;

	if (local_pids_read(lo) == -1)
		return 0;
	if (local_path(lo, pids, sizeof(pids), "pids") == -1)
		return 1;
	for (i = 0; i < lo->lo_nd; i++)
		if (local_proc_alive(lo->lo_d[i].ld_pid) &&
		    local_proc_started_before(lo->lo_d[i].ld_pid, pids) &&
		    local_proc_ours(lo, lo->lo_d[i].ld_pid, 0)) {
			if (alive++ == 0)
				warnx("%s: already running: %s %s (pid %ld)%s",
				    lo->lo_dir,
				    local_role_name(lo->lo_d[i].ld_role),
				    lo->lo_d[i].ld_addr,
				    (long)lo->lo_d[i].ld_pid,
				    lo->lo_nd > 1 ? " and others" : "");
		}
	free(lo->lo_d);
	lo->lo_d = NULL;
	lo->lo_nd = 0;
	if (alive > 0) {
		warnx("stop it first: CilkLocal stop -d %s", lo->lo_dir);
		return 1;
	}
	return 0;
}

static int
prepare(struct local *lo)
{
	struct passwd *pw;
	struct stat st;
	char path[PATH_MAX], host[32];
	int i;

	if ((pw = getpwuid(getuid())) == NULL) {
		warnx("uid %ld has no name in the password database",
		    (long)getuid());
		return -1;
	}
	if (!msg_user_name_ok(pw->pw_name)) {
		warnx("'%s' is not a user name cilknow accepts", pw->pw_name);
		return -1;
	}
	if (local_keys(lo, pw->pw_name) == -1 ||
	    (lo->lo_munge && local_munge_start(lo) == -1) ||
	    local_conf_write(lo, pw->pw_name) == -1)
		return -1;
	/*
	 * Run by root, the broker drops to its service user, who must
	 * reach DIR (state, users' public keys); search, not listing.
	 */
	if (geteuid() == 0 && (stat(lo->lo_dir, &st) == -1 ||
	    ((st.st_mode & 0011) != 0011 &&
	    chmod(lo->lo_dir, (st.st_mode & 07777) | 0011) == -1))) {
		warn("chmod o+x %s", lo->lo_dir);
		return -1;
	}
	if (local_path(lo, path, sizeof(path), "state") == -1 ||
	    (mkdir(path, 0755) == -1 && errno != EEXIST) ||
	    local_path(lo, path, sizeof(path), "run") == -1 ||
	    (mkdir(path, 0755) == -1 && errno != EEXIST) ||
	    local_path(lo, path, sizeof(path), "broker") == -1 ||
	    (mkdir(path, 0755) == -1 && errno != EEXIST)) {
		warn("mkdir %s", path);
		return -1;
	}
	for (i = 1; i <= lo->lo_nodes; i++) {
		snprintf(host, sizeof(host), "127.0.0.%d", i + 1);
		if (local_node_dirs(lo, host) == -1)
			return -1;
	}
	return 0;
}

static int
find_bins(char *broker, char *node, size_t sz)
{
	const char *env = getenv("CILKNOW_SBIN");
	const char *missing = NULL;

	if (cli_find_program(BROKER_BIN, broker, sz) == -1)
		missing = BROKER_BIN;
	else if (cli_find_program(NODE_BIN, node, sz) == -1)
		missing = NODE_BIN;
	if (missing == NULL)
		return 0;
	if (env != NULL && *env != '\0')
		warnx("cannot start %s: no executable %s/%s "
		    "(CILKNOW_SBIN)", missing, env, missing);
	else
		warnx("cannot start %s: not found in the sbin folder next "
		    "to CilkLocal's own nor on PATH; build it (make) or set "
		    "CILKNOW_SBIN to its folder", missing);
	return -1;
}

static int
spawn_broker(struct local *lo, const char *bin)
{
	char conf[PATH_MAX], rundir[PATH_MAX + 16], log[PATH_MAX];
	char *argv[10];
	struct local_daemon *d = &lo->lo_d[lo->lo_nd];
	int a = 0;

	if (local_path(lo, conf, sizeof(conf), "cilknow.conf") == -1 ||
	    local_path(lo, log, sizeof(log), "broker.log") == -1)
		return -1;
	snprintf(rundir, sizeof(rundir), "run_dir=%s/broker", lo->lo_dir);
	argv[a++] = (char *)(uintptr_t)BROKER_BIN;
	argv[a++] = (char *)(uintptr_t)"-f";
	if (lo->lo_verbose)
		argv[a++] = (char *)(uintptr_t)"-v";
	argv[a++] = (char *)(uintptr_t)"-c";
	argv[a++] = conf;
	argv[a++] = (char *)(uintptr_t)"-o";
	argv[a++] = rundir;
	argv[a] = NULL;
	local_daemon_set(d, LOCAL_ROLE_BROKER, 0, "127.0.0.1", lo->lo_port);
	if ((d->ld_pid = local_spawn(lo, bin, argv, log)) == -1)
		return -1;
	lo->lo_nd++;
	return 0;
}

static int
spawn_node(struct local *lo, const char *bin, int i)
{
	char conf[PATH_MAX], log[PATH_MAX], host[32];
	char listen[64], state[PATH_MAX + 64], run[PATH_MAX + 64];
	char sensors[PATH_MAX + 64];
	char *argv[16];
	struct local_daemon *d = &lo->lo_d[lo->lo_nd];
	uint16_t port = lo->lo_port + 1;
	int a = 0;

	snprintf(host, sizeof(host), "127.0.0.%d", i + 1);
	if (local_path(lo, conf, sizeof(conf), "cilknow.conf") == -1 ||
	    local_path(lo, log, sizeof(log), "nodes/%s/log", host) == -1)
		return -1;
	snprintf(listen, sizeof(listen), "listen=%s:%u", host, port);
	snprintf(state, sizeof(state), "state_dir=%s/nodes/%s/state",
	    lo->lo_dir, host);
	snprintf(run, sizeof(run), "run_dir=%s/nodes/%s/run", lo->lo_dir,
	    host);
	snprintf(sensors, sizeof(sensors), "sensors=file:%s/nodes/%s/sensors",
	    lo->lo_dir, host);
	argv[a++] = (char *)(uintptr_t)NODE_BIN;
	argv[a++] = (char *)(uintptr_t)"-f";
	if (lo->lo_verbose)
		argv[a++] = (char *)(uintptr_t)"-v";
	argv[a++] = (char *)(uintptr_t)"-c";
	argv[a++] = conf;
	argv[a++] = (char *)(uintptr_t)"-o";
	argv[a++] = listen;
	argv[a++] = (char *)(uintptr_t)"-o";
	argv[a++] = state;
	argv[a++] = (char *)(uintptr_t)"-o";
	argv[a++] = run;
	argv[a++] = (char *)(uintptr_t)"-o";
	argv[a++] = sensors;
	argv[a] = NULL;
	local_daemon_set(d, LOCAL_ROLE_NODE, 0, host, port);
	if ((d->ld_pid = local_spawn(lo, bin, argv, log)) == -1)
		return -1;
	lo->lo_nd++;
	return 0;
}

static void
log_of(const struct local *lo, const struct local_daemon *d, char *buf,
    size_t bufsz)
{
	if (d->ld_role == LOCAL_ROLE_BROKER)
		(void)local_path(lo, buf, bufsz, "broker.log");
	else
		(void)local_path(lo, buf, bufsz, "nodes/%s/log", d->ld_host);
}

/* One line per daemon; the log's tail for those that are not up. */
static int
report(const struct local *lo)
{
	const struct local_daemon *d;
	char log[PATH_MAX];
	size_t i;
	int bad = 0;

	for (i = 0; i < lo->lo_nd; i++) {
		d = &lo->lo_d[i];
		printf("  %-6s %-21s pid %-7ld ", local_role_name(d->ld_role),
		    d->ld_addr, (long)d->ld_pid);
		if (d->ld_answers) {
			printf("up (answers ping, %.1f ms)\n",
			    d->ld_rtt * 1e3);
			continue;
		}
		bad++;
		log_of(lo, d, log, sizeof(log));
		if (d->ld_exited && WIFEXITED(d->ld_status))
			printf("DOWN: exited with status %d\n",
			    WEXITSTATUS(d->ld_status));
		else if (d->ld_exited && WIFSIGNALED(d->ld_status))
			printf("DOWN: killed by signal %d\n",
			    WTERMSIG(d->ld_status));
		else
			printf("NOT ANSWERING: runs, but did not answer a "
			    "ping within %g s\n", LOCAL_START_WAIT);
		fflush(stdout);
		fprintf(stderr, "    the end of %s:\n", log);
		local_log_tail(log, 5);
	}
	return bad;
}

/* Shell-quoted when it needs to be, for the export line. */
static void
print_export(const struct local *lo)
{
	const char *p;
	int plain = 1;

	for (p = lo->lo_dir; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@%",
		    *p) == NULL)
			plain = 0;
	if (plain) {
		printf("export CILKNOW_CONF=%s/cilknow.conf\n", lo->lo_dir);
		return;
	}
	printf("export CILKNOW_CONF='");
	for (p = lo->lo_dir; *p != '\0'; p++)
		if (*p == '\'')
			printf("'\\''");
		else
			putchar(*p);
	printf("/cilknow.conf'\n");
}

static int
fail(struct local *lo)
{
	fprintf(stderr, "CilkLocal: start failed; stopping what was "
	    "started\n");
	fflush(stderr);
	(void)local_stop_all(lo, 1);
	local_munge_stop(lo);
	(void)local_pids_remove(lo);
	return CLI_EXIT_FAILURE;
}

int
local_start(struct local *lo)
{
	char broker[PATH_MAX], node[PATH_MAX];
	int i;

	if (already_running(lo))
		return CLI_EXIT_FAILURE;
	if (prepare(lo) == -1 || find_bins(broker, node, sizeof(broker)) == -1)
		return CLI_EXIT_FAILURE;
	if (setenv(LOCAL_ENV, lo->lo_dir, 1) == -1)
		err(CLI_EXIT_FAILURE, "setenv");
	if ((lo->lo_d = calloc(LOCAL_NODES_MAX + 1, sizeof(*lo->lo_d))) ==
	    NULL)
		err(CLI_EXIT_FAILURE, "calloc");
	/* The broker first: node managers register with it at once. */
	if (spawn_broker(lo, broker) == -1 || local_pids_write(lo) == -1)
		return fail(lo);
	if (local_ping(lo, LOCAL_START_WAIT, reap, NULL) == -1) {
		printf("CilkLocal: the broker did not come up:\n");
		(void)report(lo);
		return fail(lo);
	}
	for (i = 1; i <= lo->lo_nodes; i++)
		if (spawn_node(lo, node, i) == -1)
			break;
	if (local_pids_write(lo) == -1 || i <= lo->lo_nodes)
		return fail(lo);
	if (local_ping(lo, LOCAL_START_WAIT, reap, NULL) == -1) {
		printf("CilkLocal: not every daemon came up in %s:\n",
		    lo->lo_dir);
		(void)report(lo);
		return fail(lo);
	}
	printf("CilkLocal: a cluster of %d node%s in %s\n", lo->lo_nodes,
	    lo->lo_nodes == 1 ? "" : "s", lo->lo_dir);
	(void)report(lo);
	printf("logs: %s/broker.log and %s/nodes/ADDR/log; make a node busy: "
	    "echo idletime=0 > %s/nodes/127.0.0.2/sensors\n", lo->lo_dir,
	    lo->lo_dir, lo->lo_dir);
	printf("to use it:\n");
	print_export(lo);
	return CLI_EXIT_OK;
}
