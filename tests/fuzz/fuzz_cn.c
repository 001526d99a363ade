/*
 * fuzz_cn — libFuzzer target for the runtime's decoders of what comes
 * off the wire or the disk: the clearinghouse's messages (cn_msg_dec,
 * with the records they carry), the stealing messages between workers
 * (cn_smsg_dec) and checkpoints (cn_ckpt_dec).  The first byte picks
 * the message type (its top bit: a stealing one); every accepted message must
 * encode again to the same bytes, so nothing is accepted that the
 * encoder could not have written.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cn.h"
#include "cn_steal.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct cn_msg m;
	static uint8_t out[MSG_PAYLOAD_MAX];
	struct cn_frame *frames;
	const uint8_t *rec;
	enum cn_handler h;
	size_t olen, nrec;
	int64_t sum;
	uint32_t n;

	static struct cn_member mb[CN_MEMBERS_MAX];
	static struct cn_smsg sm;
	enum cn_steal_handler sh;

	if (len < 1)
		return 0;
	if (data[0] & 0x80) {
		sh = (enum cn_steal_handler)(CN_H_MEMBERS_ASK + (data[0] &
		    0x7f) % (CN_H_STEAL_END - CN_H_MEMBERS_ASK));
		sm.sm_members = mb;
		if (cn_smsg_dec(sh, &sm, data + 1, len - 1) == 0) {
			olen = cn_smsg_enc(sh, &sm, out, sizeof(out));
			if (olen != len - 1 || memcmp(out, data + 1, olen) != 0)
				abort();	/* they disagree */
		}
		return 0;
	}
	h = (enum cn_handler)(CN_H_REGISTER + data[0] % (CN_H_MAX -
	    CN_H_REGISTER));
	if (cn_msg_dec(h, &m, data + 1, len - 1) == 0) {
		olen = cn_msg_enc(h, &m, out, sizeof(out));
		if (olen != len - 1 || memcmp(out, data + 1, olen) != 0)
			abort();	/* decoder and encoder disagree */
		if (m.cm_len > 0 &&
		    cn_records_walk(m.cm_data, m.cm_len, NULL, NULL) == -1)
			abort();	/* bad records got through */
	}
	if (cn_ckpt_dec(data, len, &sum, &frames, &n, &rec, &nrec) == 0)
		free(frames);
	return 0;
}
