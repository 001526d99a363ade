/*
 * CilkNodeManager engine: the stage-in files of a task (CilkRun
 * --stage-in), fetched from its job manager before the worker starts.
 * The description the user signed names each file's size and hash; the
 * chunks (STAGE_REQ, STAGE) come from the job manager under the user's
 * key, in order, a window of them in flight, asked again after a
 * silence, and go one file after the other into a spool in the
 * engine's own folder.  A file whose hash is not the signed one fails
 * the start.  The launch pad's worker checks every hash again as the
 * user, copying the spool into the task folder (CilkLaunchPad(8)).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "mono.h"
#include "stagein.h"

#define STAGE_RESEND	0.5	/* seconds of silence before asking again */
#define STAGE_TRIES	20	/* silences before giving up */

static void	si_timer(struct evloop *, void *);
static int	si_check(struct stagein *);

static void
si_fail(struct stagein *si, const char *fmt, const char *a, const char *b)
{
	struct worker *w = si->si_w;
	struct node *n = si->si_node;
	char why[PROTO_REASON_MAX];

	snprintf(why, sizeof(why), fmt, a, b);
	log_warnx("job %u task %u: %s", w->w_job, w->w_task, why);
	node_stagein_free(n, w);
	node_start_failed(n, w, why, 0);	/* may free w */
}

/* Asks for the window's chunks from the i-th on. */
static void
si_ask(struct stagein *si, unsigned from)
{
	struct node *n = si->si_node;
	struct worker *w = si->si_w;
	struct proto_stage_req r;
	uint64_t off;
	unsigned i;
	size_t len;

	memset(&r, 0, sizeof(r));
	r.sq_job = w->w_job;
	r.sq_task = w->w_task;
	strlcpy(r.sq_node, w->w_name, sizeof(r.sq_node));
	r.sq_file = si->si_file;
	for (i = from; i < STAGE_WINDOW; i++) {
		if ((off = stage_fetch_want(&si->si_f, i)) == UINT64_MAX)
			break;
		r.sq_offset = off;
		if ((len = proto_stage_req_enc(&r, n->n_buf,
		    sizeof(n->n_buf))) > 0 &&
		    msg_ep_send(n->n_dc.dc_ep, &w->w_jobmgr, MSG_SCHEME_USER,
		    PROTO_H_STAGE_REQ, n->n_buf, len) == -1)
			log_debug("%s: send failed", __func__);
	}
}

/*
 * The description asked for again: the parent refuses one signed more
 * than replay_window ago, and a large fetch may take that long.
 */
static void
si_refetch(struct stagein *si)
{
	struct node *n = si->si_node;
	struct worker *w = si->si_w;
	struct proto_desc_req r;
	size_t len;

	memset(&r, 0, sizeof(r));
	r.dr_job = w->w_job;
	strlcpy(r.dr_node, w->w_name, sizeof(r.dr_node));
	if ((len = proto_desc_req_enc(&r, n->n_buf, sizeof(n->n_buf))) > 0 &&
	    msg_ep_send(n->n_dc.dc_ep, &w->w_jobmgr, MSG_SCHEME_USER,
	    PROTO_H_DESC_REQ, n->n_buf, len) == -1)
		log_debug("%s: send failed", __func__);
}

/* The spool is whole: the parent starts the worker with it. */
static void
si_spawn(struct stagein *si)
{
	struct worker *w = si->si_w;
	struct node *n = si->si_node;
	double window = dctx_seconds(&n->n_dc, "replay_window", 30);

	if (si->si_fd != -1)
		close(si->si_fd);
	si->si_fd = -1;
	if (!si->si_refetch && now_mono() - si->si_started > window / 3) {
		si->si_refetch = 1;	/* the timer asks again, bounded */
		si->si_tries = 0;
		log_info("job %u task %u: files fetched in %.1f s; asking for "
		    "a fresh description", w->w_job, w->w_task,
		    now_mono() - si->si_started);
		si_refetch(si);
		return;
	}
	evloop_timer_cancel(n->n_dc.dc_loop, si->si_timer);
	si->si_timer = NULL;
	log_info("job %u task %u: %u stage-in file%s fetched (%llu bytes)",
	    w->w_job, w->w_task, si->si_list.sl_nin,
	    si->si_list.sl_nin > 1 ? "s" : "",
	    (unsigned long long)stage_in_total(&si->si_list));
	w->w_req = node_chan_spawn(n, NMPRIV_KIND_WORKER, si->si_spool,
	    si->si_desc, si->si_desclen);
}

/* The current file has arrived: its hash, then on to the next. */
static int
si_check(struct stagein *si)
{
	const struct stage_file *f = &si->si_list.sl_in[si->si_file];
	uint8_t h[STAGE_HASH_LEN];

	crypto_generichash_final(&si->si_hash, h, STAGE_HASH_LEN);
	if (sodium_memcmp(h, f->sf_hash, STAGE_HASH_LEN) != 0) {
		si_fail(si, "stage-in %s: %s", f->sf_name, "not the file the "
		    "user signed (changed since submission?)");
		return -1;
	}
	si->si_base += f->sf_size;
	si->si_file++;
	return 0;
}

/* Starts the next file, or spawns when there is none. */
static void
si_next(struct stagein *si)
{
	for (;;) {
		if (si->si_file >= si->si_list.sl_nin) {
			si_spawn(si);
			return;
		}
		stage_fetch_init(&si->si_f,
		    si->si_list.sl_in[si->si_file].sf_size);
		crypto_generichash_init(&si->si_hash, NULL, 0, STAGE_HASH_LEN);
		if (si->si_f.sf_size > 0)
			break;
		/* An empty file: nothing to ask, its hash to check. */
		if (si_check(si) == -1)
			return;
	}
	si_ask(si, 0);
}

/*
 * Once per engine, before its first spool: what an engine before us
 * left (it crashed while fetching) goes; the names are all ours.
 */
static void
si_sweep(const char *dir)
{
	static int swept;
	struct dirent *de;
	DIR *d;
	int fd;

	if (swept)
		return;
	swept = 1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] == 's' &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			log_info("stage-in spool %s of an earlier run removed",
			    de->d_name);
	closedir(d);
}

int
node_stagein_begin(struct node *n, struct worker *w, const uint8_t *desc,
    size_t len, const struct stage_list *l, char *why, size_t whylen)
{
	struct stagein *si;
	uint64_t max_file, max_task, total = stage_in_total(l);
	char path[PATH_MAX + 64];
	uint8_t r[4];
	uint16_t i;

	if (stage_size_parse(conf_get(n->n_dc.dc_conf, "stage_max"),
	    &max_file) == -1 || stage_size_parse(conf_get(n->n_dc.dc_conf,
	    "stage_max_task"), &max_task) == -1) {
		snprintf(why, whylen, "stage_max or stage_max_task: not a "
		    "size");
		return -1;
	}
	for (i = 0; i < l->sl_nin; i++)
		if (l->sl_in[i].sf_size > max_file) {
			snprintf(why, whylen, "stage-in %.100s: %llu bytes, over "
			    "this node's stage_max", l->sl_in[i].sf_name,
			    (unsigned long long)l->sl_in[i].sf_size);
			return -1;
		}
	if (total > max_task) {
		snprintf(why, whylen, "stage-in: %llu bytes, over this node's "
		    "stage_max_task", (unsigned long long)total);
		return -1;
	}
	if ((si = calloc(1, sizeof(*si))) == NULL ||
	    (si->si_desc = malloc(len)) == NULL) {
		free(si);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	memcpy(si->si_desc, desc, len);
	si->si_desclen = len;
	si->si_list = *l;
	si->si_node = n;
	si->si_w = w;
	si->si_started = now_mono();
	randombytes_buf(r, sizeof(r));
	snprintf(si->si_spool, sizeof(si->si_spool), "s%u-%u-%02x%02x%02x%02x",
	    w->w_job, w->w_task, r[0], r[1], r[2], r[3]);
	snprintf(path, sizeof(path), "%s/stage", n->n_engine_dir);
	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	si_sweep(path);
	node_stagein_path(n, si->si_spool, path, sizeof(path));
	if ((si->si_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	w->w_stagein = si;
	si->si_timer = evloop_timer_add(n->n_dc.dc_loop, STAGE_RESEND,
	    si_timer, si);
	si_next(si);
	return 0;
 fail:
	si->si_fd = -1;
	free(si->si_desc);
	free(si);
	return -1;
}

static void
si_timer(struct evloop *loop, void *arg)
{
	struct stagein *si = arg;

	si->si_timer = NULL;
	if (si->si_refetch && ++si->si_tries <= STAGE_TRIES) {
		si_refetch(si);
		si->si_timer = evloop_timer_add(loop, STAGE_RESEND, si_timer,
		    si);
		return;
	}
	if (si->si_refetch) {
		si_fail(si, "stage-in: %s%s", "no fresh description from the "
		    "job manager", "");
		return;
	}
	if (si->si_got != si->si_got_seen) {
		si->si_got_seen = si->si_got;
		si->si_tries = 0;
	} else if (++si->si_tries > STAGE_TRIES) {
		si_fail(si, "stage-in %s: %s",
		    si->si_list.sl_in[si->si_file].sf_name,
		    "no answer from the job manager");
		return;
	} else
		si_ask(si, 0);	/* a silence: the window again */
	si->si_timer = evloop_timer_add(loop, STAGE_RESEND, si_timer, si);
}

void
node_on_stage(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_stage m;
	struct stagein *si = NULL;
	struct worker *w;
	ssize_t k;
	size_t off;

	(void)ep;
	if (proto_stage_dec(&m, in->mi_data, in->mi_len) == -1)
		return;
	/* Only from the job manager of a task we are fetching for. */
	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		if (w->w_stagein != NULL && w->w_job == m.sg_job &&
		    w->w_task == m.sg_task &&
		    msg_addr_eq(&in->mi_from, &w->w_jobmgr) &&
		    msg_verify_sender(in, MSG_SCHEME_USER, w->w_user, NULL)) {
			si = w->w_stagein;
			break;
		}
	if (si == NULL || m.sg_file != si->si_file)
		return;
	w->w_seen = now_mono();
	if (stage_fetch_take(&si->si_f, m.sg_offset, m.sg_len) !=
	    STAGE_TAKE_OK)
		return;
	for (off = 0; off < m.sg_len; off += (size_t)k)
		if ((k = pwrite(si->si_fd, m.sg_data + off, m.sg_len - off,
		    (off_t)(si->si_base + m.sg_offset + off))) == -1) {
			si_fail(si, "stage-in spool: %s%s", strerror(errno),
			    "");
			return;
		}
	crypto_generichash_update(&si->si_hash, m.sg_data, m.sg_len);
	si->si_got++;
	if (!stage_fetch_done(&si->si_f)) {
		/* One in, the one at the window's end out. */
		si_ask(si, STAGE_WINDOW - 1);
		return;
	}
	if (si_check(si) == 0)
		si_next(si);
}

/*
 * A DESC answering si_refetch: the same job, task, processor and files,
 * freshly signed.  1 if it was one (and is dealt with).
 */
int
node_stagein_on_desc(struct node *n, const struct msg_in *in)
{
	struct stagein *si = NULL;
	struct worker *w;
	struct proto_desc d;
	char why[256];
	uint8_t *copy;

	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		if (w->w_stagein != NULL && w->w_stagein->si_refetch &&
		    msg_addr_eq(&in->mi_from, &w->w_jobmgr) &&
		    msg_verify_sender(in, MSG_SCHEME_USER, w->w_user, NULL)) {
			si = w->w_stagein;
			break;
		}
	if (si == NULL)
		return 0;
	if ((proto_desc_is_munge(in->mi_data, in->mi_len) ?
	    proto_desc_peek(&d, in->mi_data, in->mi_len, why, sizeof(why)) :
	    proto_desc_open(&d, n->n_dc.dc_keys, now_mono(), in->mi_data,
	    in->mi_len, why, sizeof(why))) == -1)
		return 0;
	if (d.de_job != w->w_job || d.de_task != w->w_task ||
	    strcmp(d.de_node, w->w_name) != 0 ||
	    strcmp(d.de_user, w->w_user) != 0 ||
	    memcmp(&d.de_stage, &si->si_list, sizeof(d.de_stage)) != 0) {
		proto_desc_free(&d);
		return 0;	/* another processor's, or not ours */
	}
	proto_desc_free(&d);
	if ((copy = malloc(in->mi_len)) == NULL)
		return 1;	/* asked again */
	memcpy(copy, in->mi_data, in->mi_len);
	free(si->si_desc);
	si->si_desc = copy;
	si->si_desclen = in->mi_len;
	si_spawn(si);
	return 1;
}
