/* broker_wait — job managers held by --after, for CilkPs. */
#include "broker_wait.h"

#include <stdio.h>
#include <string.h>

void
broker_wait_init(struct broker_waits *w)
{
	memset(w, 0, sizeof(*w));
}

static void
drop(struct broker_waits *w, uint32_t i)
{
	memmove(&w->bw_w[i], &w->bw_w[i + 1],
	    (w->bw_n - i - 1) * sizeof(w->bw_w[0]));
	w->bw_n--;
}

int
broker_wait_note(struct broker_waits *w, const char *user,
    const struct msg_addr *a, uint32_t after, uint32_t user_max, double now)
{
	struct broker_waiter *x;
	uint32_t i, mine = 0;

	for (i = 0; i < w->bw_n; i++) {
		x = &w->bw_w[i];
		if (msg_addr_eq(&x->bw_addr, a) &&
		    strcmp(x->bw_user, user) == 0) {
			if (x->bw_after != after) {
				x->bw_after = after;
				x->bw_since = now;
			}
			x->bw_seen = now;
			return 0;
		}
		mine += strcmp(x->bw_user, user) == 0;
	}
	if ((user_max != 0 && mine >= user_max) || w->bw_n >= BROKER_WAITS_MAX)
		return -1;
	x = &w->bw_w[w->bw_n++];
	memset(x, 0, sizeof(*x));
	strlcpy(x->bw_user, user, sizeof(x->bw_user));
	x->bw_addr = *a;
	x->bw_after = after;
	x->bw_since = x->bw_seen = now;
	return 0;
}

void
broker_wait_forget(struct broker_waits *w, const struct msg_addr *a)
{
	uint32_t i;

	for (i = 0; i < w->bw_n; )
		if (msg_addr_eq(&w->bw_w[i].bw_addr, a))
			drop(w, i);
		else
			i++;
}

void
broker_wait_expire(struct broker_waits *w, double now, double keep)
{
	uint32_t i;

	if (keep < BROKER_WAIT_KEEP)
		keep = BROKER_WAIT_KEEP;
	for (i = 0; i < w->bw_n; )
		if (now - w->bw_w[i].bw_seen > keep)
			drop(w, i);
		else
			i++;
}

void
broker_wait_row(const struct broker_waiter *x, double now,
    struct proto_job_row *r)
{
	double age = now - x->bw_since;

	memset(r, 0, sizeof(*r));
	strlcpy(r->jw_user, x->bw_user, sizeof(r->jw_user));
	r->jw_addr = x->bw_addr;
	r->jw_pri = 1;
	r->jw_age = age > 0 ? (age < UINT32_MAX ? (uint32_t)age :
	    UINT32_MAX) : 0;
	snprintf(r->jw_command, sizeof(r->jw_command), "--after %u",
	    (unsigned)x->bw_after);
	r->jw_pending = PROTO_PENDING_AFTER;
}
