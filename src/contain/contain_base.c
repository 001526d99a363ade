/*
 * contain_base — choosing the mechanism: where cgroup v2 is mounted,
 * which cgroup is ours and whether it was delegated to us, making the
 * base and enabling its controllers; and the parsers of settings.
 */
#include "contain_int.h"
#include "errbuf.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>

#include <linux/magic.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char	*c_name;
	unsigned	 c_bit;
} ctls[] = {
	{ "memory",	CONTAIN_CTL_MEMORY },
	{ "pids",	CONTAIN_CTL_PIDS },
	{ "cpu",	CONTAIN_CTL_CPU },
	{ "io",		CONTAIN_CTL_IO },
};
#define NCTLS	(sizeof(ctls) / sizeof(ctls[0]))

static int	tree(struct contain_base *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static int	unescape(const char *, size_t, char *, size_t);
static int	word_in(const char *, const char *);
static int	name_ok(const char *);
static int	pjoin(char *, size_t, const char *, const char *);
static int	cg_dir(const char *, const char *, const char *, char *,
		    size_t);
static int	dir_cg(const char *, const char *, const char *, char *,
		    size_t);
static int	own_cgroup(char *, size_t);
static int	delegated(const char *);
static int	mkdirs(const char *, const char *);
static int	writable(const char *);
static void	move_out(const char *, int);
static void	enable(const char *, unsigned);
static unsigned	enabled(const char *);
static int	setup(struct contain_base *, const char *, const char *,
		    const char *, const char *, int);
static int	base_auto(struct contain_base *, const char *, char *,
		    size_t);
static int	base_path(struct contain_base *, const char *, char *,
		    size_t);

/* Settles for the process tree and says why; a success. */
static int
tree(struct contain_base *cb, const char *fmt, ...)
{
	va_list ap;

	cb->cb_mech = CONTAIN_TREE;
	cb->cb_path[0] = cb->cb_cgpath[0] = '\0';
	cb->cb_controllers = 0;
	va_start(ap, fmt);
	vsnprintf(cb->cb_why, sizeof(cb->cb_why), fmt, ap);
	va_end(ap);
	return 0;
}

/* mountinfo's octal escapes (\040 for a space) undone; -1 if too long. */
static int
unescape(const char *s, size_t len, char *out, size_t outsz)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (o + 1 >= outsz) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (s[i] == '\\' && i + 3 < len &&
		    s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			out[o++] = (char)((s[i + 1] - '0') * 64 +
			    (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else
			out[o++] = s[i];
	}
	out[o] = '\0';
	return 0;
}

/* Is path at or below dir (both absolute, no trailing '/')? */
static size_t
under_len(const char *dir, const char *path)
{
	size_t len = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/' ? 1 : 0;
	if (strncmp(path, dir, len) != 0 ||
	    (path[len] != '/' && path[len] != '\0'))
		return 0;
	return len;
}

int
contain_mountinfo_cgroup2(const char *text, const char *under, char *mnt,
    size_t mntsz, char *root, size_t rootsz)
{
	const char *p, *nl, *f[6], *sep, *fs;
	size_t flen[6], best = 0, fslen, l;
	char m[PATH_MAX], r[PATH_MAX];
	int i, found = 0;

	for (p = text; *p != '\0'; p = nl + (*nl == '\n')) {
		nl = strchrnul(p, '\n');
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPT...] - FS ... */
		for (i = 0; i < 6; i++) {
			while (p < nl && *p == ' ')
				p++;
			f[i] = p;
			while (p < nl && *p != ' ')
				p++;
			flen[i] = (size_t)(p - f[i]);
			if (flen[i] == 0)
				break;
		}
		if (i < 6)
			continue;
		for (sep = NULL; p < nl; ) {
			while (p < nl && *p == ' ')
				p++;
			if (p < nl && *p == '-' &&
			    (p + 1 == nl || p[1] == ' ')) {
				sep = p + 1;
				break;
			}
			while (p < nl && *p != ' ')
				p++;
		}
		if (sep == NULL)
			continue;
		for (fs = sep; fs < nl && *fs == ' '; fs++)
			;
		for (fslen = 0; fs + fslen < nl && fs[fslen] != ' '; fslen++)
			;
		if (fslen != 7 || strncmp(fs, "cgroup2", 7) != 0)
			continue;
		if (unescape(f[4], flen[4], m, sizeof(m)) == -1 ||
		    unescape(f[3], flen[3], r, sizeof(r)) == -1)
			return -1;
		if (m[0] != '/' || r[0] != '/')
			continue;
		if (under != NULL) {
			if ((l = under_len(m, under)) == 0 ||
			    (found && l <= best))
				continue;
			best = l;
		}
		if (strlcpy(mnt, m, mntsz) >= mntsz ||
		    strlcpy(root, r, rootsz) >= rootsz) {
			errno = ENAMETOOLONG;
			return -1;
		}
		found = 1;
		if (under == NULL)
			return 0;
	}
	if (!found) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* Is word one of the space-separated words of list? */
static int
word_in(const char *list, const char *word)
{
	const char *p;
	size_t len = strlen(word);

	for (p = list; (p = strstr(p, word)) != NULL; p += len)
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\n' || p[len] == '\0'))
			return 1;
	return 0;
}

static int
name_ok(const char *name)
{
	size_t i, len = strlen(name);

	if (len == 0 || len > CONTAIN_NAME_MAX || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= 'A' && name[i] <= 'Z') ||
		    (name[i] >= '0' && name[i] <= '9') ||
		    name[i] == '.' || name[i] == '_' || name[i] == '-'))
			return 0;
	return 1;
}

int
contain_worker_ok(const char *w)
{
	size_t i, len = strlen(w);

	if (len == 0 || len > CONTAIN_WORKER_MAX || w[0] == '-')
		return 0;
	for (i = 0; i < len; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') ||
		    (w[i] >= '0' && w[i] <= '9') || w[i] == '-'))
			return 0;
	return 1;
}

/* a + b where b is "" or "/..." and a may be "/"; -1 ENAMETOOLONG. */
static int
pjoin(char *buf, size_t bufsz, const char *a, const char *b)
{
	int n;

	if (b[0] == '\0')
		n = snprintf(buf, bufsz, "%s", a);
	else if (strcmp(a, "/") == 0)
		n = snprintf(buf, bufsz, "%s", b);
	else
		n = snprintf(buf, bufsz, "%s%s", a, b);
	if (n < 0 || (size_t)n >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * The folder of cgroup cg (as /proc/PID/cgroup names it) under the
 * mount mnt of the hierarchy's root; -1 ENOENT if cg is not below it
 * (a cgroup namespace, or a bind mount of some other part).
 */
static int
cg_dir(const char *mnt, const char *root, const char *cg, char *dir,
    size_t dirsz)
{
	size_t l;

	if ((l = under_len(root, cg)) == 0) {
		errno = ENOENT;
		return -1;
	}
	if (strcmp(root, "/") == 0)
		l = 0;
	return pjoin(dir, dirsz, mnt, cg + l);
}

/* The other way: the cgroup of folder dir under the mount mnt. */
static int
dir_cg(const char *mnt, const char *root, const char *dir, char *cg,
    size_t cgsz)
{
	size_t l;

	if ((l = under_len(mnt, dir)) == 0) {
		errno = ENOENT;
		return -1;
	}
	if (strcmp(mnt, "/") == 0)
		l = 0;
	return pjoin(cg, cgsz, root, dir + l);
}

/* Our own cgroup v2 path, from /proc/self/cgroup. */
static int
own_cgroup(char *cg, size_t cgsz)
{
	char *text;
	int rc, saved;

	if (contain_read("/proc/self/cgroup", &text, NULL) == -1)
		return -1;
	rc = contain_cgroup_line(text, cg, cgsz);
	saved = errno;
	free(text);
	errno = saved;
	return rc;
}

/*
 * Was the folder delegated to us?  systemd (Delegate=yes) marks it with
 * an xattr: trusted.delegate for the system manager, user.delegate for
 * a user's.  Without the mark, a folder given to our uid by chown is
 * the older way of delegating, but root can write anything, so for root
 * only the mark counts.
 */
static int
delegated(const char *dir)
{
	static const char *const names[] = {
		"trusted.delegate", "user.delegate"
	};
	char path[PATH_MAX], v[8];
	struct stat st;
	ssize_t len;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		len = getxattr(dir, names[i], v, sizeof(v));
		if (len >= 1 && v[0] == '1' && (len == 1 ||
		    (len == 2 && (v[1] == '\0' || v[1] == '\n'))))
			return 1;
	}
	if (geteuid() == 0)
		return 0;
	if (stat(dir, &st) == -1 || st.st_uid != geteuid())
		return 0;
	if (contain_join(path, sizeof(path), dir, "cgroup.procs") == -1 ||
	    access(path, W_OK) == -1)
		return 0;
	if (contain_join(path, sizeof(path), dir,
	    "cgroup.subtree_control") == -1 || access(path, W_OK) == -1)
		return 0;
	return access(dir, W_OK) == 0;
}

/* mkdir -p of path below top (which exists); -1 with errno. */
static int
mkdirs(const char *top, const char *path)
{
	char buf[PATH_MAX], c;
	size_t i, l, len;

	if ((l = under_len(top, path)) == 0) {
		errno = EINVAL;
		return -1;
	}
	if (strlcpy(buf, path, sizeof(buf)) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	len = strlen(buf);
	/* buf[l] ends top itself (unless top is "/"): start past it */
	for (i = l + 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		c = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0755) == -1 && errno != EEXIST)
			return -1;
		buf[i] = c;
	}
	return 0;
}

/* Can we make cgroups in dir and move processes there? */
static int
writable(const char *dir)
{
	char path[PATH_MAX];

	if (access(dir, W_OK) == -1)
		return -1;
	if (contain_join(path, sizeof(path), dir, "cgroup.procs") == -1 ||
	    access(path, W_OK) == -1)
		return -1;
	return 0;
}

/*
 * cgroup v2 lets a cgroup with processes in it enable no controllers
 * for its children: whoever is in B itself moves to B/daemon, all of
 * them when B was delegated to us (all of it is ours), else only we.
 * Best effort: without it the workers are still contained, only
 * without limits.
 */
static void
move_out(const char *base, int all)
{
	char daemon[PATH_MAX], procs[PATH_MAX], dprocs[PATH_MAX], *text;
	char num[32];
	const char *p, *nl;
	size_t len;

	if (contain_join(daemon, sizeof(daemon), base, "daemon") == -1 ||
	    contain_join(procs, sizeof(procs), base, "cgroup.procs") == -1 ||
	    contain_join(dprocs, sizeof(dprocs), daemon,
	    "cgroup.procs") == -1)
		return;
	if (mkdir(daemon, 0755) == -1 && errno != EEXIST)
		return;
	if (!all) {
		(void)contain_write(dprocs, "0");
		return;
	}
	if (contain_read(procs, &text, NULL) == -1)
		return;
	for (p = text; *p != '\0'; p = nl + (*nl == '\n')) {
		nl = strchrnul(p, '\n');
		len = (size_t)(nl - p);
		if (len == 0 || len >= sizeof(num))
			continue;
		memcpy(num, p, len);
		num[len] = '\0';
		/* one that ended meanwhile (ESRCH) needs no move */
		(void)contain_write(dprocs, num);
	}
	free(text);
}

/* Enables for dir's children what of want dir's cgroup.controllers has. */
static void
enable(const char *dir, unsigned want)
{
	char cpath[PATH_MAX], spath[PATH_MAX], have[1024], on[1024];
	char plus[32];
	size_t i;

	if (contain_join(cpath, sizeof(cpath), dir, "cgroup.controllers") ==
	    -1 || contain_join(spath, sizeof(spath), dir,
	    "cgroup.subtree_control") == -1)
		return;
	if (contain_read_buf(cpath, have, sizeof(have)) == -1 ||
	    contain_read_buf(spath, on, sizeof(on)) == -1)
		return;
	for (i = 0; i < NCTLS; i++) {
		if (!(want & ctls[i].c_bit) || !word_in(have, ctls[i].c_name) ||
		    word_in(on, ctls[i].c_name))
			continue;
		/* one at a time, so that one refused spoils no other */
		snprintf(plus, sizeof(plus), "+%s", ctls[i].c_name);
		(void)contain_write(spath, plus);
	}
}

/* What of ours dir's cgroup.subtree_control has on, as bits. */
static unsigned
enabled(const char *dir)
{
	char path[PATH_MAX], on[1024];
	unsigned bits = 0;
	size_t i;

	if (contain_join(path, sizeof(path), dir, "cgroup.subtree_control") ==
	    -1 || contain_read_buf(path, on, sizeof(on)) == -1)
		return 0;
	for (i = 0; i < NCTLS; i++)
		if (word_in(on, ctls[i].c_name))
			bits |= ctls[i].c_bit;
	return bits;
}

/*
 * Makes dir (cgroup cg) the base: we leave it if we are in it (all of
 * its processes when it was delegated), and its controllers are
 * enabled, in every ancestor from top down first when top is not NULL
 * (a controller is offered to a cgroup only if its parent's
 * subtree_control has it on).
 */
static int
setup(struct contain_base *cb, const char *dir, const char *cg,
    const char *top, const char *own, int delegated_base)
{
	char anc[PATH_MAX];
	size_t l, len;
	unsigned all = 0;
	size_t i;

	if (strlcpy(cb->cb_path, dir, sizeof(cb->cb_path)) >=
	    sizeof(cb->cb_path) || strlcpy(cb->cb_cgpath, cg,
	    sizeof(cb->cb_cgpath)) >= sizeof(cb->cb_cgpath)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (i = 0; i < NCTLS; i++)
		all |= ctls[i].c_bit;
	/* the root cgroup may have processes and controllers both */
	if (own != NULL && strcmp(own, cg) == 0 && strcmp(cg, "/") != 0)
		move_out(dir, delegated_base);
	if (top != NULL && (l = under_len(top, dir)) != 0) {
		if (strlcpy(anc, dir, sizeof(anc)) >= sizeof(anc)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		len = strlen(anc);
		enable(top, all);
		for (l = l == 1 ? 1 : l + 1; l < len; l++) {
			if (anc[l] != '/')
				continue;
			anc[l] = '\0';
			enable(anc, all);
			anc[l] = '/';
		}
	}
	enable(dir, all);
	cb->cb_mech = CONTAIN_CGROUP;
	cb->cb_controllers = enabled(dir) & all;
	cb->cb_why[0] = '\0';
	return 0;
}

static int
base_auto(struct contain_base *cb, const char *name, char *err,
    size_t errlen)
{
	char *text, mnt[PATH_MAX], root[PATH_MAX], own[PATH_MAX];
	char owndir[PATH_MAX], dir[PATH_MAX], cg[PATH_MAX], sub[PATH_MAX];
	char base[PATH_MAX], cgbase[PATH_MAX], *slash;
	int n, rc;

	if (contain_read("/proc/self/mountinfo", &text, NULL) == -1)
		return tree(cb, "cannot read /proc/self/mountinfo: %s",
		    strerror(errno));
	rc = contain_mountinfo_cgroup2(text, NULL, mnt, sizeof(mnt), root,
	    sizeof(root));
	free(text);
	if (rc == -1)
		return tree(cb, "no cgroup v2 mounted");
	if (own_cgroup(own, sizeof(own)) == -1)
		return tree(cb, "no cgroup v2 line in /proc/self/cgroup");
	if (cg_dir(mnt, root, own, owndir, sizeof(owndir)) == -1)
		return tree(cb, "our cgroup %.100s is not under the cgroup v2 "
		    "mount at %.100s", own, mnt);

	/*
	 * Started again from within B/daemon (a re-exec, not systemd),
	 * the base is still B; B/daemon is never delegated itself.
	 */
	strlcpy(base, owndir, sizeof(base));
	strlcpy(cgbase, own, sizeof(cgbase));
	if ((slash = strrchr(cgbase, '/')) != NULL && slash != cgbase &&
	    strcmp(slash, "/daemon") == 0) {
		*slash = '\0';
		if ((slash = strrchr(base, '/')) != NULL)
			*slash = '\0';
		if (!delegated(base)) {
			strlcpy(base, owndir, sizeof(base));
			strlcpy(cgbase, own, sizeof(cgbase));
		}
	}
	if (strcmp(cgbase, "/") != 0 && delegated(base)) {
		if (writable(base) == -1)
			return tree(cb, "delegated cgroup %.150s is not "
			    "writable: %s", base, strerror(errno));
		if (setup(cb, base, cgbase, NULL, own, 1) == -1) {
			errbuf_set(err, errlen, "cgroup %.200s: %s", base,
			    strerror(errno));
			return -1;
		}
		return 0;
	}
	if (geteuid() != 0)
		return tree(cb, "cgroup v2 at %.150s is not delegated to "
		    "uid %lu", mnt, (unsigned long)geteuid());

	/* root without delegation: a folder of our own beside systemd's */
	n = snprintf(sub, sizeof(sub), "/cilknow/%s", name);
	if (n < 0 || (size_t)n >= sizeof(sub) ||
	    pjoin(dir, sizeof(dir), mnt, sub) == -1 ||
	    pjoin(cg, sizeof(cg), root, sub) == -1) {
		errbuf_set(err, errlen, "cgroup base under %.200s: %s", mnt,
		    strerror(ENAMETOOLONG));
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdirs(mnt, dir) == -1)
		return tree(cb, "cannot create %.150s: %s", dir,
		    strerror(errno));
	if (writable(dir) == -1)
		return tree(cb, "%.150s is not writable: %s", dir,
		    strerror(errno));
	if (setup(cb, dir, cg, mnt, own, 0) == -1) {
		errbuf_set(err, errlen,
		    "cgroup %.200s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int
base_path(struct contain_base *cb, const char *setting, char *err,
    size_t errlen)
{
	char path[PATH_MAX], probe[PATH_MAX], *slash, *text;
	char mnt[PATH_MAX], root[PATH_MAX], cg[PATH_MAX], own[PATH_MAX];
	struct statfs sf;
	size_t len;
	int rc;

	if (strlcpy(path, setting, sizeof(path)) >= sizeof(path)) {
		errbuf_set(err, errlen,
		    "cgroup = %.100s...: too long", setting);
		errno = ENAMETOOLONG;
		return -1;
	}
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	if (strstr(path, "//") != NULL || strstr(path, "/./") != NULL ||
	    strstr(path, "/../") != NULL || (len >= 2 &&
	    strcmp(path + len - 2, "/.") == 0) || (len >= 3 &&
	    strcmp(path + len - 3, "/..") == 0)) {
		errbuf_set(err, errlen, "cgroup = %.200s: not a plain absolute "
		    "path", setting);
		errno = EINVAL;
		return -1;
	}

	/* the folder, or what of it exists, must be in a cgroup2 mount */
	strlcpy(probe, path, sizeof(probe));
	while ((rc = statfs(probe, &sf)) == -1 && errno == ENOENT &&
	    (slash = strrchr(probe, '/')) != NULL && slash != probe)
		*slash = '\0';
	if (rc == -1 || sf.f_type != CGROUP2_SUPER_MAGIC) {
		if (rc == 0)
			errno = ENOTDIR;
		errbuf_set(err, errlen, "cgroup = %.200s: not in a cgroup v2 "
		    "mount", path);
		return -1;
	}
	if (contain_read("/proc/self/mountinfo", &text, NULL) == -1) {
		errbuf_set(err, errlen, "/proc/self/mountinfo: %s",
		    strerror(errno));
		return -1;
	}
	rc = contain_mountinfo_cgroup2(text, path, mnt, sizeof(mnt), root,
	    sizeof(root));
	free(text);
	if (rc == -1 || dir_cg(mnt, root, path, cg, sizeof(cg)) == -1) {
		errbuf_set(err, errlen, "cgroup = %.200s: no cgroup v2 mount "
		    "holds it in /proc/self/mountinfo", path);
		errno = ENOENT;
		return -1;
	}
	if (mkdirs(mnt, path) == -1) {
		errbuf_set(err, errlen, "cgroup = %.200s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (statfs(path, &sf) == -1 || sf.f_type != CGROUP2_SUPER_MAGIC) {
		errbuf_set(err, errlen, "cgroup = %.200s: not in a cgroup v2 "
		    "mount", path);
		errno = ENOTDIR;
		return -1;
	}
	if (writable(path) == -1) {
		errbuf_set(err, errlen,
		    "cgroup = %.200s: not writable: %s", path,
		    strerror(errno));
		return -1;
	}
	if (own_cgroup(own, sizeof(own)) == -1)
		own[0] = '\0';
	if (setup(cb, path, cg, mnt, own[0] != '\0' ? own : NULL, 0) ==
	    -1) {
		errbuf_set(err, errlen, "cgroup = %.200s: %s", path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
contain_base_init(struct contain_base *cb, const char *setting,
    const char *name, char *err, size_t errlen)
{
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (cb == NULL || setting == NULL || name == NULL) {
		errbuf_set(err, errlen,
		    "contain_base_init: no base, setting or "
		    "name");
		errno = EINVAL;
		return -1;
	}
	memset(cb, 0, sizeof(*cb));
	if (!name_ok(name)) {
		errbuf_set(err, errlen,
		    "cgroup base name \"%.64s\": want 1 to %d "
		    "of A-Z a-z 0-9 . _ -", name, CONTAIN_NAME_MAX);
		errno = EINVAL;
		return -1;
	}
	if (strcmp(setting, "none") == 0)
		return tree(cb, "cgroup = none in the configuration");
	if (strcmp(setting, "auto") == 0)
		return base_auto(cb, name, err, errlen);
	if (setting[0] == '/')
		return base_path(cb, setting, err, errlen);
	errbuf_set(err, errlen,
	    "cgroup = %.200s: want none, auto or an absolute "
	    "path", setting);
	errno = EINVAL;
	return -1;
}

unsigned
contain_unenforced(const struct contain_base *cb)
{
	if (cb == NULL || cb->cb_mech != CONTAIN_CGROUP)
		return CONTAIN_CTL_ALL;
	return CONTAIN_CTL_ALL & ~cb->cb_controllers;
}

const char *
contain_ctl_names(unsigned bits, char *buf, size_t bufsz)
{
	size_t i;

	if (buf == NULL || bufsz == 0)
		return "";
	buf[0] = '\0';
	for (i = 0; i < NCTLS; i++) {
		if (!(bits & ctls[i].c_bit))
			continue;
		if (buf[0] != '\0')
			strlcat(buf, " ", bufsz);
		strlcat(buf, ctls[i].c_name, bufsz);
	}
	return buf;
}

const char *
contain_base_describe(const struct contain_base *cb, char *buf, size_t bufsz)
{
	char list[64];

	if (buf == NULL || bufsz == 0)
		return "";
	if (cb == NULL) {
		snprintf(buf, bufsz, "no containment");
		return buf;
	}
	switch (cb->cb_mech) {
	case CONTAIN_CGROUP:
		(void)contain_ctl_names(cb->cb_controllers, list,
		    sizeof(list));
		snprintf(buf, bufsz, "cgroup v2 at %s (%s)", cb->cb_path,
		    list[0] != '\0' ? list : "no controllers");
		break;
	case CONTAIN_TREE:
		snprintf(buf, bufsz, "process tree (no cgroup: %s)",
		    cb->cb_why);
		break;
	default:
		snprintf(buf, bufsz, "no containment");
		break;
	}
	return buf;
}

/* Multiplies without wrapping; -1 ERANGE. */
static int
mul(uint64_t a, uint64_t b, uint64_t *r)
{
	if (a != 0 && b > UINT64_MAX / a) {
		errno = ERANGE;
		return -1;
	}
	*r = a * b;
	return 0;
}

int
contain_parse_size(const char *text, uint64_t *bytes)
{
	unsigned long long v;
	uint64_t unit = 1, total;
	long pages, pagesz;
	char *end;

	if (text == NULL || bytes == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (strcmp(text, "none") == 0) {
		*bytes = 0;
		return 0;
	}
	/* strtoull takes "-1" and " 1": only digits may start it */
	if (*text < '0' || *text > '9') {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return -1;
	if (errno != 0) {
		errno = EINVAL;
		return -1;
	}
	if (strcmp(end, "%") == 0) {
		if (v > 100) {
			errno = ERANGE;
			return -1;
		}
		if ((pages = sysconf(_SC_PHYS_PAGES)) <= 0 ||
		    (pagesz = sysconf(_SC_PAGESIZE)) <= 0) {
			errno = ENOSYS;
			return -1;
		}
		if (mul((uint64_t)pages, (uint64_t)pagesz, &total) == -1)
			return -1;
		/* v <= 100: total / 100 * v would lose the remainder */
		*bytes = total / 100 * v + total % 100 * v / 100;
		return 0;
	}
	switch (*end) {
	case '\0':
		break;
	case 'K': case 'k':
		unit = 1ULL << 10;
		break;
	case 'M': case 'm':
		unit = 1ULL << 20;
		break;
	case 'G': case 'g':
		unit = 1ULL << 30;
		break;
	case 'T': case 't':
		unit = 1ULL << 40;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (*end != '\0' && end[1] != '\0') {
		errno = EINVAL;
		return -1;
	}
	return mul((uint64_t)v, unit, bytes);
}

uint32_t
contain_cpu_quota_dir(const char *top, const char *dir)
{
	char cg[PATH_MAX], path[PATH_MAX + 16], line[64], *slash;
	unsigned long long quota, period;
	size_t toplen = strlen(top);
	uint32_t best = 0, q;

	if (strlcpy(cg, dir, sizeof(cg)) >= sizeof(cg) || under_len(top, cg) == 0)
		return 0;
	for (;;) {
		/* "max PERIOD" sets none; "QUOTA PERIOD" a share of CPUs. */
		if ((size_t)snprintf(path, sizeof(path), "%s/cpu.max", cg) <
		    sizeof(path) &&
		    contain_read_buf(path, line, sizeof(line)) != -1 &&
		    sscanf(line, "%llu %llu", &quota, &period) == 2 &&
		    period > 0 && quota > 0) {
			q = (uint32_t)((quota + period - 1) / period);
			if (best == 0 || q < best)
				best = q;
		}
		if (strlen(cg) <= toplen || (slash = strrchr(cg, '/')) == NULL ||
		    slash == cg)
			break;
		*slash = '\0';
	}
	return best;
}

uint32_t
contain_cpu_quota(void)
{
	char *text, mnt[PATH_MAX], root[PATH_MAX], own[PATH_MAX];
	char dir[PATH_MAX];
	int rc;

	if (contain_read("/proc/self/mountinfo", &text, NULL) == -1)
		return 0;
	rc = contain_mountinfo_cgroup2(text, NULL, mnt, sizeof(mnt), root,
	    sizeof(root));
	free(text);
	if (rc == -1 || own_cgroup(own, sizeof(own)) == -1 ||
	    cg_dir(mnt, root, own, dir, sizeof(dir)) == -1)
		return 0;
	return contain_cpu_quota_dir(mnt, dir);
}
