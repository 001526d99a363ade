/*
 * priv_names: the users' names from the parent (priv_names.c).  The
 * C library's answers without a parent; the real parent's, served from
 * an event loop in a child process, to good, unknown and malformed
 * questions; a fake parent's stale, malformed and missing answers.
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "evloop.h"
#include "mono.h"
#include "priv.h"
#include "tap.h"
#include "wire.h"

/* The real parent's side, in a child: it answers until killed. */
static pid_t
serve(int fd)
{
	struct evloop *el;
	pid_t pid;

	if ((pid = fork()) != 0)
		return pid;
	if ((el = evloop_new()) == NULL || priv_names_parent(el, fd) == -1)
		_exit(1);
	(void)evloop_run(el);
	_exit(0);
}

static void
reap(pid_t pid)
{
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
}

/* An answer as the parent would send it, for the fake parents. */
static size_t
answer(uint8_t *buf, size_t cap, uint8_t kind, uint32_t seq, uint8_t st,
    uint32_t uid, const char *name)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, kind);
	wire_put_u32(&w, seq);
	wire_put_u8(&w, st);
	wire_put_u32(&w, uid);
	wire_put_str(&w, name);
	return w.ww_len;
}

/* The seq of the question a fake parent reads. */
static uint32_t
question_seq(int fd)
{
	uint8_t q[64];
	struct wire_r r;
	uint32_t seq = 0;
	uint8_t kind;
	ssize_t n;

	if ((n = recv(fd, q, sizeof(q), 0)) <= 0)
		return 0;
	wire_r_init(&r, q, (size_t)n);
	if (wire_get_u8(&r, &kind) == -1 || wire_get_u32(&r, &seq) == -1)
		return 0;
	return seq;
}

/*
 * A fake parent in a child: it reads one question and answers it with
 * uid and name, after an answer to an older question if stale.
 */
static pid_t
fake_parent(int fd, int stale, uint32_t uid, const char *name)
{
	uint8_t a[128];
	uint32_t seq;
	pid_t pid;

	if ((pid = fork()) != 0)
		return pid;
	seq = question_seq(fd);
	if (stale)
		(void)send(fd, a, answer(a, sizeof(a), 'u', seq - 1, 0, uid,
		    "stale"), 0);
	(void)send(fd, a, answer(a, sizeof(a), 'u', seq, 0, uid, name), 0);
	pause();
	_exit(0);
}

int
main(void)
{
	char name[64];
	uid_t uid;
	pid_t pid;
	double t0;
	int sv[2];

	/* 1. No parent: the C library. */
	priv_names_child(-1);
	ok(priv_name_of_uid(0, name, sizeof(name)) == 0 &&
	    strcmp(name, "root") == 0, "no parent: uid 0 is root");
	uid = 42;
	ok(priv_uid_of_name("root", &uid) == 0 && uid == 0,
	    "no parent: root is uid 0");
	errno = 0;
	ok(priv_uid_of_name("no-such-user-0942", &uid) == -1 &&
	    errno == ENOENT, "no parent: an unknown name is ENOENT");
	errno = 0;
	ok(priv_uid_of_name("a-name-longer-than-any-that-a-message-may-carry",
	    &uid) == -1 && errno == ENOENT, "a name too long is no user");

	/* 2. The real parent. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return 1;
	pid = serve(sv[0]);
	close(sv[0]);
	priv_names_child(sv[1]);
	ok(priv_name_of_uid(0, name, sizeof(name)) == 0 &&
	    strcmp(name, "root") == 0, "the parent: uid 0 is root");
	ok(priv_uid_of_name("root", &uid) == 0 && uid == 0,
	    "the parent: root is uid 0");
	errno = 0;
	ok(priv_name_of_uid(3999999, name, sizeof(name)) == -1 &&
	    errno == ENOENT, "the parent: an unknown uid is ENOENT");
	errno = 0;
	ok(priv_uid_of_name("no-such-user-0942", &uid) == -1 &&
	    errno == ENOENT, "the parent: an unknown name is ENOENT");
	errno = 0;
	ok(priv_name_of_uid(0, name, 3) == -1 && errno == ENAMETOOLONG,
	    "a buffer too small for the name: ENAMETOOLONG");
	/* Garbage the parent must survive: each is read and dropped. */
	(void)send(sv[1], "x", 1, 0);
	(void)send(sv[1], "u\0\0\0\1\0\0", 7, 0);
	(void)send(sv[1], "n\0\0\0\1\0\100abc", 10, 0);
	(void)send(sv[1], "n\0\0\0\1\0\0", 7, 0);
	(void)send(sv[1], "u\0\0\0\1\0\0\0\0\0", 10, 0);
	priv_names_child(sv[1]);	/* an empty cache: the parent asked */
	ok(priv_name_of_uid(0, name, sizeof(name)) == 0 &&
	    strcmp(name, "root") == 0,
	    "after five malformed questions the parent still answers");
	ok(kill(pid, 0) == 0, "and is still there");
	reap(pid);
	close(sv[1]);

	/* 3. A fake parent: a stale answer first, then the right one. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return 1;
	pid = fake_parent(sv[0], 1, 7, "fresh");
	close(sv[0]);
	priv_names_child(sv[1]);
	ok(priv_name_of_uid(7, name, sizeof(name)) == 0 &&
	    strcmp(name, "fresh") == 0,
	    "an answer to an older question is passed over");
	ok(priv_name_of_uid(7, name, sizeof(name)) == 0 &&
	    strcmp(name, "fresh") == 0, "asked again: the kept answer");
	reap(pid);
	close(sv[1]);

	/* 4. A fake parent's malformed answer: the lookup fails. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return 1;
	pid = fake_parent(sv[0], 0, 8, "");
	close(sv[0]);
	priv_names_child(sv[1]);
	errno = 0;
	ok(priv_name_of_uid(8, name, sizeof(name)) == -1 && errno == EIO,
	    "a found answer without a name: EIO");
	reap(pid);
	close(sv[1]);

	/* 5. A parent that never answers: EIO, after its 2 seconds. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return 1;
	priv_names_child(sv[1]);
	t0 = now_mono();
	errno = 0;
	ok(priv_name_of_uid(9, name, sizeof(name)) == -1 && errno == EIO,
	    "no answer: EIO");
	ok(now_mono() - t0 >= 1.9, "given up only after the wait");
	close(sv[0]);
	errno = 0;
	ok(priv_name_of_uid(10, name, sizeof(name)) == -1 && errno == EIO,
	    "a parent gone: EIO at once");
	close(sv[1]);

	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
