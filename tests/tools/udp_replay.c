/*
 * udp_replay — an eavesdropper for tests: captures (AF_PACKET on lo, so
 * root only) the first UDP datagram that arrives for ADDR:PORT, lets the
 * original through untouched, and sends an exact copy COPIES more times
 * to the same address and port.  Gives up after SECONDS.  Exits 77 when
 * it cannot capture (not root), so the test can say it skipped.  With
 * GO-FILE, the copies wait until that file exists (within SECONDS): a
 * test can restart the receiver in between.  With UDP_REPLAY_HANDLER=N
 * in the environment, only a whole message (not a fragment) naming
 * handler N in its clear header is captured: a daemon's port carries
 * other traffic too.
 *   udp_replay ADDR:PORT COPIES SECONDS [GO-FILE]
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct sockaddr_ll sll;
	struct sockaddr_in dst;
	struct pollfd pfd;
	uint8_t pkt[65536 + 64];
	char host[64], *colon;
	socklen_t sl;
	ssize_t n;
	size_t ihl, ulen;
	time_t end;
	int ps, us, copies, i, sent = 0, handler = -1;
	const char *h = getenv("UDP_REPLAY_HANDLER");

	if (argc != 4 && argc != 5)
		errx(2, "usage: udp_replay ADDR:PORT COPIES SECONDS [GO-FILE]");
	strlcpy(host, argv[1], sizeof(host));
	if ((colon = strchr(host, ':')) == NULL)
		errx(2, "want ADDR:PORT");
	*colon = '\0';
	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &dst.sin_addr) != 1)
		errx(2, "bad address %s", host);
	copies = atoi(argv[2]);
	if (h != NULL)
		handler = atoi(h);
	end = time(NULL) + atoi(argv[3]);
	if ((ps = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP))) == -1) {
		if (errno == EPERM || errno == EACCES)
			return 77;
		err(1, "packet socket");
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_IP);
	if ((sll.sll_ifindex = (int)if_nametoindex("lo")) == 0 ||
	    bind(ps, (struct sockaddr *)&sll, sizeof(sll)) == -1)
		err(1, "bind lo");
	printf("capturing for %s\n", argv[1]);
	fflush(stdout);
	pfd.fd = ps;
	pfd.events = POLLIN;
	while (time(NULL) < end) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		sl = sizeof(sll);
		if ((n = recvfrom(ps, pkt, sizeof(pkt), 0,
		    (struct sockaddr *)&sll, &sl)) < 28)
			continue;
		/* Loopback shows each packet leaving and arriving. */
		if (sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		ihl = (size_t)(pkt[0] & 0x0f) * 4;
		if ((pkt[0] >> 4) != 4 || pkt[9] != IPPROTO_UDP ||
		    (size_t)n < ihl + 8 ||
		    memcmp(pkt + 16, &dst.sin_addr, 4) != 0 ||
		    memcmp(pkt + ihl + 2, &dst.sin_port, 2) != 0)
			continue;
		ulen = (size_t)(pkt[ihl + 4] << 8 | pkt[ihl + 5]);
		if (ulen < 8 || ihl + ulen > (size_t)n)
			continue;
		/* magic, version, kind 1 (a message), scheme, handler */
		if (handler >= 0 && (ulen < 8 + 6 || pkt[ihl + 8] != 0xC1 ||
		    pkt[ihl + 8 + 2] != 1 ||
		    (pkt[ihl + 8 + 4] << 8 | pkt[ihl + 8 + 5]) != handler))
			continue;
		if (argc == 5) {
			printf("captured %zu bytes; waiting for %s\n",
			    ulen - 8, argv[4]);
			fflush(stdout);
			while (access(argv[4], F_OK) == -1) {
				if (time(NULL) >= end) {
					printf("no go file\n");
					return 1;
				}
				(void)poll(NULL, 0, 20);
			}
		}
		if ((us = socket(AF_INET, SOCK_DGRAM, 0)) == -1)
			err(1, "socket");
		for (i = 0; i < copies; i++)
			if (sendto(us, pkt + ihl + 8, ulen - 8, 0,
			    (struct sockaddr *)&dst, sizeof(dst)) ==
			    (ssize_t)(ulen - 8))
				sent++;
		printf("captured %zu bytes; replayed %d times\n", ulen - 8,
		    sent);
		return 0;
	}
	printf("nothing captured\n");
	return 1;
}
