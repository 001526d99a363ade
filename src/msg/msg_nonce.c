/* msg_nonce — a random prefix per process and a counter, for nonces. */
#include "msg_nonce.h"

#include <sys/mman.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "log.h"

/*
 * The state lives on a page of its own that the kernel wipes in a forked
 * child (MADV_WIPEONFORK): a child reads ns_seeded as 0 and draws a
 * prefix of its own, however it was forked.  getpid() would be a system
 * call per message, which is what this file avoids.  Where the kernel
 * cannot wipe, pthread_atfork clears the flag instead.
 */
struct nonce_state {
	atomic_int	ns_seeded;
	atomic_uint_fast64_t ns_counter;
	uint8_t		ns_prefix[MSG_NONCE_PREFIX_LEN];
};

static struct nonce_state *state;	/* set once, kept across fork */
static struct nonce_state fallback;	/* if no page could be mapped */
static pthread_mutex_t seed_lock = PTHREAD_MUTEX_INITIALIZER;

/* Fork with the lock held, so that a child never inherits it taken. */
static void
nonce_prepare(void)
{
	(void)pthread_mutex_lock(&seed_lock);
}

static void
nonce_parent(void)
{
	(void)pthread_mutex_unlock(&seed_lock);
}

static void
nonce_child(void)
{
	if (state != NULL)
		atomic_store(&state->ns_seeded, 0);
	(void)pthread_mutex_unlock(&seed_lock);
}

/* The first use of the process, or of a forked child: draw a prefix. */
static struct nonce_state *
nonce_seed(void)
{
	struct nonce_state *s;
	void *p;

	if (pthread_mutex_lock(&seed_lock) != 0)
		fatalx("%s: cannot take the seed lock", __func__);
	if ((s = state) == NULL) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);

		p = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED && madvise(p, pg, MADV_WIPEONFORK) == 0)
			s = p;
		else {
			if (p != MAP_FAILED)
				(void)munmap(p, pg);
			s = &fallback;
		}
		/* Without it a child could repeat its parent's nonces. */
		if (pthread_atfork(nonce_prepare, nonce_parent,
		    nonce_child) != 0 && s == &fallback)
			fatalx("%s: no way to see a fork", __func__);
		state = s;
	}
	if (!atomic_load(&s->ns_seeded)) {
		randombytes_buf(s->ns_prefix, sizeof(s->ns_prefix));
		atomic_store(&s->ns_counter, 0);
		atomic_store_explicit(&s->ns_seeded, 1, memory_order_release);
	}
	(void)pthread_mutex_unlock(&seed_lock);
	return s;
}

void
msg_nonce_next(uint8_t nonce[MSG_NONCE_LEN])
{
	struct nonce_state *s = state;
	uint64_t n;

	if (s == NULL ||
	    !atomic_load_explicit(&s->ns_seeded, memory_order_acquire))
		s = nonce_seed();
	n = atomic_fetch_add_explicit(&s->ns_counter, 1,
	    memory_order_relaxed);
	memcpy(nonce, s->ns_prefix, MSG_NONCE_PREFIX_LEN);
	memcpy(nonce + MSG_NONCE_PREFIX_LEN, &n, sizeof(n));
}
