/*
 * CilkJobManager: the workers' output, whole lines only.  Each task's
 * stdout and stderr keep their partial line (linebuf.h) until its
 * newline comes, so lines of tasks running at once never interleave;
 * a line goes out with one write: "[NODE] line" on our own stdout or
 * stderr, or as it is into the task's --output/--error file.  The end
 * of an attempt (exit, stop, taken back) lets out its partial line.
 * A file of a %t pattern holds the latest attempt only: it is made
 * anew when the task starts again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cli.h"
#include "jobmgr.h"
#include "log.h"
#include "mono.h"

#define MADE_MAX	4096	/* shared files remembered as made */

struct outfile {
	struct outfile	*of_next;
	int		 of_fd;		/* -1 in the j_made list */
	int		 of_refs;
	char		 of_path[OUTPAT_MAX];
};

/* What a line goes to: a file, or our stdout/stderr with a prefix. */
struct sink {
	struct jobmgr	*s_j;
	uint32_t	 s_task;
	int		 s_stream;
	const char	*s_node;
};

static int
write_all(int fd, struct iovec *iov, int n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = writev(fd, iov, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static int
fd_of(int stream)
{
	return stream == PROTO_STREAM_OUT ? STDOUT_FILENO : STDERR_FILENO;
}

static void
file_release(struct jobmgr *j, struct outfile *f)
{
	struct outfile **pp;

	if (f == NULL || --f->of_refs > 0)
		return;
	for (pp = &j->j_files; *pp != NULL; pp = &(*pp)->of_next)
		if (*pp == f) {
			*pp = f->of_next;
			break;
		}
	if (close(f->of_fd) == -1) {
		log_warn("%s: close", f->of_path);
		j->j_out_errors++;
	}
	free(f);
}

/* 1 the first time a shared file is opened in this job. */
static int
first_made(struct jobmgr *j, const char *path)
{
	struct outfile *m;
	uint32_t n = 0;

	for (m = j->j_made; m != NULL; m = m->of_next, n++)
		if (strcmp(m->of_path, path) == 0)
			return 0;
	if (n >= MADE_MAX || (m = calloc(1, sizeof(*m))) == NULL)
		return 0;	/* appended to, then */
	m->of_fd = -1;
	strlcpy(m->of_path, path, sizeof(m->of_path));
	m->of_next = j->j_made;
	j->j_made = m;
	return 1;
}

static struct outfile *
file_open(struct jobmgr *j, uint32_t task, const char *node, int stream)
{
	const char *pat = j->j_pattern[stream];
	struct outfile *f;
	char path[OUTPAT_MAX];
	int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY;

	if (outpat_expand(pat, j->j_job, task, node, path,
	    sizeof(path)) == -1) {
		log_warning("task %u: the name of its %s file is too long; its "
		    "lines go to %s", task, stream == PROTO_STREAM_OUT ?
		    "output" : "error", stream == PROTO_STREAM_OUT ? "stdout" :
		    "stderr");
		j->j_out_errors++;
		return NULL;
	}
	for (f = j->j_files; f != NULL; f = f->of_next)
		if (strcmp(f->of_path, path) == 0) {
			f->of_refs++;
			return f;
		}
	/* Each attempt of a task its own file anew; a shared one once. */
	if (outpat_per_task(pat) ? 1 : first_made(j, path))
		flags |= O_TRUNC;
	if ((f = calloc(1, sizeof(*f))) == NULL) {
		log_warn("%s", __func__);
		j->j_out_errors++;
		return NULL;
	}
	if ((f->of_fd = open(path, flags, 0666)) == -1) {
		log_warning("task %u: cannot write %s: %s; its lines go to %s "
		    "instead", task, path, strerror(errno),
		    stream == PROTO_STREAM_OUT ? "stdout" : "stderr");
		j->j_out_errors++;
		free(f);
		return NULL;
	}
	f->of_refs = 1;
	strlcpy(f->of_path, path, sizeof(f->of_path));
	f->of_next = j->j_files;
	j->j_files = f;
	return f;
}

static int
emit(void *arg, const char *line, size_t len)
{
	struct sink *s = arg;
	struct task *t = &s->s_j->j_tasks[s->s_task];
	struct outfile *f = t->t_file[s->s_stream];
	char prefix[PROTO_HOST_MAX + 4];
	struct iovec iov[3];

	iov[1].iov_base = (void *)(uintptr_t)line;
	iov[1].iov_len = len;
	iov[2].iov_base = (void *)(uintptr_t)"\n";
	iov[2].iov_len = 1;
	if (f != NULL) {
		if (write_all(f->of_fd, iov + 1, 2) == 0)
			return 0;
		log_warn("task %u: %s; its lines go to %s from now on",
		    s->s_task, f->of_path, s->s_stream == PROTO_STREAM_OUT ?
		    "stdout" : "stderr");
		s->s_j->j_out_errors++;
		file_release(s->s_j, f);
		t->t_file[s->s_stream] = NULL;
		iov[1].iov_base = (void *)(uintptr_t)line;
		iov[1].iov_len = len;
		iov[2].iov_base = (void *)(uintptr_t)"\n";
		iov[2].iov_len = 1;
	}
	snprintf(prefix, sizeof(prefix), "[%s] ", s->s_node);
	iov[0].iov_base = prefix;
	iov[0].iov_len = strlen(prefix);
	/* Our own stdout gone (a closed terminal): nothing more to do. */
	(void)write_all(fd_of(s->s_stream), iov, 3);
	return 0;
}

void
jobmgr_out_begin(struct jobmgr *j, uint32_t task, const char *node)
{
	struct task *t = &j->j_tasks[task];
	int s;

	jobmgr_out_end(j, task, node);
	for (s = 0; s < PROTO_STREAM_MAX; s++)
		linebuf_clear(&t->t_lb[s]);
	memset(t, 0, sizeof(*t));
	t->t_start = now_mono();
	for (s = PROTO_STREAM_OUT; s <= PROTO_STREAM_ERR; s++)
		if (j->j_pattern[s] != NULL)
			t->t_file[s] = file_open(j, task, node, s);
}

void
jobmgr_out_data(struct jobmgr *j, uint32_t task, const char *node,
    int stream, const uint8_t *p, size_t n)
{
	struct sink s = { j, task, stream, node };

	if (linebuf_feed(&j->j_tasks[task].t_lb[stream], p, n, emit,
	    &s) == -1) {
		/* No memory for a partial line: out as it is. */
		log_warn("task %u: output", task);
		(void)linebuf_flush(&j->j_tasks[task].t_lb[stream], emit, &s);
	}
}

void
jobmgr_out_end(struct jobmgr *j, uint32_t task, const char *node)
{
	struct task *t = &j->j_tasks[task];
	struct sink s = { j, task, 0, node };

	for (s.s_stream = PROTO_STREAM_OUT; s.s_stream <= PROTO_STREAM_ERR;
	    s.s_stream++) {
		(void)linebuf_flush(&t->t_lb[s.s_stream], emit, &s);
		linebuf_clear(&t->t_lb[s.s_stream]);
		file_release(j, t->t_file[s.s_stream]);
		t->t_file[s.s_stream] = NULL;
	}
}

void
jobmgr_out_fini(struct jobmgr *j)
{
	struct outfile *m;
	uint32_t i;

	for (i = 0; i < j->j_tt.tt_n; i++)
		if (j->j_tt.tt_t[i].tk_attempts > 0)
			jobmgr_out_end(j, i, j->j_tt.tt_t[i].tk_node);
	while ((m = j->j_made) != NULL) {
		j->j_made = m->of_next;
		free(m);
	}
}

/* The folder a pattern's files go to, if its name has no %: writable? */
static int
folder_ok(const char *pat, char *why, size_t whylen)
{
	char dir[OUTPAT_MAX], *slash;

	strlcpy(dir, pat, sizeof(dir));
	if ((slash = strrchr(dir, '/')) == NULL)
		strlcpy(dir, ".", sizeof(dir));
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (strchr(dir, '%') != NULL || access(dir, W_OK | X_OK) == 0)
		return 0;
	snprintf(why, whylen, "%s: cannot create files in %s: %s", pat,
	    strcmp(dir, ".") == 0 ? "the working folder" : dir,
	    strerror(errno));
	return -1;
}

int
jobmgr_out_init(struct jobmgr *j, char *why, size_t whylen)
{
	int s;

	/* Detached: nobody reads our stdout; both into files, as sbatch. */
	if (j->j_detach && j->j_pattern[PROTO_STREAM_OUT] == NULL)
		j->j_pattern[PROTO_STREAM_OUT] = OUTPAT_DETACH_DEFAULT;
	/* --output alone takes stderr too (sbatch(1)); --error splits. */
	if (j->j_pattern[PROTO_STREAM_OUT] != NULL &&
	    j->j_pattern[PROTO_STREAM_ERR] == NULL)
		j->j_pattern[PROTO_STREAM_ERR] =
		    j->j_pattern[PROTO_STREAM_OUT];
	for (s = PROTO_STREAM_OUT; s <= PROTO_STREAM_ERR; s++) {
		if (j->j_pattern[s] == NULL)
			continue;
		if (outpat_check(j->j_pattern[s], why, whylen) == -1)
			return CLI_EXIT_USAGE;
		if (folder_ok(j->j_pattern[s], why, whylen) == -1)
			return CLI_EXIT_FAILURE;
	}
	return 0;
}
