/*
 * slots — the --slots distribution, "1:50%,8:30%,32:20%": the share of
 * the nodes that lend each number of processors.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilksim.h"

/* One "S:PCT%" item into *ss; NULL or what is wrong with it. */
static const char *
one(const char *item, struct sim_slots *ss, char *why, size_t len)
{
	const char *colon = strchr(item, ':');
	char *end;
	unsigned long n;
	double pct;

	if (colon == NULL || colon == item) {
		snprintf(why, len, "\"%s\" is not slots:percent%% "
		    "(as in 8:30%%)", item);
		return why;
	}
	errno = 0;
	n = strtoul(item, &end, 10);
	if (end != colon || errno != 0 || item[0] < '0' || item[0] > '9' ||
	    n < 1 || n > SIM_SLOTS_MAX) {
		snprintf(why, len, "\"%.*s\" is not a number of processors "
		    "in 1..%u", (int)(colon - item), item, SIM_SLOTS_MAX);
		return why;
	}
	errno = 0;
	pct = strtod(colon + 1, &end);
	if (end == colon + 1 || strcmp(end, "%") != 0 || errno != 0 ||
	    !isfinite(pct) || !(pct > 0) || pct > 100) {
		snprintf(why, len, "\"%s\" is not a percentage in (0, 100] "
		    "followed by %%", colon + 1);
		return why;
	}
	ss->ss_slots = (uint32_t)n;
	ss->ss_frac = pct / 100;
	return NULL;
}

const char *
cs_slots_parse(const char *s, struct sim_slots *out, uint32_t *n)
{
	static char why[160];
	char *copy, *p, *item;
	const char *bad = NULL;
	double sum = 0;
	uint32_t i;

	*n = 0;
	if ((copy = strdup(s)) == NULL)
		return strerror(errno);
	p = copy;
	while (bad == NULL && (item = strsep(&p, ",")) != NULL) {
		if (*n == SIM_SLOT_KINDS_MAX) {
			snprintf(why, sizeof(why), "more than %u entries",
			    SIM_SLOT_KINDS_MAX);
			bad = why;
			break;
		}
		if ((bad = one(item, &out[*n], why, sizeof(why))) != NULL)
			break;
		for (i = 0; i < *n && bad == NULL; i++)
			if (out[i].ss_slots == out[*n].ss_slots) {
				snprintf(why, sizeof(why), "%u processors "
				    "listed twice", out[i].ss_slots);
				bad = why;
			}
		sum += out[(*n)++].ss_frac;
	}
	free(copy);
	if (bad == NULL && fabs(sum - 1) > 1e-6) {
		snprintf(why, sizeof(why), "the percentages sum to %g, not "
		    "100", sum * 100);
		bad = why;
	}
	return bad;
}
