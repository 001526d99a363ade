/*
 * cn_ckpt — checkpoints of the clearinghouse's books, for recovering a
 * job whose root crashed: what counted already (sum, records) and what
 * is left (the frontier's frames).  Format: "CNCK" u32 version 1, u64
 * sum, u32 frame count, frames (cn_frame_put), u32 records length,
 * records; nothing after.
 */
#include "cn.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CKPT_MAGIC	"CNCK"
#define CKPT_VERSION	1
#define CKPT_MAX	(256u << 20)	/* a file we will read */

/* Not final, not cancelled, under a final parent: left to do. */
static int
frontier(const struct cn_tree *t, uint32_t id)
{
	const struct cn_unit *u = &t->t_units[id], *p;

	if (u->u_state == CN_U_FINAL || u->u_state == CN_U_CANCELLED ||
	    u->u_state == CN_U_UNDEF)
		return 0;
	if (u->u_parent == 0)
		return 1;
	p = &t->t_units[u->u_parent];
	return p->u_state == CN_U_FINAL &&
	    u->u_parent_attempt == p->u_attempt;
}

uint8_t *
cn_ckpt_enc(const struct cn_tree *t, const uint8_t *records,
    size_t nrecords, size_t *len)
{
	struct wire_w w;
	uint32_t id, n = 0;
	uint8_t *buf;
	size_t cap;

	for (id = 1; id < t->t_n; id++)
		n += (uint32_t)frontier(t, id);
	cap = 24 + (size_t)n * CN_FRAME_WIRE_MAX + nrecords;
	if ((buf = malloc(cap)) == NULL)
		return NULL;
	wire_w_init(&w, buf, cap);
	wire_put_bytes(&w, CKPT_MAGIC, 4);
	wire_put_u32(&w, CKPT_VERSION);
	wire_put_u64(&w, (uint64_t)t->t_sum);
	wire_put_u32(&w, n);
	for (id = 1; id < t->t_n; id++)
		if (frontier(t, id))
			(void)cn_frame_put(&w, &t->t_units[id].u_frame);
	wire_put_u32(&w, (uint32_t)nrecords);
	wire_put_bytes(&w, records, nrecords);
	if (wire_w_ok(&w) == -1) {
		free(buf);
		errno = EOVERFLOW;
		return NULL;
	}
	*len = w.ww_len;
	return buf;
}

int
cn_ckpt_dec(const uint8_t *p, size_t len, int64_t *sum,
    struct cn_frame **frames, uint32_t *n, const uint8_t **records,
    size_t *nrecords)
{
	struct wire_r r;
	uint8_t magic[4];
	uint32_t version, i, nr;
	uint64_t s;

	*frames = NULL;
	wire_r_init(&r, p, len);
	if (wire_get_bytes(&r, magic, 4) == -1 ||
	    memcmp(magic, CKPT_MAGIC, 4) != 0 ||
	    wire_get_u32(&r, &version) == -1 || version != CKPT_VERSION ||
	    wire_get_u64(&r, &s) == -1 || wire_get_u32(&r, n) == -1 ||
	    *n > r.wr_left / 4)
		goto bad;
	if (*n > 0 && (*frames = calloc(*n, sizeof(**frames))) == NULL)
		return -1;
	for (i = 0; i < *n; i++)
		if (cn_frame_get(&r, &(*frames)[i]) == -1)
			goto bad;
	if (wire_get_u32(&r, &nr) == -1 ||
	    wire_get_ref(&r, records, nr) == -1 || wire_get_end(&r) == -1 ||
	    cn_records_walk(*records, nr, NULL, NULL) == -1)
		goto bad;
	*sum = (int64_t)s;
	*nrecords = nr;
	return 0;
 bad:
	free(*frames);
	*frames = NULL;
	errno = EINVAL;
	return -1;
}

int
cn_ckpt_write(const char *path, const uint8_t *p, size_t len)
{
	char tmp[PATH_MAX];
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >=
	    sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		return -1;
	if (write(fd, p, len) != (ssize_t)len || fsync(fd) == -1) {
		(void)close(fd);
		(void)unlink(tmp);
		return -1;
	}
	if (close(fd) == -1 || rename(tmp, path) == -1) {
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

uint8_t *
cn_ckpt_read(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	size_t got = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || st.st_size < 0 ||
	    (size_t)st.st_size > CKPT_MAX) {
		(void)close(fd);
		errno = EFBIG;
		return NULL;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		(void)close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size &&
	    (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	(void)close(fd);
	if (got != (size_t)st.st_size) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	*len = got;
	return buf;
}
