/*
 * CilkJobBroker's registry kept across a restart: its nodes and jobs
 * (broker_persist.h), and its drained and down nodes (broker_health.h,
 * table holds since schema 2) in state_dir/broker/registry.db, SQLite, WAL,
 * schema version in user_version (a newer one is refused).  Reloaded at
 * start, so CilkPs, CilkNodes and CilkKill answer at once; written
 * whole, in one transaction, when the registry's epoch changed (at most
 * once a second, or less often if writes are slow: broker_persist_when(),
 * so a flood of registrations is not a flood of writes) and at least
 * once a register interval (ages).
 */
#ifndef CILKJOBBROKER_BPERSIST_H
#define CILKJOBBROKER_BPERSIST_H

#include <limits.h>
#include <sqlite3.h>

#include "broker.h"
#include "broker_health.h"
#include "dctx.h"

#define BPERSIST_FILE	"registry.db"	/* in state_dir/broker */
#define BPERSIST_SCHEMA	2	/* 1: nodes, jobs; 2: and holds */

struct bpersist {
	struct dctx	*bs_dc;
	struct broker	*bs_br;
	struct broker_health *bs_health;	/* NULL until load_holds */
	uint64_t	 bs_hepoch;	/* its bh_epoch last written */
	sqlite3		*bs_db;
	char		 bs_path[PATH_MAX];
	uint64_t	 bs_epoch;	/* br_epoch last written */
	double		 bs_last;	/* now_mono() of the last write */
	double		 bs_took;	/* seconds it took */
	struct evtimer	*bs_timer;	/* a write held back by the gap */
};

/* Opens or makes the database (after the drop).  -1 with err. */
int	bpersist_init(struct bpersist *, struct dctx *, struct broker *,
	    char *err, size_t errlen);
/* The saved registry into the broker (after broker_init); logged. */
void	bpersist_load(struct bpersist *);
/*
 * The saved drained and down nodes into h (after bpersist_load and
 * bhealth_init); kept with the registry from then on.  Logged.
 */
void	bpersist_load_holds(struct bpersist *, struct broker_health *h);
/* The registry may have changed: written now, soon, or not at all. */
void	bpersist_changed(struct bpersist *);
/* Written a last time, closed. */
void	bpersist_fini(struct bpersist *);

#endif
