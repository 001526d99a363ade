/*
 * conf — cilknow.conf(5): "key = value" lines, "#" comments, a fixed set
 * of known keys with types and defaults (unknown keys are errors, so a
 * typo is caught), "-o KEY=VALUE" overrides, "file:line: msg" errors.
 */
#ifndef CILKNOW_CONF_H
#define CILKNOW_CONF_H

#include <stdio.h>

#define CONF_DEFAULT_PATH	"/etc/cilknow/cilknow.conf"
#define CONF_VALUE_MAX		1024

struct conf;

/* Every known key at its built-in default. NULL on allocation failure. */
struct conf	*conf_new(void);
void		 conf_free(struct conf *);

/* $CILKNOW_CONF if set and non-empty, else CONF_DEFAULT_PATH. */
const char	*conf_default_path(void);

/*
 * Reads path.  Every error is written to errs (if not NULL) as
 * "path:line: message" and counted; a file that group or others may
 * write is refused.  Returns the number of errors (0 on success), or -1
 * when the file cannot be opened (errno set; if missing_ok and errno is
 * ENOENT, returns 0 and keeps the defaults).  On errors the values that
 * did parse are kept, but callers treat any error as fatal.
 */
int		 conf_load_file(struct conf *, const char *path,
		    int missing_ok, FILE *errs);

/*
 * Sets one key, validating the value by the key's type.  -1 with a
 * reason in err (errlen bytes) for an unknown key or a bad value.
 */
int		 conf_set(struct conf *, const char *key, const char *value,
		    char *err, size_t errlen);
/* "KEY=VALUE" as given to -o; same contract as conf_set. */
int		 conf_override(struct conf *, const char *kv,
		    char *err, size_t errlen);

/* The value as text; NULL only for an unknown key. */
const char	*conf_get(const struct conf *, const char *key);
/* Duration keys (seconds, fractions allowed). -1 if not a duration. */
#define CONF_COUNT_MAX		1000000
/* A count key (user_jobs): 0, or -1 with EINVAL. */
int		 conf_get_count(const struct conf *, const char *key,
		    unsigned *out);
int		 conf_get_seconds(const struct conf *, const char *key,
		    double *out);
/*
 * Path keys with "~/" expanded against $HOME (or the password entry)
 * into buf.  -1 if too long or no home directory.
 */
int		 conf_get_path(const struct conf *, const char *key,
		    char *buf, size_t bufsz);

/*
 * The name of the i-th known key (sorted), NULL past the last: a walk
 * over every key, e.g. to send a whole configuration elsewhere.
 */
const char	*conf_key_name(size_t i);
/* Writes every key with its value, sorted, one "key = value" a line. */
void		 conf_dump(const struct conf *, FILE *);

#endif
