/* broker_persist — the registry's records for a restart (broker_persist.h). */
#include "broker_persist.h"

#include <stdlib.h>
#include <string.h>

#include "msg_keys.h"

void
broker_save_node(const struct broker_node *n, double now, uint64_t now_ms,
    struct broker_saved_node *s)
{
	double age = broker_node_seen_age(n, now);
	uint16_t i;

	memset(s, 0, sizeof(*s));
	s->sn_id = n->bn_id;
	s->sn_boot = n->bn_boot;
	s->sn_addr = n->bn_addr;
	strlcpy(s->sn_host, n->bn_host, sizeof(s->sn_host));
	s->sn_state = n->bn_state;
	s->sn_job = n->bn_job;
	s->sn_load_milli = n->bn_load_milli;
	s->sn_idle = n->bn_idle;
	s->sn_users = n->bn_users;
	s->sn_total = n->bn_total;
	s->sn_lent = n->bn_lent;
	s->sn_mem_mb = n->bn_mem_mb;
	s->sn_nslots = n->bn_nslots < PROTO_SLOTS_MAX ? n->bn_nslots :
	    PROTO_SLOTS_MAX;
	for (i = 0; i < s->sn_nslots; i++) {
		s->sn_slots[i].ps_state = n->bn_slots[i].bs_state;
		s->sn_slots[i].ps_job = n->bn_slots[i].bs_job;
	}
	if (age < 0)
		age = 0;
	s->sn_seen_ms = (double)now_ms > age * 1000 ?
	    now_ms - (uint64_t)(age * 1000) : 0;
}

void
broker_save_job(const struct broker_job *j, struct broker_saved_job *s)
{
	memset(s, 0, sizeof(*s));
	s->sj_id = j->bj_id;
	s->sj_boot = j->bj_boot;
	strlcpy(s->sj_user, j->bj_user, sizeof(s->sj_user));
	s->sj_addr = j->bj_addr;
	s->sj_max = j->bj_max;
	s->sj_pri = j->bj_pri;
	s->sj_start_ms = j->bj_start_ms;
	strlcpy(s->sj_command, j->bj_command, sizeof(s->sj_command));
	s->sj_cpus = j->bj_cpus;
	s->sj_mem_mb = j->bj_mem_mb;
}

static int
addr_ok(const struct msg_addr *a)
{
	return (a->ma_family == 4 || a->ma_family == 6) && a->ma_port != 0;
}

/* A state a node reports of itself or of a processor. */
static int
state_ok(uint8_t st)
{
	return st > PROTO_NS_UNDEF && st < PROTO_NS_NODE_MAX;
}

static int
node_ok(const struct broker_saved_node *s, const char **why)
{
	uint16_t i;

	*why = NULL;
	if (s->sn_id == 0)
		*why = "node id 0";
	else if (!addr_ok(&s->sn_addr))
		*why = "bad address";
	else if (!state_ok(s->sn_state))
		*why = "bad state";
	else if (memchr(s->sn_host, '\0', sizeof(s->sn_host)) == NULL)
		*why = "host name not terminated";
	else if (s->sn_nslots > PROTO_SLOTS_MAX)
		*why = "too many processors";
	for (i = 0; *why == NULL && i < s->sn_nslots; i++)
		if (!state_ok(s->sn_slots[i].ps_state))
			*why = "bad processor state";
	return *why == NULL;
}

int
broker_reload_node(struct broker *br, const struct broker_saved_node *s,
    double now, uint64_t now_ms, const char **why)
{
	struct broker_node *n;
	uint16_t i, k;

	if (!node_ok(s, why))
		return -1;
	if ((n = calloc(1, sizeof(*n))) == NULL) {
		*why = "out of memory";
		return -1;
	}
	k = s->sn_nslots > 0 ? s->sn_nslots : 1;
	if ((n->bn_slots = calloc(k, sizeof(*n->bn_slots))) == NULL) {
		free(n);
		*why = "out of memory";
		return -1;
	}
	n->bn_cap = k;
	n->bn_nslots = s->sn_nslots;
	for (i = 0; i < s->sn_nslots; i++) {
		n->bn_slots[i].bs_state = s->sn_slots[i].ps_state;
		n->bn_slots[i].bs_job = s->sn_slots[i].ps_job;
	}
	n->bn_id = s->sn_id;
	n->bn_boot = s->sn_boot;
	n->bn_addr = s->sn_addr;
	strlcpy(n->bn_host, s->sn_host, sizeof(n->bn_host));
	n->bn_state = s->sn_state;
	n->bn_job = s->sn_job;
	n->bn_load_milli = s->sn_load_milli;
	n->bn_idle = s->sn_idle;
	n->bn_users = s->sn_users;
	n->bn_total = s->sn_total;
	n->bn_lent = s->sn_lent;
	n->bn_mem_mb = s->sn_mem_mb;
	/* Expired 3 intervals from now unless it registers; its age shows. */
	n->bn_seen = now;
	n->bn_before = now_ms > s->sn_seen_ms ?
	    (double)(now_ms - s->sn_seen_ms) / 1000 : 0;
	if (broker_node_adopt(br, n) == -1) {
		free(n->bn_slots);
		free(n);
		*why = "id or address taken, or the node table is full";
		return -1;
	}
	return 0;
}

int
broker_reload_job(struct broker *br, const struct broker_saved_job *s,
    double now, const char **why)
{
	struct broker_job *j;

	*why = NULL;
	if (s->sj_id == 0)
		*why = "job id 0";
	else if (memchr(s->sj_user, '\0', sizeof(s->sj_user)) == NULL ||
	    !msg_user_name_ok(s->sj_user))
		*why = "bad user name";
	else if (!addr_ok(&s->sj_addr))
		*why = "bad address";
	else if (s->sj_pri < 1 || s->sj_pri > BROKER_PRI_MAX)
		*why = "bad priority";
	else if (s->sj_cpus < 1 || s->sj_cpus > PROTO_SLOTS_MAX)
		*why = "bad processor count";
	else if (memchr(s->sj_command, '\0', sizeof(s->sj_command)) == NULL)
		*why = "command not terminated";
	if (*why != NULL)
		return -1;
	if ((j = calloc(1, sizeof(*j))) == NULL) {
		*why = "out of memory";
		return -1;
	}
	j->bj_id = s->sj_id;
	j->bj_boot = s->sj_boot;
	strlcpy(j->bj_user, s->sj_user, sizeof(j->bj_user));
	j->bj_addr = s->sj_addr;
	j->bj_max = s->sj_max;
	j->bj_pri = s->sj_pri;
	j->bj_start_ms = s->sj_start_ms;
	strlcpy(j->bj_command, s->sj_command, sizeof(j->bj_command));
	j->bj_cpus = s->sj_cpus;
	j->bj_mem_mb = s->sj_mem_mb;
	j->bj_seen = j->bj_registered = now;
	if (broker_job_adopt(br, j) == -1) {
		free(j);
		*why = "id taken, or the job table is full";
		return -1;
	}
	return 0;
}

double
broker_persist_when(int changed, double since, double took,
    double interval)
{
	double gap = took * 20 > BROKER_PERSIST_GAP ? took * 20 :
	    BROKER_PERSIST_GAP;

	if (!changed && since < interval)
		return -1;
	return since >= gap ? 0 : gap - since;
}

double
broker_node_seen_age(const struct broker_node *n, double now)
{
	return now - n->bn_seen + n->bn_before;
}

size_t
broker_slots_enc(const struct broker_saved_node *s, uint8_t *buf,
    size_t sz)
{
	size_t len = (size_t)s->sn_nslots * BROKER_SLOT_BYTES, o;
	uint16_t i;
	uint32_t job;

	if (len > sz || s->sn_nslots > PROTO_SLOTS_MAX)
		return 0;
	for (i = 0, o = 0; i < s->sn_nslots; i++, o += BROKER_SLOT_BYTES) {
		job = s->sn_slots[i].ps_job;
		buf[o] = s->sn_slots[i].ps_state;
		buf[o + 1] = (uint8_t)(job >> 24);
		buf[o + 2] = (uint8_t)(job >> 16);
		buf[o + 3] = (uint8_t)(job >> 8);
		buf[o + 4] = (uint8_t)job;
	}
	return len;
}

int
broker_slots_dec(struct broker_saved_node *s, const uint8_t *buf, size_t len)
{
	size_t o;
	uint16_t i;

	if (len % BROKER_SLOT_BYTES != 0 ||
	    len / BROKER_SLOT_BYTES > PROTO_SLOTS_MAX)
		return -1;
	s->sn_nslots = (uint16_t)(len / BROKER_SLOT_BYTES);
	for (i = 0, o = 0; i < s->sn_nslots; i++, o += BROKER_SLOT_BYTES) {
		s->sn_slots[i].ps_state = buf[o];
		s->sn_slots[i].ps_job = (uint32_t)buf[o + 1] << 24 |
		    (uint32_t)buf[o + 2] << 16 | (uint32_t)buf[o + 3] << 8 |
		    buf[o + 4];
	}
	return 0;
}
