/* nodefault — node-side start failures, as a job manager says them. */
#include "nodefault.h"

#include <stdio.h>
#include <string.h>

#define NOT_STARTED	"not started: "

void
nf_host(const char *node, char *buf, size_t bufsz)
{
	size_t n = strcspn(node, "/");

	if (bufsz == 0)
		return;
	if (n >= bufsz)
		n = bufsz - 1;
	memcpy(buf, node, n);
	buf[n] = '\0';
}

/* FNV-1a over the host, a 0 byte, then the reason. */
static uint64_t
said_hash(const char *host, const char *reason)
{
	uint64_t h = 1469598103934665603ULL;
	const char *p;

	for (p = host; *p != '\0'; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ULL;
	h *= 1099511628211ULL;
	for (p = reason; *p != '\0'; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ULL;
	return h;
}

int
nf_first(struct nf_said *s, const char *node, const char *reason)
{
	char host[64];
	uint64_t h;
	uint32_t i;

	nf_host(node, host, sizeof(host));
	h = said_hash(host, reason);
	for (i = 0; i < s->ns_n; i++)
		if (s->ns_hash[i] == h)
			return 0;
	if (s->ns_n < NF_SAID_MAX)
		s->ns_hash[s->ns_n++] = h;
	return 1;
}

void
nf_reason(const uint8_t *raw, size_t len, char *buf, size_t bufsz)
{
	size_t i, o = 0, skip = sizeof(NOT_STARTED) - 1;

	if (bufsz == 0)
		return;
	if (len < skip || memcmp(raw, NOT_STARTED, skip) != 0)
		skip = 0;
	for (i = skip; i < len && o < bufsz - 1; i++)
		buf[o++] = raw[i] >= 0x20 && raw[i] < 0x7f ? (char)raw[i] :
		    '?';
	buf[o] = '\0';
	if (o == 0)
		snprintf(buf, bufsz, "no reason given");
}

void
nf_line(const char *node, const char *reason, uint32_t task, int elsewhere,
    char *buf, size_t bufsz)
{
	char host[64];

	nf_host(node, host, sizeof(host));
	snprintf(buf, bufsz, "node %s: %s; task %u %s", host, reason, task,
	    elsewhere ? "runs elsewhere" : "waits for another node");
}
