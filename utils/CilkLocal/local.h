/*
 * CilkLocal's parts: the cluster folder and its files (files.c),
 * processes and how they are told apart from everyone else's (procs.c),
 * pinging the daemons (ping.c), and the three commands.
 *
 * DIR/pids lists the daemons, one a line: "broker PID ADDR:PORT" or
 * "node PID ADDR:PORT".  Every daemon gets CILKNOW_LOCAL=DIR in its
 * environment and DIR in its command line, which is how stop and status
 * recognise our processes: a pid that is not ours is never signalled.
 */
#ifndef CILKLOCAL_H
#define CILKLOCAL_H

#include <sys/types.h>

#include <limits.h>
#include <stdint.h>

#include "cli.h"
#include "msg_codec.h"

#define LOCAL_NODES_MAX		200	/* 127.0.0.2 ... 127.0.0.201 */
#define LOCAL_SLOTS_MAX		256	/* slots (NC_SLOTS_MAX) */
#define LOCAL_PORT_DEFAULT	7410
#define LOCAL_START_WAIT	10.0	/* s for the daemons to answer */
#define LOCAL_STOP_WAIT		10.0	/* s from SIGTERM to SIGKILL */
#define LOCAL_STATUS_WAIT	1.0	/* s for status pings */
#define LOCAL_ENV		"CILKNOW_LOCAL"
#define LOCAL_OPTS_MAX		CLI_OVERRIDES_MAX

enum local_role {
	LOCAL_ROLE_UNDEF = 0,
	LOCAL_ROLE_BROKER,
	LOCAL_ROLE_NODE,
	LOCAL_ROLE_MAX
};

/* A daemon of the cluster, as started or as read from DIR/pids. */
struct local_daemon {
	enum local_role	 ld_role;
	pid_t		 ld_pid;
	char		 ld_addr[64];	/* "127.0.0.2:7411" */
	char		 ld_host[48];	/* "127.0.0.2", its folder */
	struct msg_addr	 ld_maddr;
	int		 ld_alive;	/* running, and ours */
	int		 ld_exited;	/* start: our child exited */
	int		 ld_status;	/* its wait status */
	int		 ld_answers;	/* answered a ping */
	double		 ld_rtt;	/* seconds */
};

struct local {
	char			 lo_dir[PATH_MAX];	/* absolute */
	int			 lo_nodes;		/* -n */
	int			 lo_slots;		/* -s */
	uint16_t		 lo_port;		/* -p */
	const char		*lo_opts[LOCAL_OPTS_MAX];	/* -o */
	int			 lo_nopts;
	int			 lo_json;
	int			 lo_verbose;
	int			 lo_munge;		/* --auth munge */
	struct local_daemon	*lo_d;
	size_t			 lo_nd;
};

/* main.c */
int	local_start(struct local *);
int	local_stop(struct local *);
int	local_status(struct local *);

/* files.c */
int	local_path(const struct local *, char *buf, size_t bufsz,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char *local_role_name(enum local_role);
int	local_pids_read(struct local *);	/* -1: none, or unreadable */
int	local_pids_write(const struct local *);
int	local_pids_remove(const struct local *);
int	local_mkdirs(const char *path, mode_t);
int	local_write_file(const char *path, const char *text, mode_t);
int	local_keys(const struct local *, const char *user);
int	local_conf_write(const struct local *, const char *user);
int	local_node_dirs(const struct local *, const char *host);
void	local_log_tail(const char *path, int lines);
void	local_daemon_set(struct local_daemon *, enum local_role, pid_t,
	    const char *host, uint16_t port);

/* procs.c */
int	local_proc_ours(const struct local *, pid_t, int depth);
int	local_proc_alive(pid_t);
int	local_proc_started_before(pid_t, const char *path);
pid_t	local_spawn(const struct local *, const char *bin,
	    char *const argv[], const char *logpath);
int	local_stop_all(struct local *, int quiet);

/* munge.c */
int	local_munge_start(const struct local *);
void	local_munge_stop(const struct local *);

/* ping.c */
int	local_ping(struct local *, double limit,
	    int (*tick)(struct local *, void *), void *arg);

#endif
