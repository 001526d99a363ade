/*
 * lpad_driver — a stand-in for the node manager in the launch pad's
 * integration test: every call of the lpad client library from the
 * command line.
 *
 *	lpad_driver spawn [-w] [-v] [-c conf] [-L linger] -b binary
 *	    -r run_dir -S state_dir specfile
 *	lpad_driver status run_dir worker
 *	lpad_driver signal run_dir worker signo
 *	lpad_driver stop run_dir worker grace
 *	lpad_driver quit run_dir worker
 *	lpad_driver list run_dir
 *	lpad_driver wait run_dir worker seconds
 *	lpad_driver log state_dir worker out|err offset
 *	lpad_driver exit state_dir worker
 *	lpad_driver raw run_dir worker hexbytes
 *
 * spawn -w stays alive after spawning (to be killed by the test).
 */
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lpad.h"
#include "mono.h"

static void	usage(void) __attribute__((noreturn));
static void	print_status(const struct lpad_status *);
static int	cmd_spawn(int, char **);
static int	connect_or_die(const char *, const char *);
static int	list_cb(const char *, void *);
static int	cmd_raw(const char *, const char *, const char *);
static int	cmd_log(const char *, const char *, const char *,
		    const char *);

static void
usage(void)
{
	fprintf(stderr, "usage: lpad_driver spawn|status|signal|stop|quit|"
	    "list|wait|log|exit|raw ...\n");
	exit(2);
}

static void
print_status(const struct lpad_status *st)
{
	char how[32];

	printf("worker %s\njob %u\ntask %u\nuser %s\nlpad_pid %u\npid %u\n"
	    "pgid %u\nstate %s\nstatus %s\nstopping %u\nstart_ms %llu\n"
	    "end_ms %llu\nout_size %llu\nerr_size %llu\n", st->st_worker,
	    st->st_job, st->st_task, st->st_user, st->st_lpad_pid,
	    st->st_pid, st->st_pgid,
	    st->st_state == LPAD_STATE_RUNNING ? "running" : "exited",
	    lpad_status_str(st, how, sizeof(how)), st->st_stopping,
	    (unsigned long long)st->st_start_ms,
	    (unsigned long long)st->st_end_ms,
	    (unsigned long long)st->st_out_size,
	    (unsigned long long)st->st_err_size);
	if (st->st_cpu_ms == LPAD_USAGE_NONE)
		printf("cpu_ms none\n");
	else
		printf("cpu_ms %llu\n", (unsigned long long)st->st_cpu_ms);
	if (st->st_maxrss_kb == LPAD_USAGE_NONE)
		printf("maxrss_kb none\n");
	else
		printf("maxrss_kb %llu\n",
		    (unsigned long long)st->st_maxrss_kb);
	fflush(stdout);
}

static int
connect_or_die(const char *run_dir, const char *worker)
{
	int fd;

	if ((fd = lpad_connect(run_dir, worker)) == -1)
		err(1, "connect %s", worker);
	return fd;
}

static int
cmd_spawn(int argc, char **argv)
{
	struct lpad_paths pp;
	struct lpad_spec sp;
	struct lpad_status st;
	const char *binary = NULL;
	char why[1024];
	pid_t pid;
	int ch, stay = 0, fd;

	memset(&pp, 0, sizeof(pp));
	pp.lpp_linger = -1;
	optind = 1;
	while ((ch = getopt(argc, argv, "b:c:L:r:S:vw")) != -1) {
		switch (ch) {
		case 'b':
			binary = optarg;
			break;
		case 'c':
			pp.lpp_conf = optarg;
			break;
		case 'L':
			pp.lpp_linger = atoi(optarg);
			break;
		case 'r':
			pp.lpp_run_dir = optarg;
			break;
		case 'S':
			pp.lpp_state_dir = optarg;
			break;
		case 'v':
			pp.lpp_verbose = 1;
			break;
		case 'w':
			stay = 1;
			break;
		default:
			usage();
		}
	}
	if (optind + 1 != argc || binary == NULL || pp.lpp_run_dir == NULL ||
	    pp.lpp_state_dir == NULL)
		usage();
	lpad_spec_init(&sp);
	if (lpad_spec_read(&sp, argv[optind], why, sizeof(why)) == -1)
		errx(1, "spec: %s", why);
	if (lpad_spawn(&sp, &pp, binary, &pid, why, sizeof(why)) == -1)
		errx(1, "spawn: %s (%s)", why, strerror(errno));
	printf("lpad %ld\n", (long)pid);
	fd = connect_or_die(pp.lpp_run_dir, sp.ls_worker);
	if (lpad_status(fd, &st) == -1)
		err(1, "status");
	close(fd);
	printf("worker %u\n", st.st_pid);
	printf("driver %ld\n", (long)getpid());
	fflush(stdout);
	lpad_spec_clear(&sp);
	if (stay)
		for (;;)
			pause();
	return 0;
}

static int
list_cb(const char *worker, void *arg)
{
	struct lpad_status st;
	char how[32];
	int fd;

	(void)arg;
	if ((fd = lpad_connect(arg, worker)) == -1) {
		printf("%s unreachable\n", worker);
		return 0;
	}
	if (lpad_status(fd, &st) == -1)
		printf("%s status-failed %s\n", worker, strerror(errno));
	else
		printf("%s %s pid %u lpad %u\n", worker,
		    lpad_status_str(&st, how, sizeof(how)), st.st_pid,
		    st.st_lpad_pid);
	close(fd);
	return 0;
}

/* Sends raw bytes; says whether a reply came or the socket closed. */
static int
cmd_raw(const char *run_dir, const char *worker, const char *hex)
{
	uint8_t buf[LPAD_MSG_LEN * 2 + 8];
	size_t len = 0;
	unsigned int b;
	ssize_t n;
	int fd;

	while (hex[0] != '\0' && hex[1] != '\0' && len < sizeof(buf)) {
		if (sscanf(hex, "%2x", &b) != 1)
			errx(2, "bad hex");
		buf[len++] = (uint8_t)b;
		hex += 2;
	}
	fd = connect_or_die(run_dir, worker);
	if (send(fd, buf, len, MSG_NOSIGNAL) == -1)
		err(1, "send");
	n = recv(fd, buf, sizeof(buf), 0);
	if (n == 0)
		printf("closed\n");
	else if (n > 0)
		printf("reply %zd bytes\n", n);
	else
		printf("error %s\n", strerror(errno));
	close(fd);
	return 0;
}

/* Reads the log from offset to its end, in small steps. */
static int
cmd_log(const char *state_dir, const char *worker, const char *stream,
    const char *off)
{
	char buf[7];
	uint64_t offset = strtoull(off, NULL, 10);
	ssize_t n;

	for (;;) {
		n = lpad_read_log(state_dir, worker, strcmp(stream, "err") ==
		    0 ? LPAD_STREAM_ERR : LPAD_STREAM_OUT, offset, buf,
		    sizeof(buf));
		if (n == -1)
			err(1, "read_log");
		if (n == 0)
			break;
		fwrite(buf, 1, (size_t)n, stdout);
		offset += (uint64_t)n;
	}
	fflush(stdout);
	fprintf(stderr, "next %llu\n", (unsigned long long)offset);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct lpad_status st;
	double end;
	int fd, n;

	if (argc < 2)
		usage();
	if (strcmp(argv[1], "spawn") == 0)
		return cmd_spawn(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0 && argc == 3) {
		n = lpad_list(argv[2], list_cb, argv[2]);
		if (n == -1)
			err(1, "list");
		printf("live %d\n", n);
		return 0;
	}
	if (argc < 4)
		usage();
	if (strcmp(argv[1], "status") == 0) {
		fd = connect_or_die(argv[2], argv[3]);
		if (lpad_status(fd, &st) == -1)
			err(1, "status");
		print_status(&st);
		return 0;
	}
	if (strcmp(argv[1], "signal") == 0 && argc == 5) {
		fd = connect_or_die(argv[2], argv[3]);
		if (lpad_signal(fd, atoi(argv[4])) == -1)
			err(1, "signal");
		return 0;
	}
	if (strcmp(argv[1], "stop") == 0 && argc == 5) {
		fd = connect_or_die(argv[2], argv[3]);
		if (lpad_stop(fd, atof(argv[4])) == -1)
			err(1, "stop");
		return 0;
	}
	if (strcmp(argv[1], "quit") == 0) {
		fd = connect_or_die(argv[2], argv[3]);
		if (lpad_quit(fd) == -1)
			err(1, "quit");
		return 0;
	}
	if (strcmp(argv[1], "wait") == 0 && argc == 5) {
		end = now_mono() + atof(argv[4]);
		do {
			fd = connect_or_die(argv[2], argv[3]);
			if (lpad_status(fd, &st) == -1)
				err(1, "status");
			close(fd);
			if (st.st_state == LPAD_STATE_EXITED) {
				print_status(&st);
				return 0;
			}
			usleep(50000);
		} while (now_mono() < end);
		errx(1, "still running after %s s", argv[4]);
	}
	if (strcmp(argv[1], "log") == 0 && argc == 6)
		return cmd_log(argv[2], argv[3], argv[4], argv[5]);
	if (strcmp(argv[1], "exit") == 0) {
		memset(&st, 0, sizeof(st));
		if (lpad_read_exit(argv[2], argv[3], &st) == -1)
			err(1, "read_exit");
		printf("status %s\nstart_ms %llu\nend_ms %llu\n",
		    lpad_status_str(&st, (char [32]){ 0 }, 32),
		    (unsigned long long)st.st_start_ms,
		    (unsigned long long)st.st_end_ms);
		return 0;
	}
	if (strcmp(argv[1], "raw") == 0 && argc == 5)
		return cmd_raw(argv[2], argv[3], argv[4]);
	usage();
}
