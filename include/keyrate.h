/*
 * keyrate — a token bucket per key (a user name, a source host), in a
 * table of fixed size, so that one peer's requests cannot crowd out
 * the rest's: each key may take `burst` at once and `rate` a second
 * after that.  When the table is full, the key used least recently
 * makes room (it comes back with a full bucket: forgetting is only ever
 * generous).  Each key also has a log_rate (log.h) for the lines its
 * requests make.  No allocation after keyrate_init.
 */
#ifndef CILKNOW_KEYRATE_H
#define CILKNOW_KEYRATE_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"

#define KEYRATE_KEY_MAX	64	/* bytes of a key; longer ones are cut */

struct keyrate_ent {
	uint8_t		ke_key[KEYRATE_KEY_MAX];
	size_t		ke_klen;
	double		ke_tokens;
	double		ke_last;	/* when tokens were last counted */
	double		ke_used;	/* when last looked up */
	unsigned long	ke_refused;	/* takes refused, ever */
	struct log_rate	ke_log;
};

struct keyrate {
	struct keyrate_ent *kr_ents;
	size_t		 kr_n, kr_cap;
	double		 kr_rate, kr_burst;
	struct log_rate	 kr_log;	/* each entry's starts as this */
};

/* cap keys; rate a second, burst at once; log the entries' lines so. */
int	keyrate_init(struct keyrate *, size_t cap, double rate, double burst,
	    struct log_rate log);
void	keyrate_fini(struct keyrate *);
/* key's entry, made (or made room for) if new; never NULL after init. */
struct keyrate_ent *keyrate_get(struct keyrate *, const void *key,
	    size_t klen, double now);
/* 1 if key may go on now (a token taken), 0 if it must wait. */
int	keyrate_take(struct keyrate *, const void *key, size_t klen,
	    double now);
/* The same for an entry keyrate_get gave. */
int	keyrate_take_ent(struct keyrate *, struct keyrate_ent *, double now);
/* 1 if the entry has a token now, taking none (charged afterwards). */
int	keyrate_ready(struct keyrate *, struct keyrate_ent *, double now);

#endif
