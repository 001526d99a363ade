/*
 * dctx — the start and end every daemon shares, in MUNGE's order:
 * options and config, keys, the event loop and signals, the endpoint,
 * -n (check and exit), detach with a reporting pipe, pid file; then the
 * loop; then teardown in reverse.  A daemon's main fills in its handler
 * table and name and calls dctx_start, dctx_run, dctx_stop.
 */
#ifndef CILKNOW_DCTX_H
#define CILKNOW_DCTX_H

#include "conf.h"
#include "daemon.h"
#include "evloop.h"
#include "msg.h"
#include "priv.h"

struct dctx_spec;
struct dctx;

/*
 * ds_privsep: a privileged parent with work of its own beyond reloading
 * keys (the node manager's: launch pads, cgroups, input devices).  Each
 * hook is optional and runs in the parent.
 */
struct dctx_parent {
	/*
	 * The parent keeps its keys and configuration (it verifies what
	 * users signed) and a SIGHUP replaces them in both processes.
	 */
	int	 dp_keep_keys;
	/* Right after the split, the child's channel queued (dc_chan). */
	void	(*dp_start)(struct dctx *);
	/* A message of the daemon's own type; -1 ends the child. */
	int	(*dp_msg)(struct dctx *, uint16_t type, const uint8_t *,
		    size_t);
	/*
	 * What the child sent just before it ended (priv.h, pp_last):
	 * its stops are done; NULL: nothing is.
	 */
	int	(*dp_last)(struct dctx *, uint16_t type, const uint8_t *,
		    size_t);
	/* SIGCHLD: the daemon's own children (priv.h, pp_children). */
	void	(*dp_children)(struct dctx *);
	/* Just before the parent exits, with the child's status. */
	void	(*dp_exit)(struct dctx *);
};

struct dctx {
	const char		*dc_prog;
	const struct dctx_spec	*dc_spec;
	struct daemon_args	 dc_args;
	struct conf		*dc_conf;
	struct conf		*dc_started;	/* dc_conf at start, once
						   a reload replaced it */
	struct evloop		*dc_loop;
	struct msg_keyring	*dc_keys;
	struct msg_ep		*dc_ep;
	char			 dc_pidfile[1024];
	char			 dc_listen[64];	/* the address bound */
	int			 dc_reload;	/* SIGHUP seen */
	void			(*dc_on_stop)(struct dctx *);
	void			(*dc_on_reload)(struct dctx *);
	void			*dc_arg;
	uint64_t		 dc_watchdog_usec; /* 0: no watchdog */
	/* ds_privsep: */
	struct priv_user	 dc_user;	/* service_user, when root */
	int			 dc_drop;	/* root: become dc_user */
	/* ds_prepare may set it: what the child sees, when it drops. */
	const struct priv_view	*dc_view;
	int			 dc_privsep;	/* we are the child */
	/*
	 * An engine of our own forking logs reloads and shutdowns (we
	 * pass them on): ours go to the debug level, so that each is
	 * said once.
	 */
	int			 dc_engine_speaks;
	/* ds_privsep: the child's to the parent, the parent's to it */
	struct priv_chan	 dc_chan;
};

struct dctx_spec {
	const char			*ds_prog;
	unsigned			 ds_keys;	/* MSG_KR_* flags */
	const char			*ds_principal;	/* cluster name */
	const char			*ds_default_listen; /* NULL: broker */
	/*
	 * With listen empty: bind the address of ours the broker sees
	 * (where the route to it leaves), port ds_default_port, rather
	 * than ds_default_listen, which stays the fallback.
	 */
	int				 ds_listen_toward_broker;
	uint16_t			 ds_default_port;
	const struct msg_handler	*ds_table;
	size_t				 ds_ntable;
	int				 ds_no_pidfile; /* many may run */
	/*
	 * A user's submission (the job manager in CilkRun's foreground):
	 * its address only under -v, so that the first line the user
	 * sees is news about the job, or why it could not be submitted.
	 */
	int				 ds_quiet_listen;
	/* Extra checks for -n and startup; 0 or -1 with a message. */
	int				(*ds_check)(struct dctx *, char *,
					    size_t);
	/*
	 * The keys this daemon reads only at start, NULL-terminated,
	 * beyond those every daemon does (listen, replay_window,
	 * run_dir): a SIGHUP that changes one logs a warning that it
	 * needs a restart (cilknow.conf(5), RELOAD).
	 */
	const char *const		*ds_restart;
	/*
	 * Privilege separation (priv.h).  Started as root, the daemon
	 * looks up service_user (fail closed), binds, writes its pid
	 * file, and splits: a privileged parent that keeps the pid file
	 * and reads the keys again on SIGHUP, and a child that drops to
	 * service_user and does everything else, ds_check included (-n
	 * too runs ds_check after the drop).  Not started as root, the
	 * same split without the drop.  The parent is MAINPID and the
	 * only one to notify systemd.  The main must have called
	 * setproctitle_init(): the child calls itself "engine".
	 */
	int				 ds_privsep;
	/*
	 * ds_privsep: just before the split, as root if started so: make
	 * what the child must write after the drop; pu is whom it will
	 * become, NULL when not root.  0, or -1 with a message.
	 */
	int				(*ds_prepare)(struct dctx *,
					    const struct priv_user *pu,
					    char *, size_t);
	const struct dctx_parent	*ds_parent;	/* NULL: keys only */
	/*
	 * ds_privsep: -n runs ds_check before the drop, as root: what it
	 * reads is root's until ds_prepare gives it to the service user
	 * (the node manager's engine folder).
	 */
	int				 ds_check_as_root;
	/*
	 * ds_privsep, in the child: a message of the daemon's own type
	 * (PRIV_M_MAX and up) from the parent; -1 if it is malformed
	 * (the child logs it and goes on).
	 */
	int				(*ds_chan_msg)(struct dctx *,
					    uint16_t type, const uint8_t *,
					    size_t);
};

/*
 * Everything up to and including binding, -n handling and detaching.
 * Exits with status 1 (after reporting) on any error, 0 after -n.
 */
void	dctx_start(struct dctx *, const struct dctx_spec *,
	    struct daemon_args *, void *arg);
/* Startup done: release the waiting parent, tell systemd (or ours). */
void	dctx_ready(struct dctx *);
/*
 * The loop until SIGTERM or SIGINT.  SIGHUP re-reads the configuration
 * and the keys (keeping the old ones, with an error logged, if either
 * is broken or a key file unsafe; warning of each changed key that
 * needs a restart), then calls dc_on_reload; with ds_privsep the
 * parent reads them and the child takes them from its message.
 */
int	dctx_run(struct dctx *);
void	dctx_stop(struct dctx *);

/*
 * A privileged parent's configuration and key files (priv_keys_enc's
 * payload) in place of ours, as SIGHUP would; -1 (logged) keeps ours.
 */
int	dctx_reload_from(struct dctx *, const uint8_t *payload, size_t len);

/*
 * dview.c: a ds_prepare that makes its engine's view (priv.h) starts
 * with what every engine needs (dview.c says what), adds its own
 * folders, and sets dc_view.  0; 1 when no view can be made because
 * the service manager took the capabilities it needs (logged: its own
 * sandbox confines us); -1 with err.
 */
int	dctx_view_init(struct dctx *, struct priv_view *, char *err,
	    size_t errlen);
int	dctx_view_add(struct priv_view *, const char *path, unsigned flags,
	    char *err, size_t errlen);

/* Duration key in seconds, or def if unset or bad. */
double	dctx_seconds(const struct dctx *, const char *key, double def);

#endif
