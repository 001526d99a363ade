/*
 * priv: the service user's lookup and drop, reachability, key files
 * parsed from a buffer, the parent/child messages (every truncation,
 * oversized and garbled input refused), and priv_fork's parent living
 * exactly as long as its child.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#include "msg_keyring.h"
#include "msg_keys.h"
#include "priv.h"
#include "seqq.h"
#include "wire.h"

static char dir[PATH_MAX];

static void
write_file(const char *path, const char *text, mode_t mode)
{
	int fd;

	unlink(path);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)) == -1 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, mode) == -1 || close(fd) == -1) {
		perror(path);
		exit(2);
	}
}

static void
test_lookup(void)
{
	struct priv_user pu;
	struct passwd *pw;
	char err[512];

	ok(priv_lookup(&pu, "root", err, sizeof(err)) == -1,
	    "lookup: root is refused as a service user");
	ok(strstr(err, "unprivileged") != NULL, "  and err says why: %s", err);
	ok(priv_lookup(&pu, "no-such-user-cilknow", err,
	    sizeof(err)) == -1, "lookup: a missing user fails closed");
	ok(strstr(err, "useradd --system --user-group --no-create-home "
	    "--home-dir /nonexistent --shell /usr/sbin/nologin "
	    "no-such-user-cilknow") != NULL, "  and names the fix: %s", err);
	ok(priv_lookup(&pu, "", err, sizeof(err)) == -1,
	    "lookup: an empty name is refused");
	if ((pw = getpwnam("nobody")) == NULL) {
		ok(1, "# SKIP no user nobody");
		return;
	}
	ok(priv_lookup(&pu, "nobody", err, sizeof(err)) == 0 &&
	    err[0] == '\0', "lookup: nobody");
	ok(pu.pu_uid == pw->pw_uid && pu.pu_gid == pw->pw_gid &&
	    strcmp(pu.pu_name, "nobody") == 0, "  uid and gid");
	if (priv_lookup(&pu, NULL, err, sizeof(err)) == 0)
		ok(strcmp(pu.pu_name, PRIV_USER_DEFAULT) == 0,
		    "lookup: NULL is the default user, which exists here");
	else
		ok(strstr(err, PRIV_USER_DEFAULT) != NULL,
		    "lookup: NULL is the default user (missing here)");
}

/* CapBnd: 0 in /proc/self/status. */
static int
bounding_empty(void)
{
	char line[256];
	unsigned long long v = 1;
	FILE *f;

	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "CapBnd:", 7) == 0)
			(void)sscanf(line + 7, "%llx", &v);
	fclose(f);
	return v == 0;
}

/* In a child of ours: drop to nobody and report what is left. */
static void
test_drop(void)
{
	struct priv_user pu;
	char err[512];
	pid_t pid;
	int st;

	if (geteuid() != 0 || getpwnam("nobody") == NULL ||
	    priv_lookup(&pu, "nobody", err, sizeof(err)) == -1) {
		ok(priv_drop(&pu, err, sizeof(err)) == 0 && priv_have_any() ==
		    0, "drop: not root, nothing to drop, nothing left");
		return;
	}
	ok(priv_have_any() == 1, "drop: root has privileges");
	if ((pid = fork()) == 0) {
		if (priv_drop(&pu, err, sizeof(err)) == -1) {
			printf("#   %s\n", err);
			_exit(1);
		}
		if (priv_have_any() || setuid(0) == 0 || seteuid(0) == 0 ||
		    getuid() != pu.pu_uid)
			_exit(2);
		if (getgroups(0, NULL) != 0)
			_exit(4);
		if (!bounding_empty())
			_exit(5);
		/* Again, now not root: nothing to do. */
		_exit(priv_drop(&pu, err, sizeof(err)) == 0 ? 0 : 3);
	}
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "drop: to nobody, verified, nothing left (no groups, "
	    "empty bounding set)");
	pu.pu_uid = 0;
	ok(priv_drop(&pu, err, sizeof(err)) == -1 && getuid() == 0,
	    "drop: to uid 0 is refused");
}

static void
test_reach(void)
{
	struct priv_user pu;
	char sub[PATH_MAX + 8], err[512];

	memset(&pu, 0, sizeof(pu));
	pu.pu_uid = 4242;
	pu.pu_gid = 4242;
	strlcpy(pu.pu_name, "someone", sizeof(pu.pu_name));
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	mkdir(sub, 0755);
	chmod(dir, 0700);
	ok(priv_reach(&pu, sub, err, sizeof(err)) == -1 &&
	    strstr(err, dir) != NULL, "reach: a 0700 folder above stops it");
	chmod(dir, 0711);
	ok(priv_reach(&pu, sub, err, sizeof(err)) == 0,
	    "reach: 0711 lets it through");
	ok(priv_reach(&pu, "relative", err, sizeof(err)) == -1,
	    "reach: a relative path is refused");
}

/* A key file's text, from a freshly generated cluster key. */
static void
key_text(char *buf, size_t bufsz, struct msg_keyset *ks)
{
	memset(ks, 0, sizeof(*ks));
	if (msg_key_generate(&ks->ks_key[0], MSG_KEY_CLUSTER, NULL) == -1 ||
	    (ks->ks_n = 1, msg_keyset_format(ks, buf, bufsz)) == -1)
		exit(2);
}

static void
test_keyfile(void)
{
	char text[MSG_KEYFILE_MAX + 2], bad[MSG_KEYFILE_MAX + 2],
	    big[MSG_KEYFILE_MAX + 10], path[PATH_MAX + 16], err[512];
	struct msg_keyset orig, ks;
	size_t len, i, n, refused = 0;
	mode_t mode;
	char *p;

	key_text(text, sizeof(text), &orig);
	len = strlen(text);
	ok(msg_keyset_parse(&ks, "k", text, len, 0600, MSG_KEY_CLUSTER, err,
	    sizeof(err)) == 0 && ks.ks_n == 1 &&
	    ks.ks_key[0].k_id == orig.ks_key[0].k_id,
	    "parse: a good cluster key");
	/* Every cut inside the key line. */
	p = strstr(text, "cluster-key");
	n = 0;
	for (i = (size_t)(p - text); i < len - 1; i++, n++)
		if (msg_keyset_parse(&ks, "k", text, i, 0600,
		    MSG_KEY_CLUSTER, err, sizeof(err)) == -1)
			refused++;
	ok(refused == n, "parse: every truncation (%zu) refused", n);
	memcpy(bad, text, len + 1);
	bad[strlen(bad) - 5] ^= 0x01;
	ok(msg_keyset_parse(&ks, "k", bad, len, 0600, MSG_KEY_CLUSTER, err,
	    sizeof(err)) == -1, "parse: garbled material refused (%s)", err);
	memcpy(bad, text, len + 1);
	bad[len - 3] = '\0';
	ok(msg_keyset_parse(&ks, "k", bad, len, 0600, MSG_KEY_CLUSTER, err,
	    sizeof(err)) == -1, "parse: a NUL byte refused");
	ok(msg_keyset_parse(&ks, "k", "cluster-key zz\n", 15, 0600,
	    MSG_KEY_CLUSTER, err, sizeof(err)) == -1, "parse: garbage refused");
	ok(msg_keyset_parse(&ks, "k", text, len, 0640, MSG_KEY_CLUSTER, err,
	    sizeof(err)) == -1 && errno == EPERM,
	    "parse: a secret key readable by group refused");
	ok(msg_keyset_parse(&ks, "k", text, len, 0620, MSG_KEY_CLUSTER, err,
	    sizeof(err)) == -1 && errno == EPERM,
	    "parse: a key file writable by group refused");
	ok(msg_keyset_parse(&ks, "k", text, len, 0600, MSG_KEY_USER, err,
	    sizeof(err)) == -1, "parse: the wrong type refused");
	memset(big, '#', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ok(msg_keyset_parse(&ks, "k", big, sizeof(big) - 1, 0600,
	    MSG_KEY_UNDEF, err, sizeof(err)) == -1, "parse: too large refused");

	snprintf(path, sizeof(path), "%s/c.key", dir);
	write_file(path, text, 0600);
	ok(msg_keyfile_read(path, bad, sizeof(bad), &n, &mode, err,
	    sizeof(err)) == 0 && n == len && memcmp(bad, text, len) == 0 &&
	    mode == 0600, "read: the text and the mode");
	chmod(path, 0666);
	ok(msg_keyfile_read(path, bad, sizeof(bad), &n, &mode, err,
	    sizeof(err)) == -1 && errno == EPERM,
	    "read: a file others may write refused");
	chmod(path, 0600);
	ok(msg_keyfile_read(path, bad, 100, &n, &mode, err,
	    sizeof(err)) == -1, "read: a buffer too small refused");
	snprintf(path, sizeof(path), "%s/none.key", dir);
	ok(msg_keyfile_read(path, bad, sizeof(bad), &n, &mode, err,
	    sizeof(err)) == -1 && errno == ENOENT, "read: missing is ENOENT");
	msg_keyset_clear(&orig);
	msg_keyset_clear(&ks);
}

static void
test_frame(void)
{
	uint8_t buf[PRIV_MSG_MAX + 16], pl[8] = "payload";
	const uint8_t *p;
	uint16_t type;
	size_t n, len, i, refused = 0;

	n = priv_msg_enc(PRIV_M_READY, pl, 7, buf, sizeof(buf));
	ok(n == PRIV_HDR_LEN + 7 && priv_msg_dec(buf, n, &type, &p,
	    &len) == 0 && type == PRIV_M_READY && len == 7 &&
	    memcmp(p, "payload", 7) == 0, "frame: round trip");
	for (i = 0; i < n; i++)
		if (priv_msg_dec(buf, i, &type, &p, &len) == -1)
			refused++;
	ok(refused == n, "frame: every truncation refused");
	buf[n] = 0;
	ok(priv_msg_dec(buf, n + 1, &type, &p, &len) == -1,
	    "frame: a trailing byte refused");
	ok(priv_msg_enc(PRIV_M_UNDEF, pl, 1, buf, sizeof(buf)) == 0,
	    "frame: type 0 is not encoded");
	n = priv_msg_enc(PRIV_M_READY, NULL, 0, buf, sizeof(buf));
	buf[1] = 0;
	buf[0] = 0;
	ok(priv_msg_dec(buf, n, &type, &p, &len) == -1,
	    "frame: type 0 refused");
	ok(priv_msg_enc(PRIV_M_READY, buf, PRIV_MSG_MAX, buf,
	    sizeof(buf)) == 0, "frame: oversized is not encoded");
	ok(priv_msg_enc(PRIV_M_READY, pl, 7, buf, 8) == 0,
	    "frame: too small a buffer");
}

/* A status message's payload: str. */
static size_t
status_payload(uint8_t *buf, size_t sz, int with_u8, unsigned u8,
    const char *s)
{
	struct wire_w w;

	wire_w_init(&w, buf, sz);
	if (with_u8)
		wire_put_u8(&w, (uint8_t)u8);
	wire_put_str(&w, s);
	return w.ww_len;
}

static void
test_status(void)
{
	char st[PRIV_STATUS_MAX + 1], longs[PRIV_STATUS_MAX + 2];
	uint8_t buf[512];
	size_t n, i, refused = 0;
	int applied;

	n = status_payload(buf, sizeof(buf), 0, 0, "listening on x");
	ok(priv_status_dec(buf, n, st) == 0 &&
	    strcmp(st, "listening on x") == 0, "status: good");
	for (i = 0; i < n; i++)
		if (priv_status_dec(buf, i, st) == -1)
			refused++;
	ok(refused == n, "status: every truncation refused");
	ok(priv_status_dec(buf, n + 1, st) == -1, "status: trailing byte");
	n = status_payload(buf, sizeof(buf), 0, 0, "ok\nMAINPID=1");
	ok(priv_status_dec(buf, n, st) == -1,
	    "status: a newline (another notify key) refused");
	memset(longs, 'a', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = '\0';
	n = status_payload(buf, sizeof(buf), 0, 0, longs);
	ok(priv_status_dec(buf, n, st) == -1, "status: too long refused");
	n = status_payload(buf, sizeof(buf), 1, 1, "reloaded");
	ok(priv_reloaded_dec(buf, n, &applied, st) == 0 && applied == 1,
	    "reloaded: good");
	n = status_payload(buf, sizeof(buf), 1, 2, "reloaded");
	ok(priv_reloaded_dec(buf, n, &applied, st) == -1,
	    "reloaded: a flag other than 0 or 1 refused");
}

struct kf {
	const char	*key, *path;
	unsigned	 mode;
	const char	*text;
};

/*
 * A hand-made PRIV_M_RELOAD payload from cf, with one configuration
 * key dropped, repeated or renamed as asked, and the files given.
 */
static size_t
reload_payload(uint8_t *buf, size_t sz, const struct conf *cf,
    int nconf_delta, const char *rename, int repeat, const struct kf *f,
    int nf)
{
	struct wire_w w;
	size_t n = 0, i;
	int k;

	while (conf_key_name(n) != NULL)
		n++;
	wire_w_init(&w, buf, sz);
	wire_put_u16(&w, (uint16_t)((int)n + nconf_delta));
	for (i = 0; i < n; i++) {
		if (nconf_delta < 0 && i == 0)
			continue;
		wire_put_str(&w, rename && i == 1 ? rename :
		    repeat && i == 1 ? conf_key_name(0) : conf_key_name(i));
		wire_put_str(&w, conf_get(cf, repeat && i == 1 ?
		    conf_key_name(0) : conf_key_name(i)));
	}
	wire_put_u8(&w, (uint8_t)nf);
	for (k = 0; k < nf; k++) {
		wire_put_str(&w, f[k].key);
		wire_put_str(&w, f[k].path);
		wire_put_u16(&w, (uint16_t)f[k].mode);
		wire_put_str(&w, f[k].text);
	}
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

static void
test_reload(void)
{
	static uint8_t buf[PRIV_MSG_MAX], tmp[PRIV_MSG_MAX + 1];
	char text[MSG_KEYFILE_MAX + 2], kpath[PATH_MAX + 16],
	    upath[PATH_MAX + 16], err[512];
	struct msg_keyring kr;
	struct msg_keyset orig;
	struct conf *cf, *got = NULL;
	size_t n, i, refused = 0;
	struct kf f[4];

	key_text(text, sizeof(text), &orig);
	snprintf(kpath, sizeof(kpath), "%s/cluster.key", dir);
	snprintf(upath, sizeof(upath), "%s/users", dir);
	write_file(kpath, text, 0600);
	if ((cf = conf_new()) == NULL ||
	    conf_set(cf, "cluster_key", kpath, err, sizeof(err)) == -1 ||
	    conf_set(cf, "cluster_pub", "/nonexistent/cluster.pub", err,
	    sizeof(err)) == -1 ||
	    conf_set(cf, "user_keys", upath, err, sizeof(err)) == -1 ||
	    conf_set(cf, "quantum", "0.5", err, sizeof(err)) == -1)
		exit(2);
	n = priv_keys_enc(cf, MSG_KR_CLUSTER, "broker", buf, sizeof(buf), err,
	    sizeof(err));
	ok(n > 0, "reload: encoded (%zu bytes)", n);
	ok(priv_recv_keys(buf, n, MSG_KR_CLUSTER, "broker", &got, &kr, err,
	    sizeof(err)) == 0, "reload: decoded");
	ok(got != NULL && strcmp(conf_get(got, "quantum"), "0.5") == 0 &&
	    strcmp(conf_get(got, "cluster_key"), kpath) == 0,
	    "reload: the whole configuration came");
	ok(kr.kr_cluster.ks_n == 1 &&
	    kr.kr_cluster.ks_key[0].k_id == orig.ks_key[0].k_id &&
	    strcmp(kr.kr_cluster_name, "broker") == 0 &&
	    strcmp(kr.kr_users_dir, upath) == 0 && kr.kr_cluster_pub.ks_n == 0,
	    "reload: the cluster key, the principal, no cluster.pub");
	conf_free(got);
	got = NULL;
	msg_keyring_clear(&kr);

	for (i = 0; i < n; i++)
		if (priv_recv_keys(buf, i, MSG_KR_CLUSTER, "broker", &got, &kr,
		    err, sizeof(err)) == -1)
			refused++;
	ok(refused == n && got == NULL, "reload: every truncation (%zu) "
	    "refused", n);
	memcpy(tmp, buf, n);
	tmp[n] = 0;
	ok(priv_recv_keys(tmp, n + 1, MSG_KR_CLUSTER, "broker", &got, &kr, err,
	    sizeof(err)) == -1, "reload: a trailing byte refused");
	ok(priv_keys_enc(cf, MSG_KR_CLUSTER, "broker", buf, 100, err,
	    sizeof(err)) == 0, "reload: too small a buffer: nothing encoded");

	/* Hand-made: each field wrong in turn. */
	f[0] = (struct kf){ "cluster_key", kpath, 0600, text };
#define REFUSED(what, ...) do {						\
	n = reload_payload(buf, sizeof(buf), cf, __VA_ARGS__);		\
	ok(n > 0 && priv_recv_keys(buf, n, MSG_KR_CLUSTER, "broker",	\
	    &got, &kr, err, sizeof(err)) == -1 && got == NULL,		\
	    "reload: %s refused (%s)", what, err);			\
} while (0)
	n = reload_payload(buf, sizeof(buf), cf, 0, NULL, 0, f, 1);
	ok(n > 0 && priv_recv_keys(buf, n, MSG_KR_CLUSTER, "broker", &got,
	    &kr, err, sizeof(err)) == 0, "reload: the hand-made one is good");
	conf_free(got);
	got = NULL;
	msg_keyring_clear(&kr);
	REFUSED("a missing configuration key", -1, NULL, 0, f, 1);
	REFUSED("an unknown configuration key", 0, "no_such_key", 0, f, 1);
	REFUSED("a repeated configuration key", 0, NULL, 1, f, 1);
	REFUSED("no cluster key (required)", 0, NULL, 0, f, 0);
	f[1] = f[0];
	REFUSED("the same key file twice", 0, NULL, 0, f, 2);
	f[1] = (struct kf){ "user_key", kpath, 0600, text };
	f[2] = (struct kf){ "cluster_pub", kpath, 0600, text };
	f[3] = (struct kf){ "bogus", kpath, 0600, text };
	REFUSED("four key files", 0, NULL, 0, f, 4);
	f[1] = f[3];
	REFUSED("an unknown key file", 0, NULL, 0, f, 2);
	f[0].mode = 010000;
	REFUSED("a mode beyond 07777", 0, NULL, 0, f, 1);
	f[0].mode = 0644;
	REFUSED("a secret key others may read", 0, NULL, 0, f, 1);
	f[0].mode = 0600;
	f[0].path = "";
	REFUSED("an empty path", 0, NULL, 0, f, 1);
	f[0].path = kpath;
	text[strlen(text) - 4] ^= 0x02;
	REFUSED("a garbled key", 0, NULL, 0, f, 1);
	f[0].text = "cluster-key";
	REFUSED("a truncated key line", 0, NULL, 0, f, 1);

	/* The parent checks what it reads before sending anything. */
	chmod(kpath, 0644);
	ok(priv_keys_enc(cf, MSG_KR_CLUSTER, "broker", buf, sizeof(buf), err,
	    sizeof(err)) == 0 && strstr(err, "chmod 600") != NULL,
	    "reload: a key file others may read is not sent (%s)", err);
	unlink(kpath);
	ok(priv_keys_enc(cf, MSG_KR_CLUSTER, "broker", buf, sizeof(buf), err,
	    sizeof(err)) == 0, "reload: a missing required key is not sent");
	conf_free(cf);
	msg_keyset_clear(&orig);
}

static void
test_chan(void)
{
	static uint8_t buf[PRIV_MSG_MAX], big[PRIV_MSG_MAX + 64];
	struct priv_chan a, b;
	const uint8_t *p;
	uint16_t type;
	size_t len;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == -1)
		exit(2);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.pc_fd = sv[0];
	b.pc_fd = sv[1];
	ok(priv_send_ready(&a, "listening on 127.0.0.1:7410") == 0 &&
	    priv_recv(&b, &type, buf, sizeof(buf), &p, &len) == 1 &&
	    type == PRIV_M_READY, "chan: READY goes through");
	ok(priv_send_ready(&a, "two\nlines") == -1,
	    "chan: a status with a newline is not sent");
	ok(priv_send_watchdog(&a) == 0 &&
	    priv_recv(&b, &type, buf, sizeof(buf), &p, &len) == 1 &&
	    type == PRIV_M_WATCHDOG && len == 0, "chan: WATCHDOG");
	memset(big, 0, sizeof(big));
	big[1] = PRIV_M_READY;
	ok(send(sv[0], big, sizeof(big), 0) == (ssize_t)sizeof(big) &&
	    priv_recv(&b, &type, buf, sizeof(buf), &p, &len) == -1 &&
	    errno == EBADMSG, "chan: an oversized datagram refused");
	ok(send(sv[0], big, 3, 0) == 3 &&
	    priv_recv(&b, &type, buf, sizeof(buf), &p, &len) == -1 &&
	    errno == EBADMSG, "chan: a short datagram refused");
	ok(priv_recv(&b, &type, buf, sizeof(buf), &p, &len) == -1 &&
	    errno == EAGAIN, "chan: nothing waiting: EAGAIN");
	close(sv[0]);
	ok(priv_recv(&b, &type, buf, sizeof(buf), &p, &len) == 0,
	    "chan: the other side closed: 0");
	close(sv[1]);
}

/*
 * A queued channel: more than the socket holds is sent without a
 * failure and arrives whole and in order; a peer that reads nothing is
 * told apart (EOVERFLOW) once PRIV_QUEUE_MAX bytes wait.
 */
static void
test_queue(void)
{
	static uint8_t buf[PRIV_MSG_MAX], msg[60000];
	struct priv_chan a, b;
	struct evloop *loop;
	const uint8_t *p;
	uint16_t type;
	size_t len, sent = 0;
	unsigned i, got = 0, inorder = 1, failed = 0, rounds;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == -1 ||
	    (loop = evloop_new()) == NULL)
		exit(2);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.pc_fd = sv[0];
	b.pc_fd = sv[1];
	ok(priv_chan_queue(&a, loop) == 0 && a.pc_q != NULL,
	    "queue: made");
	for (i = 0; i < 40; i++) {
		memset(msg, (int)i, sizeof(msg));
		if (priv_send(&a, PRIV_M_MAX + 1, msg, sizeof(msg)) == -1)
			failed++;
	}
	ok(failed == 0 && seqq_waiting(a.pc_q) > 0,
	    "queue: 40 messages of 60000 bytes sent, %zu bytes waiting",
	    seqq_waiting(a.pc_q));
	for (rounds = 0; got < 40 && rounds < 10000; rounds++) {
		(void)evloop_run_once(loop, 0.01);
		while (priv_recv(&b, &type, buf, sizeof(buf), &p,
		    &len) == 1) {
			if (type != PRIV_M_MAX + 1 || len != sizeof(msg) ||
			    p[0] != got || p[len - 1] != got)
				inorder = 0;
			got++;
		}
	}
	ok(got == 40 && inorder && seqq_waiting(a.pc_q) == 0,
	    "queue: all 40 arrive whole and in order (%u)", got);
	for (i = 0, failed = 0; i < 200 && !failed; i++) {
		if (priv_send(&a, PRIV_M_MAX + 1, msg, sizeof(msg)) == 0)
			sent += sizeof(msg) + PRIV_HDR_LEN;
		else
			failed = errno == EOVERFLOW ? 1 : 2;
	}
	ok(failed == 1 && sent >= PRIV_QUEUE_MAX - 2 * sizeof(msg),
	    "queue: a peer that reads nothing: EOVERFLOW after %zu bytes",
	    sent);
	priv_chan_close(&a);
	ok(a.pc_fd == -1 && a.pc_q == NULL, "queue: closed and freed");
	close(sv[1]);
	evloop_free(loop);
}

/* The parent of priv_fork in a process of its own: its exit status. */
static int
forked(int how)
{
	struct priv_parent pp;
	struct priv_chan pc;
	char err[256];
	pid_t pid;
	int st;

	if ((pid = fork()) == 0) {
		memset(&pp, 0, sizeof(pp));
		if ((pp.pp_loop = evloop_new()) == NULL ||
		    priv_fork(&pc, NULL, &pp, err, sizeof(err)) == -1)
			_exit(99);
		/* The child. */
		if (how == 0)
			_exit(priv_send_ready(&pc, "up") == 0 ? 3 : 98);
		if (how == 1) {
			(void)priv_send(&pc, 999, "x", 1);
			pause();	/* killed by the parent */
		}
		raise(SIGKILL);
		_exit(97);
	}
	if (pid == -1 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void
test_fork(void)
{
	is_int(forked(0), 3, "fork: the parent exits with the child's status");
	is_int(forked(1), 128 + SIGKILL,
	    "fork: a child that sends an unknown type is killed");
	is_int(forked(2), 128 + SIGKILL,
	    "fork: a child killed by a signal: 128 + the signal");
}

int
main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/priv_test.XXXXXX");
	if (mkdtemp(dir) == NULL || sodium_init() < 0)
		return 2;
	test_lookup();
	test_drop();
	test_reach();
	test_keyfile();
	test_frame();
	test_status();
	test_reload();
	test_chan();
	test_queue();
	test_fork();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			ok(0, "cleanup");
	}
	return tap_done();
}
