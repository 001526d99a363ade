/*
 * fuzz_priv — libFuzzer target for the decoders of the channel between
 * a privileged parent and its unprivileged child (priv.h).  The parent
 * is root and its child may be compromised: what the parent decodes
 * (the frame, READY and RELOADED) must hold against anything.  The
 * child's decoder of PRIV_M_RELOAD runs too, with a configuration and
 * key files made of the input.
 *
 * The input is one datagram as priv_recv would hand it on; its payload
 * goes to the decoder its type names, and the oracle checks that an
 * accepted status is printable ASCII of bounded length (it ends up in a
 * notify datagram).  An oracle failure calls abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "msg_keyring.h"
#include "priv.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
status_ok(const char *s)
{
	size_t n = strlen(s);

	if (n > PRIV_STATUS_MAX)
		abort();
	for (; *s != '\0'; s++)
		if (*s < 0x20 || *s > 0x7e)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int inited;
	char status[PRIV_STATUS_MAX + 1];
	struct msg_keyring *kr;
	struct conf *cf = NULL;
	const uint8_t *payload;
	uint16_t type;
	size_t len;
	int applied;
	char err[512];

	if (!inited) {
		if (sodium_init() < 0)
			abort();
		inited = 1;
	}
	if (priv_msg_dec(data, size, &type, &payload, &len) == -1)
		return 0;
	if (len != size - PRIV_HDR_LEN || type == PRIV_M_UNDEF)
		abort();
	switch (type) {
	case PRIV_M_READY:
		if (priv_status_dec(payload, len, status) == 0)
			status_ok(status);
		break;
	case PRIV_M_RELOADED:
		if (priv_reloaded_dec(payload, len, &applied, status) == 0) {
			status_ok(status);
			if (applied != 0 && applied != 1)
				abort();
		}
		break;
	case PRIV_M_RELOAD:
		if ((kr = calloc(1, sizeof(*kr))) == NULL)
			abort();
		if (priv_recv_keys(payload, len, MSG_KR_CLUSTER, "broker", &cf,
		    kr, err, sizeof(err)) == 0) {
			if (cf == NULL || kr->kr_cluster.ks_n < 1)
				abort();
			conf_free(cf);
		}
		msg_keyring_clear(kr);
		free(kr);
		break;
	}
	return 0;
}
