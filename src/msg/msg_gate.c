/* msg_gate — see include/msg_gate.h. */
#include "msg_gate.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "keyrate.h"

#define CRED_HASH	16

struct msg_gate {
	struct keyrate	 g_hosts;
	uint8_t		 g_key[crypto_shorthash_KEYBYTES];
	uint8_t		 g_creds[MSG_GATE_CREDS][CRED_HASH];
	uint8_t		 g_used[MSG_GATE_CREDS];
};

struct msg_gate *
msg_gate_new(void)
{
	struct msg_gate *g;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	if (keyrate_init(&g->g_hosts, MSG_GATE_HOSTS, MSG_GATE_RATE,
	    MSG_GATE_BURST, (struct log_rate)LOG_RATE_DEFAULT) == -1) {
		free(g);
		return NULL;
	}
	randombytes_buf(g->g_key, sizeof(g->g_key));
	return g;
}

void
msg_gate_free(struct msg_gate *g)
{
	if (g == NULL)
		return;
	keyrate_fini(&g->g_hosts);
	free(g);
}

/* The credential's bytes: the datagram's tail before its u16 length. */
static int
cred_of(const uint8_t *buf, size_t len, const uint8_t **cred, size_t *clen)
{
	size_t n;

	if (len < 2)
		return -1;
	n = (size_t)buf[len - 2] << 8 | buf[len - 1];
	if (n == 0 || n > MSG_CRED_MAX || n > len - 2)
		return -1;
	*cred = buf + len - 2 - n;
	*clen = n;
	return 0;
}

/* Its slot in the cache and its hash there (keyed: none can aim). */
static size_t
cred_slot(const struct msg_gate *g, const uint8_t *cred, size_t clen,
    uint8_t hash[CRED_HASH])
{
	uint64_t h;

	crypto_generichash(hash, CRED_HASH, cred, clen, g->g_key,
	    sizeof(g->g_key));
	memcpy(&h, hash, sizeof(h));
	return (size_t)(h % MSG_GATE_CREDS);
}

static struct keyrate_ent *
host_of(struct msg_gate *g, const struct msg_addr *from, double now)
{
	uint8_t key[1 + sizeof(from->ma_addr)];

	key[0] = from->ma_family;
	memcpy(key + 1, from->ma_addr, sizeof(from->ma_addr));
	return keyrate_get(&g->g_hosts, key, sizeof(key), now);
}

enum msg_drop
msg_gate_before(struct msg_gate *g, const struct msg_addr *from,
    const uint8_t *buf, size_t len, double now)
{
	uint8_t hash[CRED_HASH];
	const uint8_t *cred;
	size_t clen, i;

	if (cred_of(buf, len, &cred, &clen) == -1)
		return MSG_DROP_BAD_LENGTH;
	i = cred_slot(g, cred, clen, hash);
	if (g->g_used[i] && sodium_memcmp(g->g_creds[i], hash, CRED_HASH) == 0)
		return MSG_DROP_REPLAY;
	if (!keyrate_ready(&g->g_hosts, host_of(g, from, now), now))
		return MSG_DROP_RATE;
	return MSG_DROP_NONE;
}

void
msg_gate_after(struct msg_gate *g, const struct msg_addr *from,
    const uint8_t *buf, size_t len, enum msg_drop verdict, double now)
{
	uint8_t hash[CRED_HASH];
	const uint8_t *cred;
	size_t clen, i;

	/* Only what munged decoded (not an unreachable munged, ours). */
	if ((verdict != MSG_DROP_NONE && verdict != MSG_DROP_BAD_CRED &&
	    verdict != MSG_DROP_STALE && verdict != MSG_DROP_REPLAY) ||
	    cred_of(buf, len, &cred, &clen) == -1)
		return;
	/* Decoded once, good or bad: never again. */
	i = cred_slot(g, cred, clen, hash);
	memcpy(g->g_creds[i], hash, CRED_HASH);
	g->g_used[i] = 1;
	if (verdict != MSG_DROP_NONE)
		(void)keyrate_take_ent(&g->g_hosts, host_of(g, from, now),
		    now);
}
