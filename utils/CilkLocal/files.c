/* CilkLocal: the cluster folder, its keys, config, node folders, pids. */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "local.h"
#include "msg_keys.h"

static const char *const role_names[LOCAL_ROLE_MAX] = {
	[LOCAL_ROLE_UNDEF] = "?",
	[LOCAL_ROLE_BROKER] = "broker",
	[LOCAL_ROLE_NODE] = "node",
};

const char *
local_role_name(enum local_role r)
{
	return r < LOCAL_ROLE_MAX ? role_names[r] : "?";
}

/* DIR/ followed by the formatted rest; -1 (and a warning) if too long. */
int
local_path(const struct local *lo, char *buf, size_t bufsz,
    const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, bufsz, "%s/", lo->lo_dir);
	if (n < 0 || (size_t)n >= bufsz)
		goto toolong;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, bufsz - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= bufsz - (size_t)n)
		goto toolong;
	return 0;
 toolong:
	warnx("%s: path too long", lo->lo_dir);
	return -1;
}

void
local_daemon_set(struct local_daemon *d, enum local_role role, pid_t pid,
    const char *host, uint16_t port)
{
	memset(d, 0, sizeof(*d));
	d->ld_role = role;
	d->ld_pid = pid;
	strlcpy(d->ld_host, host, sizeof(d->ld_host));
	snprintf(d->ld_addr, sizeof(d->ld_addr), "%s:%u", host, port);
	(void)msg_addr_parse(&d->ld_maddr, d->ld_addr, port);
}

/* Splits "ADDR:PORT" (IPv4 as CilkLocal writes it). */
static int
split_addr(const char *addr, char *host, size_t hostsz, uint16_t *port)
{
	const char *colon = strrchr(addr, ':'), *errstr;

	if (colon == NULL || (size_t)(colon - addr) >= hostsz ||
	    colon == addr)
		return -1;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	*port = (uint16_t)strtonum(colon + 1, 1, 65535, &errstr);
	return errstr == NULL ? 0 : -1;
}

int
local_pids_read(struct local *lo)
{
	char path[PATH_MAX], line[256], role[16], addr[80], host[48];
	struct local_daemon *d;
	unsigned long lineno = 0;
	const char *errstr;
	long long pid;
	uint16_t port;
	FILE *fp;
	char pidtext[32];

	free(lo->lo_d);
	lo->lo_d = NULL;
	lo->lo_nd = 0;
	if (local_path(lo, path, sizeof(path), "pids") == -1)
		return -1;
	if ((fp = fopen(path, "r")) == NULL) {
		if (errno != ENOENT)
			warn("%s", path);
		return -1;
	}
	if ((lo->lo_d = calloc(LOCAL_NODES_MAX + 1, sizeof(*d))) == NULL)
		err(CLI_EXIT_FAILURE, "calloc");
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (lo->lo_nd == LOCAL_NODES_MAX + 1 ||
		    sscanf(line, "%15s %31s %79s", role, pidtext, addr) != 3 ||
		    split_addr(addr, host, sizeof(host), &port) == -1) {
			warnx("%s:%lu: malformed line, skipped", path, lineno);
			continue;
		}
		pid = strtonum(pidtext, 2, INT_MAX, &errstr);
		if (errstr != NULL) {
			warnx("%s:%lu: pid %s, skipped", path, lineno, errstr);
			continue;
		}
		d = &lo->lo_d[lo->lo_nd++];
		if (strcmp(role, "broker") == 0)
			local_daemon_set(d, LOCAL_ROLE_BROKER, (pid_t)pid, host,
			    port);
		else if (strcmp(role, "node") == 0)
			local_daemon_set(d, LOCAL_ROLE_NODE, (pid_t)pid, host,
			    port);
		else {
			lo->lo_nd--;
			warnx("%s:%lu: unknown role %s, skipped", path, lineno,
			    role);
		}
	}
	fclose(fp);
	return 0;
}

/* Written whole to a temporary file and renamed: never half a list. */
int
local_pids_write(const struct local *lo)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	size_t i;
	FILE *fp;
	int fd;

	if (local_path(lo, path, sizeof(path), "pids") == -1 ||
	    local_path(lo, tmp, sizeof(tmp), "pids.tmp") == -1)
		return -1;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0644)) == -1 || (fp = fdopen(fd, "w")) == NULL) {
		warn("%s", tmp);
		if (fd != -1)
			close(fd);
		return -1;
	}
	for (i = 0; i < lo->lo_nd; i++)
		if (lo->lo_d[i].ld_pid > 0)
			fprintf(fp, "%s %ld %s\n",
			    local_role_name(lo->lo_d[i].ld_role),
			    (long)lo->lo_d[i].ld_pid, lo->lo_d[i].ld_addr);
	if (fflush(fp) == EOF || fsync(fileno(fp)) == -1) {
		warn("%s", tmp);
		fclose(fp);
		unlink(tmp);
		return -1;
	}
	fclose(fp);
	if (rename(tmp, path) == -1) {
		warn("rename %s", tmp);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int
local_pids_remove(const struct local *lo)
{
	char path[PATH_MAX];

	if (local_path(lo, path, sizeof(path), "pids") == -1)
		return -1;
	if (unlink(path) == -1 && errno != ENOENT) {
		warn("%s", path);
		return -1;
	}
	return 0;
}

/* mkdir -p: every missing folder of path, with mode. */
int
local_mkdirs(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *p, c;
	struct stat st;

	if (strlcpy(buf, path, sizeof(buf)) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(buf, mode) == -1 && errno != EEXIST)
			return -1;
		*p = c;
		if (c == '\0')
			break;
	}
	if (stat(path, &st) == -1)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* Replaces path with text (through a temporary file), mode exactly. */
int
local_write_file(const char *path, const char *text, mode_t mode)
{
	char tmp[PATH_MAX];
	size_t len = strlen(text);
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >=
	    sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, mode)) == -1)
		return -1;
	if (fchmod(fd, mode) == -1 || write(fd, text, len) != (ssize_t)len ||
	    fsync(fd) == -1) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd) == -1 || rename(tmp, path) == -1) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * A secret key file: reused when it is there and good (a restarted
 * cluster keeps its keys), generated when it is missing.
 */
static int
secret_key(const char *path, enum msg_key_type type, const char *name,
    struct msg_keyset *ks)
{
	char why[512];

	memset(ks, 0, sizeof(*ks));
	if (msg_keyset_load(ks, path, type, why, sizeof(why)) == 0) {
		if (type == MSG_KEY_USER &&
		    strcmp(ks->ks_key[0].k_name, name) != 0) {
			warnx("%s is %s's key, not %s's: use another folder",
			    path, ks->ks_key[0].k_name, name);
			msg_keyset_clear(ks);
			return -1;
		}
		return 0;
	}
	if (errno != ENOENT) {
		warnx("%s", why);
		return -1;
	}
	if (msg_key_generate(&ks->ks_key[0], type, name) == -1) {
		warn("generate a key");
		return -1;
	}
	ks->ks_n = 1;
	if (msg_keyset_save(ks, path, 0, why, sizeof(why)) == -1) {
		warnx("%s", why);
		msg_keyset_clear(ks);
		return -1;
	}
	return 0;
}

static int
public_key(const struct msg_keyset *ks, const char *path)
{
	struct msg_keyset pub;
	char why[512];
	int i;

	memset(&pub, 0, sizeof(pub));
	for (i = 0; i < ks->ks_n; i++)
		msg_key_public(&ks->ks_key[i], &pub.ks_key[i]);
	pub.ks_n = ks->ks_n;
	if (msg_keyset_save(&pub, path, 1, why, sizeof(why)) == -1) {
		warnx("%s", why);
		return -1;
	}
	return 0;
}

/* DIR/cluster.key and .pub, DIR/user.id and DIR/users/USER.pub. */
int
local_keys(const struct local *lo, const char *user)
{
	struct msg_keyset ks;
	char path[PATH_MAX];
	int rc = -1;

	if (local_path(lo, path, sizeof(path), "cluster.key") == -1 ||
	    secret_key(path, MSG_KEY_CLUSTER, NULL, &ks) == -1)
		return -1;
	if (local_path(lo, path, sizeof(path), "cluster.pub") == 0 &&
	    public_key(&ks, path) == 0)
		rc = 0;
	msg_keyset_clear(&ks);
	if (rc == -1)
		return -1;
	if (local_path(lo, path, sizeof(path), "users") == -1)
		return -1;
	if (mkdir(path, 0755) == -1 && errno != EEXIST) {
		warn("mkdir %s", path);
		return -1;
	}
	if (local_path(lo, path, sizeof(path), "user.id") == -1 ||
	    secret_key(path, MSG_KEY_USER, user, &ks) == -1)
		return -1;
	rc = -1;
	if (local_path(lo, path, sizeof(path), "users/%s.pub", user) == 0 &&
	    public_key(&ks, path) == 0)
		rc = 0;
	msg_keyset_clear(&ks);
	return rc;
}

/* The keys CilkLocal sets itself, in the order it writes them. */
static const char *const managed_keys[] = {
	"broker", "cluster_key", "cluster_pub", "user_key", "user_keys",
	"state_dir", "run_dir",
};

/*
 * DIR/cilknow.conf, mode 0644, then read back: a folder name the config
 * syntax cannot carry ("#" after a blank, say) is caught here, not by
 * a daemon that reads something else.
 */
int
local_conf_write(const struct local *lo, const char *user)
{
	struct conf *want, *got;
	char path[PATH_MAX], val[PATH_MAX + 64], why[256], *text = NULL;
	const char *key;
	size_t len = 0, i;
	FILE *fp;
	int k, rc = -1;

	if ((want = conf_new()) == NULL || (got = conf_new()) == NULL ||
	    (fp = open_memstream(&text, &len)) == NULL)
		err(CLI_EXIT_FAILURE, "out of memory");
	fprintf(fp, "# Written by CilkLocal start: a cilknow cluster on this "
	    "machine.\n# Changed by the next start; see CilkLocal(1).\n");
	for (i = 0; i < sizeof(managed_keys) / sizeof(managed_keys[0]);
	    i++) {
		key = managed_keys[i];
		if (strcmp(key, "broker") == 0)
			snprintf(val, sizeof(val), "127.0.0.1:%u", lo->lo_port);
		else if (strcmp(key, "cluster_key") == 0)
			snprintf(val, sizeof(val), "%s/cluster.key",
			    lo->lo_dir);
		else if (strcmp(key, "cluster_pub") == 0)
			snprintf(val, sizeof(val), "%s/cluster.pub",
			    lo->lo_dir);
		else if (strcmp(key, "user_key") == 0)
			snprintf(val, sizeof(val), "%s/user.id", lo->lo_dir);
		else if (strcmp(key, "user_keys") == 0)
			snprintf(val, sizeof(val), "%s/users", lo->lo_dir);
		else if (strcmp(key, "state_dir") == 0)
			snprintf(val, sizeof(val), "%s/state", lo->lo_dir);
		else
			snprintf(val, sizeof(val), "%s/run", lo->lo_dir);
		if (conf_set(want, key, val, why, sizeof(why)) == -1) {
			warnx("%s = %s: %s", key, val, why);
			goto out;
		}
		fprintf(fp, "%s = %s\n", key, conf_get(want, key));
	}
	/*
	 * Each pretend workstation lends -s processors, however many this
	 * machine has: a test decides how many workers a node runs.
	 */
	snprintf(val, sizeof(val), "%d", lo->lo_slots > 0 ? lo->lo_slots : 1);
	if (conf_set(want, "slots", val, why, sizeof(why)) == -1) {
		warnx("slots = %s: %s", val, why);
		goto out;
	}
	fprintf(fp, "# each node a workstation of this many processors (-s)\n"
	    "slots = %s\n", val);
	/* Run by root, every job here is root's: let the nodes run it. */
	if (geteuid() == 0) {
		(void)conf_set(want, "allow_root_jobs", "yes", why,
		    sizeof(why));
		fprintf(fp, "# run by root, whose jobs are root's\n"
		    "allow_root_jobs = yes\n");
	} else {
		/* Whoever made the cluster administers it (CilkPred always). */
		snprintf(val, sizeof(val), "root, %s", user);
		if (conf_set(want, "admins", val, why, sizeof(why)) == -1) {
			warnx("admins = %s: %s", val, why);
			goto out;
		}
		fprintf(fp, "# made by %s, who administers it\n"
		    "admins = %s\n", user, conf_get(want, "admins"));
	}
	/* --auth munge: users speak through the private munged alone. */
	if (lo->lo_munge) {
		snprintf(val, sizeof(val), "%s/munge/socket", lo->lo_dir);
		if (conf_set(want, "munge_socket", val, why,
		    sizeof(why)) == -1) {
			warnx("munge_socket = %s: %s", val, why);
			goto out;
		}
		fprintf(fp, "# --auth munge: the cluster's own munged\n"
		    "user_auth = munge\nmunge_socket = %s\n",
		    conf_get(want, "munge_socket"));
	}
	if (lo->lo_nopts > 0)
		fprintf(fp, "# from -o\n");
	for (k = 0; k < lo->lo_nopts; k++) {
		/* Checked by main before anything was touched. */
		if (conf_override(want, lo->lo_opts[k], why,
		    sizeof(why)) == -1) {
			warnx("-o %s: %s", lo->lo_opts[k], why);
			goto out;
		}
		strlcpy(val, lo->lo_opts[k], sizeof(val));
		val[strcspn(val, "= \t")] = '\0';
		fprintf(fp, "%s = %s\n", val, conf_get(want, val));
	}
	if (fclose(fp) == EOF)
		err(CLI_EXIT_FAILURE, "out of memory");
	fp = NULL;
	if (local_path(lo, path, sizeof(path), "cilknow.conf") == -1)
		goto out;
	if (local_write_file(path, text, 0644) == -1) {
		warn("%s", path);
		goto out;
	}
	if (conf_load_file(got, path, 0, stderr) != 0) {
		warnx("%s: cannot be read back", path);
		goto out;
	}
	for (i = 0; i < sizeof(managed_keys) / sizeof(managed_keys[0]);
	    i++)
		if (strcmp(conf_get(want, managed_keys[i]),
		    conf_get(got, managed_keys[i])) != 0) {
			warnx("%s: %s reads back as '%s', not '%s' (is there "
			    "a '#' in the folder name?)", path,
			    managed_keys[i], conf_get(got, managed_keys[i]),
			    conf_get(want, managed_keys[i]));
			goto out;
		}
	for (k = 0; k < lo->lo_nopts; k++) {
		strlcpy(val, lo->lo_opts[k], sizeof(val));
		val[strcspn(val, "= \t")] = '\0';
		if (strcmp(conf_get(want, val), conf_get(got, val)) != 0) {
			warnx("%s: -o %s does not read back as given", path,
			    lo->lo_opts[k]);
			goto out;
		}
	}
	rc = 0;
 out:
	if (fp != NULL)
		fclose(fp);
	free(text);
	conf_free(want);
	conf_free(got);
	return rc;
}

/* DIR/nodes/HOST/{state,run} and a sensors file that says "idle". */
int
local_node_dirs(const struct local *lo, const char *host)
{
	char path[PATH_MAX];

	if (local_path(lo, path, sizeof(path), "nodes/%s/state", host) == -1)
		return -1;
	if (local_mkdirs(path, 0755) == -1) {
		warn("mkdir %s", path);
		return -1;
	}
	if (local_path(lo, path, sizeof(path), "nodes/%s/run", host) == -1)
		return -1;
	if (mkdir(path, 0755) == -1 && errno != EEXIST) {
		warn("mkdir %s", path);
		return -1;
	}
	if (local_path(lo, path, sizeof(path), "nodes/%s/sensors",
	    host) == -1)
		return -1;
	if (local_write_file(path, "idletime=1000000\nusers=0\nload=0,0,0\n",
	    0644) == -1) {
		warn("%s", path);
		return -1;
	}
	return 0;
}

/* The last lines of a daemon's log, to show why it died. */
void
local_log_tail(const char *path, int lines)
{
	char ring[8][256];
	char line[256];
	int n = 0, i, first;
	FILE *fp;

	if (lines > 8)
		lines = 8;
	if ((fp = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		strlcpy(ring[n % lines], line, sizeof(ring[0]));
		n++;
	}
	fclose(fp);
	first = n > lines ? n - lines : 0;
	for (i = first; i < n; i++)
		fprintf(stderr, "    | %s\n", ring[i % lines]);
}
