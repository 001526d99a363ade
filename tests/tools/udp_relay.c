/*
 * udp_relay — a man in the middle for tests: forwards every datagram a
 * client sends to LISTEN on to TARGET (COPIES times each), and TARGET's
 * answers back to the client, for at most SECONDS.  A secure layer must
 * refuse what it relays: the messages were sealed for LISTEN.
 *   udp_relay LISTEN_ADDR:PORT TARGET_ADDR:PORT COPIES SECONDS
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
parse(const char *text, struct sockaddr_in *sin)
{
	char host[64], *colon;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	strlcpy(host, text, sizeof(host));
	if ((colon = strchr(host, ':')) == NULL)
		errx(2, "%s: want ADDR:PORT", text);
	*colon = '\0';
	sin->sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		errx(2, "%s: bad address", text);
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in listen_at, target, client, from;
	struct pollfd pfd[2];
	uint8_t buf[65536];
	socklen_t sl;
	ssize_t n;
	time_t end;
	int front, back, copies, i;
	long forwarded = 0, returned = 0;

	if (argc != 5)
		errx(2, "usage: udp_relay LISTEN TARGET COPIES SECONDS");
	parse(argv[1], &listen_at);
	parse(argv[2], &target);
	copies = atoi(argv[3]);
	end = time(NULL) + atoi(argv[4]);
	if ((front = socket(AF_INET, SOCK_DGRAM, 0)) == -1 ||
	    (back = socket(AF_INET, SOCK_DGRAM, 0)) == -1)
		err(1, "socket");
	if (bind(front, (struct sockaddr *)&listen_at, sizeof(listen_at)) == -1)
		err(1, "bind %s", argv[1]);
	memset(&client, 0, sizeof(client));
	printf("relaying %s -> %s\n", argv[1], argv[2]);
	fflush(stdout);
	pfd[0].fd = front;
	pfd[1].fd = back;
	pfd[0].events = pfd[1].events = POLLIN;
	while (time(NULL) < end) {
		if (poll(pfd, 2, 100) <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			sl = sizeof(client);
			n = recvfrom(front, buf, sizeof(buf), 0,
			    (struct sockaddr *)&client, &sl);
			for (i = 0; n > 0 && i < copies; i++)
				if (sendto(back, buf, (size_t)n, 0,
				    (struct sockaddr *)&target,
				    sizeof(target)) == n)
					forwarded++;
		}
		if (pfd[1].revents & POLLIN) {
			sl = sizeof(from);
			n = recvfrom(back, buf, sizeof(buf), 0,
			    (struct sockaddr *)&from, &sl);
			if (n > 0 && client.sin_port != 0 &&
			    sendto(front, buf, (size_t)n, 0,
			    (struct sockaddr *)&client, sizeof(client)) == n)
				returned++;
		}
	}
	printf("forwarded %ld, returned %ld\n", forwarded, returned);
	return 0;
}
