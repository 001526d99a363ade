/*
 * msg_gate — what a munge credential must pass before the local munged
 * is asked to decode it, since every decode costs munged a round trip
 * and, when it fails, a line in munged's log.  The endpoint has already
 * checked the length, the header and the timestamp's window.  Then:
 *  - a credential seen before (the same bytes, whatever the header) is
 *    refused as a replay without a decode: munged would refuse a good
 *    one as replayed, and a bad one stays bad;
 *  - a source host (ports do not count) whose credentials failed to
 *    decode MSG_GATE_BURST times, and more than MSG_GATE_RATE a second
 *    after that, is refused (MSG_DROP_RATE) until its bucket refills.
 *    Good credentials cost nothing, so a flood of garbage from one host
 *    costs munged at most that rate, and slows no other host.
 */
#ifndef CILKNOW_MSG_GATE_H
#define CILKNOW_MSG_GATE_H

#include <stddef.h>
#include <stdint.h>

#include "msg_codec.h"

#define MSG_GATE_RATE	20	/* failed decodes a second per host */
#define MSG_GATE_BURST	50
#define MSG_GATE_HOSTS	1024	/* hosts remembered */
#define MSG_GATE_CREDS	4096	/* credentials remembered (a hash each) */

struct msg_gate;

struct msg_gate	*msg_gate_new(void);
void		 msg_gate_free(struct msg_gate *);
/*
 * Before decoding the munge-scheme message buf (len bytes, credential
 * and its u16 length last) from `from`: MSG_DROP_NONE to decode it, or
 * MSG_DROP_REPLAY, MSG_DROP_RATE, MSG_DROP_BAD_LENGTH.
 */
enum msg_drop	 msg_gate_before(struct msg_gate *, const struct msg_addr *from,
		    const uint8_t *buf, size_t len, double now);
/* After the decode: its verdict (MSG_DROP_NONE if the message opened). */
void		 msg_gate_after(struct msg_gate *, const struct msg_addr *from,
		    const uint8_t *buf, size_t len, enum msg_drop verdict,
		    double now);

#endif
