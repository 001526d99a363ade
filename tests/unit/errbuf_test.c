/* errbuf_test — the reason of a failure, into the caller's buffer. */
#include <errno.h>
#include <string.h>

#include "errbuf.h"
#include "tap.h"

int
main(void)
{
	char buf[16];

	errbuf_set(buf, sizeof(buf), "%s: %d", "key", 42);
	ok(strcmp(buf, "key: 42") == 0, "formats like snprintf: %s", buf);

	errbuf_set(buf, sizeof(buf), "%s", "a reason far longer than sixteen");
	ok(strlen(buf) == sizeof(buf) - 1 &&
	    strncmp(buf, "a reason far lo", sizeof(buf) - 1) == 0,
	    "truncated to the buffer, terminated: %s", buf);

	memset(buf, 'x', sizeof(buf));
	errbuf_set(buf, 0, "%s", "nothing");
	ok(buf[0] == 'x', "a size of 0 writes nothing");
	errbuf_set(NULL, 64, "%s", "nothing");
	ok(1, "a NULL buffer is fine");

	errno = ENOENT;
	errbuf_set(buf, sizeof(buf), "%s", strerror(errno));
	ok(errno == ENOENT, "errno kept (%d)", errno);
	errno = EFBIG;
	errbuf_set(NULL, 0, "x");
	ok(errno == EFBIG, "errno kept without a buffer (%d)", errno);

	return tap_done();
}
