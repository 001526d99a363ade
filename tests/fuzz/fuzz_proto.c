/*
 * fuzz_proto — libFuzzer target for the payload decoders of the
 * macroscheduler's messages (src/proto: proto.h, proto_pred.h,
 * proto_root.h, proto_kill.h, proto_proc.h, proto_hist.h).  Payloads arrive authenticated, but from any user of
 * the cluster, and a node manager decodes them as root.
 *
 * The first byte picks the decoder, in the order of proto_rt[] in
 * tests/unit/proto_rt.h; the rest is its payload.  An accepted payload
 * must encode back to the very same bytes: a decoder must not take what
 * no encoder writes.  One more value picks proto_desc_open() with a
 * keyring that holds no key, which must refuse everything and free what
 * it decoded.  An oracle failure calls abort(); leaks are found by
 * AddressSanitizer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/proto_rt.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct msg_keyring kr;	/* no users folder: no user keys */
	static struct proto_desc d;
	char why[256];
	size_t which;

	/* No message carries a larger payload. */
	if (len < 1 || len - 1 > MSG_PAYLOAD_MAX)
		return 0;
	which = data[0] % (PROTO_RT_N + 1);
	if (which < PROTO_RT_N) {
		if (proto_rt[which].pr_fn(data + 1, len - 1) == 1)
			abort();	/* took bytes no encoder writes */
		return 0;
	}
	if (proto_desc_open(&d, &kr, 1, data + 1, len - 1, why,
	    sizeof(why)) != -1 || d.de_argc != 0 || d.de_envc != 0)
		abort();	/* opened without a key, or kept strings */
	return 0;
}
