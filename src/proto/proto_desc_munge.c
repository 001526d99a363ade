/*
 * proto_desc_munge — a job description authorised by a MUNGE
 * credential instead of the user's Ed25519 signature (user_auth =
 * munge, cilknow-protocol(7)): key id 0, the user, the description's
 * bytes, u16 length and the credential, which carries a hash of a
 * domain and the bytes.  The node manager's privileged parent decodes
 * the credential with its local munged, so it alone consumes it (one
 * credential per description served: munged refuses a second decode);
 * the engine, which got the description under the job manager's own
 * credential, only reads it (proto_desc_peek).
 */
#include "proto.h"

#include <stdio.h>
#include <string.h>

#include "log.h"

/* One domain per purpose, as for signatures (proto.c). */
static void
desc_hash(enum proto_desc_purpose purpose, const uint8_t *body, size_t n,
    uint8_t out[MSG_MUNGE_HASH])
{
	const char *domain = purpose == PROTO_DESC_ROOT ?
	    "cilknow-rootbackup-munge-v1" : "cilknow-jobdesc-munge-v1";
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, MSG_MUNGE_HASH);
	crypto_generichash_update(&st, (const uint8_t *)domain,
	    strlen(domain) + 1);
	crypto_generichash_update(&st, body, n);
	crypto_generichash_final(&st, out, MSG_MUNGE_HASH);
}

size_t
proto_desc_seal(const struct proto_desc *m, struct msg_keyring *kr,
    uint8_t *buf, size_t cap)
{
	return proto_desc_seal_for(m, PROTO_DESC_JOB, kr, buf, cap);
}

size_t
proto_desc_seal_for(const struct proto_desc *m,
    enum proto_desc_purpose purpose, struct msg_keyring *kr, uint8_t *buf,
    size_t cap)
{
	static uint8_t body[MSG_PAYLOAD_MAX];
	uint8_t hash[MSG_MUNGE_HASH];
	char cred[MSG_CRED_MAX + 1], why[256];
	struct wire_w w;
	size_t n, clen;

	if (!kr->kr_munge)
		return kr->kr_user.ks_n > 0 ? proto_desc_sign_for(m, purpose,
		    &kr->kr_user.ks_key[0], buf, cap) : 0;
	if ((n = proto_desc_enc(m, body, sizeof(body))) == 0)
		return 0;
	desc_hash(purpose, body, n, hash);
	if (msg_munge_encode(kr->kr_munge_socket, kr->kr_munge_ttl, hash,
	    cred, sizeof(cred), &clen, why, sizeof(why)) == -1) {
		log_warnx("job description: %s", why);
		return 0;
	}
	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, 0);		/* no key: a credential follows */
	wire_put_str(&w, m->de_user);
	wire_put_u32(&w, (uint32_t)n);
	wire_put_bytes(&w, body, n);
	wire_put_u16(&w, (uint16_t)clen);
	wire_put_bytes(&w, cred, clen);
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

/* Splits a munge description; -1 if it is not one or is malformed. */
static int
split(const uint8_t *buf, size_t len, char *user, size_t usersz,
    const uint8_t **body, uint32_t *n, char *cred)
{
	const uint8_t *c;
	struct wire_r r;
	uint32_t keyid;
	uint16_t clen;

	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &keyid) == -1 || keyid != 0 ||
	    wire_get_str(&r, user, usersz) == -1 ||
	    wire_get_u32(&r, n) == -1 ||
	    wire_get_ref(&r, body, *n) == -1 ||
	    wire_get_u16(&r, &clen) == -1 || clen == 0 ||
	    clen > MSG_CRED_MAX || wire_get_ref(&r, &c, clen) == -1 ||
	    wire_get_end(&r) == -1 || !msg_user_name_ok(user))
		return -1;
	memcpy(cred, c, clen);
	cred[clen] = '\0';
	return strlen(cred) == clen ? 0 : -1;
}

int
proto_desc_is_munge(const uint8_t *buf, size_t len)
{
	return len >= 4 && buf[0] == 0 && buf[1] == 0 && buf[2] == 0 &&
	    buf[3] == 0;
}

/* The body, decoded, must be the envelope's user's. */
static int
decode(struct proto_desc *m, const char *user, const uint8_t *body,
    uint32_t n, char *why, size_t whylen)
{
	if (proto_desc_dec(m, body, n) == -1) {
		snprintf(why, whylen, "malformed description of %s", user);
		return -1;
	}
	if (strcmp(m->de_user, user) != 0) {
		snprintf(why, whylen, "description of user %s credited to %s",
		    m->de_user, user);
		proto_desc_free(m);
		return -1;
	}
	return 0;
}

int
proto_desc_open_munge(struct proto_desc *m, enum proto_desc_purpose purpose,
    struct msg_keyring *kr, const uint8_t *buf, size_t len, char *why,
    size_t whylen)
{
	uint8_t want[MSG_MUNGE_HASH], got[MSG_MUNGE_HASH];
	char user[MSG_NAME_MAX + 1], name[MSG_NAME_MAX + 1];
	char cred[MSG_CRED_MAX + 1], mwhy[256];
	const uint8_t *body;
	uint32_t n;
	uid_t uid;
	gid_t gid;

	memset(m, 0, sizeof(*m));
	if (split(buf, len, user, sizeof(user), &body, &n, cred) == -1) {
		snprintf(why, whylen, "malformed description");
		return -1;
	}
	if ((kr->kr_user_auth & (1u << MSG_SCHEME_MUNGE)) == 0) {
		snprintf(why, whylen, "description of %s with a munge "
		    "credential, but user_auth does not allow munge", user);
		return -1;
	}
	if (msg_munge_decode(kr->kr_munge_socket, cred, got, &uid, &gid,
	    mwhy, sizeof(mwhy)) != MSG_MUNGE_OK) {
		snprintf(why, whylen, "description of %s: %s", user, mwhy);
		return -1;
	}
	desc_hash(purpose, body, n, want);
	if (sodium_memcmp(want, got, sizeof(want)) != 0) {
		snprintf(why, whylen, "description of %s: the credential is "
		    "another description's", user);
		return -1;
	}
	if (msg_munge_user(uid, name, sizeof(name)) == -1 ||
	    strcmp(name, user) != 0) {
		snprintf(why, whylen, "description of %s: credential of uid "
		    "%u", user, (unsigned)uid);
		return -1;
	}
	return decode(m, user, body, n, why, whylen);
}

int
proto_desc_peek(struct proto_desc *m, const uint8_t *buf, size_t len,
    char *why, size_t whylen)
{
	char user[MSG_NAME_MAX + 1], cred[MSG_CRED_MAX + 1];
	const uint8_t *body;
	uint32_t n;

	memset(m, 0, sizeof(*m));
	if (split(buf, len, user, sizeof(user), &body, &n, cred) == -1) {
		snprintf(why, whylen, "malformed description");
		return -1;
	}
	return decode(m, user, body, n, why, whylen);
}
