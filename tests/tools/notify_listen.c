/*
 * notify_listen — a stand-in for systemd's notify socket in tests:
 * binds a datagram socket at PATH and appends every notification to
 * OUT as one line (the message's newlines become '|'), for at most
 * SECONDS.  Tests point a daemon's NOTIFY_SOCKET at PATH and grep OUT.
 * With PIDS, each line is also appended there after the sender's pid
 * as the kernel vouches for it (SCM_CREDENTIALS), as systemd checks it
 * against NotifyAccess=main.
 *   notify_listen PATH OUT SECONDS [PIDS]
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <err.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct sockaddr_un sun;
	struct pollfd pfd;
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *cm;
	struct ucred cred;
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(struct ucred))];
	} cbuf;
	char buf[8192];
	const char *errstr;
	time_t end;
	ssize_t n, i;
	FILE *out, *pids = NULL;
	int fd, secs, on = 1;

	if (argc != 4 && argc != 5)
		errx(2, "usage: notify_listen PATH OUT SECONDS [PIDS]");
	secs = (int)strtonum(argv[3], 1, 3600, &errstr);
	if (errstr != NULL)
		errx(2, "SECONDS %s: %s", argv[3], errstr);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, argv[1], sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		errx(1, "%s: path too long", argv[1]);
	(void)unlink(argv[1]);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		err(1, "bind %s", argv[1]);
	/* Anyone may send, as to systemd's /run/systemd/notify. */
	if (chmod(argv[1], 0777) == -1)
		err(1, "chmod %s", argv[1]);
	if ((out = fopen(argv[2], "a")) == NULL)
		err(1, "%s", argv[2]);
	if (argc == 5 && ((pids = fopen(argv[4], "a")) == NULL ||
	    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) == -1))
		err(1, "%s", argv[4]);
	end = time(NULL) + secs;
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (time(NULL) < end) {
		if (poll(&pfd, 1, 200) != 1)
			continue;
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf) - 1;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = sizeof(cbuf.buf);
		if ((n = recvmsg(fd, &mh, 0)) <= 0)
			continue;
		cred.pid = 0;
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL;
		    cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_CREDENTIALS &&
			    cm->cmsg_len == CMSG_LEN(sizeof(cred)))
				memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
		for (i = 0; i < n; i++)
			if (buf[i] == '\n')
				buf[i] = '|';
		buf[n] = '\0';
		fprintf(out, "%s\n", buf);
		fflush(out);
		if (pids != NULL) {
			fprintf(pids, "%ld %s\n", (long)cred.pid, buf);
			fflush(pids);
		}
	}
	(void)unlink(argv[1]);
	return 0;
}
