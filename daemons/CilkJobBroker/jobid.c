/* CilkJobBroker: the last job id given survives restarts (jobid.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpred.h"
#include "jobid.h"
#include "log.h"

int
jobid_init(struct jobid *ji, struct dctx *dc, char *err, size_t errlen)
{
	char sdir[PATH_MAX], text[32], *end;
	unsigned long v;
	ssize_t n;
	int fd;

	memset(ji, 0, sizeof(*ji));
	if (conf_get_path(dc->dc_conf, "state_dir", sdir, sizeof(sdir)) ==
	    -1 || snprintf(ji->ji_path, sizeof(ji->ji_path), "%s/%s/%s", sdir,
	    BPRED_DIR, JOBID_FILE) >= (int)sizeof(ji->ji_path)) {
		snprintf(err, errlen, "state_dir: bad path");
		return -1;
	}
	if ((fd = open(ji->ji_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", ji->ji_path, strerror(errno));
		return -1;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0) {
		snprintf(err, errlen, "%s: %s", ji->ji_path, n == 0 ?
		    "empty" : strerror(errno));
		return -1;
	}
	text[n] = '\0';
	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno != 0 || end == text || (*end != '\n' && *end != '\0') ||
	    text[0] == '-' || v >= UINT32_MAX) {
		snprintf(err, errlen, "%s: not a job id", ji->ji_path);
		return -1;
	}
	ji->ji_saved = (uint32_t)v;
	log_info("%s: job ids go on from %u", ji->ji_path, ji->ji_saved + 1);
	return 0;
}

void
jobid_save(struct jobid *ji, const struct broker *br)
{
	char tmp[PATH_MAX + 8], text[32];
	uint32_t last = br->br_next_job - 1;
	int fd, len;

	if (last <= ji->ji_saved || ji->ji_path[0] == '\0')
		return;
	len = snprintf(text, sizeof(text), "%u\n", last);
	if (snprintf(tmp, sizeof(tmp), "%s.new", ji->ji_path) >=
	    (int)sizeof(tmp)) {
		log_warnx("%s: path too long", ji->ji_path);
		return;
	}
	/* Written whole, then renamed: a crash leaves the old id. */
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1 || write(fd, text, (size_t)len) != len ||
	    fsync(fd) == -1 || close(fd) == -1 || rename(tmp, ji->ji_path) ==
	    -1) {
		log_warn("%s: job %u may be given again after a restart",
		    ji->ji_path, last);
		if (fd != -1)
			(void)close(fd);
		(void)unlink(tmp);
		return;
	}
	ji->ji_saved = last;
}
