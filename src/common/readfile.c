/* readfile — a whole small file into a buffer, checked. */
#include "readfile.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* Fills buf[0 .. bufsz - 1); -1 with errno, EFBIG if more is there. */
static int
read_all(int fd, char *buf, size_t bufsz, size_t *lenp)
{
	size_t len = 0;
	ssize_t n;
	char c;

	for (;;) {
		/* Full: one byte more means the file is too large. */
		if (len == bufsz - 1)
			n = read(fd, &c, 1);
		else
			n = read(fd, buf + len, bufsz - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		if (len == bufsz - 1) {
			errno = EFBIG;
			return -1;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	*lenp = len;
	return 0;
}

int
readfile(const char *path, char *buf, size_t bufsz, size_t *lenp,
    mode_t *modep, int flags)
{
	struct stat st;
	size_t len;
	int fd, saved;

	if (path == NULL || buf == NULL || bufsz == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
	    ((flags & READFILE_NOFOLLOW) ? O_NOFOLLOW : 0))) == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (modep != NULL)
		*modep = st.st_mode & 07777;
	errno = EINVAL;
	if (!S_ISREG(st.st_mode))
		goto fail;
	errno = EPERM;
	if ((flags & READFILE_PRIVATE) && (st.st_mode & (S_IWGRP | S_IWOTH)))
		goto fail;
	/* /proc files say 0: the reading tells. */
	errno = EFBIG;
	if (st.st_size < 0 || (unsigned long long)st.st_size > bufsz - 1)
		goto fail;
	if (read_all(fd, buf, bufsz, &len) == -1)
		goto fail;
	(void)close(fd);
	if (lenp != NULL)
		*lenp = len;
	return 0;
 fail:
	saved = errno;
	(void)close(fd);
	errno = saved;
	return -1;
}
