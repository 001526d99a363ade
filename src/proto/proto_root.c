/* proto_root — ROOT_BACKUP and ROOT_DONE codecs (see proto_root.h). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto_root.h"
#include "wire.h"

size_t
proto_root_backup_enc(const struct proto_root_backup *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	if (m->rb_desclen == 0 || m->rb_desclen > UINT32_MAX)
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->rb_pid);
	wire_put_u64(&w, m->rb_start);
	wire_put_u32(&w, (uint32_t)m->rb_desclen);
	wire_put_bytes(&w, m->rb_desc, m->rb_desclen);
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

int
proto_root_backup_dec(struct proto_root_backup *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;
	uint32_t n;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->rb_pid) == -1 ||
	    wire_get_u64(&r, &m->rb_start) == -1 ||
	    wire_get_u32(&r, &n) == -1 || n == 0 ||
	    wire_get_ref(&r, &m->rb_desc, n) == -1 ||
	    wire_get_end(&r) == -1 || m->rb_pid <= 1)
		return -1;
	m->rb_desclen = n;
	return 0;
}

size_t
proto_root_done_enc(const struct proto_root_done *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	if (m->rd_ckpt[0] != '/')
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->rd_pid);
	wire_put_u64(&w, m->rd_start);
	wire_put_str(&w, m->rd_ckpt);
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

int
proto_root_done_dec(struct proto_root_done *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->rd_pid) == -1 ||
	    wire_get_u64(&r, &m->rd_start) == -1 ||
	    wire_get_str(&r, m->rd_ckpt, sizeof(m->rd_ckpt)) == -1 ||
	    wire_get_end(&r) == -1 || m->rd_ckpt[0] != '/')
		return -1;
	return 0;
}

int
proto_root_ckpt(const struct proto_desc *d, char *buf, size_t cap)
{
	size_t n = sizeof(PROTO_RECOVER_FLAG) - 1;

	if (d->de_argc < 2 || d->de_argv[1] == NULL ||
	    strncmp(d->de_argv[1], PROTO_RECOVER_FLAG, n) != 0 ||
	    d->de_argv[1][n] != '/' ||
	    strlcpy(buf, d->de_argv[1] + n, cap) >= cap)
		return -1;
	return 0;
}

int
proto_root_pid_start(long pid, uint64_t *start)
{
	char path[64], buf[1024], *p;
	unsigned long long v;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The name (field 2) may hold anything: skip past its last ')'. */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	p++;
	for (i = 3; i < 22; i++) {	/* to field 22, starttime */
		p = strchr(p + 1, ' ');
		if (p == NULL)
			return -1;
	}
	if (sscanf(p, " %llu", &v) != 1)
		return -1;
	*start = v;
	return 0;
}
