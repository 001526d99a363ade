/*
 * CilkJobManager: file staging (CilkJobManager(8), STAGING).  At the
 * start every --stage-in file is opened relative to the submit folder
 * without following a link, checked against stage_max and
 * stage_max_task and hashed into the description the user signs; its
 * chunks are served to the node managers that run the job's tasks
 * (STAGE_REQ, STAGE).  What a task's node sends back (OUTPUT stream
 * STAGE) is written, as the user, under JOB.TASK/ in the submit folder,
 * each file new (O_EXCL) and checked against its hash.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobmgr.h"
#include "log.h"
#include "mono.h"
#include "proto_stage.h"

/* The stage-out stream of one task instance. */
struct jstage_task {
	struct stage_rd	 jt_rd;
	int		 jt_started;
	int		 jt_dirfd;	/* SUBMIT/jJOB.tTASK */
	int		 jt_fd;		/* the file being written */
	char		 jt_name[STAGE_NAME_MAX + 1];
	uint64_t	 jt_off;	/* UINT64_MAX: said it is malformed */
	uint64_t	 jt_total;	/* bytes of files announced */
	struct jobmgr	*jt_j;
	uint32_t	 jt_task;
};

struct jstage {
	const char		*js_in[STAGE_FILES_MAX];
	uint16_t		 js_nin;
	int			 js_fd[STAGE_FILES_MAX];
	int			 js_cwd;	/* the submit folder */
	uint64_t		 js_max_file, js_max_task;
	unsigned		 js_failures;	/* stage-out problems */
	struct jstage_task	**js_tasks;	/* by task number */
};

static struct jstage *
get(struct jobmgr *j)
{
	if (j->j_stage == NULL && (j->j_stage = calloc(1,
	    sizeof(*j->j_stage))) != NULL)
		j->j_stage->js_cwd = -1;
	return j->j_stage;
}

int
jobmgr_stage_opt(struct jobmgr *j, int ch, const char *arg)
{
	struct stage_list *l = &j->j_desc.de_stage;
	struct jstage *js;
	char why[128];

	if ((js = get(j)) == NULL)
		return -1;
	if (stage_name_ok(arg, ch == 'G', why, sizeof(why)) == -1) {
		fprintf(stderr, "CilkJobManager: --stage-%s %s: %s\n",
		    ch == 'I' ? "in" : "out", arg, why);
		return -1;
	}
	if (ch == 'I') {
		if (js->js_nin >= STAGE_FILES_MAX) {
			fprintf(stderr, "CilkJobManager: --stage-in: at most "
			    "%d files\n", STAGE_FILES_MAX);
			return -1;
		}
		js->js_in[js->js_nin++] = arg;
		return 0;
	}
	if (l->sl_nout >= STAGE_GLOBS_MAX) {
		fprintf(stderr, "CilkJobManager: --stage-out: at most %d "
		    "globs\n", STAGE_GLOBS_MAX);
		return -1;
	}
	strlcpy(l->sl_out[l->sl_nout++], arg, sizeof(l->sl_out[0]));
	return 0;
}

static int
conf_size(struct jobmgr *j, const char *key, const char *def, uint64_t *v)
{
	const char *s = conf_get(j->j_dc.dc_conf, key);

	if (s == NULL || *s == '\0')
		s = def;
	if (stage_size_parse(s, v) == -1) {
		fprintf(stderr, "CilkJobManager: %s = %s: not a size (bytes, "
		    "or with K, M or G)\n", key, s);
		return -1;
	}
	return 0;
}

/* One stage-in file: open, check, hash.  -1 with one line said. */
static int
prepare_one(struct jobmgr *j, struct jstage *js, uint16_t i,
    uint64_t *total)
{
	struct stage_file *f = &j->j_desc.de_stage.sl_in[i];
	const char *name = js->js_in[i];
	struct stat st;
	uint16_t k;
	int fd;

	for (k = 0; k < i; k++)
		if (strcmp(js->js_in[k], name) == 0) {
			fprintf(stderr, "CilkJobManager: --stage-in %s: named "
			    "twice\n", name);
			return -1;
		}
	if ((fd = stage_openat(js->js_cwd, name, O_RDONLY | O_NONBLOCK, 0,
	    0)) == -1) {
		fprintf(stderr, "CilkJobManager: --stage-in %s: %s\n", name,
		    errno == ELOOP ? "a symbolic link (refused)" :
		    errno == ENOTDIR ? "a symbolic link or a file on the way "
		    "(refused)" : strerror(errno));
		return -1;
	}
	js->js_fd[i] = fd;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "CilkJobManager: --stage-in %s: not a regular "
		    "file\n", name);
		return -1;
	}
	if ((uint64_t)st.st_size > js->js_max_file) {
		fprintf(stderr, "CilkJobManager: --stage-in %s: %llu bytes, "
		    "over stage_max (%llu bytes)\n", name,
		    (unsigned long long)st.st_size,
		    (unsigned long long)js->js_max_file);
		return -1;
	}
	*total += (uint64_t)st.st_size;
	if (*total > js->js_max_task) {
		fprintf(stderr, "CilkJobManager: --stage-in: %llu bytes in "
		    "all, over stage_max_task (%llu bytes)\n",
		    (unsigned long long)*total,
		    (unsigned long long)js->js_max_task);
		return -1;
	}
	strlcpy(f->sf_name, name, sizeof(f->sf_name));
	if (stage_hash_fd(fd, f->sf_hash, &f->sf_size) == -1 ||
	    f->sf_size != (uint64_t)st.st_size) {
		fprintf(stderr, "CilkJobManager: --stage-in %s: read: %s\n",
		    name, strerror(errno));
		return -1;
	}
	return 0;
}

int
jobmgr_stage_prepare(struct jobmgr *j)
{
	struct jstage *js = j->j_stage;
	uint64_t total = 0;
	uint16_t i;

	if (js == NULL)
		return 0;
	if (conf_size(j, "stage_max", STAGE_MAX_DEFAULT,
	    &js->js_max_file) == -1 ||
	    conf_size(j, "stage_max_task", STAGE_TASK_MAX_DEFAULT,
	    &js->js_max_task) == -1)
		return -1;
	if ((js->js_cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1) {
		fprintf(stderr, "CilkJobManager: the submit folder: %s\n",
		    strerror(errno));
		return -1;
	}
	for (i = 0; i < js->js_nin; i++)
		js->js_fd[i] = -1;
	for (i = 0; i < js->js_nin; i++)
		if (prepare_one(j, js, i, &total) == -1)
			return -1;
	j->j_desc.de_stage.sl_nin = js->js_nin;
	return 0;
}

/* A node running one of our tasks fetches a chunk of a stage-in file. */
void
jobmgr_on_stage_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct jobmgr *j = arg;
	struct jstage *js = j->j_stage;
	struct proto_stage_req r;
	struct proto_stage s;
	uint8_t data[STAGE_CHUNK];
	const struct stage_file *f;
	ssize_t n;
	size_t len, want;

	if (!msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL) ||
	    proto_stage_req_dec(&r, in->mi_data, in->mi_len) == -1 ||
	    js == NULL || j->j_job == 0 || r.sq_job != j->j_job ||
	    r.sq_task >= j->j_tt.tt_n || r.sq_file >= js->js_nin)
		return;
	/* Only to the node the task was issued to. */
	if (!tt_holds(&j->j_tt, r.sq_task, r.sq_node)) {
		proto_reply_error(ep, in, "this task is not yours");
		return;
	}
	tt_seen(&j->j_tt, r.sq_task, r.sq_node, now_mono());
	f = &j->j_desc.de_stage.sl_in[r.sq_file];
	if ((want = stage_chunk_len(f->sf_size, r.sq_offset)) == 0)
		return;
	if ((n = pread(js->js_fd[r.sq_file], data, want,
	    (off_t)r.sq_offset)) != (ssize_t)want) {
		/* The node's hash check fails the task, with its reason. */
		log_warnx("--stage-in %s: read at %llu: %s", f->sf_name,
		    (unsigned long long)r.sq_offset, n == -1 ?
		    strerror(errno) : "shorter than at submission");
		return;
	}
	memset(&s, 0, sizeof(s));
	s.sg_job = r.sq_job;
	s.sg_task = r.sq_task;
	s.sg_file = r.sq_file;
	s.sg_offset = r.sq_offset;
	s.sg_len = (uint32_t)want;
	s.sg_data = data;
	if ((len = proto_stage_enc(&s, j->j_buf, sizeof(j->j_buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_STAGE, j->j_buf, len);
}

static void
out_problem(struct jstage_task *t, const char *fmt, const char *a,
    const char *b)
{
	char text[STAGE_NAME_MAX * 2 + 128];

	snprintf(text, sizeof(text), fmt, a, b);
	log_warnx("task %u: stage-out: %s", t->jt_task, text);
	t->jt_j->j_stage->js_failures++;
}

static int
out_begin(void *arg, const char *name, uint64_t size)
{
	struct jstage_task *t = arg;
	struct jstage *js = t->jt_j->j_stage;
	char dir[32];

	strlcpy(t->jt_name, name, sizeof(t->jt_name));
	t->jt_fd = -1;
	if ((t->jt_total += size) > js->js_max_task) {
		out_problem(t, "%s: over stage_max_task%s (not written)", name,
		    "");
		return 0;
	}
	if (t->jt_dirfd == -1) {
		snprintf(dir, sizeof(dir), "j%u.t%u", t->jt_j->j_job,
		    t->jt_task);
		if (mkdirat(js->js_cwd, dir, 0755) == -1 && errno != EEXIST) {
			out_problem(t, "%s/: %s", dir, strerror(errno));
			return 0;
		}
		if ((t->jt_dirfd = openat(js->js_cwd, dir, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
			out_problem(t, "%s/: %s", dir, strerror(errno));
			return 0;
		}
	}
	/* New files only: nothing of the user's is overwritten. */
	if ((t->jt_fd = stage_openat(t->jt_dirfd, name, O_WRONLY | O_CREAT |
	    O_EXCL, 0644, 1)) == -1)
		out_problem(t, "%s: %s (not written)", name, strerror(errno));
	return 0;
}

static int
out_data(void *arg, const uint8_t *p, size_t n)
{
	struct jstage_task *t = arg;
	ssize_t k;

	while (t->jt_fd != -1 && n > 0) {
		if ((k = write(t->jt_fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			out_problem(t, "%s: %s", t->jt_name, strerror(errno));
			close(t->jt_fd);
			t->jt_fd = -1;
			(void)unlinkat(t->jt_dirfd, t->jt_name, 0);
			break;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int
out_end(void *arg, int hash_ok)
{
	struct jstage_task *t = arg;

	if (t->jt_fd == -1)
		return 0;
	if (close(t->jt_fd) == -1 || !hash_ok) {
		out_problem(t, "%s: %s (removed)", t->jt_name, hash_ok ?
		    strerror(errno) : "does not match its hash");
		(void)unlinkat(t->jt_dirfd, t->jt_name, 0);
	} else
		log_info("task %u: stage-out j%u.t%u/%s", t->jt_task,
		    t->jt_j->j_job, t->jt_task, t->jt_name);
	t->jt_fd = -1;
	return 0;
}

static void
out_note(void *arg, const char *text)
{
	out_problem(arg, "%s%s", text, "");
}

static const struct stage_rd_ops out_ops = {
	out_begin, out_data, out_end, out_note
};

/* Bytes of a task's stage-out stream, in order. */
void
jobmgr_stage_output(struct jobmgr *j, uint32_t task, const uint8_t *p,
    size_t n)
{
	struct jstage *js = j->j_stage;
	struct jstage_task *t;

	if (js == NULL || js->js_cwd == -1 || n == 0)
		return;
	if (js->js_tasks == NULL && (js->js_tasks = calloc(TASKS_MAX,
	    sizeof(*js->js_tasks))) == NULL)
		return;
	if ((t = js->js_tasks[task]) == NULL &&
	    (t = js->js_tasks[task] = calloc(1, sizeof(*t))) == NULL)
		return;
	if (!t->jt_started) {
		stage_rd_init(&t->jt_rd, js->js_max_file);
		t->jt_started = 1;
		t->jt_dirfd = t->jt_fd = -1;
		t->jt_j = j;
		t->jt_task = task;
	}
	if (stage_rd_feed(&t->jt_rd, p, n, &out_ops, t) == -1 &&
	    !t->jt_rd.rd_failed)
		return;
	if (t->jt_rd.rd_failed && t->jt_off != UINT64_MAX) {
		out_problem(t, "malformed stage-out stream from its node%s%s",
		    "", "");
		if (t->jt_fd != -1) {
			close(t->jt_fd);
			(void)unlinkat(t->jt_dirfd, t->jt_name, 0);
			t->jt_fd = -1;
		}
		t->jt_off = UINT64_MAX;
	}
}

/* A task instance starts again: its stream starts again too. */
void
jobmgr_stage_restart(struct jobmgr *j, uint32_t task)
{
	struct jstage *js = j->j_stage;
	struct jstage_task *t;

	if (js == NULL || js->js_tasks == NULL ||
	    (t = js->js_tasks[task]) == NULL)
		return;
	if (t->jt_started && t->jt_fd != -1) {
		close(t->jt_fd);
		(void)unlinkat(t->jt_dirfd, t->jt_name, 0);
	}
	if (t->jt_started && t->jt_dirfd != -1)
		close(t->jt_dirfd);
	free(t);
	js->js_tasks[task] = NULL;
}

/* The task ended: its stream must have ended at a record's end. */
void
jobmgr_stage_task_end(struct jobmgr *j, uint32_t task)
{
	struct jstage *js = j->j_stage;
	struct jstage_task *t;

	if (js == NULL || js->js_tasks == NULL ||
	    (t = js->js_tasks[task]) == NULL || !t->jt_started)
		return;
	if (!t->jt_rd.rd_failed && !stage_rd_idle(&t->jt_rd))
		out_problem(t, "stream cut short%s%s", "", "");
	jobmgr_stage_restart(j, task);
}

unsigned
jobmgr_stage_failures(const struct jobmgr *j)
{
	return j->j_stage != NULL ? j->j_stage->js_failures : 0;
}
