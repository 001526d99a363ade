/* cookie — see include/cookie.h. */
#include "cookie.h"

#include <string.h>

#include "wire.h"

void
cookie_init(struct cookie_key *ck)
{
	crypto_generichash_keygen(ck->ck_key);
}

static void
make(const struct cookie_key *ck, const struct msg_addr *a,
    uint64_t period, uint8_t out[PROTO_COOKIE_LEN])
{
	uint8_t in[32];
	struct wire_w w;

	wire_w_init(&w, in, sizeof(in));
	wire_put_u8(&w, a->ma_family);
	wire_put_bytes(&w, a->ma_addr, sizeof(a->ma_addr));
	wire_put_u16(&w, a->ma_port);
	wire_put_u64(&w, period);
	crypto_generichash(out, PROTO_COOKIE_LEN, in, w.ww_len, ck->ck_key,
	    sizeof(ck->ck_key));
}

void
cookie_make(const struct cookie_key *ck, const struct msg_addr *a,
    double now, uint8_t out[PROTO_COOKIE_LEN])
{
	make(ck, a, (uint64_t)(now / COOKIE_PERIOD), out);
}

int
cookie_ok(const struct cookie_key *ck, const struct msg_addr *a,
    double now, const uint8_t c[PROTO_COOKIE_LEN])
{
	uint8_t want[PROTO_COOKIE_LEN];
	uint64_t period = (uint64_t)(now / COOKIE_PERIOD);
	int good;

	make(ck, a, period, want);
	good = sodium_memcmp(want, c, PROTO_COOKIE_LEN) == 0;
	if (!good && period > 0) {
		make(ck, a, period - 1, want);
		good = sodium_memcmp(want, c, PROTO_COOKIE_LEN) == 0;
	}
	return good;
}

int
cookie_proved(const struct cookie_key *ck, struct msg_ep *ep,
    const struct msg_in *in, double now, int has,
    const uint8_t c[PROTO_COOKIE_LEN])
{
	struct proto_cookie m;
	uint8_t buf[PROTO_COOKIE_LEN];
	size_t len;

	if (in->mi_scheme == MSG_SCHEME_CLUSTER ||
	    (has && cookie_ok(ck, &in->mi_from, now, c)))
		return 1;
	cookie_make(ck, &in->mi_from, now, m.co_cookie);
	if ((len = proto_cookie_enc(&m, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_COOKIE, buf, len);
	return 0;
}
