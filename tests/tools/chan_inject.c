/*
 * chan_inject — plays a compromised node-manager engine: it takes a copy
 * of the engine's end of the channel to the privileged parent (with
 * pidfd_getfd(2), which needs the right to ptrace the engine) and sends
 * the parent a request the engine would never make.
 *   chan_inject ENGINE_PID MODE [ARGS]
 * MODE forged-spawn CONF JOB USER CMD: a worker description for USER
 *                   signed by the user key CONF names (a key of another
 *                   user, or not installed on the node);
 *      stale-spawn CONF JOB CMD: signed honestly, but 600 s ago;
 *      spawn CONF KIND PURPOSE AGE NODE JOB CMD: a SPAWN of KIND (worker
 *                   or root) whose description is signed honestly by
 *                   the key CONF names, in PURPOSE's domain (job or
 *                   root), AGE seconds ago, issued to NODE (- for none);
 *      stop WORKER: a STOP for a worker the parent never started;
 *      garbage:     bytes that are no message at all.
 * Prints "sent MODE"; the test reads the parent's log.
 */
#include <sys/socket.h>
#include <sys/syscall.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "conf.h"
#include "mono.h"
#include "msg_keyring.h"
#include "nmpriv.h"
#include "proto.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd	438
#endif

/* The engine's only SOCK_SEQPACKET socket: its channel to the parent. */
static int
engine_channel(pid_t pid)
{
	int pidfd, fd, type, i;
	socklen_t len;

	if ((pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		err(1, "pidfd_open %d", (int)pid);
	for (i = 0; i < 1024; i++) {
		if ((fd = (int)syscall(SYS_pidfd_getfd, pidfd, i, 0)) == -1)
			continue;
		len = sizeof(type);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
		    type == SOCK_SEQPACKET) {
			close(pidfd);
			return fd;
		}
		close(fd);
	}
	errx(1, "no channel among the fds of %d", (int)pid);
}

static size_t
signed_desc_for(const char *conf, enum proto_desc_purpose purpose,
    const char *node, uint32_t job, const char *user, const char *cmd,
    int64_t age_ms, uint8_t *buf, size_t cap)
{
	static struct msg_keyring kr;
	struct proto_desc d;
	struct conf *cf;
	char why[512];
	size_t n;

	if ((cf = conf_new()) == NULL ||
	    conf_load_file(cf, conf, 0, stderr) != 0)
		errx(2, "%s: bad config", conf);
	if (msg_keyring_load(&kr, cf, MSG_KR_USER, NULL, why,
	    sizeof(why)) == -1)
		errx(1, "%s", why);
	memset(&d, 0, sizeof(d));
	d.de_job = job;
	strlcpy(d.de_user, user != NULL ? user :
	    kr.kr_user.ks_key[0].k_name, sizeof(d.de_user));
	strlcpy(d.de_cwd, "/", sizeof(d.de_cwd));
	d.de_pri = 1;
	d.de_issued_ms = now_real_ms() - (uint64_t)age_ms;
	strlcpy(d.de_node, node, sizeof(d.de_node));
	d.de_argv[d.de_argc++] = (char *)(uintptr_t)cmd;
	if ((n = proto_desc_sign_for(&d, purpose, &kr.kr_user.ks_key[0], buf,
	    cap)) == 0)
		errx(1, "cannot sign");
	conf_free(cf);
	return n;
}

static size_t
signed_desc(const char *conf, uint32_t job, const char *user,
    const char *cmd, int64_t age_ms, uint8_t *buf, size_t cap)
{
	return signed_desc_for(conf, PROTO_DESC_JOB, "", job, user, cmd,
	    age_ms, buf, cap);
}

int
main(int argc, char *argv[])
{
	static uint8_t desc[NMPRIV_DESC_MAX], buf[NMPRIV_MSG_MAX];
	/* A well-framed STOP whose worker's length runs past the end. */
	static const uint8_t garbage[] = { 0, NMPRIV_STOP, 0, 0, 0, 3, 0xff,
	    0xff, 'x' };
	struct nmpriv_msg m;
	const char *errstr, *mode;
	size_t len = 0;
	pid_t pid;
	int fd;

	if (argc < 3 || sodium_init() < 0)
		errx(2, "usage: chan_inject ENGINE_PID MODE [ARGS]");
	pid = (pid_t)strtonum(argv[1], 2, 1 << 30, &errstr);
	if (errstr != NULL)
		errx(2, "%s: bad pid", argv[1]);
	mode = argv[2];
	memset(&m, 0, sizeof(m));
	if (strcmp(mode, "forged-spawn") == 0 && argc == 7) {
		m.nm_type = NMPRIV_SPAWN;
		m.nm_kind = NMPRIV_KIND_WORKER;
		m.nm_req = 999999;
		m.nm_desc = desc;
		m.nm_desclen = (uint32_t)signed_desc(argv[3],
		    (uint32_t)atoi(argv[4]), argv[5], argv[6], 0, desc,
		    sizeof(desc));
	} else if (strcmp(mode, "stale-spawn") == 0 && argc == 6) {
		m.nm_type = NMPRIV_SPAWN;
		m.nm_kind = NMPRIV_KIND_WORKER;
		m.nm_req = 999998;
		m.nm_desc = desc;
		m.nm_desclen = (uint32_t)signed_desc(argv[3],
		    (uint32_t)atoi(argv[4]), NULL, argv[5], 600000, desc,
		    sizeof(desc));
	} else if (strcmp(mode, "spawn") == 0 && argc == 10) {
		m.nm_type = NMPRIV_SPAWN;
		m.nm_kind = strcmp(argv[4], "root") == 0 ? NMPRIV_KIND_ROOT :
		    NMPRIV_KIND_WORKER;
		m.nm_req = 999997;
		if (m.nm_kind == NMPRIV_KIND_ROOT)
			strlcpy(m.nm_tag, "rinject", sizeof(m.nm_tag));
		m.nm_desc = desc;
		m.nm_desclen = (uint32_t)signed_desc_for(argv[3],
		    strcmp(argv[5], "root") == 0 ? PROTO_DESC_ROOT :
		    PROTO_DESC_JOB, strcmp(argv[7], "-") == 0 ? "" : argv[7],
		    (uint32_t)atoi(argv[8]), NULL, argv[9],
		    (int64_t)atoll(argv[6]) * 1000, desc, sizeof(desc));
	} else if (strcmp(mode, "stop") == 0 && argc == 4) {
		m.nm_type = NMPRIV_STOP;
		strlcpy(m.nm_worker, argv[3], sizeof(m.nm_worker));
		m.nm_grace_ms = 1;
	} else if (strcmp(mode, "garbage") != 0 || argc != 3)
		errx(2, "%s: unknown mode or wrong arguments", mode);
	fd = engine_channel(pid);
	if (m.nm_type != NMPRIV_UNDEF &&
	    nmpriv_encode(&m, buf, sizeof(buf), &len) == -1)
		errx(1, "cannot encode");
	if (m.nm_type == NMPRIV_UNDEF) {
		memcpy(buf, garbage, sizeof(garbage));
		len = sizeof(garbage);
	}
	if (send(fd, buf, len, MSG_NOSIGNAL) == -1)
		err(1, "send");
	printf("sent %s\n", mode);
	close(fd);
	return 0;
}
