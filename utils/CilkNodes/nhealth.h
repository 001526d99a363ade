/*
 * CilkNodes drain, resume and -R (proto_health.h): the request, signed
 * by the user's key with the broker's cookie as CilkKill's, and how its
 * answer is shown.
 */
#ifndef CILKNODES_NHEALTH_H
#define CILKNODES_NHEALTH_H

#include "cli.h"
#include "proto_health.h"

/*
 * Asks the broker; CLI_EXIT_OK with its answer in *a, else the exit
 * code, the reason printed unless quiet.
 */
int	nhealth_ask(const struct cli_common *, uint8_t op, const char *node,
	    const char *reason, struct proto_health *a, int quiet);
/* drain NODE --reason TEXT, resume NODE: what was done, or why not. */
int	nhealth_set(const struct cli_common *, uint8_t op, const char *node,
	    const char *reason);
/* -R: NODE HOST STATE REASON USER SINCE, or --json. */
int	nhealth_reasons(const struct cli_common *, int numeric);
/* The row of a node listed (its number and address), or NULL. */
const struct proto_health_row *nhealth_find(const struct proto_health *,
	    uint32_t node, const struct msg_addr *);
/* SINCE as local time, "2026-11-28T03:04:05". */
void	nhealth_since(uint64_t ms, char *buf, size_t bufsz);

#endif
