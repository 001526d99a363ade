/*
 * msg_nonce — the nonces of sealed messages, without a system call per
 * message.  A nonce is a 128-bit random prefix, drawn once per process
 * (and again in a forked child), followed by a 64-bit counter: unique
 * under one key, which is all XChaCha20-Poly1305 asks of its 192-bit
 * nonce (cilknow-protocol(7), "Nonces").  Safe from several threads.
 */
#ifndef CILKNOW_MSG_NONCE_H
#define CILKNOW_MSG_NONCE_H

#include <stdint.h>

#include "msg_codec.h"

#define MSG_NONCE_PREFIX_LEN	16	/* random, per process */

/* The next nonce of this process: never the same twice, nor as another's. */
void	msg_nonce_next(uint8_t nonce[MSG_NONCE_LEN]);

#endif
