/* broker_cookie — see include/broker_cookie.h. */
#include "broker_cookie.h"

#include <string.h>

#include "wire.h"

void
broker_cookie_init(struct broker_cookie *bc)
{
	crypto_generichash_keygen(bc->bc_key);
}

static void
make(const struct broker_cookie *bc, const struct msg_addr *a,
    uint64_t period, uint8_t out[PROTO_COOKIE_LEN])
{
	uint8_t in[32];
	struct wire_w w;

	wire_w_init(&w, in, sizeof(in));
	wire_put_u8(&w, a->ma_family);
	wire_put_bytes(&w, a->ma_addr, sizeof(a->ma_addr));
	wire_put_u16(&w, a->ma_port);
	wire_put_u64(&w, period);
	crypto_generichash(out, PROTO_COOKIE_LEN, in, w.ww_len, bc->bc_key,
	    sizeof(bc->bc_key));
}

void
broker_cookie_make(const struct broker_cookie *bc, const struct msg_addr *a,
    double now, uint8_t out[PROTO_COOKIE_LEN])
{
	make(bc, a, (uint64_t)(now / BROKER_COOKIE_PERIOD), out);
}

int
broker_cookie_ok(const struct broker_cookie *bc, const struct msg_addr *a,
    double now, const uint8_t c[PROTO_COOKIE_LEN])
{
	uint8_t want[PROTO_COOKIE_LEN];
	uint64_t period = (uint64_t)(now / BROKER_COOKIE_PERIOD);
	int good;

	make(bc, a, period, want);
	good = sodium_memcmp(want, c, PROTO_COOKIE_LEN) == 0;
	if (!good && period > 0) {
		make(bc, a, period - 1, want);
		good = sodium_memcmp(want, c, PROTO_COOKIE_LEN) == 0;
	}
	return good;
}
