/* readfile_test — a whole small file into a buffer, checked. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readfile.h"
#include "tap.h"

static char dir[] = "/tmp/readfile_test.XXXXXX";

static const char *
put(const char *name, const char *text, mode_t mode)
{
	static char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) == EOF || chmod(path, mode) == -1) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return path;
}

int
main(void)
{
	char buf[8], path[PATH_MAX], link[PATH_MAX], big[4096];
	size_t len = 99;
	mode_t mode = 0;
	int rc;

	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}

	ok(readfile(put("a", "abc\n", 0644), buf, sizeof(buf), &len, &mode,
	    0) == 0 && len == 4 && strcmp(buf, "abc\n") == 0 && mode == 0644,
	    "a file: its text, length and mode");
	ok(readfile(put("b", "1234567", 0600), buf, sizeof(buf), &len, NULL,
	    READFILE_PRIVATE) == 0 && len == 7 && strcmp(buf, "1234567") == 0,
	    "bufsz - 1 bytes fit");
	errno = 0;
	ok(readfile(put("c", "12345678", 0600), buf, sizeof(buf), &len, NULL,
	    0) == -1 && errno == EFBIG, "one byte more: EFBIG");
	ok(readfile(put("e", "", 0600), buf, sizeof(buf), &len, NULL, 0) ==
	    0 && len == 0 && buf[0] == '\0', "an empty file");

	snprintf(path, sizeof(path), "%s/missing", dir);
	errno = 0;
	ok(readfile(path, buf, sizeof(buf), NULL, NULL, 0) == -1 &&
	    errno == ENOENT, "a missing file: ENOENT");
	errno = 0;
	ok(readfile(dir, buf, sizeof(buf), NULL, NULL, 0) == -1 &&
	    errno == EINVAL, "a folder: EINVAL");
	snprintf(path, sizeof(path), "%s/fifo", dir);
	errno = 0;
	rc = mkfifo(path, 0600);
	ok(rc == 0 && readfile(path, buf, sizeof(buf), NULL, NULL, 0) == -1 &&
	    errno == EINVAL, "a FIFO: EINVAL, without waiting for a writer");

	mode = 0;
	errno = 0;
	ok(readfile(put("gw", "x", 0664), buf, sizeof(buf), NULL, &mode,
	    READFILE_PRIVATE) == -1 && errno == EPERM && mode == 0664,
	    "group-writable under READFILE_PRIVATE: EPERM, mode told");
	errno = 0;
	ok(readfile(put("ow", "x", 0646), buf, sizeof(buf), NULL, NULL,
	    READFILE_PRIVATE) == -1 && errno == EPERM,
	    "other-writable under READFILE_PRIVATE: EPERM");
	ok(readfile(put("gw2", "x", 0664), buf, sizeof(buf), NULL, NULL, 0) ==
	    0, "group-writable read without READFILE_PRIVATE");

	snprintf(path, sizeof(path), "%s/a", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	rc = symlink(path, link);
	ok(rc == 0 && readfile(link, buf, sizeof(buf), NULL, NULL, 0) == 0 &&
	    strcmp(buf, "abc\n") == 0, "a link is followed by default");
	errno = 0;
	ok(readfile(link, buf, sizeof(buf), NULL, NULL, READFILE_NOFOLLOW) ==
	    -1 && errno == ELOOP, "a link under READFILE_NOFOLLOW: ELOOP");

	/* /proc says its files are empty: the reading tells. */
	ok(readfile("/proc/self/stat", big, sizeof(big), &len, NULL, 0) == 0 &&
	    len > 0 && strlen(big) == len, "a /proc file (%zu bytes)", len);
	errno = 0;
	ok(readfile("/proc/self/stat", buf, 2, &len, NULL, 0) == -1 &&
	    errno == EFBIG, "a /proc file too large: EFBIG");

	errno = 0;
	ok(readfile(path, buf, 0, NULL, NULL, 0) == -1 && errno == EINVAL,
	    "bufsz 0: EINVAL");

	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return tap_done();
}
