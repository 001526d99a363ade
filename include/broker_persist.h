/*
 * broker_persist — what CilkJobBroker keeps of its registry across a
 * restart, without I/O: a node or job as a flat record (saved by the
 * daemon in state_dir/broker/registry.db), the checks a record must pass
 * to be reloaded, and how a reloaded one is put back.
 *
 * A reloaded record counts its silence from the restart: it is expired
 * as any other if its node or job manager has not registered within 3
 * register intervals of it.  A reloaded node keeps the state and slots
 * it last reported until it registers again; its SEEN age counts from
 * the last registration the broker before heard (bn_before), so it
 * keeps growing past the new broker's uptime, and nothing else marks
 * it.  A node or job manager that registers again from the same address
 * (a job manager: same id, user and boot number) is the reloaded record
 * and keeps its id (broker.h).
 */
#ifndef CILKNOW_BROKER_PERSIST_H
#define CILKNOW_BROKER_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "broker.h"

#define BROKER_SLOT_BYTES	5	/* state, job (big-endian) */

struct broker_saved_node {
	uint32_t	 sn_id;
	uint64_t	 sn_boot;
	struct msg_addr	 sn_addr;
	char		 sn_host[PROTO_HOST_MAX];
	uint8_t		 sn_state;	/* enum proto_node_state */
	uint32_t	 sn_job;
	uint32_t	 sn_load_milli;
	uint32_t	 sn_idle;
	uint16_t	 sn_users;
	uint16_t	 sn_total, sn_lent;
	uint32_t	 sn_mem_mb;
	uint16_t	 sn_nslots;
	struct proto_slot sn_slots[PROTO_SLOTS_MAX];
	uint64_t	 sn_seen_ms;	/* realtime of its last registration */
};

struct broker_saved_job {
	uint32_t	 sj_id;
	uint64_t	 sj_boot;
	char		 sj_user[MSG_NAME_MAX + 1];
	struct msg_addr	 sj_addr;
	uint32_t	 sj_max;
	uint32_t	 sj_pri;
	uint64_t	 sj_start_ms;
	char		 sj_command[PROTO_COMMAND_MAX];
	uint16_t	 sj_cpus;
	uint32_t	 sj_mem_mb;
};

/* The record of n or j; now is now_mono(), now_ms the realtime. */
void	broker_save_node(const struct broker_node *, double now,
	    uint64_t now_ms, struct broker_saved_node *);
void	broker_save_job(const struct broker_job *, struct broker_saved_job *);

/*
 * Puts a saved record back into br as of now (now_mono(); now_ms the
 * realtime).  0, or -1 with a reason: a record that fails its checks
 * (no id, bad address, state, user, priority, slots), an id or address
 * taken already, a full table, no memory.
 */
int	broker_reload_node(struct broker *, const struct broker_saved_node *,
	    double now, uint64_t now_ms, const char **why);
int	broker_reload_job(struct broker *, const struct broker_saved_job *,
	    double now, const char **why);

/*
 * When to write the registry: changed (its epoch moved since the last
 * write), since (seconds since that write), took (how long it took).
 * -1: not (unchanged, written within an interval); 0: now; else in so
 * many seconds.  Writes are BROKER_PERSIST_GAP apart at least, and 20
 * times as long as the last one took, so that writing a large registry
 * takes at most a twentieth of the broker's time.
 */
#define BROKER_PERSIST_GAP	1.0
double	broker_persist_when(int changed, double since, double took,
	    double interval);

/* Seconds since n last registered, with any silence before a reload. */
double	broker_node_seen_age(const struct broker_node *, double now);

/*
 * A node's slots as bytes (BROKER_SLOT_BYTES each): the length written
 * (0 if it does not fit), and back: 0, or -1 if len is not a whole
 * number of slots or is more than PROTO_SLOTS_MAX of them.
 */
size_t	broker_slots_enc(const struct broker_saved_node *, uint8_t *,
	    size_t);
int	broker_slots_dec(struct broker_saved_node *, const uint8_t *,
	    size_t len);

#endif
