/*
 * notify_listen — a stand-in for systemd's notify socket in tests:
 * binds a datagram socket at PATH and appends every notification to
 * OUT as one line (the message's newlines become '|'), for at most
 * SECONDS.  Tests point a daemon's NOTIFY_SOCKET at PATH and grep OUT.
 *   notify_listen PATH OUT SECONDS
 */
#include <sys/socket.h>
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
	char buf[8192];
	const char *errstr;
	time_t end;
	ssize_t n, i;
	FILE *out;
	int fd, secs;

	if (argc != 4)
		errx(2, "usage: notify_listen PATH OUT SECONDS");
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
	if ((out = fopen(argv[2], "a")) == NULL)
		err(1, "%s", argv[2]);
	end = time(NULL) + secs;
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (time(NULL) < end) {
		if (poll(&pfd, 1, 200) != 1)
			continue;
		if ((n = recv(fd, buf, sizeof(buf) - 1, 0)) <= 0)
			continue;
		for (i = 0; i < n; i++)
			if (buf[i] == '\n')
				buf[i] = '|';
		buf[n] = '\0';
		fprintf(out, "%s\n", buf);
		fflush(out);
	}
	(void)unlink(argv[1]);
	return 0;
}
