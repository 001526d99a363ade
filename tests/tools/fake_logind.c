/*
 * fake_logind — stands in for systemd-logind on a private D-Bus bus, for
 * the node manager's idle-hint test: serves IdleHint and
 * IdleSinceHintMonotonic of org.freedesktop.login1.Manager from a state
 * file read at every question: "active"; "idle SECONDS", idle for that
 * long, or since boot (since 1) on a machine up for less, as logind
 * can say no more; or "none", no session at all, which logind answers
 * with an idle hint since 0.  Prints "ready" once it owns the name;
 * exits on SIGTERM or after 300 seconds.
 *	fake_logind ADDRESS STATEFILE
 */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-bus.h>

#define LIFETIME	300

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* 1 and the idle seconds (-1: no session), or 0 while active. */
static int
state(const char *path, double *idle)
{
	char buf[64] = "";
	FILE *f;

	*idle = 0;
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	if (strncmp(buf, "none", 4) == 0) {
		*idle = -1;
		return 1;
	}
	return sscanf(buf, "idle %lf", idle) == 1;
}

static int
get_hint(sd_bus *bus, const char *path, const char *iface, const char *prop,
    sd_bus_message *reply, void *file, sd_bus_error *e)
{
	double idle;

	(void)bus; (void)path; (void)iface; (void)prop; (void)e;
	return sd_bus_message_append(reply, "b", state(file, &idle));
}

static int
get_since(sd_bus *bus, const char *path, const char *iface,
    const char *prop, sd_bus_message *reply, void *file, sd_bus_error *e)
{
	struct timespec ts;
	double idle;
	uint64_t now, since = 0;

	(void)bus; (void)path; (void)iface; (void)prop; (void)e;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	if (state(file, &idle) && idle >= 0)
		since = idle * 1e6 < (double)now ? now -
		    (uint64_t)(idle * 1e6) : 1;
	return sd_bus_message_append(reply, "t", since);
}

static const sd_bus_vtable manager[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("IdleHint", "b", get_hint, 0, 0),
	SD_BUS_PROPERTY("IdleSinceHintMonotonic", "t", get_since, 0, 0),
	SD_BUS_VTABLE_END
};

int
main(int argc, char *argv[])
{
	sd_bus *b = NULL;
	time_t until = time(NULL) + LIFETIME;
	int r;

	if (argc != 3)
		errx(2, "usage: fake_logind ADDRESS STATEFILE");
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if ((r = sd_bus_new(&b)) < 0 || (r = sd_bus_set_address(b,
	    argv[1])) < 0 || (r = sd_bus_set_bus_client(b, 1)) < 0 ||
	    (r = sd_bus_start(b)) < 0)
		errx(1, "%s: %s", argv[1], strerror(-r));
	if ((r = sd_bus_add_object_vtable(b, NULL, "/org/freedesktop/login1",
	    "org.freedesktop.login1.Manager", manager, argv[2])) < 0 ||
	    (r = sd_bus_request_name(b, "org.freedesktop.login1", 0)) < 0)
		errx(1, "serving: %s", strerror(-r));
	printf("ready\n");
	fflush(stdout);
	while (!stop && time(NULL) < until) {
		if ((r = sd_bus_process(b, NULL)) < 0)
			errx(1, "process: %s", strerror(-r));
		if (r == 0 && (r = sd_bus_wait(b, 100000)) < 0 && r != -EINTR)
			errx(1, "wait: %s", strerror(-r));
	}
	sd_bus_flush_close_unref(b);
	return 0;
}
