/*
 * fuzz_nmpriv — libFuzzer target for the node manager's parent/engine
 * messages (nmpriv.h).  The parent is root and its engine may be
 * compromised: whatever it sends must decode to a valid message or be
 * refused, and an accepted one must encode back to the very bytes.
 * An oracle failure calls abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nmpriv.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[NMPRIV_MSG_MAX];
	struct nmpriv_msg m;
	size_t len;

	if (nmpriv_decode(&m, data, size) == -1)
		return 0;
	if (m.nm_type < NMPRIV_BASE || m.nm_type >= NMPRIV_TYPE_MAX)
		abort();
	if ((m.nm_worker[0] != '\0' && !lpad_worker_ok(m.nm_worker)) ||
	    m.nm_desclen > NMPRIV_DESC_MAX)
		abort();
	if (nmpriv_encode(&m, out, sizeof(out), &len) == -1 || len != size ||
	    memcmp(out, data, size) != 0)
		abort();
	return 0;
}
