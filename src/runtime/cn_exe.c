/*
 * cn_exe — the digest of this process's executable, which every process
 * of a job must share (cn.h's CN_EXE_DIGEST): read once, through
 * /proc/self/exe, so that a program replaced on disk while the job runs
 * is still the one it started as.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "cn.h"

int
cn_exe_digest(uint8_t out[CN_EXE_DIGEST])
{
	static uint8_t digest[CN_EXE_DIGEST];
	static int have;
	crypto_generichash_state st;
	uint8_t buf[65536];
	ssize_t n;
	int fd, err;

	if (!have) {
		if ((fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1)
			return -1;
		if (crypto_generichash_init(&st, NULL, 0, sizeof(digest)) != 0) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0 ||
		    (n == -1 && errno == EINTR))
			if (n > 0)
				(void)crypto_generichash_update(&st, buf,
				    (size_t)n);
		err = errno;
		close(fd);
		if (n == -1) {
			errno = err;
			return -1;
		}
		(void)crypto_generichash_final(&st, digest, sizeof(digest));
		have = 1;
	}
	memcpy(out, digest, sizeof(digest));
	return 0;
}
