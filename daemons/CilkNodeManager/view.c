/*
 * CilkNodeManager: what the engine sees of the file system when the
 * node manager starts as root (priv_view_enter, before the drop).  The
 * engine reads the network, so it sees only what it uses: its own
 * folder (written), the workers' folders (their output, read), the
 * users' public keys, the munge socket, and what the C library and its
 * remaining checks read: /etc (users' names and ids), /proc (a backed
 * up root's process), the log sockets and those of the name services.
 * Not the users' homes, /tmp, /usr, /var, /dev, the devices or the
 * sensors: those are the parent's (measure.c, input.c).
 */
#include <sys/stat.h>

#include <errno.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "node.h"

static const char *const services[] = {
	"/dev/log",			/* syslog(3), without -f */
	"/run/systemd/journal",		/* where /dev/log points */
	"/run/nscd",			/* name services: nscd */
	"/run/systemd/userdb",		/* systemd's users */
	"/var/lib/sss/pipes",		/* sssd */
	"/run/nslcd",			/* nslcd (LDAP) */
};

static int
add(struct node *n, const char *path, unsigned flags, char *err,
    size_t errlen)
{
	if (priv_view_add(&n->n_view, path, flags) == 0)
		return 0;
	snprintf(err, errlen, "the engine's view: %s: %s", path,
	    strerror(errno));
	return -1;
}

int
node_view(struct node *n, char *err, size_t errlen)
{
	char path[PATH_MAX + 16], sock[PATH_MAX];
	size_t i;

	memset(&n->n_view, 0, sizeof(n->n_view));
	if ((size_t)snprintf(n->n_view.pv_root, sizeof(n->n_view.pv_root),
	    "%s/engine.view", n->n_run_dir) >= sizeof(n->n_view.pv_root)) {
		snprintf(err, errlen, "run_dir: path too long");
		return -1;
	}
	/* The launch pads make it too, as root and the same way. */
	snprintf(path, sizeof(path), "%s/workers", n->n_state_dir);
	if (mkdir(path, 0711) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (add(n, n->n_engine_dir, PRIV_VIEW_RW, err, errlen) == -1 ||
	    add(n, path, 0, err, errlen) == -1 ||
	    add(n, "/etc", 0, err, errlen) == -1 ||
	    add(n, "/proc", 0, err, errlen) == -1)
		return -1;
	if (conf_get_path(n->n_dc.dc_conf, "user_keys", path,
	    sizeof(path)) == -1 ||
	    add(n, path, PRIV_VIEW_OPTIONAL, err, errlen) == -1)
		return -1;
	if (conf_get_path(n->n_dc.dc_conf, "munge_socket", sock,
	    sizeof(sock)) == -1 ||
	    add(n, dirname(sock), PRIV_VIEW_OPTIONAL, err, errlen) == -1)
		return -1;
	for (i = 0; i < sizeof(services) / sizeof(services[0]); i++)
		if (add(n, services[i], PRIV_VIEW_OPTIONAL, err, errlen) == -1)
			return -1;
	/* The name services' modules, loaded before /usr is out of sight. */
	(void)getpwnam("root");
	n->n_dc.dc_view = &n->n_view;
	return 0;
}
