/*
 * json — the little the utilities need to print one JSON document with
 * printf(3): strings quoted and escaped.  Bytes that are not valid UTF-8
 * come out as U+FFFD, so the document always parses.
 */
#ifndef CILKNOW_JSON_H
#define CILKNOW_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Writes s as a JSON string, quotes included. */
void	json_put_str(FILE *, const char *s);
/* The same for n bytes of s (which may hold NULs). */
void	json_put_strn(FILE *, const char *s, size_t n);

/*
 * Writes s as a JSON string, quotes included, into buf (bufsz bytes,
 * NUL-terminated).  The length it needed, as snprintf(3): a result of
 * bufsz or more means buf was cut short.
 */
size_t	json_quote(char *buf, size_t bufsz, const char *s);

#endif
