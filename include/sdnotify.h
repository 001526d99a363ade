/*
 * sdnotify — the service manager's readiness protocol, spoken without
 * libsystemd: one datagram of "KEY=VALUE" lines to the AF_UNIX socket
 * named by $NOTIFY_SOCKET (a path, or an abstract name written with a
 * leading '@').  READY=1 when startup is done, RELOADING=1 / STOPPING=1
 * around a reload and at the end, WATCHDOG=1 every half of
 * $WATCHDOG_USEC.  Without $NOTIFY_SOCKET every call does nothing.
 */
#ifndef CILKNOW_SDNOTIFY_H
#define CILKNOW_SDNOTIFY_H

#include <stdint.h>

/*
 * Takes $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID into the
 * module and removes them from the environment, so that nothing we
 * start (launch pads, workers) can speak for us.  0, or -1 (errno
 * EINVAL) when $NOTIFY_SOCKET is set but unusable; calls after the
 * first do nothing.
 */
int	sdnotify_init(void);

/* 1 when a service manager listens, else 0. */
int	sdnotify_enabled(void);

/*
 * Sends state (e.g. "READY=1\nSTATUS=listening").  0 when sent or when
 * nobody listens, -1 with errno on failure.
 */
int	sdnotify_send(const char *state);

/*
 * sdnotify_send of a formatted state; a failure is logged once a
 * minute at most (log.h) and never stops the daemon.
 */
void	sdnotify_printf(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));

/*
 * The watchdog period in microseconds when the manager wants keep-alive
 * pings from this process ($WATCHDOG_PID unset or ours), else 0.
 */
uint64_t sdnotify_watchdog_usec(void);

/*
 * Forgets everything sdnotify_init() took: a forked child that is not
 * the main process calls it, so that it never speaks for the service
 * (systemd takes only the main pid's word under NotifyAccess=main and
 * logs the rest); tests call it too.
 */
void	sdnotify_reset(void);

#endif
