/*
 * sensors — what idleness is measured from: the "sensors = file:PATH"
 * test hook, and Linux readers for /proc/loadavg, /proc/meminfo, utmp,
 * tty access times and input devices.  Every reader takes its path so
 * tests can point it at fixtures.  Library code: 0 or -1 with errno,
 * never exits, never blocks.
 *
 * A node manager that cannot measure should treat the node as busy.
 */
#ifndef CILKNOW_SENSORS_H
#define CILKNOW_SENSORS_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pred.h"

#define SENSORS_FILE_MAX	65536	/* bytes of a sensor file */
#define SENSORS_LINE_MAX	8192	/* bytes of one of its lines */
#define SENSORS_PROC_MAX	65536	/* bytes read from a /proc file */
#define SENSORS_UTMP_RECORDS_MAX 65536	/* utmp records read */
#define SENSORS_TTY_MAX		32	/* bytes of a tty name (ut_line) */
#define SENSORS_INPUT_REC_MAX	64	/* >= sizeof(struct input_event) */

/* Seconds without input assumed when a sensor file has no idletime. */
#define SENSORS_IDLE_UNATTENDED	1000000000.0

/*
 * The defaults a sensor file starts from: an unattended machine, idle
 * for SENSORS_IDLE_UNATTENDED seconds, no users, load 0,0,0, free
 * memory unknown (-1), time of day unknown (-1).
 */
void	sensors_meas_init(struct pred_meas *);

/*
 * The sensor file: lines "key=value", blank lines and "#" comments
 * allowed, each key at most once:
 *	idletime=S		seconds since input (fractions allowed)
 *	users=N			logged-in sessions (default: entries of
 *				loggedin)
 *	load=A,B,C		1/5/15-minute load, own workers excluded
 *	mem=MB			free memory
 *	loggedin=U[:S],...	users logged in here; S is the user's own
 *				idle time (default: idletime); may be empty
 *	time=HH:MM		local time of day (default: unknown; the
 *				caller may fill pm_tod with sensors_tod())
 * Missing keys keep the defaults of sensors_meas_init().  On any error m
 * is unchanged and err holds "NAME:LINE: message".
 */
int	sensors_file_parse(const char *buf, size_t len, const char *name,
	    struct pred_meas *m, char *err, size_t errlen);
/* Reads path (a regular file of at most SENSORS_FILE_MAX bytes). */
int	sensors_file_read(const char *path, struct pred_meas *m, char *err,
	    size_t errlen);

/* "0.52 0.58 0.59 1/467 12345" from /proc/loadavg. */
int	sensors_read_loadavg(const char *path, double load[3]);
/*
 * Free memory in MB from /proc/meminfo: MemAvailable, or on kernels
 * without it MemFree + Buffers + Cached.
 */
int	sensors_read_meminfo(const char *path, double *mb);

/* A login session from utmp. */
struct sensors_session {
	char	ss_user[PRED_USER_MAX + 1];
	char	ss_line[SENSORS_TTY_MAX + 1];	/* "pts/3", "tty1", ":0" */
	pid_t	ss_pid;
};

/*
 * Lists the USER_PROCESS records of a utmp file (struct utmpx records,
 * as /var/run/utmp) into out.  A partial record at the end is ignored.
 * -1 with E2BIG if there are more than max sessions.
 */
int	sensors_read_utmp(const char *path, struct sensors_session *out,
	    size_t max, size_t *n);

/*
 * The newest login or logout of a wtmp file (struct utmpx records, as
 * /var/log/wtmp), as realtime seconds into *when: the last moment a
 * session is known to have existed.  Reads at most
 * SENSORS_UTMP_RECORDS_MAX records from the end.  -1 with errno (ENOENT
 * also when no record tells).
 */
int	sensors_read_last_session(const char *path, double *when);

/*
 * Seconds since the last input on devdir/line (now - atime, at least 0),
 * as w(1) computes it.  -1 with errno: ENOENT for lines that are not
 * devices (X displays), EINVAL for a line that escapes devdir.
 */
int	sensors_tty_idle(const char *devdir, const char *line,
	    const struct timespec *now, double *idle);

/*
 * Fills the users of m from n sessions: pm_nusers = n, pm_user[] the
 * distinct users with the least idle time of their sessions.  A session
 * whose tty cannot be measured gets m->pm_idle (the input devices' idle
 * time, to be set before); measured ttys lower m->pm_idle, which then
 * covers every input channel.  -1 (E2BIG) with m unchanged if there are
 * more than PRED_MEAS_USERS_MAX distinct users.
 */
int	sensors_users(struct pred_meas *m, const struct sensors_session *s,
	    size_t n, const char *devdir, const struct timespec *now);

/* Local minute of the day (0..1439) of t. */
int	sensors_tod(time_t t, int *minutes);

/*
 * An input device (/dev/input/eventN, or any file or FIFO that yields
 * struct input_event records).  Keys, buttons, motion, switches and
 * scan codes count as input; sync and LED events do not.  Times are
 * monotonic seconds given by the caller.  Until the first event the
 * device counts as used at open time.
 */
struct sensors_input {
	int		inp_fd;
	int		inp_eof;	/* end of file: a FIFO without writer
					   (a device never has one) */
	double		inp_last;	/* time of the last input event */
	uint64_t	inp_events;	/* input events seen */
	size_t		inp_have;	/* bytes of a partial record */
	unsigned char	inp_part[SENSORS_INPUT_REC_MAX];
};

/* Opens path O_RDONLY|O_NONBLOCK; returns the fd to poll, or -1. */
int	sensors_input_open(struct sensors_input *, const char *path,
	    double now);
/*
 * Consumes what is readable without blocking (a bounded amount per
 * call), keeping a partial record for the next call (dropped at end of
 * file).  Returns the number of input events seen, or -1 with errno
 * (ENODEV: the device was unplugged).
 */
int	sensors_input_read(struct sensors_input *, double now);
/* Seconds since the last input event (at least 0). */
double	sensors_input_idle(const struct sensors_input *, double now);
void	sensors_input_close(struct sensors_input *);

/*
 * logind's idle hint, for where no input device can be read (a node
 * manager that is not root, a graphical session): IdleHint and
 * IdleSinceHintMonotonic of org.freedesktop.login1.Manager over D-Bus
 * (sd-bus).  Each call is bounded by SENSORS_LOGIND_TIMEOUT_US.
 */
#define SENSORS_LOGIND_TIMEOUT_US	200000

struct sensors_logind {
	void	*sl_bus;	/* sd_bus *, NULL until opened */
	double	 sl_session;	/* CLOCK_MONOTONIC seconds a session was
				   last known to exist; the caller's
				   start (or a wtmp record) at first */
};

/*
 * address: a D-Bus address, or NULL for the system bus.  0 or -1.
 * sl_session is the caller's and stays as it is.
 */
int	sensors_logind_open(struct sensors_logind *, const char *address);
/*
 * Seconds since the session manager last saw its users active, into
 * *idle (0 while they are active): 0, or -1 with errno when logind
 * does not answer.  With no session at all (logind answers an idle
 * hint since 0) the idle time counts from sl_session, the last moment
 * a session was seen, never from boot: a node is not lent at once
 * after its owner logs out.
 */
int	sensors_logind_idle(struct sensors_logind *, double *idle);
void	sensors_logind_close(struct sensors_logind *);

#endif
