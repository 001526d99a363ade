/*
 * cn_steal — stealing worker to worker in a program of threads
 * (cilknow(3), "Stealing"; DESIGN.md §10), the pure parts: the
 * messages a thief, its victim and the owners of continuations send
 * each other (the clearinghouse only says who the members are), and
 * the victim's books of closures it lent.  No I/O.
 *
 * A thief asks a member chosen at random for its oldest ready closure
 * (TSTEAL); the victim answers "none" (TNONE) or with the closure as a
 * transfer (XFER, kind CLOSURE), after putting it on its books: the
 * closure the thief runs has for continuation the book entry, not the
 * closure's own, so that its value comes back through the victim, which
 * forwards it to the real continuation and strikes the entry.  If the
 * thief is lost first, the victim runs the closure again itself.
 * Values and closures of any size (up to CN_VALUE_MAX) travel as
 * transfers: chunks of at most CN_XFER_CHUNK bytes, in order, a window
 * of CN_XFER_WINDOW chunks in flight, each acknowledged by how much
 * arrived in order (XFER_ACK), the last ack saying it was taken.
 */
#ifndef CILKNOW_CN_STEAL_H
#define CILKNOW_CN_STEAL_H

#include <stddef.h>
#include <stdint.h>

#include "cn.h"

/* After the clearinghouse's messages (cn.h's CN_H_ALIVE). */
enum cn_steal_handler {
	CN_H_MEMBERS_ASK = CN_H_ALIVE + 1, /* w->c: members, if newer */
	CN_H_MEMBERS,			/* c->w: who is in */
	CN_H_TSTEAL,			/* thief->victim: your oldest */
	CN_H_TNONE,			/* victim->thief: nothing to give */
	CN_H_XFER,			/* a chunk of a value or a closure */
	CN_H_XFER_ACK,			/* how much of it came, in order */
	CN_H_TSTATS,			/* worker->root: its counts */
	CN_H_STEAL_END
};

#define CN_K_BOOK	0x80000000u	/* k_index of a victim's book entry */
#define CN_XFER_CHUNK	60000		/* bytes of one XFER */
#define CN_XFER_WINDOW	2		/* chunks unacknowledged at once */
#define CN_MEMBERS_MAX	1024		/* in one MEMBERS */
#define CN_TSTATS_N	8

enum cn_xfer_kind {
	CN_X_UNDEF = 0,
	CN_X_VALUE,			/* into sm_k */
	CN_X_CLOSURE,			/* a stolen closure, for sm_steal */
	CN_X_MAX
};

/* What a thread program's process counts (cn_stats, Phish's Table 2). */
enum cn_tstat {
	CN_TS_THREADS = 0,		/* threads run */
	CN_TS_STOLEN,			/* closures stolen (as thief) */
	CN_TS_ATTEMPTS,			/* steal requests sent */
	CN_TS_SENDS,			/* values sent to another process */
	CN_TS_BYTES,			/* value and closure bytes sent */
	CN_TS_LOST,			/* thieves lost with our closures */
	CN_TS_RERUN,			/* of our lent closures, run again */
	CN_TS_LATE,			/* values refused: late or twice */
};

struct cn_member {
	uint32_t	mb_id;
	uint8_t		mb_root;
	struct msg_addr	mb_addr;
};

struct cn_smsg {
	uint32_t	 sm_from;	/* sender's worker id */
	uint64_t	 sm_serial;	/* steal request, or transfer id */
	/* MEMBERS_ASK, MEMBERS */
	uint64_t	 sm_version;
	uint32_t	 sm_maxid;	/* ids up to this were handed out */
	uint32_t	 sm_nmembers;
	struct cn_member *sm_members;	/* caller's, CN_MEMBERS_MAX */
	/* XFER */
	uint8_t		 sm_kind;
	struct cn_cont	 sm_k;		/* VALUE: where; CLOSURE: its book */
	uint16_t	 sm_fn;		/* CLOSURE: the thread's index */
	uint64_t	 sm_steal;	/* CLOSURE: the TSTEAL it answers */
	uint32_t	 sm_total, sm_off, sm_len;
	const uint8_t	*sm_data;	/* into the input */
	/* XFER_ACK */
	uint32_t	 sm_acked;	/* bytes in order */
	uint8_t		 sm_done;	/* all taken */
	/* TSTATS */
	uint64_t	 sm_stat[CN_TSTATS_N];
};

size_t	cn_smsg_enc(enum cn_steal_handler, const struct cn_smsg *,
	    uint8_t *, size_t);
/* -1 on anything short, long, out of range or inconsistent. */
int	cn_smsg_dec(enum cn_steal_handler, struct cn_smsg *,
	    const uint8_t *, size_t);

/*
 * The books: closures this victim lent, each until the value for its
 * continuation comes back from its thief.  An entry is named by a
 * continuation (owner, CN_K_BOOK | index, generation, slot 0): taking
 * its value strikes it and moves the generation on, so a value counts
 * once whatever is sent twice or late.
 */
struct cn_book {
	uint32_t	 b_gen;
	uint8_t		 b_used;
	uint16_t	 b_fn;
	uint32_t	 b_thief;
	uint64_t	 b_steal;
	struct cn_cont	 b_k;		/* the closure's own continuation */
	uint8_t		*b_arg;
	size_t		 b_len;
};

struct cn_books {
	struct cn_book	*bk_e;		/* by index; 0 unused */
	uint32_t	 bk_n, bk_cap;
	uint32_t	 bk_live;
	uint32_t	 bk_owner;	/* k_owner of our continuations */
};

void	cn_books_init(struct cn_books *, uint32_t owner);
void	cn_books_fini(struct cn_books *);
/*
 * Lends fn(arg) (continuation k) to thief for its request steal; its
 * book continuation in *bk.  0, or -1 (ENOMEM, EMSGSIZE).
 */
int	cn_books_lend(struct cn_books *, uint32_t thief, uint64_t steal,
	    uint16_t fn, struct cn_cont k, const void *arg, size_t len,
	    struct cn_cont *bk);
/*
 * The value for bk came from worker from: 0 with *k the continuation
 * it goes on to (the entry is struck); -1 with errno ESTALE (no such
 * entry now: struck already, or re-run), EPERM (not its thief).
 */
int	cn_books_take(struct cn_books *, struct cn_cont bk, uint32_t from,
	    struct cn_cont *k);
/* The entry lent to thief for steal, or NULL. */
struct cn_book *cn_books_find(struct cn_books *, uint32_t thief,
	    uint64_t steal);
/*
 * Thief is lost: each of its entries is handed to rerun (to run here
 * again) and struck.  The count of them.
 */
typedef void	cn_books_rerun_fn(void *, const struct cn_book *);
uint32_t cn_books_lost(struct cn_books *, uint32_t thief,
	    cn_books_rerun_fn *, void *);

#endif
