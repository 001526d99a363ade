/*
 * readfile — a whole small file into a buffer, checked: what key
 * files, sensor files and launch pad specs are read with.
 */
#ifndef CILKNOW_READFILE_H
#define CILKNOW_READFILE_H

#include <sys/types.h>

#include <stddef.h>

#define READFILE_NOFOLLOW	0x1	/* a symbolic link is refused */
#define READFILE_PRIVATE	0x2	/* so is one group or others may write */

/*
 * Reads the regular file path (a /proc file is one), at most bufsz - 1
 * bytes, into buf, NUL-terminated; opened without blocking, so a FIFO
 * is refused and never waited for.  0 with its length in *lenp and its
 * permission bits in *modep (either may be NULL).  -1 with errno:
 * open(2)'s (ELOOP for a link under READFILE_NOFOLLOW), read(2)'s,
 * EINVAL if it is not a regular file (or bufsz is 0), EPERM if group or
 * others may write it (READFILE_PRIVATE), EFBIG if it is larger; *modep
 * is set whenever the file could be looked at.
 */
int	readfile(const char *path, char *buf, size_t bufsz, size_t *lenp,
	    mode_t *modep, int flags);

#endif
