/* CilkJobBroker: its registry in registry.db across restarts (bpersist.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpersist.h"
#include "bpred.h"
#include "broker_persist.h"
#include "log.h"
#include "mono.h"

static const char schema_v1[] =
    "CREATE TABLE nodes ("
    " id INTEGER PRIMARY KEY,"
    " boot INTEGER NOT NULL,"
    " family INTEGER NOT NULL,"
    " addr BLOB NOT NULL,"
    " port INTEGER NOT NULL,"
    " host TEXT NOT NULL,"
    " state INTEGER NOT NULL,"
    " job INTEGER NOT NULL,"
    " load_milli INTEGER NOT NULL,"
    " idle INTEGER NOT NULL,"
    " users INTEGER NOT NULL,"
    " total INTEGER NOT NULL,"
    " lent INTEGER NOT NULL,"
    " mem_mb INTEGER NOT NULL,"
    " slots BLOB NOT NULL,"
    " seen_ms INTEGER NOT NULL);"
    "CREATE TABLE jobs ("
    " id INTEGER PRIMARY KEY,"
    " boot INTEGER NOT NULL,"
    " user TEXT NOT NULL,"
    " family INTEGER NOT NULL,"
    " addr BLOB NOT NULL,"
    " port INTEGER NOT NULL,"
    " max INTEGER NOT NULL,"
    " pri INTEGER NOT NULL,"
    " start_ms INTEGER NOT NULL,"
    " command TEXT NOT NULL,"
    " cpus INTEGER NOT NULL,"
    " mem_mb INTEGER NOT NULL);"
    "PRAGMA user_version = 1;";

/* Schema 2: drained and down nodes (broker_health.h), oldest first. */
static const char schema_v2[] =
    "CREATE TABLE holds ("
    " seq INTEGER PRIMARY KEY,"
    " kind INTEGER NOT NULL,"
    " node INTEGER NOT NULL,"
    " family INTEGER NOT NULL,"
    " addr BLOB NOT NULL,"
    " port INTEGER NOT NULL,"
    " host TEXT NOT NULL,"
    " reason TEXT NOT NULL,"
    " user TEXT NOT NULL,"
    " since_ms INTEGER NOT NULL,"
    " boot INTEGER NOT NULL,"
    " gen INTEGER NOT NULL);"
    "PRAGMA user_version = 2;";

static struct log_rate db_log = LOG_RATE_DEFAULT;

static void
db_warn(struct bpersist *bs, const char *what)
{
	if (log_rate(&db_log, now_mono(), "registry database errors"))
		log_warnx("%s: %s: %s", bs->bs_path, what,
		    sqlite3_errmsg(bs->bs_db));
}

static int
exec(struct bpersist *bs, const char *sql)
{
	return sqlite3_exec(bs->bs_db, sql, NULL, NULL, NULL) == SQLITE_OK ?
	    0 : -1;
}

static int
version(struct bpersist *bs, int *v)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(bs->bs_db, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

int
bpersist_init(struct bpersist *bs, struct dctx *dc, struct broker *br,
    char *err, size_t errlen)
{
	char sdir[PATH_MAX];
	int fd, v = 0;

	memset(bs, 0, sizeof(*bs));
	bs->bs_dc = dc;
	bs->bs_br = br;
	if (conf_get_path(dc->dc_conf, "state_dir", sdir, sizeof(sdir)) ==
	    -1 || snprintf(bs->bs_path, sizeof(bs->bs_path), "%s/%s/%s", sdir,
	    BPRED_DIR, BPERSIST_FILE) >= (int)sizeof(bs->bs_path)) {
		snprintf(err, errlen, "state_dir: bad path");
		return -1;
	}
	/* -n makes nothing: a database not made yet is fine. */
	if (dc->dc_args.da_check && access(bs->bs_path, F_OK) == -1 &&
	    errno == ENOENT)
		return 0;
	/* Made with our mode first: SQLite would take the umask's. */
	if ((fd = open(bs->bs_path, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0640)) == -1) {
		snprintf(err, errlen, "%s: %s", bs->bs_path, strerror(errno));
		return -1;
	}
	(void)close(fd);
	if (sqlite3_open_v2(bs->bs_path, &bs->bs_db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
		goto bad;
	(void)sqlite3_busy_timeout(bs->bs_db, 1000);
	if (version(bs, &v) == -1)
		goto bad;
	if (v > BPERSIST_SCHEMA) {
		snprintf(err, errlen, "%s: schema version %d is newer than "
		    "this program's (%d); keep the newer program or move the "
		    "file away", bs->bs_path, v, BPERSIST_SCHEMA);
		sqlite3_close(bs->bs_db);
		bs->bs_db = NULL;
		return -1;
	}
	/* Temporary tables in memory: the broker's engine sees no /tmp. */
	if (exec(bs, "PRAGMA journal_mode = WAL") == -1 ||
	    exec(bs, "PRAGMA synchronous = NORMAL") == -1 ||
	    exec(bs, "PRAGMA temp_store = MEMORY") == -1)
		goto bad;
	/*
	 * Made, or brought to this schema, in one transaction; not by -n
	 * (a check writes nothing: the daemon does it as it starts).
	 */
	if (v < BPERSIST_SCHEMA && !dc->dc_args.da_check &&
	    (exec(bs, "BEGIN IMMEDIATE") == -1 ||
	    (v < 1 && exec(bs, schema_v1) == -1) ||
	    exec(bs, schema_v2) == -1 || exec(bs, "COMMIT") == -1)) {
		(void)exec(bs, "ROLLBACK");
		goto bad;
	}
	return 0;
 bad:
	snprintf(err, errlen, "%s: %s", bs->bs_path, bs->bs_db != NULL ?
	    sqlite3_errmsg(bs->bs_db) : "out of memory");
	sqlite3_close(bs->bs_db);
	bs->bs_db = NULL;
	return -1;
}

static void
col_text(sqlite3_stmt *st, int i, char *buf, size_t sz)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	strlcpy(buf, t != NULL ? (const char *)t : "", sz);
}

/* family, addr, port at columns i.. into a; -1 if the blob is wrong. */
static int
col_addr(sqlite3_stmt *st, int i, struct msg_addr *a)
{
	int64_t port = sqlite3_column_int64(st, i + 2);

	memset(a, 0, sizeof(*a));
	if (sqlite3_column_bytes(st, i + 1) != (int)sizeof(a->ma_addr) ||
	    port < 0 || port > UINT16_MAX)
		return -1;
	a->ma_family = (uint8_t)sqlite3_column_int(st, i);
	memcpy(a->ma_addr, sqlite3_column_blob(st, i + 1),
	    sizeof(a->ma_addr));
	a->ma_port = (uint16_t)port;
	return 0;
}

static int
load_nodes(struct bpersist *bs, double now, uint64_t now_ms, int *bad)
{
	static struct broker_saved_node s;
	sqlite3_stmt *st;
	const char *why;
	int rc, k = 0;

	if (sqlite3_prepare_v2(bs->bs_db, "SELECT id, boot, family, addr, "
	    "port, host, state, job, load_milli, idle, users, total, lent, "
	    "mem_mb, slots, seen_ms FROM nodes ORDER BY id", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&s, 0, sizeof(s));
		s.sn_id = (uint32_t)sqlite3_column_int64(st, 0);
		s.sn_boot = (uint64_t)sqlite3_column_int64(st, 1);
		col_text(st, 5, s.sn_host, sizeof(s.sn_host));
		s.sn_state = (uint8_t)sqlite3_column_int(st, 6);
		s.sn_job = (uint32_t)sqlite3_column_int64(st, 7);
		s.sn_load_milli = (uint32_t)sqlite3_column_int64(st, 8);
		s.sn_idle = (uint32_t)sqlite3_column_int64(st, 9);
		s.sn_users = (uint16_t)sqlite3_column_int(st, 10);
		s.sn_total = (uint16_t)sqlite3_column_int(st, 11);
		s.sn_lent = (uint16_t)sqlite3_column_int(st, 12);
		s.sn_mem_mb = (uint32_t)sqlite3_column_int64(st, 13);
		s.sn_seen_ms = (uint64_t)sqlite3_column_int64(st, 15);
		why = "bad address or processors";
		if (col_addr(st, 2, &s.sn_addr) == -1 ||
		    broker_slots_dec(&s, sqlite3_column_blob(st, 14),
		    (size_t)sqlite3_column_bytes(st, 14)) == -1 ||
		    broker_reload_node(bs->bs_br, &s, now, now_ms, &why) == -1) {
			log_warnx("%s: node %u not reloaded: %s", bs->bs_path,
			    s.sn_id, why);
			(*bad)++;
			continue;
		}
		k++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? k : -1;
}

static int
load_jobs(struct bpersist *bs, double now, int *bad)
{
	static struct broker_saved_job s;
	sqlite3_stmt *st;
	const char *why;
	int rc, k = 0;

	if (sqlite3_prepare_v2(bs->bs_db, "SELECT id, boot, user, family, "
	    "addr, port, max, pri, start_ms, command, cpus, mem_mb FROM jobs "
	    "ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&s, 0, sizeof(s));
		s.sj_id = (uint32_t)sqlite3_column_int64(st, 0);
		s.sj_boot = (uint64_t)sqlite3_column_int64(st, 1);
		col_text(st, 2, s.sj_user, sizeof(s.sj_user));
		s.sj_max = (uint32_t)sqlite3_column_int64(st, 6);
		s.sj_pri = (uint32_t)sqlite3_column_int64(st, 7);
		s.sj_start_ms = (uint64_t)sqlite3_column_int64(st, 8);
		col_text(st, 9, s.sj_command, sizeof(s.sj_command));
		s.sj_cpus = (uint16_t)sqlite3_column_int(st, 10);
		s.sj_mem_mb = (uint32_t)sqlite3_column_int64(st, 11);
		why = "bad address";
		if (col_addr(st, 3, &s.sj_addr) == -1 ||
		    broker_reload_job(bs->bs_br, &s, now, &why) == -1) {
			log_warnx("%s: job %u not reloaded: %s", bs->bs_path,
			    s.sj_id, why);
			(*bad)++;
			continue;
		}
		k++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? k : -1;
}

void
bpersist_load(struct bpersist *bs)
{
	int nodes, jobs, bad = 0;

	if (bs->bs_db == NULL)
		return;
	if ((nodes = load_nodes(bs, now_mono(), now_real_ms(), &bad)) == -1 ||
	    (jobs = load_jobs(bs, now_mono(), &bad)) == -1) {
		db_warn(bs, "reload");
		return;
	}
	bs->bs_epoch = bs->bs_br->br_epoch;
	bs->bs_last = now_mono();
	if (nodes > 0 || jobs > 0 || bad > 0)
		log_info("%s: %d nodes and %d jobs reloaded (%d refused); "
		    "each is forgotten unless it registers within %g s",
		    bs->bs_path, nodes, jobs, bad, 3 * bs->bs_br->br_interval);
}

static int
load_holds(struct bpersist *bs, double now, uint64_t now_ms, int *bad)
{
	static struct broker_hold s;
	sqlite3_stmt *st;
	const char *why;
	int rc, k = 0;

	if (sqlite3_prepare_v2(bs->bs_db, "SELECT kind, node, family, addr, "
	    "port, host, reason, user, since_ms, boot, gen FROM holds ORDER "
	    "BY seq", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&s, 0, sizeof(s));
		s.bh_kind = (uint8_t)sqlite3_column_int(st, 0);
		s.bh_node = (uint32_t)sqlite3_column_int64(st, 1);
		col_text(st, 5, s.bh_host, sizeof(s.bh_host));
		col_text(st, 6, s.bh_reason, sizeof(s.bh_reason));
		col_text(st, 7, s.bh_user, sizeof(s.bh_user));
		s.bh_since_ms = (uint64_t)sqlite3_column_int64(st, 8);
		s.bh_boot = (uint64_t)sqlite3_column_int64(st, 9);
		s.bh_gen = (uint32_t)sqlite3_column_int64(st, 10);
		why = "bad address";
		if (col_addr(st, 2, &s.bh_addr) == -1 ||
		    broker_health_reload(bs->bs_health, bs->bs_br, &s, now,
		    now_ms, &why) == -1) {
			log_warnx("%s: held node %s not reloaded: %s",
			    bs->bs_path, s.bh_host, why);
			(*bad)++;
			continue;
		}
		k++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? k : -1;
}

void
bpersist_load_holds(struct bpersist *bs, struct broker_health *h)
{
	int holds, bad = 0;

	bs->bs_health = h;
	if (bs->bs_db == NULL)
		return;
	if ((holds = load_holds(bs, now_mono(), now_real_ms(), &bad)) == -1) {
		db_warn(bs, "reload of held nodes");
		return;
	}
	bs->bs_hepoch = h->bh_epoch;
	bs->bs_epoch = bs->bs_br->br_epoch;
	if (holds > 0 || bad > 0)
		log_info("%s: %d drained or down nodes reloaded (%d refused)",
		    bs->bs_path, holds, bad);
}

static void
bind_addr(sqlite3_stmt *st, int i, const struct msg_addr *a)
{
	(void)sqlite3_bind_int(st, i, a->ma_family);
	(void)sqlite3_bind_blob(st, i + 1, a->ma_addr, sizeof(a->ma_addr),
	    SQLITE_TRANSIENT);
	(void)sqlite3_bind_int(st, i + 2, a->ma_port);
}

static int
save_nodes(struct bpersist *bs, double now, uint64_t now_ms)
{
	static struct broker_saved_node s;
	static uint8_t slots[PROTO_SLOTS_MAX * BROKER_SLOT_BYTES];
	struct broker_node *n;
	sqlite3_stmt *st;
	size_t len;
	int rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(bs->bs_db, "INSERT INTO nodes VALUES (?, ?, "
	    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	TAILQ_FOREACH(n, &bs->bs_br->br_nodes, bn_entry) {
		broker_save_node(n, now, now_ms, &s);
		len = broker_slots_enc(&s, slots, sizeof(slots));
		(void)sqlite3_reset(st);
		(void)sqlite3_bind_int64(st, 1, s.sn_id);
		(void)sqlite3_bind_int64(st, 2, (sqlite3_int64)s.sn_boot);
		bind_addr(st, 3, &s.sn_addr);
		(void)sqlite3_bind_text(st, 6, s.sn_host, -1,
		    SQLITE_TRANSIENT);
		(void)sqlite3_bind_int(st, 7, s.sn_state);
		(void)sqlite3_bind_int64(st, 8, s.sn_job);
		(void)sqlite3_bind_int64(st, 9, s.sn_load_milli);
		(void)sqlite3_bind_int64(st, 10, s.sn_idle);
		(void)sqlite3_bind_int(st, 11, s.sn_users);
		(void)sqlite3_bind_int(st, 12, s.sn_total);
		(void)sqlite3_bind_int(st, 13, s.sn_lent);
		(void)sqlite3_bind_int64(st, 14, s.sn_mem_mb);
		(void)sqlite3_bind_blob(st, 15, slots, (int)len,
		    SQLITE_TRANSIENT);
		(void)sqlite3_bind_int64(st, 16, (sqlite3_int64)s.sn_seen_ms);
		if ((rc = sqlite3_step(st)) != SQLITE_DONE)
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int
save_jobs(struct bpersist *bs)
{
	static struct broker_saved_job s;
	struct broker_job *j;
	sqlite3_stmt *st;
	int rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(bs->bs_db, "INSERT INTO jobs VALUES (?, ?, "
	    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	TAILQ_FOREACH(j, &bs->bs_br->br_jobs, bj_entry) {
		broker_save_job(j, &s);
		(void)sqlite3_reset(st);
		(void)sqlite3_bind_int64(st, 1, s.sj_id);
		(void)sqlite3_bind_int64(st, 2, (sqlite3_int64)s.sj_boot);
		(void)sqlite3_bind_text(st, 3, s.sj_user, -1,
		    SQLITE_TRANSIENT);
		bind_addr(st, 4, &s.sj_addr);
		(void)sqlite3_bind_int64(st, 7, s.sj_max);
		(void)sqlite3_bind_int64(st, 8, s.sj_pri);
		(void)sqlite3_bind_int64(st, 9, (sqlite3_int64)s.sj_start_ms);
		(void)sqlite3_bind_text(st, 10, s.sj_command, -1,
		    SQLITE_TRANSIENT);
		(void)sqlite3_bind_int(st, 11, s.sj_cpus);
		(void)sqlite3_bind_int64(st, 12, s.sj_mem_mb);
		if ((rc = sqlite3_step(st)) != SQLITE_DONE)
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int
save_holds(struct bpersist *bs)
{
	const struct broker_hold *x;
	sqlite3_stmt *st;
	int rc = SQLITE_DONE;

	if (bs->bs_health == NULL)
		return 0;
	if (sqlite3_prepare_v2(bs->bs_db, "INSERT INTO holds VALUES (NULL, "
	    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	TAILQ_FOREACH(x, &bs->bs_health->bh_holds, bh_entry) {
		(void)sqlite3_reset(st);
		(void)sqlite3_bind_int(st, 1, x->bh_kind);
		(void)sqlite3_bind_int64(st, 2, x->bh_node);
		bind_addr(st, 3, &x->bh_addr);
		(void)sqlite3_bind_text(st, 6, x->bh_host, -1,
		    SQLITE_TRANSIENT);
		(void)sqlite3_bind_text(st, 7, x->bh_reason, -1,
		    SQLITE_TRANSIENT);
		(void)sqlite3_bind_text(st, 8, x->bh_user, -1,
		    SQLITE_TRANSIENT);
		(void)sqlite3_bind_int64(st, 9, (sqlite3_int64)x->bh_since_ms);
		(void)sqlite3_bind_int64(st, 10, (sqlite3_int64)x->bh_boot);
		(void)sqlite3_bind_int64(st, 11, x->bh_gen);
		if ((rc = sqlite3_step(st)) != SQLITE_DONE)
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The whole registry, in one transaction. */
static void
save(struct bpersist *bs)
{
	if (bs->bs_db == NULL)
		return;
	bs->bs_last = now_mono();
	bs->bs_took = 0;
	if (exec(bs, "BEGIN IMMEDIATE") == -1) {
		db_warn(bs, "save");
		return;
	}
	/* Before the holds are loaded, the saved ones stay. */
	if (exec(bs, "DELETE FROM nodes; DELETE FROM jobs") == -1 ||
	    (bs->bs_health != NULL && exec(bs, "DELETE FROM holds") == -1) ||
	    save_nodes(bs, now_mono(), now_real_ms()) == -1 ||
	    save_jobs(bs) == -1 || save_holds(bs) == -1 ||
	    exec(bs, "COMMIT") == -1) {
		db_warn(bs, "save");
		(void)exec(bs, "ROLLBACK");
		return;
	}
	bs->bs_epoch = bs->bs_br->br_epoch;
	if (bs->bs_health != NULL)
		bs->bs_hepoch = bs->bs_health->bh_epoch;
	bs->bs_took = now_mono() - bs->bs_last;
}

static void
save_later(struct evloop *loop, void *arg)
{
	struct bpersist *bs = arg;

	(void)loop;
	bs->bs_timer = NULL;
	save(bs);
}

void
bpersist_changed(struct bpersist *bs)
{
	double when;

	if (bs->bs_db == NULL || bs->bs_timer != NULL)
		return;
	when = broker_persist_when(bs->bs_br->br_epoch != bs->bs_epoch ||
	    (bs->bs_health != NULL &&
	    bs->bs_health->bh_epoch != bs->bs_hepoch),
	    now_mono() - bs->bs_last, bs->bs_took, bs->bs_br->br_interval);
	if (when == 0)
		save(bs);
	else if (when > 0 && (bs->bs_timer = evloop_timer_add(
	    bs->bs_dc->dc_loop, when, save_later, bs)) == NULL)
		save(bs);
}

void
bpersist_fini(struct bpersist *bs)
{
	if (bs->bs_db == NULL)
		return;
	if (bs->bs_timer != NULL)
		evloop_timer_cancel(bs->bs_dc->dc_loop, bs->bs_timer);
	bs->bs_timer = NULL;
	save(bs);
	sqlite3_close(bs->bs_db);
	bs->bs_db = NULL;
}
