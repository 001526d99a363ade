/* dctx — the start and end every daemon shares. */
#include "dctx.h"

#include <sys/stat.h>
#include <arpa/inet.h>

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcheck.h"
#include "log.h"
#include "mono.h"
#include "msg_keyring.h"
#include "msg_munge.h"
#include "priv.h"
#include "sdnotify.h"

static void	notify_watchdog(struct evloop *, void *);
static void	apply(struct dctx *, struct conf *, struct msg_keyring *);

/*
 * Keys every daemon reads only at start (dctx_start): the address it
 * binds, its pid file's folder, the endpoint's replay window.  Each
 * daemon's own are in its ds_restart.
 */
static const char *const dctx_restart_keys[] = {
	"listen", "replay_window", "run_dir", NULL
};

static void __attribute__((noreturn))
startup_fail(struct dctx *dc, const char *fmt, ...)
{
	char msg[1024], full[1100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("%s", msg);
	snprintf(full, sizeof(full), "%s: %s", dc->dc_prog, msg);
	daemon_fail(full);
	exit(1);
}

/*
 * Keep-alive from the loop itself: a daemon whose loop hangs stops
 * pinging, and systemd restarts it after WatchdogSec.
 */
static void
notify_watchdog(struct evloop *loop, void *arg)
{
	struct dctx *dc = arg;

	/* The child's loop is the one to watch: the parent relays. */
	if (dc->dc_privsep) {
		if (priv_send_watchdog(&dc->dc_chan) == -1)
			log_warn("watchdog: to the privileged process");
	} else
		sdnotify_printf("WATCHDOG=1");
	(void)evloop_timer_add(loop, (double)dc->dc_watchdog_usec / 2e6,
	    notify_watchdog, arg);
}

/* A problem dcheck found: one log line each (stderr until detached). */
static void
check_report(enum dcheck_level level, const char *msg, void *arg)
{
	int *n = arg;

	(*n)++;
	if (level == DCHECK_UNSAFE)
		log_warnx("unsafe: %s", msg);
	else
		log_warning("%s", msg);
}

/*
 * cluster_pub must hold what we sign with: a job manager or utility
 * verifies "@cluster" with it.  0, or -1 with both files and key ids.
 */
static int
pub_mismatch(const struct dctx *dc, const struct conf *cf,
    const struct msg_keyring *kr, char *msg, size_t msglen)
{
	const char *key = conf_get(cf, "cluster_key");
	const char *pub = conf_get(cf, "cluster_pub");

	if (msg_keyring_pub_matches(kr))
		return 0;
	snprintf(msg, msglen, "%s: cluster_pub's current key is %08x, but "
	    "that of %s is %08x: users cannot verify what %s signs; "
	    "install the public file made with this key (CilkKey public "
	    "%s > %s)", pub, kr->kr_cluster_pub.ks_key[0].k_id, key,
	    kr->kr_cluster.ks_key[0].k_id, dc->dc_prog, key, pub);
	return -1;
}

/* CLOCK_MONOTONIC in microseconds, as systemd wants it with RELOADING=1. */
static uint64_t
mono_usec(void)
{
	return (uint64_t)(now_mono() * 1e6);
}

/*
 * The configuration, every error logged as a line of its own (at start
 * stderr, later the journal or syslog, where a bare stderr is lost).
 * NULL on any error.
 */
static struct conf *
conf_load_logged(struct dctx *dc, const char *what)
{
	struct conf *cf;
	char *msgs = NULL, *line, *next;
	size_t len = 0;
	FILE *errs;

	if ((errs = open_memstream(&msgs, &len)) == NULL) {
		log_warn("%sconfiguration: open_memstream", what);
		return NULL;
	}
	cf = cli_conf_load_to(&dc->dc_args.da_cc, NULL, errs);
	if (fclose(errs) == EOF) {
		log_warn("%sconfiguration: its errors", what);
		conf_free(cf);
		free(msgs);
		return NULL;
	}
	for (line = msgs; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		log_warnx("%s%s", what, line);
	}
	free(msgs);
	return cf;
}

/* Each key in keys (NULL-terminated) that cf changes: one warning. */
static void
restart_changes(const struct conf *was, const struct conf *cf,
    const char *const *keys)
{
	const char *a, *b;

	for (; keys != NULL && *keys != NULL; keys++) {
		a = conf_get(was, *keys);
		b = conf_get(cf, *keys);
		if (a != NULL && b != NULL && strcmp(a, b) != 0)
			log_warning("reload: %s changed from '%s' to '%s'; it "
			    "needs a restart to take effect", *keys, a, b);
	}
}

/*
 * SIGHUP's configuration, as the process that reads files sees it: it
 * must parse, and its key files pass the start's checks (unsafe ones
 * refuse it).  Keys read only at start are compared with the values we
 * started with, and each change is logged as needing a restart.  NULL,
 * logged, keeps the old configuration and keys.
 */
static struct conf *
reload_conf(struct dctx *dc)
{
	const struct conf *was = dc->dc_started != NULL ? dc->dc_started :
	    dc->dc_conf;
	struct conf *cf;
	int problems = 0;

	if ((cf = conf_load_logged(dc, "reload: ")) == NULL) {
		log_warnx("reload: the configuration has errors (above); "
		    "keeping the old keys and configuration");
		return NULL;
	}
	if (dcheck_files(cf, (dc->dc_spec->ds_keys & MSG_KR_CLUSTER) != 0,
	    check_report, &problems) == DCHECK_UNSAFE) {
		log_warnx("reload: unsafe key files (above); keeping the old "
		    "keys and configuration");
		conf_free(cf);
		return NULL;
	}
	restart_changes(was, cf, dctx_restart_keys);
	restart_changes(was, cf, dc->dc_spec->ds_restart);
	return cf;
}

/*
 * New keys take effect at once; the socket and listen address stay.
 * 0, or -1 (logged) with the old ones kept.
 */
static int
reload_keys(struct dctx *dc)
{
	struct msg_keyring *kr;
	struct conf *cf;
	char err[512];

	if ((cf = reload_conf(dc)) == NULL)
		return -1;
	if ((kr = calloc(1, sizeof(*kr))) == NULL ||
	    msg_keyring_load(kr, cf, dc->dc_spec->ds_keys,
	    dc->dc_spec->ds_principal, err, sizeof(err)) == -1) {
		log_warnx("reload: %s; keeping the old keys and configuration",
		    kr ? err : "out of memory");
		free(kr);
		conf_free(cf);
		return -1;
	}
	apply(dc, cf, kr);
	return 0;
}

/* The new configuration and keys, in place of the old. */
static void
apply(struct dctx *dc, struct conf *cf, struct msg_keyring *kr)
{
	char msg[1024];

	if (pub_mismatch(dc, cf, kr, msg, sizeof(msg)) == -1)
		log_warnx("reload: %s", msg);
	/* An engine's view holds munged's socket only if it did at start. */
	if ((kr->kr_user_auth & (1u << MSG_SCHEME_MUNGE)) != 0 &&
	    !msg_munge_reachable(kr->kr_munge_socket))
		log_warning("reload: user_auth allows munge, but munged's "
		    "socket %s is not in sight: start munged%s",
		    kr->kr_munge_socket,
		    dc->dc_view != NULL ? ", then restart this daemon (its "
		    "engine's view was made without it)" : "");
	msg_keyring_move(dc->dc_keys, kr);
	free(kr);
	/* The first one is what we started with: restart_changes' base. */
	if (dc->dc_started == NULL)
		dc->dc_started = dc->dc_conf;
	else
		conf_free(dc->dc_conf);
	dc->dc_conf = cf;
	if (dc->dc_engine_speaks)
		log_debug("reloaded the configuration and keys");
	else
		log_info("reloaded the configuration and keys");
	if (dc->dc_on_reload != NULL)
		dc->dc_on_reload(dc);
}

int
dctx_reload_from(struct dctx *dc, const uint8_t *payload, size_t len)
{
	struct msg_keyring *kr;
	struct conf *cf = NULL;
	char err[512];

	if ((kr = calloc(1, sizeof(*kr))) == NULL ||
	    priv_recv_keys(payload, len, dc->dc_spec->ds_keys,
	    dc->dc_spec->ds_principal, &cf, kr, err, sizeof(err)) == -1) {
		log_warnx("reload: %s; keeping the old keys and configuration",
		    kr ? err : "out of memory");
		free(kr);
		return -1;
	}
	apply(dc, cf, kr);
	return 0;
}

/* SIGHUP, with the service manager told while it lasts. */
static void
reload(struct dctx *dc)
{
	/* Root's keys are out of our reach: the parent reads them. */
	if (dc->dc_privsep) {
		log_warnx("SIGHUP: send it to the privileged process, pid "
		    "%ld, which reads the keys", (long)dc->dc_chan.pc_peer);
		return;
	}
	sdnotify_printf("RELOADING=1\nMONOTONIC_USEC=%" PRIu64, mono_usec());
	/* The status says what happened, as a privileged parent's does. */
	if (reload_keys(dc) == -1)
		sdnotify_printf("READY=1\nSTATUS=running; reload failed at "
		    "monotonic %.0f s", now_mono());
	else
		sdnotify_printf("READY=1\nSTATUS=running; last reload at "
		    "monotonic %.0f s", now_mono());
}

static void
on_signal(struct evloop *loop, int signo, void *arg)
{
	struct dctx *dc = arg;

	if (signo == SIGHUP) {
		reload(dc);
		return;
	}
	if (dc->dc_engine_speaks)
		log_debug("%s: shutting down", strsignal(signo));
	else
		log_info("%s: shutting down", strsignal(signo));
	sdnotify_printf("STOPPING=1");
	evloop_break(loop);
}

/* ---- ds_privsep: the parent's hooks (priv_fork) ---- */

static void
parent_forked(void *arg)
{
	struct dctx *dc = arg;
	const struct dctx_parent *dp = dc->dc_spec->ds_parent;

	/*
	 * Our copy of the detach pipe closes unsaid (an empty message):
	 * the child gives the verdict.  No network socket here, and no
	 * keys unless we check signatures with them.
	 */
	daemon_fail("");
	msg_ep_free(dc->dc_ep);
	dc->dc_ep = NULL;
	dc->dc_engine_speaks = 1;
	/* Not our loop's pings: the child's, passed on (PRIV_M_WATCHDOG). */
	dc->dc_watchdog_usec = 0;
	if (dp == NULL || !dp->dp_keep_keys)
		msg_keyring_clear(dc->dc_keys);
	if (dp != NULL && dp->dp_start != NULL)
		dp->dp_start(dc);
}

static int
parent_reload(struct priv_chan *pc, void *arg)
{
	struct dctx *dc = arg;
	const struct dctx_parent *dp = dc->dc_spec->ds_parent;
	struct msg_keyring *kr = NULL;
	struct conf *cf;
	char err[512];

	if ((cf = reload_conf(dc)) == NULL)
		return -1;
	/* Ours first: the child gets nothing we would refuse ourselves. */
	if (dp != NULL && dp->dp_keep_keys) {
		if ((kr = calloc(1, sizeof(*kr))) == NULL) {
			snprintf(err, sizeof(err), "out of memory");
			goto fail;
		}
		if (msg_keyring_load(kr, cf, dc->dc_spec->ds_keys,
		    dc->dc_spec->ds_principal, err, sizeof(err)) == -1)
			goto fail;
	}
	if (priv_send_keys(pc, cf, dc->dc_spec->ds_keys,
	    dc->dc_spec->ds_principal, err, sizeof(err)) == -1)
		goto fail;
	if (kr != NULL)
		apply(dc, cf, kr);	/* takes both */
	else
		conf_free(cf);		/* our dc_conf stays the first */
	return 0;
 fail:
	log_warnx("reload: %s; keeping the old keys and configuration", err);
	if (kr != NULL)
		msg_keyring_clear(kr);
	free(kr);
	conf_free(cf);
	return -1;
}

static int
parent_msg(struct priv_chan *pc, uint16_t type, const uint8_t *payload,
    size_t len, void *arg)
{
	struct dctx *dc = arg;
	const struct dctx_parent *dp = dc->dc_spec->ds_parent;

	(void)pc;
	if (dp == NULL || dp->dp_msg == NULL)
		return -1;
	return dp->dp_msg(dc, type, payload, len);
}

static int
parent_last(struct priv_chan *pc, uint16_t type, const uint8_t *payload,
    size_t len, void *arg)
{
	struct dctx *dc = arg;

	(void)pc;
	return dc->dc_spec->ds_parent->dp_last(dc, type, payload, len);
}

static void
parent_children(void *arg)
{
	struct dctx *dc = arg;
	const struct dctx_parent *dp = dc->dc_spec->ds_parent;

	if (dp != NULL && dp->dp_children != NULL)
		dp->dp_children(dc);
}

static void
parent_exit(void *arg)
{
	struct dctx *dc = arg;
	const struct dctx_parent *dp = dc->dc_spec->ds_parent;

	if (dp != NULL && dp->dp_exit != NULL)
		dp->dp_exit(dc);
	if (dc->dc_pidfile[0] != '\0')
		daemon_pidfile_remove(dc->dc_pidfile);
}

/* The child: a reload or the daemon's own news from the parent, or the
   parent gone. */
static void
on_chan(struct evloop *loop, int fd, short revents, void *arg)
{
	static uint8_t buf[PRIV_MSG_MAX];
	struct dctx *dc = arg;
	const uint8_t *payload;
	char status[64];
	uint16_t type;
	size_t len;
	int rc;

	(void)revents;
	rc = priv_recv(&dc->dc_chan, &type, buf, sizeof(buf), &payload, &len);
	if (rc == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (rc == 0) {
		log_warnx("the privileged process is gone; shutting down");
		evloop_del_fd(loop, fd);
		evloop_break(loop);
		return;
	}
	if (rc == 1 && type >= PRIV_M_MAX && dc->dc_spec->ds_chan_msg != NULL) {
		if (dc->dc_spec->ds_chan_msg(dc, type, payload, len) == -1)
			log_warnx("the privileged process sent a malformed "
			    "message (type %u, %zu bytes)", type, len);
		return;
	}
	if (rc == -1 || type != PRIV_M_RELOAD) {
		log_warnx("the privileged process sent a malformed message");
		goto out;
	}
	if (dctx_reload_from(dc, payload, len) == -1) {
		(void)priv_send_reloaded(&dc->dc_chan, 0, "running; the last "
		    "reload was refused");
		goto out;
	}
	snprintf(status, sizeof(status), "running; last reload at monotonic "
	    "%.0f s", now_mono());
	if (priv_send_reloaded(&dc->dc_chan, 1, status) == -1)
		log_warn("reload: to the privileged process");
 out:
	sodium_memzero(buf, sizeof(buf));	/* it held keys */
}

/* Root: whom we shall become (fail closed); else nobody to become. */
static void
privsep_user(struct dctx *dc)
{
	char err[512];

	if (geteuid() != 0)
		return;
	if (priv_lookup(&dc->dc_user, conf_get(dc->dc_conf, "service_user"),
	    err, sizeof(err)) == -1)
		startup_fail(dc, "%s", err);
	dc->dc_drop = 1;
}

/* Returns in the child only, unprivileged, its start-up done. */
static void
privsep(struct dctx *dc)
{
	const struct dctx_spec *sp = dc->dc_spec;
	const struct priv_user *pu = dc->dc_drop ? &dc->dc_user : NULL;
	struct priv_parent pp;
	char err[512];

	if (sp->ds_prepare != NULL && sp->ds_prepare(dc, pu, err,
	    sizeof(err)) == -1)
		startup_fail(dc, "%s", err);
	memset(&pp, 0, sizeof(pp));
	pp.pp_loop = dc->dc_loop;
	pp.pp_forked = parent_forked;
	pp.pp_reload = parent_reload;
	pp.pp_msg = parent_msg;
	pp.pp_children = parent_children;
	if (sp->ds_parent != NULL && sp->ds_parent->dp_last != NULL)
		pp.pp_last = parent_last;
	pp.pp_exit = parent_exit;
	pp.pp_arg = dc;
	pp.pp_view = dc->dc_drop ? dc->dc_view : NULL;
	if (priv_fork(&dc->dc_chan, pu, &pp, err, sizeof(err)) == -1)
		startup_fail(dc, "%s", err);
	/* priv_drop verified it; this is the belt to those braces. */
	if (pu != NULL && priv_have_any())
		startup_fail(dc, "root privileges left after the drop");
	setproctitle("engine");
	dc->dc_privsep = 1;
	dc->dc_pidfile[0] = '\0';	/* the parent's to remove */
	daemon_pidfile_forget();
	if (priv_chan_queue(&dc->dc_chan, dc->dc_loop) == -1 ||
	    evloop_add_fd(dc->dc_loop, dc->dc_chan.pc_fd, POLLIN, on_chan,
	    dc) == -1)
		startup_fail(dc, "event loop: %s", strerror(errno));
	if (pu != NULL)
		log_debug("running as %s (uid %lu), the privileged process is "
		    "pid %ld", pu->pu_name, (unsigned long)pu->pu_uid,
		    (long)dc->dc_chan.pc_peer);
	if (sp->ds_check != NULL && sp->ds_check(dc, err, sizeof(err)) == -1)
		startup_fail(dc, "%s", err);
}

double
dctx_seconds(const struct dctx *dc, const char *key, double def)
{
	double v;

	return conf_get_seconds(dc->dc_conf, key, &v) == 0 ? v : def;
}

/* run_dir/PROG.pid, the parent's with ds_privsep (root's folder). */
static void
pidfile(struct dctx *dc)
{
	char rundir[900];

	if (conf_get_path(dc->dc_conf, "run_dir", rundir,
	    sizeof(rundir)) == -1)
		startup_fail(dc, "run_dir: bad path");
	if (mkdir(rundir, 0755) == -1 && errno != EEXIST)
		startup_fail(dc, "mkdir %s: %s", rundir, strerror(errno));
	snprintf(dc->dc_pidfile, sizeof(dc->dc_pidfile), "%s/%s.pid", rundir,
	    dc->dc_prog);
	if (daemon_pidfile(dc->dc_pidfile) == -1)
		startup_fail(dc, "%s: %s", dc->dc_pidfile, errno == EEXIST ?
		    "another instance is running" : strerror(errno));
}

/*
 * A daemon told its address by name that resolves to loopback (Debian's
 * "127.0.1.1 HOSTNAME" line in /etc/hosts) listens where no other
 * machine reaches it, and nothing else would say so: the warning names
 * the address and the key to set.  A loopback address written as one
 * is meant (CilkLocal, tests).
 */
static void
loopback_warning(const char *key, const char *text,
    const struct msg_addr *a, char *buf, size_t bufsz)
{
	char addr[INET6_ADDRSTRLEN];

	if (!msg_addr_named(text) || !msg_addr_loopback(a) ||
	    inet_ntop(a->ma_family == 4 ? AF_INET : AF_INET6, a->ma_addr,
	    addr, sizeof(addr)) == NULL)
		return;
	snprintf(buf, bufsz, "warning: %s = %s: the name resolves to %s, a "
	    "loopback address, where no other machine can reach this daemon; "
	    "set listen = ADDRESS (cilknow.conf or -o), this machine's "
	    "address on the network, or make the name resolve to it", key,
	    text, addr);
}

/*
 * The address the broker sees us at: the source of the route to it,
 * which the kernel picks when a UDP socket is connected (nothing is
 * sent).  -1 if there is no route, or no broker to route to.
 */
static int
toward_broker(const struct conf *cf, uint16_t port, struct msg_addr *a)
{
	struct sockaddr_storage ss;
	struct msg_addr b, mine;
	socklen_t sl;
	int fd, rc = -1;

	if (msg_addr_parse(&b, conf_get(cf, "broker"), 7410) == -1 ||
	    (sl = msg_addr_to_sockaddr(&b, &ss)) == 0 ||
	    (fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&ss, sl) == 0 &&
	    (sl = sizeof(ss), getsockname(fd, (struct sockaddr *)&ss,
	    &sl)) == 0 && msg_addr_from_sockaddr(&mine, (struct sockaddr *)&ss,
	    sl) == 0) {
		mine.ma_port = port;
		*a = mine;
		rc = 0;
	}
	close(fd);
	return rc;
}

void
dctx_start(struct dctx *dc, const struct dctx_spec *sp,
    struct daemon_args *da, void *arg)
{
	struct msg_ep_opts eo;
	struct msg_addr addr;
	enum dcheck_level level;
	const char *listen, *key;
	char err[512], text[64], msg[1024], warning[512] = "";
	int problems = 0;

	memset(dc, 0, sizeof(*dc));
	dc->dc_prog = sp->ds_prog;
	dc->dc_spec = sp;
	dc->dc_args = *da;
	dc->dc_arg = arg;
	log_init(1, sp->ds_prog, da->da_cc.cc_verbose);
	log_timestamps(da->da_foreground && !da->da_check);
	/* Before anything is started that could inherit the socket. */
	if (sdnotify_init() == -1)
		log_warning("NOTIFY_SOCKET is unusable; not notifying");
	dc->dc_watchdog_usec = sdnotify_watchdog_usec();
	if (sodium_init() < 0)
		startup_fail(dc, "libsodium failed to initialise");
	if ((dc->dc_conf = conf_load_logged(dc, "")) == NULL)
		exit(1);
	/* Who could replace our keys: every problem, before the first error. */
	level = dcheck_files(dc->dc_conf, (sp->ds_keys & MSG_KR_CLUSTER) != 0,
	    check_report, &problems);
	if ((dc->dc_keys = calloc(1, sizeof(*dc->dc_keys))) == NULL)
		startup_fail(dc, "out of memory");
	if (msg_keyring_load(dc->dc_keys, dc->dc_conf, sp->ds_keys,
	    sp->ds_principal, err, sizeof(err)) == -1)
		startup_fail(dc, "%s", err);
	if (pub_mismatch(dc, dc->dc_conf, dc->dc_keys, msg,
	    sizeof(msg)) == -1)
		check_report(DCHECK_WARN, msg, &problems);
	listen = conf_get(dc->dc_conf, key = "listen");
	if (*listen == '\0' && sp->ds_default_listen != NULL)
		listen = sp->ds_default_listen;
	else if (*listen == '\0')
		listen = conf_get(dc->dc_conf, key = "broker");
	if (msg_addr_parse(&addr, listen, sp->ds_default_port) == -1)
		startup_fail(dc, "listen %s: bad or unknown address", listen);
	if (sp->ds_listen_toward_broker && listen == sp->ds_default_listen &&
	    toward_broker(dc->dc_conf, sp->ds_default_port, &addr) == -1)
		log_debug("no route to the broker: listening on %s", listen);
	loopback_warning(key, listen, &addr, warning, sizeof(warning));
	/* With ds_privsep the checks run after the drop. */
	if (sp->ds_privsep)
		privsep_user(dc);
	else if (sp->ds_check != NULL && sp->ds_check(dc, err,
	    sizeof(err)) == -1)
		startup_fail(dc, "%s", err);
	if (level == DCHECK_UNSAFE || (da->da_check && problems > 0))
		startup_fail(dc, "%d problem%s with the key files (above)",
		    problems, problems == 1 ? "" : "s");
	if (da->da_check) {
		if (sp->ds_privsep && sp->ds_check_as_root &&
		    sp->ds_check != NULL && sp->ds_check(dc, err,
		    sizeof(err)) == -1)
			startup_fail(dc, "%s", err);
		if (sp->ds_privsep && dc->dc_drop &&
		    priv_drop(&dc->dc_user, err, sizeof(err)) == -1)
			startup_fail(dc, "%s", err);
		if (sp->ds_privsep && !sp->ds_check_as_root &&
		    sp->ds_check != NULL && sp->ds_check(dc, err,
		    sizeof(err)) == -1)
			startup_fail(dc, "%s", err);
		if (warning[0] != '\0')
			log_warning("%s", warning);
		msg_addr_text(&addr, text, sizeof(text));
		printf("%s: configuration and keys OK (would listen on %s)\n",
		    sp->ds_prog, text);
		exit(0);
	}
	if (!da->da_foreground && daemon_detach(0) == -1)
		startup_fail(dc, "detach: %s", strerror(errno));
	log_init(da->da_foreground, sp->ds_prog, da->da_cc.cc_verbose);
	log_timestamps(da->da_foreground);
	if (warning[0] != '\0')
		log_warning("%s", warning);
	if ((dc->dc_loop = evloop_new()) == NULL ||
	    evloop_signal(dc->dc_loop, SIGTERM, on_signal, dc) == -1 ||
	    evloop_signal(dc->dc_loop, SIGINT, on_signal, dc) == -1 ||
	    evloop_signal(dc->dc_loop, SIGHUP, on_signal, dc) == -1)
		startup_fail(dc, "event loop: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	memset(&eo, 0, sizeof(eo));
	eo.eo_replay_window = dctx_seconds(dc, "replay_window", 30);
	/* Our nonce cache starts empty: nothing from before our start. */
	eo.eo_refuse_earlier = 1;
	if ((dc->dc_ep = msg_ep_new(dc->dc_loop, dc->dc_keys, sp->ds_table,
	    sp->ds_ntable, arg, &eo)) == NULL)
		startup_fail(dc, "endpoint: %s", strerror(errno));
	if (msg_ep_bind(dc->dc_ep, &addr) == -1)
		startup_fail(dc, "bind %s: %s", listen, strerror(errno));
	msg_addr_text(msg_ep_addr(dc->dc_ep), dc->dc_listen,
	    sizeof(dc->dc_listen));
	if (!sp->ds_no_pidfile)
		pidfile(dc);
	if (sp->ds_privsep)
		privsep(dc);
}

void
dctx_ready(struct dctx *dc)
{
	/* The address bound at start: a privileged parent has let go of it. */
	const char *text = dc->dc_listen;
	char status[96];

	if (dc->dc_spec->ds_quiet_listen)
		log_debug("listening on %s", text);
	else
		log_info("listening on %s", text);
	daemon_ready();
	/* MAINPID: a detached daemon is not the process systemd started. */
	if (!dc->dc_privsep)
		sdnotify_printf("READY=1\nMAINPID=%ld\nSTATUS=listening on %s",
		    (long)getpid(), text);
	else {
		/* The parent is MAINPID and tells systemd for us. */
		snprintf(status, sizeof(status), "listening on %s", text);
		if (priv_send_ready(&dc->dc_chan, status) == -1)
			log_warn("ready: to the privileged process");
	}
	if (dc->dc_watchdog_usec > 0)
		notify_watchdog(dc->dc_loop, dc);
}

int
dctx_run(struct dctx *dc)
{
	return evloop_run(dc->dc_loop);
}

void
dctx_stop(struct dctx *dc)
{
	if (dc->dc_on_stop != NULL)
		dc->dc_on_stop(dc);
	msg_ep_free(dc->dc_ep);
	evloop_free(dc->dc_loop);
	if (dc->dc_pidfile[0] != '\0')
		daemon_pidfile_remove(dc->dc_pidfile);
	if (dc->dc_keys != NULL) {
		msg_keyring_clear(dc->dc_keys);
		free(dc->dc_keys);
	}
	conf_free(dc->dc_conf);
	conf_free(dc->dc_started);
}
