/* cli — common options and configuration loading for mains. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct conf *cf;
	char err[256];
	const char *path = cc->cc_conf_path ? cc->cc_conf_path :
	    conf_default_path();
	int i, n, bad = 0;

	if ((cf = conf_new()) == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return NULL;
	}
	/* Only an explicitly named file must exist. */
	n = conf_load_file(cf, path, cc->cc_conf_path == NULL &&
	    getenv("CILKNOW_CONF") == NULL, stderr);
	if (n == -1) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		bad++;
	} else
		bad += n;
	for (i = 0; i < cc->cc_noverrides; i++)
		if (conf_override(cf, cc->cc_overrides[i], err,
		    sizeof(err)) == -1) {
			fprintf(stderr, "%s: -o %s: %s\n", prog,
			    cc->cc_overrides[i], err);
			bad++;
		}
	if (cc->cc_broker != NULL &&
	    conf_set(cf, "broker", cc->cc_broker, err, sizeof(err)) == -1) {
		fprintf(stderr, "%s: -b %s: %s\n", prog, cc->cc_broker, err);
		bad++;
	}
	if (bad) {
		conf_free(cf);
		return NULL;
	}
	return cf;
}

void
cli_version(const char *prog)
{
	printf("%s (cilknow) %s\n", prog, CILKNOW_VERSION);
}
