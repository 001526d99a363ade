/* nodefault: what a job manager says of a node-side start failure. */
#include <string.h>

#include "nodefault.h"
#include "tap.h"

static void
test_reason(void)
{
	static const uint8_t raw[] = "not started: user bob unknown";
	static const uint8_t ctl[] = { 'a', '\n', 'b', 0x80, 'c' };
	char buf[64];

	nf_reason(raw, sizeof(raw) - 1, buf, sizeof(buf));
	is_str(buf, "user bob unknown", "\"not started: \" cut");
	nf_reason((const uint8_t *)"no space", 8, buf, sizeof(buf));
	is_str(buf, "no space", "a reason without it, as it is");
	nf_reason(ctl, sizeof(ctl), buf, sizeof(buf));
	is_str(buf, "a?b?c", "bytes that are not printable ASCII replaced");
	nf_reason(raw, 13, buf, sizeof(buf));
	is_str(buf, "no reason given", "an empty reason says so");
	nf_reason(raw, sizeof(raw) - 1, buf, 5);
	is_str(buf, "user", "cut to the buffer");
}

static void
test_once(void)
{
	static struct nf_said said;
	char buf[128], node[16];
	int i, firsts = 0;

	ok(nf_first(&said, "ws2", "user bob unknown"), "first: said");
	ok(!nf_first(&said, "ws2", "user bob unknown"), "again: not said");
	ok(!nf_first(&said, "ws2/3", "user bob unknown"),
	    "another processor of the node: not said");
	ok(nf_first(&said, "ws2", "no space left"),
	    "another reason on the node: said");
	ok(nf_first(&said, "ws1", "user bob unknown"),
	    "the same reason on another node: said");
	for (i = 0; i < NF_SAID_MAX + 10; i++) {
		(void)snprintf(node, sizeof(node), "n%d", i);
		firsts += nf_first(&said, node, "x");
	}
	is_int(firsts, NF_SAID_MAX + 10, "a full table says each");
	nf_host("10.0.0.7/12", buf, sizeof(buf));
	is_str(buf, "10.0.0.7", "the host of a processor");
	nf_host("10.0.0.7", buf, 4);
	is_str(buf, "10.", "a host cut to the buffer");
	nf_line("127.0.0.3/1", "user bob unknown", 4, 1, buf, sizeof(buf));
	is_str(buf, "node 127.0.0.3: user bob unknown; task 4 runs elsewhere",
	    "the line");
	nf_line("ws2", "x", 0, 0, buf, sizeof(buf));
	is_str(buf, "node ws2: x; task 0 waits for another node",
	    "the line when no other node runs the job yet");
}

int
main(void)
{
	test_reason();
	test_once();
	return tap_done();
}
