/* sdnotify — the plain notify-socket protocol of systemd(1). */
#include "sdnotify.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "log.h"
#include "mono.h"

#define SDNOTIFY_STATE_MAX	4096	/* one datagram, well below limits */

static struct sockaddr_un sd_addr;
static socklen_t	 sd_addrlen;	/* 0: nobody listens */
static uint64_t		 sd_watchdog_usec;
static int		 sd_inited;

/* Parses a decimal number of microseconds; 0 when absent or bad. */
static uint64_t
sd_parse_usec(const char *s)
{
	unsigned long long v;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return 0;
	return (uint64_t)v;
}

/* Is the watchdog meant for us?  systemd sets WATCHDOG_PID to say. */
static int
sd_pid_is_us(const char *s)
{
	uint64_t pid;

	if (s == NULL)
		return 1;
	pid = sd_parse_usec(s);
	return pid != 0 && pid == (uint64_t)getpid();
}

int
sdnotify_init(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	size_t len;
	int rc = 0;

	if (sd_inited)
		return 0;
	sd_inited = 1;
	if (sd_pid_is_us(getenv("WATCHDOG_PID")))
		sd_watchdog_usec = sd_parse_usec(getenv("WATCHDOG_USEC"));
	if (path != NULL && *path != '\0') {
		len = strlen(path);
		memset(&sd_addr, 0, sizeof(sd_addr));
		sd_addr.sun_family = AF_UNIX;
		/* Both forms must fit; an abstract name is not terminated. */
		if ((path[0] != '/' && path[0] != '@') ||
		    len >= sizeof(sd_addr.sun_path) || len < 2) {
			errno = EINVAL;
			rc = -1;
		} else {
			memcpy(sd_addr.sun_path, path, len);
			if (path[0] == '@')
				sd_addr.sun_path[0] = '\0';
			else
				len++;	/* the NUL of a path */
			sd_addrlen = (socklen_t)(offsetof(struct sockaddr_un,
			    sun_path) + len);
		}
	}
	if (sd_addrlen == 0)
		sd_watchdog_usec = 0;	/* nobody to ping */
	(void)unsetenv("NOTIFY_SOCKET");
	(void)unsetenv("WATCHDOG_USEC");
	(void)unsetenv("WATCHDOG_PID");
	return rc;
}

int
sdnotify_enabled(void)
{
	return sd_addrlen != 0;
}

int
sdnotify_send(const char *state)
{
	size_t len = strlen(state);
	ssize_t n;
	int fd, saved;

	if (sd_addrlen == 0)
		return 0;
	if (len == 0 || len > SDNOTIFY_STATE_MAX) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	do
		n = sendto(fd, state, len, MSG_NOSIGNAL,
		    (struct sockaddr *)&sd_addr, sd_addrlen);
	while (n == -1 && errno == EINTR);
	saved = errno;
	close(fd);
	if (n == -1) {
		errno = saved;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

uint64_t
sdnotify_watchdog_usec(void)
{
	return sd_watchdog_usec;
}

void
sdnotify_reset(void)
{
	memset(&sd_addr, 0, sizeof(sd_addr));
	sd_addrlen = 0;
	sd_watchdog_usec = 0;
	sd_inited = 0;
}

void
sdnotify_printf(const char *fmt, ...)
{
	static double last_warned = -60;
	char state[512];
	va_list ap;

	if (!sdnotify_enabled())
		return;
	va_start(ap, fmt);
	vsnprintf(state, sizeof(state), fmt, ap);
	va_end(ap);
	if (sdnotify_send(state) == -1 && now_mono() - last_warned >= 60) {
		last_warned = now_mono();
		log_warn("notify socket");
	}
}
