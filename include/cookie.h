/*
 * cookie — return-routability for large answers.  A cookie is a keyed
 * BLAKE2b of the asker's address and the current minute under a key
 * the daemon makes at start; it is good for that minute and the next.
 * Only an asker that receives at its address can echo it, so a daemon
 * sends a large answer to a user-scheme request only there, and never
 * to a forged source address (cilknow-protocol(7)).  The broker (LIST,
 * PRED_REQ) and the node managers (PRED_REQ) each keep their own key.
 */
#ifndef CILKNOW_COOKIE_H
#define CILKNOW_COOKIE_H

#include <stdint.h>

#include <sodium.h>

#include "msg.h"
#include "proto.h"

#define COOKIE_PERIOD	60	/* seconds a cookie's minute lasts */

struct cookie_key {
	uint8_t		ck_key[crypto_generichash_KEYBYTES];
};

/* A fresh random key (sodium_init() first). */
void	cookie_init(struct cookie_key *);
/* The cookie of addr at time now (seconds, any steady clock). */
void	cookie_make(const struct cookie_key *, const struct msg_addr *addr,
	    double now, uint8_t out[PROTO_COOKIE_LEN]);
/* 1 if c is addr's cookie of now's period or the one before, else 0. */
int	cookie_ok(const struct cookie_key *, const struct msg_addr *addr,
	    double now, const uint8_t c[PROTO_COOKIE_LEN]);

/*
 * 1 if the sender of in has shown that it receives at its address: it
 * asked under the cluster scheme (daemons and administrators are
 * trusted with the key as with everything), or it echoed a good cookie
 * (c, when has).  Otherwise 0, and in is answered with PROTO_H_COOKIE,
 * 16 bytes: the asker asks again with it, a forger never sees it.
 */
int	cookie_proved(const struct cookie_key *, struct msg_ep *,
	    const struct msg_in *in, double now, int has,
	    const uint8_t c[PROTO_COOKIE_LEN]);

#endif
