/*
 * utf8 — reading UTF-8 from the network, and making it safe to print on
 * a terminal.  Pure.
 */
#ifndef CILKNOW_UTF8_H
#define CILKNOW_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length of the UTF-8 sequence at p (n bytes there) and its code point
 * in *cp, or 0 when those bytes are not one: bad lead or continuation,
 * cut short, overlong, a surrogate, beyond U+10FFFF.
 */
size_t	utf8_decode(const uint8_t *p, size_t n, uint32_t *cp);

/*
 * 1 when the character may reach a terminal: not a C0 control, DEL, a
 * C1 control (CSI, OSC and the rest start escape sequences where a
 * terminal reads 8-bit controls), nor a bidirectional override or
 * isolate (they reorder what follows on the line).
 */
int	utf8_prints(uint32_t cp);

/*
 * Copies s into buf (bufsz > 0), NUL-terminated, with every character
 * that does not print and every byte that is not valid UTF-8 replaced
 * by '?'; a character that does not fit whole is left out.  Returns the
 * number of replacements.
 */
size_t	utf8_termsafe(char *buf, size_t bufsz, const char *s);

#endif
