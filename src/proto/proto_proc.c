/* proto_proc — PROC_ASK and PROC codecs, and the kernel's answer. */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto_proc.h"
#include "wire.h"

size_t
proto_proc_ask_enc(uint32_t pid, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, pid);
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

int
proto_proc_ask_dec(uint32_t *pid, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, pid) == -1 || wire_get_end(&r) == -1 ||
	    *pid <= 1)
		return -1;
	return 0;
}

size_t
proto_proc_enc(const struct proto_proc *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->pp_pid);
	wire_put_u8(&w, m->pp_state);
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

int
proto_proc_dec(struct proto_proc *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->pp_pid) == -1 ||
	    wire_get_u8(&r, &m->pp_state) == -1 ||
	    wire_get_end(&r) == -1 || m->pp_state >= PROTO_PROC_MAX)
		return -1;
	return 0;
}

enum proto_proc_state
proto_proc_state(long pid, uid_t uid)
{
	char path[64], buf[512], *p;
	struct stat st;
	ssize_t n;
	int fd;

	if (pid <= 1)
		return PROTO_PROC_NONE;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return PROTO_PROC_NONE;
	/* The file's owner is the process's: another user's is "none". */
	if (fstat(fd, &st) == -1 || st.st_uid != uid ||
	    (n = read(fd, buf, sizeof(buf) - 1)) <= 0) {
		close(fd);
		return PROTO_PROC_NONE;
	}
	close(fd);
	buf[n] = '\0';
	/* The name (field 2) may hold anything: the state follows its ')'. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return PROTO_PROC_NONE;
	switch (p[2]) {
	case 'T':
	case 't':
		return PROTO_PROC_STOPPED;
	case 'Z':
	case 'X':
	case 'x':
		return PROTO_PROC_NONE;	/* dead, not yet reaped */
	default:
		return PROTO_PROC_RUNNING;
	}
}
