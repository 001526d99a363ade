/*
 * msg_munge_test — the munge user scheme's codec parts against a
 * private munged (its own key, socket and files in a temporary folder;
 * the system's munge is never touched; skipped where munged is not
 * installed): a round trip names the uid's user, a changed payload or
 * claimed name or a moved credential is refused, a second decode is a
 * replay, truncation at every byte never opens, lying lengths, a NUL in
 * the credential, user_auth without munge, no munged; and job
 * descriptions under a credential (proto_desc_munge.c).
 */
#include "msg_codec.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "mono.h"
#include "msg.h"
#include "proto.h"
#include "tap.h"

static char		 dir[] = "/tmp/cilknow-munge.XXXXXX";
static char		 sock[256];
static uint8_t		 sealed[MSG_SEALED_MAX], other[MSG_SEALED_MAX];
static uint8_t		 opened[MSG_PAYLOAD_MAX];

/* A private munged; 0 when it answers. */
static int
munged_start(void)
{
	char key[300], a[5][320];
	uint8_t k[1024];
	pid_t p;
	int fd, status, force;
	double until;

	snprintf(key, sizeof(key), "%s/key", dir);
	randombytes_buf(k, sizeof(k));
	if ((fd = open(key, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1 ||
	    write(fd, k, sizeof(k)) != (ssize_t)sizeof(k) || close(fd) == -1)
		return -1;
	snprintf(sock, sizeof(sock), "%s/socket", dir);
	snprintf(a[0], sizeof(a[0]), "--socket=%s", sock);
	snprintf(a[1], sizeof(a[1]), "--key-file=%s", key);
	snprintf(a[2], sizeof(a[2]), "--pid-file=%s/pid", dir);
	snprintf(a[3], sizeof(a[3]), "--log-file=%s/log", dir);
	snprintf(a[4], sizeof(a[4]), "--seed-file=%s/seed", dir);
	for (force = 0; force < 2; force++) {
		if ((p = fork()) == -1)
			return -1;
		if (p == 0) {
			execlp("munged", "munged", a[0], a[1], a[2], a[3],
			    a[4], force ? "--force" : (char *)NULL,
			    (char *)NULL);
			_exit(127);
		}
		if (waitpid(p, &status, 0) == -1 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) == 127)
			return -1;
		if (WEXITSTATUS(status) == 0)
			break;
	}
	for (until = now_mono() + 10; now_mono() < until; usleep(20000))
		if (msg_munge_reachable(sock))
			return 0;
	return -1;
}

static void
munged_stop(void)
{
	char path[300], text[32];
	FILE *fp;
	long pid = 0;

	snprintf(path, sizeof(path), "%s/pid", dir);
	if ((fp = fopen(path, "r")) != NULL) {
		if (fgets(text, sizeof(text), fp) != NULL)
			pid = strtol(text, NULL, 10);
		fclose(fp);
	}
	if (pid > 1)
		(void)kill((pid_t)pid, SIGTERM);
}

static void
ring(struct msg_keyring *kr)
{
	memset(kr, 0, sizeof(*kr));
	kr->kr_user_auth = 1u << MSG_SCHEME_MUNGE;
	kr->kr_munge = 1;
	strlcpy(kr->kr_munge_socket, sock, sizeof(kr->kr_munge_socket));
	if (msg_munge_user(geteuid(), kr->kr_munge_name,
	    sizeof(kr->kr_munge_name)) == -1)
		abort();
}

static size_t
seal(struct msg_keyring *kr, uint8_t *out, const char *text)
{
	struct msg_addr to;
	size_t len = 0;

	memset(&to, 0, sizeof(to));
	to.ma_family = 4;
	to.ma_addr[0] = 127;
	to.ma_addr[3] = 1;
	to.ma_port = 7410;
	if (msg_seal(kr, MSG_SCHEME_USER, 20, &to, now_real_ms(), text,
	    strlen(text), out, MSG_SEALED_MAX, &len) == -1)
		return 0;
	return len;
}

static enum msg_drop
open_it(struct msg_keyring *kr, const uint8_t *buf, size_t len,
    struct msg_hdr *h, size_t *plen)
{
	return msg_open(kr, now_mono(), buf, len, h, opened, sizeof(opened),
	    plen);
}

static void
test_layer(void)
{
	struct msg_keyring kr;
	struct msg_hdr h;
	size_t len, len2, plen, i, clen, bad = 0;
	char me[MSG_NAME_MAX + 1];

	ring(&kr);
	strlcpy(me, kr.kr_munge_name, sizeof(me));
	len = seal(&kr, sealed, "hello");
	ok(len > 0, "a user's process seals with a munge credential");
	is_int(sealed[3], MSG_SCHEME_MUNGE, "scheme byte munge");
	is_int(open_it(&kr, sealed, len, &h, &plen), MSG_DROP_NONE,
	    "it opens");
	is_str(h.mh_name, me, "as the user of our uid");
	ok(plen == 5 && memcmp(opened, "hello", 5) == 0, "payload intact");
	is_int(open_it(&kr, sealed, len, &h, &plen), MSG_DROP_REPLAY,
	    "a second decode is munged's replay");

	len = seal(&kr, sealed, "hello");
	sealed[len - 3 - (sealed[len - 2] << 8 | sealed[len - 1])] ^= 1;
	is_int(open_it(&kr, sealed, len, &h, &plen), MSG_DROP_BAD_CRED,
	    "a changed payload: the hash differs");

	strlcpy(kr.kr_munge_name, strcmp(me, "root") ? "root" : "daemon",
	    sizeof(kr.kr_munge_name));
	len = seal(&kr, sealed, "hello");
	is_int(open_it(&kr, sealed, len, &h, &plen), MSG_DROP_BAD_CRED,
	    "a header claiming another user than the credential's uid");
	strlcpy(kr.kr_munge_name, me, sizeof(kr.kr_munge_name));

	/* One credential on another message of the same length. */
	len = seal(&kr, sealed, "hello");
	len2 = seal(&kr, other, "jello");
	clen = (size_t)other[len2 - 2] << 8 | other[len2 - 1];
	ok(len == len2, "two messages alike in length");
	memcpy(sealed + len - 2 - clen, other + len2 - 2 - clen, clen + 2);
	is_int(open_it(&kr, sealed, len, &h, &plen), MSG_DROP_BAD_CRED,
	    "a credential moved to another message");

	len = seal(&kr, sealed, "hello");
	for (i = 0; i < len; i++)
		if (open_it(&kr, sealed, i, &h, &plen) == MSG_DROP_NONE)
			bad++;
	is_int(bad, 0, "truncated at every byte, it never opens");

	len = seal(&kr, sealed, "hello");
	clen = (size_t)sealed[len - 2] << 8 | sealed[len - 1];
	memcpy(other, sealed, len);
	other[len - 2] = 0;
	other[len - 1] = 0;
	is_int(open_it(&kr, other, len, &h, &plen), MSG_DROP_BAD_LENGTH,
	    "credential length 0");
	other[len - 2] = 0xff;
	other[len - 1] = 0xff;
	is_int(open_it(&kr, other, len, &h, &plen), MSG_DROP_BAD_LENGTH,
	    "credential length beyond the datagram");
	memcpy(other, sealed, len);
	other[len - 2 - clen + 3] = '\0';
	is_int(open_it(&kr, other, len, &h, &plen), MSG_DROP_BAD_CRED,
	    "a NUL inside the credential");

	kr.kr_user_auth = 1u << MSG_SCHEME_USER;
	is_int(open_it(&kr, sealed, len, &h, &plen), MSG_DROP_BAD_SCHEME,
	    "user_auth = user refuses a munge credential unread");
	kr.kr_user_auth = 1u << MSG_SCHEME_MUNGE;
	strlcpy(kr.kr_munge_socket, "/nonexistent/munge.socket",
	    sizeof(kr.kr_munge_socket));
	is_int(open_it(&kr, sealed, len, &h, &plen), MSG_DROP_UNKNOWN_KEY,
	    "no munged: dropped, not opened");
	ok(seal(&kr, other, "x") == 0 && errno == ECONNREFUSED,
	    "no munged: sealing fails with ECONNREFUSED");
	strlcpy(kr.kr_munge_socket, sock, sizeof(kr.kr_munge_socket));
	is_int(open_it(&kr, sealed, len, &h, &plen), MSG_DROP_NONE,
	    "the same message opens once munged is back");
}

static void
test_desc(void)
{
	struct msg_keyring kr;
	struct proto_desc d, got;
	static uint8_t buf[MSG_PAYLOAD_MAX];
	char why[256], arg0[] = "/bin/true";
	size_t n;

	ring(&kr);
	memset(&d, 0, sizeof(d));
	d.de_job = 7;
	d.de_task = 2;
	strlcpy(d.de_user, kr.kr_munge_name, sizeof(d.de_user));
	strlcpy(d.de_cwd, "/", sizeof(d.de_cwd));
	d.de_pri = 1;
	d.de_max = 4;
	d.de_issued_ms = now_real_ms();
	d.de_argc = 1;
	d.de_argv[0] = arg0;
	n = proto_desc_seal(&d, &kr, buf, sizeof(buf));
	ok(n > 0 && proto_desc_is_munge(buf, n),
	    "a description under a credential (key id 0)");
	ok(proto_desc_peek(&got, buf, n, why, sizeof(why)) == 0 &&
	    got.de_job == 7, "the engine reads it without decoding");
	proto_desc_free(&got);
	ok(proto_desc_open(&got, &kr, now_mono(), buf, n, why,
	    sizeof(why)) == 0 && got.de_task == 2, "the parent opens it");
	proto_desc_free(&got);
	ok(proto_desc_open(&got, &kr, now_mono(), buf, n, why,
	    sizeof(why)) == -1, "but only once (%s)", why);
	n = proto_desc_seal(&d, &kr, buf, sizeof(buf));
	buf[4 + 2 + strlen(d.de_user) + 4 + 3] ^= 1;	/* de_job */
	ok(proto_desc_open(&got, &kr, now_mono(), buf, n, why,
	    sizeof(why)) == -1, "a changed description is refused (%s)", why);
	n = proto_desc_seal_for(&d, PROTO_DESC_ROOT, &kr, buf, sizeof(buf));
	ok(proto_desc_open(&got, &kr, now_mono(), buf, n, why,
	    sizeof(why)) == -1 && strstr(why, "another description") != NULL,
	    "a root's backup under a credential is no job's description (%s)",
	    why);
	n = proto_desc_seal_for(&d, PROTO_DESC_ROOT, &kr, buf, sizeof(buf));
	ok(proto_desc_open_for(&got, PROTO_DESC_ROOT, &kr, now_mono(), buf, n,
	    why, sizeof(why)) == 0, "and opens as a root's backup");
	proto_desc_free(&got);
	n = proto_desc_seal(&d, &kr, buf, sizeof(buf));
	kr.kr_user_auth = 1u << MSG_SCHEME_USER;
	ok(proto_desc_open(&got, &kr, now_mono(), buf, n, why,
	    sizeof(why)) == -1, "user_auth without munge refuses it (%s)",
	    why);
}

int
main(void)
{
	/* munged wants every folder above its socket searchable. */
	if (sodium_init() < 0 || mkdtemp(dir) == NULL || chmod(dir, 0755) == -1)
		return 1;
	if (munged_start() == -1) {
		skip("no private munged could be started (apt-get install "
		    "munge)");
	} else {
		test_layer();
		test_desc();
	}
	munged_stop();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		(void)system(cmd);
	}
	return tap_done();
}
