/*
 * sensors_input — time of the last keyboard or mouse event, from struct
 * input_event records read without blocking from an evdev device (or
 * any file or FIFO that carries such records).
 */
#include "sensors.h"

#include <linux/input.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define INPUT_BATCH	64	/* records per read() */
#define INPUT_READS_MAX	64	/* read() calls per sensors_input_read() */

_Static_assert(sizeof(struct input_event) <= SENSORS_INPUT_REC_MAX,
    "SENSORS_INPUT_REC_MAX too small");

static int
is_user_input(const struct input_event *ev)
{
	switch (ev->type) {
	case EV_KEY:
	case EV_REL:
	case EV_ABS:
	case EV_MSC:
	case EV_SW:
		return 1;
	default:
		return 0;	/* EV_SYN, EV_LED, EV_SND, EV_REP, EV_FF... */
	}
}

int
sensors_input_open(struct sensors_input *si, const char *path, double now)
{
	if (si == NULL || path == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(si, 0, sizeof(*si));
	si->inp_last = now;
	if ((si->inp_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return -1;
	return si->inp_fd;
}

int
sensors_input_read(struct sensors_input *si, double now)
{
	unsigned char buf[INPUT_BATCH * sizeof(struct input_event)];
	struct input_event ev;
	size_t have, off;
	ssize_t n;
	int reads, nev = 0;

	if (si == NULL || si->inp_fd == -1 ||
	    si->inp_have >= sizeof(struct input_event)) {
		errno = EINVAL;
		return -1;
	}
	for (reads = 0; reads < INPUT_READS_MAX; reads++) {
		have = si->inp_have;
		memcpy(buf, si->inp_part, have);
		n = read(si->inp_fd, buf + have, sizeof(buf) - have);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n == -1)
			return -1;
		if (n == 0) {
			/* the writer left: its partial record is void */
			si->inp_eof = 1;
			si->inp_have = 0;
			break;
		}
		si->inp_eof = 0;
		have += (size_t)n;
		for (off = 0; have - off >= sizeof(ev); off += sizeof(ev)) {
			memcpy(&ev, buf + off, sizeof(ev));
			if (is_user_input(&ev)) {
				nev++;
				si->inp_events++;
			}
		}
		si->inp_have = have - off;
		memcpy(si->inp_part, buf + off, si->inp_have);
	}
	if (nev > 0 && now > si->inp_last)
		si->inp_last = now;
	return nev;
}

double
sensors_input_idle(const struct sensors_input *si, double now)
{
	double d = now - si->inp_last;

	return d > 0 ? d : 0;
}

void
sensors_input_close(struct sensors_input *si)
{
	if (si == NULL)
		return;
	if (si->inp_fd != -1)
		close(si->inp_fd);
	si->inp_fd = -1;
	si->inp_have = 0;
}
