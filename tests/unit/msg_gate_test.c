/* Unit tests of msg_gate: what a munge credential passes before munged. */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "msg_gate.h"
#include "tap.h"

static uint8_t dg[256];

/* A datagram ending in a credential of 40 bytes of seed, and its length. */
static size_t
make(int seed)
{
	size_t i;

	memset(dg, 0xee, 100);
	for (i = 0; i < 40; i++)
		dg[100 + i] = (uint8_t)('A' + (seed + (int)i) % 26);
	dg[100 + 40] = 0;
	dg[100 + 41] = 40;
	return 142;
}

static struct msg_addr
host(uint8_t last, uint16_t port)
{
	struct msg_addr a;

	memset(&a, 0, sizeof(a));
	a.ma_family = 4;
	a.ma_addr[0] = 127;
	a.ma_addr[3] = last;
	a.ma_port = port;
	return a;
}

int
main(void)
{
	struct msg_gate *g;
	struct msg_addr a = host(1, 5000), b = host(2, 5000), a2;
	size_t n;
	int i, passed;

	if (sodium_init() < 0)
		return 1;
	ok((g = msg_gate_new()) != NULL, "msg_gate_new");
	n = make(0);
	is_int(msg_gate_before(g, &a, dg, n, 1.0), MSG_DROP_NONE,
	    "a new credential may be decoded");
	msg_gate_after(g, &a, dg, n, MSG_DROP_NONE, 1.0);
	is_int(msg_gate_before(g, &a, dg, n, 1.0), MSG_DROP_REPLAY,
	    "the same credential again: a replay, not decoded");
	is_int(msg_gate_before(g, &b, dg, n, 1.0), MSG_DROP_REPLAY,
	    "from another host too");
	dg[n - 1] = 0;
	is_int(msg_gate_before(g, &a, dg, n, 1.0), MSG_DROP_BAD_LENGTH,
	    "a credential of length 0 is refused");
	dg[n - 1] = 200;
	is_int(msg_gate_before(g, &a, dg, n, 1.0), MSG_DROP_BAD_LENGTH,
	    "one longer than the datagram is refused");
	/* Garbage from one host: a burst of failures, then its rate. */
	for (passed = 0, i = 1; i <= 1000; i++) {
		n = make(i * 7);
		dg[99] = (uint8_t)i;	/* header bytes differ too */
		dg[100] = (uint8_t)('a' + i % 26);
		dg[101] = (uint8_t)('a' + i / 26 % 26);
		if (msg_gate_before(g, &a, dg, n, 2.0) == MSG_DROP_NONE) {
			passed++;
			msg_gate_after(g, &a, dg, n, MSG_DROP_BAD_CRED, 2.0);
		}
	}
	is_int(passed, MSG_GATE_BURST, "1000 bad credentials at once from "
	    "one host: %d decoded", MSG_GATE_BURST);
	a2 = host(1, 6000);
	n = make(5000);
	is_int(msg_gate_before(g, &a2, dg, n, 2.0), MSG_DROP_RATE,
	    "another port of that host waits too");
	is_int(msg_gate_before(g, &b, dg, n, 2.0), MSG_DROP_NONE,
	    "another host does not");
	is_int(msg_gate_before(g, &a, dg, n, 2.0 + 1.0 / MSG_GATE_RATE + 0.01),
	    MSG_DROP_NONE, "after 1/rate s the host may try one more");
	/* Good credentials cost a host nothing. */
	for (passed = 0, i = 0; i < 200; i++) {
		n = make(10000 + i);
		dg[100] = (uint8_t)('0' + i % 10);
		dg[101] = (uint8_t)('0' + i / 10 % 10);
		dg[102] = (uint8_t)('0' + i / 100 % 10);
		if (msg_gate_before(g, &b, dg, n, 3.0) == MSG_DROP_NONE) {
			passed++;
			msg_gate_after(g, &b, dg, n, MSG_DROP_NONE, 3.0);
		}
	}
	is_int(passed, 200, "200 good credentials from one host: all decoded");
	/* An unreachable munged is ours, not the sender's fault. */
	for (i = 0; i < 200; i++) {
		n = make(20000 + i);
		dg[100] = (uint8_t)('a' + i % 10);
		dg[101] = (uint8_t)('k' + i / 10 % 10);
		dg[102] = (uint8_t)('u' + i / 100 % 5);
		msg_gate_after(g, &b, dg, n, MSG_DROP_UNKNOWN_KEY, 3.0);
	}
	is_int(msg_gate_before(g, &b, dg, n, 3.0), MSG_DROP_NONE,
	    "200 undecoded for an unreachable munged: neither charged nor "
	    "remembered");
	msg_gate_free(g);
	return tap_done();
}
