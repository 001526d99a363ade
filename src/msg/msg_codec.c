/* msg_codec — seal and open one secure active message. */
#include "msg_codec.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg_nonce.h"
#include "wire.h"

static const char *const drop_names[MSG_DROP_MAX] = {
	[MSG_DROP_NONE] = "none",
	[MSG_DROP_BAD_LENGTH] = "bad_length",
	[MSG_DROP_BAD_HEADER] = "bad_header",
	[MSG_DROP_BAD_SCHEME] = "bad_scheme",
	[MSG_DROP_UNKNOWN_KEY] = "unknown_key",
	[MSG_DROP_BAD_MAC] = "bad_mac",
	[MSG_DROP_BAD_SIG] = "bad_signature",
	[MSG_DROP_STALE] = "stale",
	[MSG_DROP_REPLAY] = "replay",
	[MSG_DROP_MISADDRESSED] = "misaddressed",
	[MSG_DROP_UNKNOWN_HANDLER] = "unknown_handler",
	[MSG_DROP_REASSEMBLY] = "reassembly_overflow",
	[MSG_DROP_REASSEMBLY_TIMEOUT] = "reassembly_timeout",
	[MSG_DROP_BAD_CRED] = "bad_credential",
	[MSG_DROP_RATE] = "rate_limited",
};

static const char *const scheme_names[MSG_SCHEME_MAX] = {
	[MSG_SCHEME_UNDEF] = "undefined",
	[MSG_SCHEME_CLUSTER] = "cluster",
	[MSG_SCHEME_USER] = "user",
	[MSG_SCHEME_MUNGE] = "munge",
	[MSG_SCHEME_JOB] = "job",
};

const char *
msg_drop_name(enum msg_drop d)
{
	return d < MSG_DROP_MAX ? drop_names[d] : "invalid";
}

const char *
msg_scheme_name(enum msg_scheme s)
{
	return s < MSG_SCHEME_MAX ? scheme_names[s] : "invalid";
}

enum msg_scheme
msg_scheme_from_name(const char *s)
{
	enum msg_scheme i;

	for (i = MSG_SCHEME_UNDEF + 1; i < MSG_SCHEME_MAX; i++)
		if (strcmp(s, scheme_names[i]) == 0)
			return i;
	return MSG_SCHEME_UNDEF;
}

int
msg_addr_from_sockaddr(struct msg_addr *a, const struct sockaddr *sa,
    socklen_t len)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *sin = (const void *)sa;

		a->ma_family = 4;
		memcpy(a->ma_addr, &sin->sin_addr, 4);
		a->ma_port = ntohs(sin->sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		/* An IPv4 peer of a dual-stack socket is an IPv4 peer. */
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			a->ma_family = 4;
			memcpy(a->ma_addr, &sin6->sin6_addr.s6_addr[12], 4);
			a->ma_port = ntohs(sin6->sin6_port);
			return 0;
		}
		a->ma_family = 6;
		memcpy(a->ma_addr, &sin6->sin6_addr, 16);
		a->ma_port = ntohs(sin6->sin6_port);
		return 0;
	}
	errno = EAFNOSUPPORT;
	return -1;
}

socklen_t
msg_addr_to_sockaddr(const struct msg_addr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->ma_family == 4) {
		struct sockaddr_in *sin = (void *)ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, a->ma_addr, 4);
		sin->sin_port = htons(a->ma_port);
		return sizeof(*sin);
	}
	if (a->ma_family == 6) {
		struct sockaddr_in6 *sin6 = (void *)ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, a->ma_addr, 16);
		sin6->sin6_port = htons(a->ma_port);
		return sizeof(*sin6);
	}
	return 0;
}

int
msg_addr_eq(const struct msg_addr *a, const struct msg_addr *b)
{
	return a->ma_family == b->ma_family && a->ma_port == b->ma_port &&
	    memcmp(a->ma_addr, b->ma_addr, sizeof(a->ma_addr)) == 0;
}

int
msg_addr_any(const struct msg_addr *a)
{
	static const uint8_t zero[sizeof(a->ma_addr)];

	return (a->ma_family == 4 || a->ma_family == 6) &&
	    memcmp(a->ma_addr, zero, a->ma_family == 4 ? 4 : 16) == 0;
}

void
msg_addr_text(const struct msg_addr *a, char *buf, size_t bufsz)
{
	char host[INET6_ADDRSTRLEN];

	if (a->ma_family == 4 &&
	    inet_ntop(AF_INET, a->ma_addr, host, sizeof(host)) != NULL)
		snprintf(buf, bufsz, "%s:%u", host, a->ma_port);
	else if (a->ma_family == 6 &&
	    inet_ntop(AF_INET6, a->ma_addr, host, sizeof(host)) != NULL)
		snprintf(buf, bufsz, "[%s]:%u", host, a->ma_port);
	else
		snprintf(buf, bufsz, "(invalid address)");
}

/*
 * Splits "HOST[:PORT]" or "[V6]:PORT": the host, NUL-terminated in buf
 * (*h points at it), and the port if given.  -1 with errno.
 */
static int
addr_split(const char *text, char *buf, size_t bufsz, const char **h,
    unsigned long *port)
{
	char *colon, *end;

	if (strlcpy(buf, text, bufsz) >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*h = buf;
	if (buf[0] == '[') {
		if ((end = strchr(buf, ']')) == NULL) {
			errno = EINVAL;
			return -1;
		}
		*end = '\0';
		*h = buf + 1;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && colon == NULL) {
			errno = EINVAL;
			return -1;
		}
	} else if ((colon = strrchr(buf, ':')) != NULL &&
	    strchr(buf, ':') != colon)
		colon = NULL;	/* bare IPv6 address without a port */
	if (colon != NULL) {
		*colon = '\0';
		errno = 0;
		*port = strtoul(colon + 1, &end, 10);
		if (colon[1] == '\0' || *end != '\0' || errno != 0 ||
		    *port == 0 || *port > 65535) {
			errno = EINVAL;
			return -1;
		}
	}
	if (**h == '\0') {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
msg_addr_parse(struct msg_addr *a, const char *text, uint16_t default_port)
{
	char host[256];
	const char *h;
	struct addrinfo hints, *res;
	unsigned long port = default_port;
	int rc;

	if (addr_split(text, host, sizeof(host), &h, &port) == -1)
		return -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	if ((rc = getaddrinfo(h, NULL, &hints, &res)) != 0) {
		errno = EHOSTUNREACH;
		return -1;
	}
	rc = msg_addr_from_sockaddr(a, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (rc == 0)
		a->ma_port = (uint16_t)port;
	return rc;
}

int
msg_addr_named(const char *text)
{
	char host[256];
	const char *h;
	struct addrinfo hints, *res;
	unsigned long port = 0;

	if (addr_split(text, host, sizeof(host), &h, &port) == -1)
		return 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(h, NULL, &hints, &res) != 0)
		return 1;
	freeaddrinfo(res);
	return 0;
}

int
msg_addr_loopback(const struct msg_addr *a)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff };
	static const uint8_t one[16] = { [15] = 1 };

	if (a->ma_family == 4)
		return a->ma_addr[0] == 127;
	if (a->ma_family == 6)
		return memcmp(a->ma_addr, one, 16) == 0 ||
		    (memcmp(a->ma_addr, v4mapped, 12) == 0 &&
		    a->ma_addr[12] == 127);
	return 0;
}

int
msg_name_ok(enum msg_scheme scheme, const char *name)
{
	size_t i, n = strlen(name);

	if (scheme == MSG_SCHEME_USER)
		return msg_user_name_ok(name) ||
		    strcmp(name, MSG_CLUSTER_NAME) == 0;
	if (scheme == MSG_SCHEME_MUNGE)
		return msg_user_name_ok(name);
	if ((scheme != MSG_SCHEME_CLUSTER && scheme != MSG_SCHEME_JOB) ||
	    n == 0 || n > MSG_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= 'A' && name[i] <= 'Z') ||
		    (name[i] >= '0' && name[i] <= '9') ||
		    strchr("_.:@-", name[i]) != NULL))
			return 0;
	return 1;
}

static void
hdr_encode(struct wire_w *w, const struct msg_hdr *h)
{
	size_t n = strlen(h->mh_name);

	wire_put_u8(w, MSG_MAGIC);
	wire_put_u8(w, MSG_VERSION);
	wire_put_u8(w, MSG_KIND_MESSAGE);
	wire_put_u8(w, (uint8_t)h->mh_scheme);
	wire_put_u16(w, h->mh_handler);
	wire_put_u32(w, h->mh_keyid);
	wire_put_u64(w, h->mh_time_ms);
	wire_put_bytes(w, h->mh_nonce, MSG_NONCE_LEN);
	wire_put_u8(w, h->mh_dst.ma_family);
	wire_put_bytes(w, h->mh_dst.ma_addr, sizeof(h->mh_dst.ma_addr));
	wire_put_u16(w, h->mh_dst.ma_port);
	wire_put_u8(w, (uint8_t)n);
	wire_put_bytes(w, h->mh_name, n);
}

enum msg_drop
msg_hdr_decode(const uint8_t *buf, size_t len, struct msg_hdr *h,
    size_t *hdrlen)
{
	struct wire_r r;
	uint8_t magic, version, kind, scheme, namelen;

	memset(h, 0, sizeof(*h));
	if (len < MSG_HDR_FIXED + 1 || len > MSG_SEALED_MAX)
		return MSG_DROP_BAD_LENGTH;
	wire_r_init(&r, buf, len);
	(void)wire_get_u8(&r, &magic);
	(void)wire_get_u8(&r, &version);
	(void)wire_get_u8(&r, &kind);
	if (magic != MSG_MAGIC || version != MSG_VERSION ||
	    kind != MSG_KIND_MESSAGE)
		return MSG_DROP_BAD_HEADER;
	(void)wire_get_u8(&r, &scheme);
	if (scheme == MSG_SCHEME_UNDEF || scheme >= MSG_SCHEME_MAX)
		return MSG_DROP_BAD_SCHEME;
	h->mh_scheme = scheme;
	/* The fixed part was length-checked above. */
	(void)wire_get_u16(&r, &h->mh_handler);
	(void)wire_get_u32(&r, &h->mh_keyid);
	(void)wire_get_u64(&r, &h->mh_time_ms);
	(void)wire_get_bytes(&r, h->mh_nonce, MSG_NONCE_LEN);
	(void)wire_get_u8(&r, &h->mh_dst.ma_family);
	(void)wire_get_bytes(&r, h->mh_dst.ma_addr, sizeof(h->mh_dst.ma_addr));
	(void)wire_get_u16(&r, &h->mh_dst.ma_port);
	(void)wire_get_u8(&r, &namelen);
	if (namelen == 0 || namelen > MSG_NAME_MAX)
		return MSG_DROP_BAD_HEADER;
	if (wire_get_bytes(&r, h->mh_name, namelen) == -1)
		return MSG_DROP_BAD_LENGTH;
	h->mh_name[namelen] = '\0';
	if (strlen(h->mh_name) != namelen ||
	    !msg_name_ok(h->mh_scheme, h->mh_name))
		return MSG_DROP_BAD_HEADER;
	if (h->mh_dst.ma_family != 4 && h->mh_dst.ma_family != 6)
		return MSG_DROP_BAD_HEADER;
	*hdrlen = MSG_HDR_FIXED + namelen;
	return MSG_DROP_NONE;
}

static const struct msg_key *
keyset_find(const struct msg_keyset *ks, uint32_t id)
{
	int i;

	for (i = 0; i < ks->ks_n; i++)
		if (ks->ks_key[i].k_id == id)
			return &ks->ks_key[i];
	return NULL;
}

/*
 * The daemons may have taken a rotated cluster key: cluster.pub, which
 * the procedure installs first, holds it.  A file that cannot be used
 * leaves the keys as they were.
 */
static const struct msg_key *
cluster_pub_again(struct msg_keyring *kr, double now, uint32_t keyid)
{
	struct msg_keyset ks;
	char err[256];

	if (kr->kr_cluster_pub_path[0] == '\0' ||
	    now - kr->kr_cluster_pub_read < MSG_PUBCACHE_TTL)
		return NULL;
	kr->kr_cluster_pub_read = now;
	if (msg_keyset_load(&ks, kr->kr_cluster_pub_path,
	    MSG_KEY_CLUSTER_PUB, err, sizeof(err)) == -1)
		return NULL;
	kr->kr_cluster_pub = ks;
	return keyset_find(&kr->kr_cluster_pub, keyid);
}

const struct msg_key *
msg_keyring_user_pub(struct msg_keyring *kr, double now,
    const char *name, uint32_t keyid)
{
	struct msg_pubcache_entry *e = &kr->kr_own;
	char path[PATH_MAX + MSG_NAME_MAX + 8], err[256];
	const struct msg_key *k;

	if (strcmp(name, MSG_CLUSTER_NAME) == 0) {
		if ((k = keyset_find(&kr->kr_cluster_pub, keyid)) != NULL ||
		    (k = keyset_find(&kr->kr_cluster, keyid)) != NULL)
			return k;
		return cluster_pub_again(kr, now, keyid);
	}
	if (!msg_user_name_ok(name))
		return NULL;
	if (kr->kr_users != NULL)
		return msg_users_find(kr->kr_users, name, keyid);
	/* A user's process: its own user only, whom no datagram chooses. */
	if (kr->kr_users_dir[0] == '\0' || kr->kr_user.ks_n == 0 ||
	    strcmp(name, kr->kr_user.ks_key[0].k_name) != 0)
		return NULL;
	if (strcmp(e->pc_name, name) == 0 && now - e->pc_loaded <
	    MSG_PUBCACHE_TTL)
		return e->pc_ok ? keyset_find(&e->pc_keys, keyid) : NULL;
	/* Read the file; a missing one is remembered as missing too. */
	memset(e, 0, sizeof(*e));
	strlcpy(e->pc_name, name, sizeof(e->pc_name));
	e->pc_loaded = now;
	snprintf(path, sizeof(path), "%s/%s.pub", kr->kr_users_dir, name);
	if (msg_keyset_load(&e->pc_keys, path, MSG_KEY_USER_PUB, err,
	    sizeof(err)) == 0 && strcmp(e->pc_keys.ks_key[0].k_name,
	    name) == 0)
		e->pc_ok = 1;
	return e->pc_ok ? keyset_find(&e->pc_keys, keyid) : NULL;
}

/*
 * What a munge credential carries: a hash of everything it authorises,
 * the clear header (scheme, handler, time, nonce, destination, name)
 * and the payload, so it cannot be moved to another message.
 */
static void
munge_hash(const uint8_t *hdr, size_t hlen, const void *payload,
    size_t len, uint8_t out[MSG_MUNGE_HASH])
{
	static const char domain[] = "cilknow-munge-v1";
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, MSG_MUNGE_HASH);
	crypto_generichash_update(&st, (const uint8_t *)domain,
	    sizeof(domain));
	crypto_generichash_update(&st, hdr, hlen);
	crypto_generichash_update(&st, payload, len);
	crypto_generichash_final(&st, out, MSG_MUNGE_HASH);
}

/* The munge scheme: header, payload, credential, u16 its length. */
static int
munge_seal(struct msg_keyring *kr, struct msg_hdr *h, const void *payload,
    size_t len, uint8_t *out, size_t outcap, size_t *outlen)
{
	uint8_t hash[MSG_MUNGE_HASH];
	char cred[MSG_CRED_MAX + 1], why[256];
	struct wire_w w;
	size_t hlen, clen;

	h->mh_scheme = MSG_SCHEME_MUNGE;
	h->mh_keyid = 0;
	if (strlcpy(h->mh_name, kr->kr_munge_name, sizeof(h->mh_name)) >=
	    sizeof(h->mh_name) || !msg_name_ok(MSG_SCHEME_MUNGE,
	    h->mh_name)) {
		errno = EINVAL;
		return -1;
	}
	wire_w_init(&w, out, outcap);
	hdr_encode(&w, h);
	hlen = w.ww_len;
	if (wire_w_ok(&w) == -1 || outcap - hlen < len) {
		errno = EMSGSIZE;
		return -1;
	}
	munge_hash(out, hlen, payload, len, hash);
	if (msg_munge_encode(kr->kr_munge_socket, kr->kr_munge_ttl, hash,
	    cred, sizeof(cred), &clen, why, sizeof(why)) == -1)
		return -1;	/* errno says; the caller logs */
	if (outcap - hlen - len < clen + 2) {
		errno = EMSGSIZE;
		return -1;
	}
	if (len > 0)
		memmove(out + hlen, payload, len);
	memcpy(out + hlen + len, cred, clen);
	out[hlen + len + clen] = (uint8_t)(clen >> 8);
	out[hlen + len + clen + 1] = (uint8_t)clen;
	*outlen = hlen + len + clen + 2;
	return 0;
}

/*
 * The receiver's local munged decodes the credential (its TTL and
 * replay cache apply); the uid it attests must be the user the header
 * names, and the hash it carries this header and payload.
 */
static enum msg_drop
munge_open(struct msg_keyring *kr, double now, const uint8_t *buf,
    size_t len, size_t hlen, const struct msg_hdr *h, uint8_t *payload, size_t cap,
    size_t *plen)
{
	static struct log_rate unreachable_log = LOG_RATE(60, 2);
	uint8_t want[MSG_MUNGE_HASH], got[MSG_MUNGE_HASH];
	char cred[MSG_CRED_MAX + 1], name[MSG_NAME_MAX + 1], why[256];
	size_t body = len - hlen, clen, n;
	uid_t uid;
	gid_t gid;

	if ((kr->kr_user_auth & (1u << MSG_SCHEME_MUNGE)) == 0)
		return MSG_DROP_BAD_SCHEME;
	if (body < 2)
		return MSG_DROP_BAD_LENGTH;
	clen = (size_t)buf[len - 2] << 8 | buf[len - 1];
	if (clen == 0 || clen > MSG_CRED_MAX || clen > body - 2 ||
	    (n = body - 2 - clen) > cap)
		return MSG_DROP_BAD_LENGTH;
	memcpy(cred, buf + hlen + n, clen);
	cred[clen] = '\0';
	if (strlen(cred) != clen)
		return MSG_DROP_BAD_CRED;
	switch (msg_munge_decode(kr->kr_munge_socket, cred, got, &uid, &gid,
	    why, sizeof(why))) {
	case MSG_MUNGE_OK:
		break;
	case MSG_MUNGE_EXPIRED:
		return MSG_DROP_STALE;
	case MSG_MUNGE_REPLAYED:
		return MSG_DROP_REPLAY;
	case MSG_MUNGE_UNREACHABLE:
		if (log_rate(&unreachable_log, now, "munged failures"))
			log_warnx("munge credential from %s not checked: %s "
		    "(munge_socket; start munged)", h->mh_name, why);
		return MSG_DROP_UNKNOWN_KEY;
	default:
		log_debug("%s: credential claiming %s: %s", __func__,
		    h->mh_name, why);
		return MSG_DROP_BAD_CRED;
	}
	munge_hash(buf, hlen, buf + hlen, n, want);
	if (sodium_memcmp(want, got, sizeof(want)) != 0 ||
	    msg_munge_user(uid, name, sizeof(name)) == -1 ||
	    strcmp(name, h->mh_name) != 0)
		return MSG_DROP_BAD_CRED;
	*plen = n;
	if (n > 0)
		memcpy(payload, buf + hlen, n);
	return MSG_DROP_NONE;
}

/*
 * XChaCha20-Poly1305 is HChaCha20 of the key and the nonce's first 16
 * bytes, a subkey, then ChaCha20-Poly1305 (IETF) under the subkey with
 * the nonce's last 8 bytes: libsodium's own construction, spelt out so
 * that the subkey is kept.  A process's nonces share their first 16
 * bytes (msg_nonce.h), so one HChaCha20 serves every message it seals,
 * and a receiver's few entries serve its peers.  Per thread: the
 * runtime seals from two.  A forged prefix only costs a recomputation.
 */
#define SUBKEYS		16
#define SUBKEY_IN	crypto_core_hchacha20_INPUTBYTES

struct subkey {
	uint8_t	sk_key[crypto_aead_xchacha20poly1305_ietf_KEYBYTES];
	uint8_t	sk_in[SUBKEY_IN];
	uint8_t	sk_sub[crypto_core_hchacha20_OUTPUTBYTES];
	int	sk_ok;
};

static _Thread_local struct subkey subkeys[SUBKEYS];

/* The subkey and the 12-byte IETF nonce of a message's 24-byte nonce. */
static const uint8_t *
subkey_of(const uint8_t *key, const uint8_t *nonce,
    uint8_t ietf[crypto_aead_chacha20poly1305_ietf_NPUBBYTES])
{
	struct subkey *e;
	uint64_t h;

	memcpy(&h, nonce, sizeof(h));
	e = &subkeys[(h * 0x9e3779b97f4a7c15ULL) >> 60];
	if (!e->sk_ok || memcmp(e->sk_in, nonce, SUBKEY_IN) != 0 ||
	    memcmp(e->sk_key, key, sizeof(e->sk_key)) != 0) {
		crypto_core_hchacha20(e->sk_sub, nonce, key, NULL);
		memcpy(e->sk_in, nonce, SUBKEY_IN);
		memcpy(e->sk_key, key, sizeof(e->sk_key));
		e->sk_ok = 1;
	}
	memset(ietf, 0, 4);
	memcpy(ietf + 4, nonce + SUBKEY_IN, MSG_NONCE_LEN - SUBKEY_IN);
	return e->sk_sub;
}

int
msg_seal(struct msg_keyring *kr, enum msg_scheme scheme, uint16_t handler,
    const struct msg_addr *dst, uint64_t now_ms, const void *payload,
    size_t len, uint8_t *out, size_t outcap, size_t *outlen)
{
	return msg_seal_keyid(kr, scheme, handler, 0, dst, now_ms, payload,
	    len, out, outcap, outlen);
}

int
msg_seal_keyid(struct msg_keyring *kr, enum msg_scheme scheme,
    uint16_t handler, uint32_t keyid, const struct msg_addr *dst,
    uint64_t now_ms, const void *payload, size_t len, uint8_t *out,
    size_t outcap, size_t *outlen)
{
	struct msg_hdr h;
	struct wire_w w;
	const struct msg_key *k;
	unsigned long long clen;
	size_t hlen;
	uint8_t ietf[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];
	const uint8_t *sub;

	memset(&h, 0, sizeof(h));
	if (len > MSG_PAYLOAD_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	h.mh_scheme = scheme;
	h.mh_handler = handler;
	h.mh_time_ms = now_ms;
	h.mh_dst = *dst;
	msg_nonce_next(h.mh_nonce);
	if (scheme == MSG_SCHEME_CLUSTER && kr->kr_cluster.ks_n > 0) {
		if (keyid == 0 ||
		    (k = keyset_find(&kr->kr_cluster, keyid)) == NULL)
			k = &kr->kr_cluster.ks_key[0];
		strlcpy(h.mh_name, kr->kr_cluster_name[0] != '\0' ?
		    kr->kr_cluster_name : MSG_CLUSTER_NAME, sizeof(h.mh_name));
	} else if (scheme == MSG_SCHEME_JOB && kr->kr_job.k_id != 0) {
		k = &kr->kr_job;
		strlcpy(h.mh_name, kr->kr_job_name, sizeof(h.mh_name));
	} else if (scheme == MSG_SCHEME_USER && kr->kr_user.ks_n > 0) {
		k = &kr->kr_user.ks_key[0];
		strlcpy(h.mh_name, k->k_name, sizeof(h.mh_name));
	} else if (scheme == MSG_SCHEME_USER && kr->kr_munge) {
		return munge_seal(kr, &h, payload, len, out, outcap, outlen);
	} else if (scheme == MSG_SCHEME_USER && kr->kr_cluster.ks_n > 0) {
		k = &kr->kr_cluster.ks_key[0];
		strlcpy(h.mh_name, MSG_CLUSTER_NAME, sizeof(h.mh_name));
	} else {
		errno = ENOKEY;
		return -1;
	}
	if (!msg_name_ok(scheme, h.mh_name)) {
		errno = EINVAL;
		return -1;
	}
	h.mh_keyid = k->k_id;
	wire_w_init(&w, out, outcap);
	hdr_encode(&w, &h);
	hlen = w.ww_len;
	if (wire_w_ok(&w) == -1 || outcap - hlen < len + MSG_SIG_LEN) {
		errno = EMSGSIZE;
		return -1;
	}
	if (scheme == MSG_SCHEME_CLUSTER || scheme == MSG_SCHEME_JOB) {
		sub = subkey_of(k->k_aead, h.mh_nonce, ietf);
		crypto_aead_chacha20poly1305_ietf_encrypt(out + hlen, &clen,
		    payload, len, out, hlen, NULL, ietf, sub);
		*outlen = hlen + (size_t)clen;
	} else {
		if (len > 0)
			memcpy(out + hlen, payload, len);
		crypto_sign_detached(out + hlen + len, NULL, out, hlen + len,
		    k->k_sk);
		*outlen = hlen + len + MSG_SIG_LEN;
	}
	return 0;
}

enum msg_drop
msg_open(struct msg_keyring *kr, double now, const uint8_t *buf, size_t len,
    struct msg_hdr *h, uint8_t *payload, size_t cap, size_t *plen)
{
	const struct msg_key *k;
	unsigned long long mlen;
	enum msg_drop d;
	size_t hlen, body;
	uint8_t ietf[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];
	const uint8_t *sub;

	if ((d = msg_hdr_decode(buf, len, h, &hlen)) != MSG_DROP_NONE)
		return d;
	body = len - hlen;
	if (h->mh_scheme == MSG_SCHEME_CLUSTER ||
	    h->mh_scheme == MSG_SCHEME_JOB) {
		if (body < MSG_TAG_LEN || body - MSG_TAG_LEN > cap)
			return MSG_DROP_BAD_LENGTH;
		if (h->mh_scheme == MSG_SCHEME_JOB)
			k = kr->kr_job.k_id != 0 && kr->kr_job.k_id ==
			    h->mh_keyid ? &kr->kr_job : NULL;
		else
			k = keyset_find(&kr->kr_cluster, h->mh_keyid);
		if (k == NULL)
			return MSG_DROP_UNKNOWN_KEY;
		sub = subkey_of(k->k_aead, h->mh_nonce, ietf);
		if (crypto_aead_chacha20poly1305_ietf_decrypt(payload, &mlen,
		    NULL, buf + hlen, body, buf, hlen, ietf, sub) != 0)
			return MSG_DROP_BAD_MAC;
		*plen = (size_t)mlen;
		return MSG_DROP_NONE;
	}
	if (h->mh_scheme == MSG_SCHEME_MUNGE)
		return munge_open(kr, now, buf, len, hlen, h, payload, cap, plen);
	/* A user's own signature, where user_auth allows it. */
	if (kr->kr_user_auth != 0 && (kr->kr_user_auth &
	    (1u << MSG_SCHEME_USER)) == 0 &&
	    strcmp(h->mh_name, MSG_CLUSTER_NAME) != 0)
		return MSG_DROP_BAD_SCHEME;
	if (body < MSG_SIG_LEN || body - MSG_SIG_LEN > cap)
		return MSG_DROP_BAD_LENGTH;
	if ((k = msg_keyring_user_pub(kr, now, h->mh_name, h->mh_keyid)) ==
	    NULL)
		return MSG_DROP_UNKNOWN_KEY;
	if (crypto_sign_verify_detached(buf + len - MSG_SIG_LEN, buf,
	    len - MSG_SIG_LEN, k->k_pk) != 0)
		return MSG_DROP_BAD_SIG;
	*plen = body - MSG_SIG_LEN;
	if (*plen > 0)
		memcpy(payload, buf + hlen, *plen);
	return MSG_DROP_NONE;
}

int
msg_keyring_set_job(struct msg_keyring *kr, uint32_t id,
    const uint8_t key[32], const char *name)
{
	if (id == 0 || !msg_name_ok(MSG_SCHEME_JOB, name)) {
		errno = EINVAL;
		return -1;
	}
	sodium_memzero(&kr->kr_job, sizeof(kr->kr_job));
	kr->kr_job.k_type = MSG_KEY_CLUSTER;
	kr->kr_job.k_id = id;
	memcpy(kr->kr_job.k_aead, key, sizeof(kr->kr_job.k_aead));
	strlcpy(kr->kr_job_name, name, sizeof(kr->kr_job_name));
	return 0;
}

void
msg_keyring_clear(struct msg_keyring *kr)
{
	msg_users_free(kr->kr_users);
	sodium_memzero(kr, sizeof(*kr));
}

void
msg_keyring_move(struct msg_keyring *dst, struct msg_keyring *src)
{
	msg_keyring_clear(dst);
	memcpy(dst, src, sizeof(*dst));
	sodium_memzero(src, sizeof(*src));	/* kr_users is dst's now */
}
