/* mono — the two clocks: monotonic for deadlines, realtime for the wire. */
#ifndef CILKNOW_MONO_H
#define CILKNOW_MONO_H

#include <stdint.h>

/* Seconds on CLOCK_MONOTONIC; calls fatal() if the clock fails. */
double		now_mono(void);
/* Milliseconds since the epoch on CLOCK_REALTIME (crosses machines). */
uint64_t	now_real_ms(void);
/* Nanoseconds since the epoch on CLOCK_REALTIME. */
uint64_t	now_real_ns(void);

#endif
