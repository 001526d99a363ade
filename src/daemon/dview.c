/*
 * dview — what every privilege-separated daemon's engine sees of the
 * file system when it starts as root (priv_view_enter, before the
 * drop): a tmpfs mounted on RUN_DIR/engine.view, into which only these
 * are bound, read-only, beside what the daemon adds itself: the users'
 * public keys (read again on SIGHUP) and /dev/log (syslog(3), without
 * -f); where user_auth allows munge or munged runs, /run and
 * munge_socket's folder for munged's socket.  Not /etc: the users'
 * names come from the parent (priv_names.c).  Not /proc: what the
 * engines would ask of it the parent answers (the node manager's PIDQ).
 */
#include <sys/prctl.h>

#include <errno.h>
#include <libgen.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>

#include "dctx.h"
#include "log.h"
#include "msg_munge.h"

int
dctx_view_add(struct priv_view *v, const char *path, unsigned flags,
    char *err, size_t errlen)
{
	if (priv_view_add(v, path, flags) == 0)
		return 0;
	snprintf(err, errlen, "the engine's view: %s: %s", path,
	    strerror(errno));
	return -1;
}

int
dctx_view_init(struct dctx *dc, struct priv_view *v, char *err,
    size_t errlen)
{
	char path[PATH_MAX];

	memset(v, 0, sizeof(*v));
	/*
	 * A service manager that took these from us (the broker's systemd
	 * unit) confines the engine with a sandbox of its own.
	 */
	if (prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 1 ||
	    prctl(PR_CAPBSET_READ, CAP_SYS_CHROOT, 0, 0, 0) != 1) {
		log_info("the engine's own view of the files is not made: "
		    "CAP_SYS_ADMIN and CAP_SYS_CHROOT are not ours (the "
		    "service manager's sandbox confines it)");
		return 1;
	}
	if (conf_get_path(dc->dc_conf, "run_dir", path, sizeof(path)) == -1 ||
	    (size_t)snprintf(v->pv_root, sizeof(v->pv_root), "%s/engine.view",
	    path) >= sizeof(v->pv_root)) {
		snprintf(err, errlen, "run_dir: bad path");
		return -1;
	}
#ifdef __SANITIZE_ADDRESS__
	/* A test build's leak check at exit reads /proc/self. */
	if (dctx_view_add(v, "/proc", 0, err, errlen) == -1)
		return -1;
#endif
	if (dctx_view_add(v, "/dev/log", PRIV_VIEW_OPTIONAL, err,
	    errlen) == -1)
		return -1;
	if (conf_get_path(dc->dc_conf, "user_keys", path, sizeof(path)) == -1 ||
	    dctx_view_add(v, path, PRIV_VIEW_OPTIONAL, err, errlen) == -1)
		return -1;
	/*
	 * munged's socket, where munge is allowed or munged runs (so that
	 * a reload can allow it): /run whole, not munged's folder, which
	 * systemd makes anew each time munged starts (RuntimeDirectory);
	 * a folder bound here would stay the old one.  Its mounts are not
	 * bound (users' runtime folders); the launch pads' sockets in it
	 * are root's.
	 */
	if (conf_get_path(dc->dc_conf, "munge_socket", path,
	    sizeof(path)) == -1) {
		snprintf(err, errlen, "munge_socket: bad path");
		return -1;
	}
	if (strstr(conf_get(dc->dc_conf, "user_auth"), "munge") == NULL &&
	    !msg_munge_reachable(path))
		return 0;
	if (dctx_view_add(v, "/run", PRIV_VIEW_OPTIONAL, err, errlen) == -1 ||
	    dctx_view_add(v, dirname(path), PRIV_VIEW_OPTIONAL, err,
	    errlen) == -1)
		return -1;
	return 0;
}
