/*
 * broker_cookie — return-routability for large answers.  A cookie is a
 * keyed BLAKE2b of the asker's address and the current minute under a
 * key the broker makes at start; it is good for that minute and the
 * next.  Only an asker that receives at its address can echo it, so the
 * broker answers a large list only there (cilknow-protocol(7)).  Pure
 * apart from the random key.
 */
#ifndef CILKNOW_BROKER_COOKIE_H
#define CILKNOW_BROKER_COOKIE_H

#include <stdint.h>

#include <sodium.h>

#include "msg_codec.h"
#include "proto.h"

#define BROKER_COOKIE_PERIOD	60	/* seconds a cookie's minute lasts */

struct broker_cookie {
	uint8_t		bc_key[crypto_generichash_KEYBYTES];
};

/* A fresh random key (sodium_init() first). */
void	broker_cookie_init(struct broker_cookie *);
/* The cookie of addr at time now (seconds, any steady clock). */
void	broker_cookie_make(const struct broker_cookie *,
	    const struct msg_addr *addr, double now,
	    uint8_t out[PROTO_COOKIE_LEN]);
/* 1 if c is addr's cookie of now's period or the one before, else 0. */
int	broker_cookie_ok(const struct broker_cookie *,
	    const struct msg_addr *addr, double now,
	    const uint8_t c[PROTO_COOKIE_LEN]);

#endif
