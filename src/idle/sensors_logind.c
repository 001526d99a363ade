/*
 * sensors_logind — the idle hint of systemd-logind, asked over D-Bus
 * with sd-bus: where a node manager cannot read the input devices,
 * logind (which graphical sessions keep informed) still knows when the
 * users were last active.
 */
#include "sensors.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include <systemd/sd-bus.h>

#define LOGIND_DEST	"org.freedesktop.login1"
#define LOGIND_PATH	"/org/freedesktop/login1"
#define LOGIND_IFACE	"org.freedesktop.login1.Manager"

int
sensors_logind_open(struct sensors_logind *lg, const char *address)
{
	sd_bus *b = NULL;
	int r;

	lg->sl_bus = NULL;	/* sl_session is the caller's */
	if (address == NULL)
		r = sd_bus_open_system(&b);
	else if ((r = sd_bus_new(&b)) >= 0 &&
	    (r = sd_bus_set_address(b, address)) >= 0 &&
	    (r = sd_bus_set_bus_client(b, 1)) >= 0)
		r = sd_bus_start(b);
	if (r >= 0)
		r = sd_bus_set_method_call_timeout(b,
		    SENSORS_LOGIND_TIMEOUT_US);
	if (r < 0) {
		sd_bus_unref(b);
		errno = -r;
		return -1;
	}
	lg->sl_bus = b;
	return 0;
}

int
sensors_logind_idle(struct sensors_logind *lg, double *idle)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	struct timespec ts;
	uint64_t since, now;
	int hint, r;

	if (lg->sl_bus == NULL) {
		errno = ENOTCONN;
		return -1;
	}
	if ((r = sd_bus_get_property_trivial(lg->sl_bus, LOGIND_DEST,
	    LOGIND_PATH, LOGIND_IFACE, "IdleHint", &e, 'b', &hint)) < 0 ||
	    (r = sd_bus_get_property_trivial(lg->sl_bus, LOGIND_DEST,
	    LOGIND_PATH, LOGIND_IFACE, "IdleSinceHintMonotonic", &e, 't',
	    &since)) < 0) {
		sd_bus_error_free(&e);
		errno = -r;
		return -1;
	}
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		return -1;
	now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	if (hint && since == 0) {
		/* No session: idle since the last one was seen to end. */
		*idle = (double)now / 1e6 > lg->sl_session ?
		    (double)now / 1e6 - lg->sl_session : 0;
		return 0;
	}
	lg->sl_session = (double)now / 1e6;
	*idle = !hint ? 0 : now > since ? (double)(now - since) / 1e6 : 0;
	return 0;
}

void
sensors_logind_close(struct sensors_logind *lg)
{
	if (lg->sl_bus != NULL)
		sd_bus_flush_close_unref(lg->sl_bus);
	lg->sl_bus = NULL;
}
