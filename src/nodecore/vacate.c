/* vacate — when a worker the owner wants gone is frozen, then killed. */
#include "vacate.h"

#include <string.h>

int
vacate_begin(struct vacate *v, double now, double grace, double fast)
{
	double freeze_at = now + fast, kill_at = now + grace;

	if (grace < 0 || fast < 0 || fast >= grace)
		return 0;
	if (!v->va_frozen && (v->va_freeze_at == 0 ||
	    freeze_at < v->va_freeze_at))
		v->va_freeze_at = freeze_at;
	if (v->va_kill_at == 0 || kill_at < v->va_kill_at)
		v->va_kill_at = kill_at;
	return 1;
}

enum vacate_act
vacate_due(struct vacate *v, double now)
{
	if (v->va_freeze_at != 0 && now >= v->va_freeze_at &&
	    (v->va_kill_at == 0 || now < v->va_kill_at)) {
		v->va_freeze_at = 0;
		v->va_frozen = 1;
		return VACATE_FREEZE;
	}
	if (v->va_kill_at != 0 && now >= v->va_kill_at) {
		v->va_freeze_at = v->va_kill_at = 0;
		return VACATE_KILL;
	}
	return VACATE_NONE;
}

int
vacate_pending(const struct vacate *v)
{
	return v->va_freeze_at != 0 || v->va_kill_at != 0;
}

void
vacate_clear(struct vacate *v)
{
	memset(v, 0, sizeof(*v));
}
