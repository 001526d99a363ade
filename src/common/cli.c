/* cli — common options and configuration loading for mains. */
#include "cli.h"

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
cli_common_opt(struct cli_common *cc, int ch, const char *arg)
{
	switch (ch) {
	case 'c':
		cc->cc_conf_path = arg;
		return 1;
	case 'o':
		if (cc->cc_noverrides == CLI_OVERRIDES_MAX) {
			fprintf(stderr, "too many -o options (at most %d)\n",
			    CLI_OVERRIDES_MAX);
			return -1;
		}
		cc->cc_overrides[cc->cc_noverrides++] = arg;
		return 1;
	case 'v':
		cc->cc_verbose++;
		return 1;
	case 'b':
		cc->cc_broker = arg;
		return 1;
	case CLI_OPT_JSON:
		cc->cc_json = 1;
		return 1;
	default:
		return 0;
	}
}

struct conf *
cli_conf_load(const struct cli_common *cc, const char *prog)
{
	return cli_conf_load_to(cc, prog, stderr);
}

struct conf *
cli_conf_load_to(const struct cli_common *cc, const char *prog, FILE *errs)
{
	struct conf *cf;
	char err[256];
	const char *path = cc->cc_conf_path ? cc->cc_conf_path :
	    conf_default_path();
	const char *sep = prog != NULL ? ": " : "";
	int i, n, bad = 0;

	if (prog == NULL)
		prog = "";
	if ((cf = conf_new()) == NULL) {
		fprintf(errs, "%s%sout of memory\n", prog, sep);
		return NULL;
	}
	/* Only an explicitly named file must exist. */
	n = conf_load_file(cf, path, cc->cc_conf_path == NULL &&
	    getenv("CILKNOW_CONF") == NULL, errs);
	if (n == -1) {
		fprintf(errs, "%s%s%s: %s\n", prog, sep, path, strerror(errno));
		bad++;
	} else
		bad += n;
	for (i = 0; i < cc->cc_noverrides; i++)
		if (conf_override(cf, cc->cc_overrides[i], err,
		    sizeof(err)) == -1) {
			fprintf(errs, "%s%s-o %s: %s\n", prog, sep,
			    cc->cc_overrides[i], err);
			bad++;
		}
	if (cc->cc_broker != NULL &&
	    conf_set(cf, "broker", cc->cc_broker, err, sizeof(err)) == -1) {
		fprintf(errs, "%s%s-b %s: %s\n", prog, sep, cc->cc_broker, err);
		bad++;
	}
	if (bad) {
		conf_free(cf);
		return NULL;
	}
	return cf;
}

uint32_t
cli_job_number(int opt, const char *arg)
{
	const char *errstr;
	uint32_t job;

	job = (uint32_t)strtonum(arg, 1, UINT32_MAX, &errstr);
	if (errstr != NULL) {
		warnx("-%c %s: job number is %s", opt, arg, errstr);
		return 0;
	}
	return job;
}

void
cli_version(const char *prog)
{
	printf("%s (cilknow) %s\n", prog, CILKNOW_VERSION);
}

static int
executable(const char *path)
{
	return access(path, X_OK) == 0;
}

int
cli_find_program(const char *name, char *buf, size_t bufsz)
{
	static const char *const beside[] = { "%s/%s", "%s/../sbin/%s" };
	char self[PATH_MAX], dirs[4096], *dir, *last, *slash;
	const char *env = getenv("CILKNOW_SBIN"), *path;
	ssize_t n;
	size_t i;

	if (env != NULL && *env != '\0') {
		snprintf(buf, bufsz, "%s/%s", env, name);
		return executable(buf) ? 0 : -1;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++)
				if ((size_t)snprintf(buf, bufsz, beside[i], self,
				    name) < bufsz && executable(buf))
					return 0;
		}
	}
	if ((path = getenv("PATH")) == NULL || *path == '\0')
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin";
	strlcpy(dirs, path, sizeof(dirs));
	for (dir = strtok_r(dirs, ":", &last); dir != NULL;
	    dir = strtok_r(NULL, ":", &last))
		if (*dir == '/' && (size_t)snprintf(buf, bufsz, "%s/%s", dir,
		    name) < bufsz && executable(buf))
			return 0;
	strlcpy(buf, name, bufsz);
	return -1;
}

int
cli_mem_mb(const char *text, uint32_t *mb, char *why, size_t whysz)
{
	unsigned long long x, kib;
	char *end;
	int shift;

	errno = 0;
	x = strtoull(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || errno != 0) {
		snprintf(why, whysz, "not a size (512M, 4G, or MiB)");
		return -1;
	}
	switch (end[0] == '\0' ? 'M' : end[0]) {
	case 'K': case 'k': shift = 0; break;
	case 'M': case 'm': shift = 10; break;
	case 'G': case 'g': shift = 20; break;
	case 'T': case 't': shift = 30; break;
	default:
		snprintf(why, whysz, "unknown unit %s (K, M, G or T)", end);
		return -1;
	}
	if (end[0] != '\0' && end[1] != '\0' && strcmp(end + 1, "iB") != 0 &&
	    strcmp(end + 1, "B") != 0) {
		snprintf(why, whysz, "unknown unit %s (K, M, G or T)", end);
		return -1;
	}
	if (x > (1ULL << 40) >> shift) {
		snprintf(why, whysz, "over 1 PiB");
		return -1;
	}
	kib = x << shift;
	x = (kib + 1023) / 1024;
	if (x == 0 || x > (1ULL << 30)) {
		snprintf(why, whysz, x == 0 ? "must be more than 0" :
		    "over 1 PiB");
		return -1;
	}
	*mb = (uint32_t)x;
	return 0;
}
