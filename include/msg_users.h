/*
 * msg_users — the users' public keys (the user_keys folder, one
 * NAME.pub each) held in memory.  A daemon that verifies what users
 * sign loads the folder at start and again on SIGHUP, so that a
 * datagram claiming a user name costs a lookup, never a file access:
 * an unknown name is refused with no file opened.  Bounded: at most
 * MSG_USERS_MAX users, each file at most MSG_KEYFILE_MAX bytes (what
 * msg_keyset_load reads).
 */
#ifndef CILKNOW_MSG_USERS_H
#define CILKNOW_MSG_USERS_H

#include <stddef.h>
#include <stdint.h>

#include "msg_keys.h"

#define MSG_USERS_MAX		4096	/* users' keys one daemon holds */
#define MSG_USERS_LOG_MAX	5	/* refused files named in the log */

struct msg_users;

/*
 * Every NAME.pub in dir whose NAME is a valid user name and whose key
 * is NAME's, with the checks of msg_keyset_load; the others are refused
 * (the first MSG_USERS_LOG_MAX logged by name), as is every file beyond
 * MSG_USERS_MAX.  One line says how many were loaded and refused.  A
 * folder that cannot be read gives an empty table, logged.  NULL only
 * when out of memory.
 */
struct msg_users *msg_users_load(const char *dir);
/* The key of name with key id keyid, or NULL. */
const struct msg_key *msg_users_find(const struct msg_users *,
	    const char *name, uint32_t keyid);
size_t	msg_users_count(const struct msg_users *);
void	msg_users_free(struct msg_users *);

#endif
