/* outpat — --output and --error file name patterns; see outpat.h. */
#include "outpat.h"

#include <stdio.h>
#include <string.h>

int
outpat_check(const char *pattern, char *why, size_t whylen)
{
	const char *p;

	if (pattern[0] == '\0') {
		snprintf(why, whylen, "empty file name pattern");
		return -1;
	}
	if (strlen(pattern) >= OUTPAT_MAX) {
		snprintf(why, whylen, "pattern longer than %d bytes",
		    OUTPAT_MAX - 1);
		return -1;
	}
	for (p = pattern; *p != '\0'; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p != 'j' && *p != 't' && *p != 'n' && *p != '%') {
			snprintf(why, whylen, "%%%.1s: not %%j (job), %%t "
			    "(task), %%n (node) or %%%%", p);
			return -1;
		}
	}
	if (pattern[strlen(pattern) - 1] == '/') {
		snprintf(why, whylen, "%s names a folder, not a file",
		    pattern);
		return -1;
	}
	return 0;
}

static int
put(char *buf, size_t bufsz, size_t *off, const char *s, size_t n)
{
	if (*off + n >= bufsz)
		return -1;
	memcpy(buf + *off, s, n);
	*off += n;
	buf[*off] = '\0';
	return 0;
}

int
outpat_expand(const char *pattern, uint32_t job, uint32_t task,
    const char *node, char *buf, size_t bufsz)
{
	char num[16], host[64];
	const char *p;
	size_t off = 0, i;
	int rc = 0;

	if (bufsz == 0)
		return -1;
	buf[0] = '\0';
	if (bufsz > OUTPAT_MAX)
		bufsz = OUTPAT_MAX;
	if (outpat_check(pattern, num, sizeof(num)) == -1)
		return -1;
	/* The host of "HOST/SLOT", in characters safe in a file name. */
	for (i = 0; node[i] != '\0' && node[i] != '/' &&
	    i < sizeof(host) - 1; i++)
		host[i] = (node[i] >= 'a' && node[i] <= 'z') ||
		    (node[i] >= 'A' && node[i] <= 'Z') ||
		    (node[i] >= '0' && node[i] <= '9') || node[i] == '.' ||
		    node[i] == '-' || node[i] == '_' ? node[i] : '_';
	host[i] = '\0';
	/* ".." as a whole host would climb a folder. */
	if (strcmp(host, ".") == 0 || strcmp(host, "..") == 0 ||
	    host[0] == '\0')
		strlcpy(host, "_", sizeof(host));
	for (p = pattern; *p != '\0' && rc == 0; p++) {
		if (*p != '%') {
			rc = put(buf, bufsz, &off, p, 1);
			continue;
		}
		switch (*++p) {
		case 'j':
			snprintf(num, sizeof(num), "%u", job);
			rc = put(buf, bufsz, &off, num, strlen(num));
			break;
		case 't':
			snprintf(num, sizeof(num), "%u", task);
			rc = put(buf, bufsz, &off, num, strlen(num));
			break;
		case 'n':
			rc = put(buf, bufsz, &off, host, strlen(host));
			break;
		default:
			rc = put(buf, bufsz, &off, "%", 1);
		}
	}
	return rc;
}

int
outpat_per_task(const char *pattern)
{
	const char *p;

	for (p = pattern; *p != '\0'; p++)
		if (*p == '%' && *++p == 't')
			return 1;
		else if (*p == '\0')
			break;
	return 0;
}
