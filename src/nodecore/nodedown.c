/* nodedown — node-side start failures in a row take a node down. */
#include "nodedown.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void
nd_init(struct nd_count *c, uint32_t limit)
{
	memset(c, 0, sizeof(*c));
	nd_set_limit(c, limit);
}

void
nd_set_limit(struct nd_count *c, uint32_t limit)
{
	c->nd_limit = limit > 0 ? limit : 1;
}

int
nd_fault(struct nd_count *c, const char *why)
{
	char tail[48];
	size_t n, room, i;

	if (c->nd_run < UINT32_MAX)
		c->nd_run++;
	if (c->nd_down || c->nd_run < c->nd_limit)
		return 0;
	c->nd_down = 1;
	c->nd_gen++;
	if (c->nd_gen == 0)
		c->nd_gen = 1;	/* 0 is never a down's number */
	snprintf(tail, sizeof(tail), " (%u starts in a row)",
	    (unsigned)c->nd_run);
	if (why == NULL || why[0] == '\0')
		why = "no reason given";
	/* The reason first, cut so that the count still fits. */
	room = ND_REASON_MAX - strlen(tail);
	n = strnlen(why, room);
	for (i = 0; i < n; i++)
		c->nd_reason[i] = (unsigned char)why[i] >= 0x20 &&
		    (unsigned char)why[i] < 0x7f ? why[i] : '?';
	c->nd_reason[n] = '\0';
	strncat(c->nd_reason, tail, sizeof(c->nd_reason) - n - 1);
	return 1;
}

void
nd_started(struct nd_count *c)
{
	c->nd_run = 0;
}

int
nd_resumed(struct nd_count *c)
{
	int was = c->nd_down;

	c->nd_down = 0;
	c->nd_run = 0;
	c->nd_reason[0] = '\0';
	return was;
}
