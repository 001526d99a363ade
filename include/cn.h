/*
 * cn — the inside of the parallel runtime, shared by the library
 * (src/runtime) and CilkChouse: task frames and their packing, the
 * clearinghouse's messages, and its accounting of work units (the task
 * tree that makes every result count exactly once).  Pure: no I/O.
 */
#ifndef CILKNOW_CN_H
#define CILKNOW_CN_H

#include <stddef.h>
#include <stdint.h>

#include "cilknow.h"
#include "msg.h"
#include "wire.h"

/* One pending task: which function, and its argument. */
struct cn_frame {
	uint16_t	fr_fn;
	uint16_t	fr_len;
	uint8_t		fr_arg[CN_ARG_MAX];
};

#define CN_FRAME_WIRE_MAX	(4 + CN_ARG_MAX)
#define CN_EXPORT_MAX		256	/* frames in one message */
#define CN_RECORDS_FLUSH	24576	/* records held before a hand-back */
/* One task may still emit after the flush is called for. */
#define CN_RECORDS_MAX		(CN_RECORDS_FLUSH + 2 * CN_RECORD_MAX)

/* Packs one frame; 0 or -1 (no room, bad length). */
int	cn_frame_put(struct wire_w *, const struct cn_frame *);
int	cn_frame_get(struct wire_r *, struct cn_frame *);

/* Records are u32 key, u32 length, bytes; -1 if malformed. */
typedef void	cn_record_fn(void *, uint32_t, const void *, size_t);
int	cn_records_walk(const uint8_t *, size_t, cn_record_fn *, void *);

/*
 * The clearinghouse's messages (CilkChouse(8)), under the user scheme:
 * every party is a process of the job's user, holding that user's key.
 */
enum cn_handler {
	CN_H_UNDEF = 0,
	CN_H_REGISTER = MSG_H_USER,	/* w->c: join */
	CN_H_WELCOME,			/* c->w: your worker id */
	CN_H_HEARTBEAT,			/* w->c: alive */
	CN_H_STEAL,			/* w->c: idle, give me work */
	CN_H_ASSIGN,			/* c->w: a work unit */
	CN_H_GIVE,			/* c->w: export your oldest frame */
	CN_H_EXPORT,			/* w->c: frames become work units */
	CN_H_EXPORT_ACK,
	CN_H_DONE,			/* w->c: a work unit finished */
	CN_H_DONE_ACK,
	CN_H_RESULT,			/* c->root: a final unit's records */
	CN_H_RESULT_ACK,
	CN_H_FINISH,			/* c->w: the job is over */
	CN_H_FINISH_ACK,
	CN_H_LEAVE,			/* w->c: handed back, going */
	CN_H_GONE,			/* c->w: you were given up for lost */
	CN_H_ALIVE,			/* c->w: heard your heartbeat */
	CN_H_MAX
};

/*
 * Every process of a job runs the same executable: closures name its
 * threads by index and cn_for's functions by their offset in it.  A
 * process's REGISTER carries a BLAKE2b digest of its executable; the
 * clearinghouse refuses one whose digest is not the job's (its
 * WELCOME names worker 0).
 */
#define CN_EXE_DIGEST	32
int	cn_exe_digest(uint8_t out[CN_EXE_DIGEST]);

/*
 * A HEARTBEAT's cm_stat[1] from a program of threads, whose steals the
 * clearinghouse does not see: whether the worker has work (BUSY) or is
 * a thief with nothing (STARVED), for the useful-worker estimate
 * (cn_useful_tick).  A program of tasks says nothing (QUIET): its
 * STEALs say it.
 */
enum cn_beat_want { CN_BEAT_QUIET = 0, CN_BEAT_BUSY, CN_BEAT_STARVED };

/*
 * The job's key (msg_codec.h, MSG_SCHEME_JOB): its processes speak to
 * each other under it, not under the user scheme, which under munge
 * costs each message a credential from munged.  The clearinghouse
 * makes it at start; a process's REGISTER carries a fresh X25519
 * public key of its own, and the WELCOME the job key sealed to it
 * (crypto_box_seal), so that the key crosses the network only
 * encrypted and only to a process the user scheme has shown to be the
 * job's user's.  Under it a process claims the name "w" and its id.
 */
#define CN_JOB_KEY	32
#define CN_BOX_PK	32
#define CN_JOB_SEALED	(48 + CN_JOB_KEY)	/* crypto_box_SEALBYTES + key */

/* One message, decoded; which fields mean something depends on type. */
struct cn_msg {
	uint32_t	 cm_worker;
	uint32_t	 cm_unit;
	uint32_t	 cm_attempt;
	uint32_t	 cm_count;	/* frames, exports, workers */
	uint64_t	 cm_seq;
	int64_t		 cm_sum;
	uint64_t	 cm_stat[4];
	uint8_t		 cm_root;
	char		 cm_node[64];
	struct msg_addr	 cm_nodemgr;	/* REGISTER: the worker's node manager */
	/* REGISTER: a digest of the process's executable (cn_exe_digest) */
	uint8_t		 cm_exe[CN_EXE_DIGEST];
	uint8_t		 cm_box_pk[CN_BOX_PK];	/* REGISTER */
	uint32_t	 cm_keyid;		/* WELCOME: the job key's */
	uint8_t		 cm_sealed[CN_JOB_SEALED]; /* WELCOME: the key */
	const uint8_t	*cm_data;	/* records, into the input */
	size_t		 cm_len;
	uint16_t	 cm_nframes;
	/* Last, so that zeroing up to here clears everything else. */
	struct cn_frame	 cm_frames[CN_EXPORT_MAX];
};

size_t	cn_msg_enc(enum cn_handler, const struct cn_msg *, uint8_t *, size_t);
int	cn_msg_dec(enum cn_handler, struct cn_msg *, const uint8_t *, size_t);

/*
 * The accounting.  A work unit is a frame the clearinghouse handed to
 * a worker; while running it the worker may export some of its pending
 * frames, which become units whose parent is (unit, attempt).  A unit
 * is final when it is done and its parent is final.  When a worker is
 * lost, each unit it held is redone under a new attempt and every unit
 * exported by the lost attempt is cancelled with its descendants (done
 * or not: their work happens again inside the redone unit).  Only final
 * units count, so every result counts exactly once.
 */
enum cn_unit_state {
	CN_U_UNDEF = 0,
	CN_U_POOL,		/* waiting for a worker */
	CN_U_RUNNING,
	CN_U_DONE,		/* done, not final yet */
	CN_U_FINAL,
	CN_U_CANCELLED,
	CN_U_MAX
};

struct cn_unit {
	enum cn_unit_state u_state;
	uint32_t	 u_parent;	/* 0 for the root unit */
	uint32_t	 u_parent_attempt;
	uint32_t	 u_attempt;
	uint32_t	 u_worker;	/* running it, or 0 */
	uint32_t	 u_creator;	/* worker that exported it */
	uint32_t	 u_exports;	/* received from this attempt */
	struct cn_frame	 u_frame;
	int64_t		 u_sum;
	uint8_t		*u_records;
	size_t		 u_nrecords;
	uint32_t	*u_kids;	/* units exported by any attempt */
	uint32_t	 u_nkids, u_capkids;
	uint32_t	 u_pool_next;	/* FIFO of pooled units */
};

struct cn_tree {
	struct cn_unit	*t_units;	/* by id; 0 unused */
	uint32_t	 t_n, t_cap;
	uint32_t	 t_pool_head, t_pool_tail;
	uint32_t	 t_open;	/* units not final, not cancelled */
	int64_t		 t_sum;		/* of final units */
	uint64_t	 t_migrated, t_reissued, t_cancelled;
	/* A unit became final and has records for the root. */
	void		(*t_on_final)(struct cn_tree *, uint32_t, void *);
	void		 *t_arg;
};

int	 cn_tree_init(struct cn_tree *);
void	 cn_tree_fini(struct cn_tree *);
/* The root unit (id 1), running on worker w from the start. */
int	 cn_tree_root(struct cn_tree *, uint32_t w, const struct cn_frame *);
/*
 * Frames exported by worker w from (unit, attempt): new pooled units.
 * 0 taken, 1 stale (unit cancelled or redone: dropped), -1 no memory.
 */
int	 cn_tree_export(struct cn_tree *, uint32_t w, uint32_t unit,
	    uint32_t attempt, const struct cn_frame *, uint32_t n);
/* The oldest pooled unit, now running on w; 0 if none. */
uint32_t cn_tree_assign(struct cn_tree *, uint32_t w);
/*
 * The oldest pooled unit among the first CN_POOL_NEAR whose creator is
 * near(creator, arg) (a worker on w's host), now running on w; 0 if
 * none.  The pool stays FIFO for everything else.
 */
#define CN_POOL_NEAR	64
uint32_t cn_tree_assign_near(struct cn_tree *, uint32_t w,
	    int (*near)(uint32_t creator, void *), void *arg);
/*
 * Unit done on w with its sum and records, having exported nexports
 * frames.  0 taken, 1 stale or duplicate (ack and drop), 2 not yet
 * (exports missing: do not ack), -1 no memory.
 */
int	 cn_tree_done(struct cn_tree *, uint32_t w, uint32_t unit,
	    uint32_t attempt, uint32_t nexports, int64_t sum,
	    const uint8_t *records, size_t len);
/* Worker w is lost: its running units go back to the pool.  -1 no memory. */
int	 cn_tree_lost(struct cn_tree *, uint32_t w);
/*
 * Recovery: a tree whose root unit is final with the checkpoint's sum,
 * and whose frontier frames wait in the pool as its children.
 */
int	 cn_tree_recover(struct cn_tree *, int64_t sum,
	    const struct cn_frame *, uint32_t n);
/*
 * A checkpoint of the books: the sum of the final units, their records,
 * and the frontier (the frames of the units not final whose parent is:
 * what is left to do).  cn_ckpt_enc returns a malloc'd image (NULL, no
 * memory); cn_ckpt_dec points into the image and allocates the frames.
 */
uint8_t	*cn_ckpt_enc(const struct cn_tree *, const uint8_t *records,
	    size_t nrecords, size_t *len);
int	 cn_ckpt_dec(const uint8_t *, size_t, int64_t *sum,
	    struct cn_frame **frames, uint32_t *n, const uint8_t **records,
	    size_t *nrecords);
/* Atomically (temporary file, fsync, rename), mode 0600.  0 or -1. */
int	 cn_ckpt_write(const char *path, const uint8_t *, size_t);
/* The whole file, malloc'd; NULL with errno. */
uint8_t	*cn_ckpt_read(const char *path, size_t *len);

/* 1 when the root unit and everything under it is final. */
int	 cn_tree_finished(const struct cn_tree *);

/*
 * The invariant that makes every piece of work count exactly once.  A
 * unit's report covers its frame's whole subtree except the frames it
 * exported, and it names how many it exported; each of those is a kid
 * unit of that same (unit, attempt).  So the job's sum is the sum of
 * the final units exactly when, for every unit:
 *   E1  a unit is final only if its parent is final and it was
 *       exported by the parent's final attempt (u_parent_attempt ==
 *       parent's u_attempt);
 *   E2  a done or final unit has exactly u_exports kids of its own
 *       attempt, none cancelled;
 *   E3  a report is taken only from the worker running the unit's
 *       current attempt: a worker given up for lost is fenced, its
 *       unit's attempt moves on, and the kids of the lost attempt are
 *       cancelled with all under them, so nothing of the lost attempt
 *       can be final;
 *   E4  t_sum is the sum of the final units and t_open counts the
 *       units neither final nor cancelled.
 * E3 is enforced by running() in cn_tree.c and by the clearinghouse's
 * fencing (CilkChouse(8)); cn_tree_check verifies E1, E2 and E4, and
 * E3's consequence (a running or pooled unit has no final kid of its
 * current attempt).  NULL if they hold, else what is broken.
 */
const char *cn_tree_check(const struct cn_tree *);
struct cn_unit *cn_tree_unit(struct cn_tree *, uint32_t);

/*
 * Useful parallelism, from the clearinghouse's view of stealing: in a
 * window of CN_USEFUL_WINDOW ticks, if workers starved (idle, nothing
 * pooled, victims with nothing to give) nearly all the time, the job
 * can use about as many workers as were busy; if they nearly never
 * starved, it has no cap.  The root's clearinghouse hands the estimate
 * to its job manager, whose registrations carry it to the broker's
 * fair share as the job's most useful workers (thesis chapter 6).
 */
#define CN_USEFUL_WINDOW	20

struct cn_useful {
	uint32_t	uw_ticks, uw_starved;
	uint64_t	uw_busy;	/* sum over the window's ticks */
	uint32_t	uw_cap;		/* 0: no cap */
};

/* One tick; 1 when the window ended with a new uw_cap. */
int	cn_useful_tick(struct cn_useful *, uint32_t busy, uint32_t idle,
	    int pooled);

#endif
