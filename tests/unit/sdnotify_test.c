/*
 * sdnotify_test — the notify-socket protocol against a datagram socket
 * of our own: a path in a temporary folder and an abstract name; the
 * environment is taken away from children; the watchdog period is ours
 * only when WATCHDOG_PID says so; unusable addresses are refused.
 */
#include "sdnotify.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

/* A bound datagram socket; name is a path or "@abstract". */
static int
listener(const char *name)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strlcpy(sun.sun_path, name, sizeof(sun.sun_path));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(name) + (name[0] == '@' ? 0 : 1));
	if (name[0] == '@')
		sun.sun_path[0] = '\0';
	if (bind(fd, (struct sockaddr *)&sun, len) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One datagram within a second, as a string; "" if none came. */
static const char *
receive(int fd)
{
	static char buf[8192];
	struct pollfd pfd = { fd, POLLIN, 0 };
	ssize_t n;

	buf[0] = '\0';
	if (poll(&pfd, 1, 1000) != 1)
		return buf;
	if ((n = recv(fd, buf, sizeof(buf) - 1, 0)) < 0)
		n = 0;
	buf[n] = '\0';
	return buf;
}

static void
fresh(const char *sock, const char *usec, const char *pid)
{
	sdnotify_reset();
	if (sock)
		setenv("NOTIFY_SOCKET", sock, 1);
	else
		unsetenv("NOTIFY_SOCKET");
	if (usec)
		setenv("WATCHDOG_USEC", usec, 1);
	else
		unsetenv("WATCHDOG_USEC");
	if (pid)
		setenv("WATCHDOG_PID", pid, 1);
	else
		unsetenv("WATCHDOG_PID");
}

int
main(void)
{
	char dir[] = "/tmp/sdnotify_test.XXXXXX", path[256], abs[64],
	    me[32], big[5000];
	int fd, rc, saved;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/notify", dir);
	snprintf(abs, sizeof(abs), "@cilknow-sdnotify-test-%ld",
	    (long)getpid());
	snprintf(me, sizeof(me), "%ld", (long)getpid());

	/* Not under a service manager: everything is a quiet no-op. */
	fresh(NULL, "1000000", NULL);
	is_int(sdnotify_init(), 0, "no NOTIFY_SOCKET: init succeeds");
	is_int(sdnotify_enabled(), 0, "no NOTIFY_SOCKET: not enabled");
	is_int(sdnotify_send("READY=1"), 0, "no NOTIFY_SOCKET: send is a no-op");
	is_int(sdnotify_watchdog_usec(), 0, "no socket: no watchdog either");

	/* A socket at a path in a temporary folder. */
	fd = listener(path);
	ok(fd != -1, "listening on %s", path);
	fresh(path, "3000000", NULL);
	is_int(sdnotify_init(), 0, "path socket: init succeeds");
	ok(getenv("NOTIFY_SOCKET") == NULL && getenv("WATCHDOG_USEC") ==
	    NULL, "init takes NOTIFY_SOCKET and WATCHDOG_USEC out of the "
	    "environment (children cannot speak for us)");
	is_int(sdnotify_enabled(), 1, "path socket: enabled");
	is_int(sdnotify_watchdog_usec(), 3000000,
	    "WATCHDOG_USEC without WATCHDOG_PID is ours");
	is_int(sdnotify_send("READY=1\nSTATUS=listening"), 0, "send READY");
	is_str(receive(fd), "READY=1\nSTATUS=listening",
	    "the manager got READY=1 and the status line, byte for byte");
	is_int(sdnotify_send("WATCHDOG=1"), 0, "send WATCHDOG");
	is_str(receive(fd), "WATCHDOG=1", "the manager got WATCHDOG=1");
	is_int(sdnotify_init(), 0, "a second init changes nothing");
	is_int(sdnotify_enabled(), 1, "still enabled after a second init");
	is_int(sdnotify_send(""), -1, "an empty state is refused");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	is_int(sdnotify_send(big), -1, "an oversized state is refused");
	close(fd);
	unlink(path);
	rc = sdnotify_send("WATCHDOG=1");
	saved = errno;
	ok(rc == -1 && (saved == ENOENT || saved == ECONNREFUSED),
	    "a vanished socket is an error (errno %d)", saved);

	/* An abstract socket, written with '@'. */
	fd = listener(abs);
	ok(fd != -1, "listening on abstract %s", abs);
	fresh(abs, "2000000", me);
	is_int(sdnotify_init(), 0, "abstract socket: init succeeds");
	is_int(sdnotify_watchdog_usec(), 2000000,
	    "WATCHDOG_PID naming us: the watchdog is ours");
	is_int(sdnotify_send("STOPPING=1"), 0, "send to the abstract name");
	is_str(receive(fd), "STOPPING=1", "the abstract listener got it");
	close(fd);

	/* The watchdog of another process is not ours. */
	fresh(abs, "2000000", "1");
	(void)sdnotify_init();
	is_int(sdnotify_watchdog_usec(), 0, "WATCHDOG_PID of another process");
	fresh(abs, "2s", NULL);
	(void)sdnotify_init();
	is_int(sdnotify_watchdog_usec(), 0, "a malformed WATCHDOG_USEC");

	/* Unusable addresses. */
	fresh("relative/sock", NULL, NULL);
	is_int(sdnotify_init(), -1, "a relative path is refused");
	is_int(sdnotify_enabled(), 0, "and leaves notification off");
	fresh("@", NULL, NULL);
	is_int(sdnotify_init(), -1, "an empty abstract name is refused");
	memset(big, 'a', 200);
	big[0] = '/';
	big[200] = '\0';
	fresh(big, NULL, NULL);
	is_int(sdnotify_init(), -1, "a path longer than sun_path is refused");

	rmdir(dir);
	return tap_done();
}
