/*
 * priv — no code that parses network input runs as root (DESIGN.md §9).
 *
 * A daemon that starts as root (to read a key file of mode 0600, to
 * bind, to make its folders) looks up its service user (priv_lookup,
 * config key service_user), makes what it must write later, and then
 * either drops root for good (priv_drop) or splits in two (priv_fork),
 * in the manner of OpenBSD's privilege-separated daemons: a small
 * privileged parent that keeps no network socket and does on request
 * only what needs root, and an unprivileged child that does all the
 * rest.  The two talk over a socketpair in typed, length-checked
 * messages (one SOCK_SEQPACKET datagram each, encoded with wire.h);
 * neither trusts a length, count or string the other sent.
 *
 * The parent is the process that wrote the pid file and that the
 * service manager knows (MAINPID); it alone talks to systemd's notify
 * socket, relaying the child's READY and WATCHDOG, so NotifyAccess=main
 * is enough.  On SIGHUP it re-reads the configuration and the key files
 * as root and sends them (PRIV_M_RELOAD) to the child, which parses
 * them with the very code that reads key files (msg_keyset_parse).
 * SIGTERM or SIGINT to the parent ends the child, then the parent; the
 * child's death ends the parent with the child's status, so that the
 * service manager restarts the pair.
 */
#ifndef CILKNOW_PRIV_H
#define CILKNOW_PRIV_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "evloop.h"
#include "msg_codec.h"

#define PRIV_USER_DEFAULT	"cilknow"
/* One message, header included: a node manager's spawn request holds a
   signed description of up to 64 KiB (nmpriv.h). */
#define PRIV_MSG_MAX		(96 * 1024)
#define PRIV_QUEUE_MAX		(4 * 1024 * 1024)	/* bytes unread */
#define PRIV_HDR_LEN		6	/* u16 type, u32 payload length */
#define PRIV_STATUS_MAX		200	/* READY/RELOADED status text */
#define PRIV_STOP_WAIT		20.0	/* s from SIGTERM to SIGKILL */
#define PRIV_USERADD		"useradd --system --user-group " \
	"--no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin"

struct priv_user {
	uid_t		 pu_uid;
	gid_t		 pu_gid;
	char		 pu_name[33];
};

/*
 * Looks up the service user (NULL: PRIV_USER_DEFAULT).  -1 with err if
 * the user does not exist (fail closed: the message names the useradd
 * command that makes it), if it is root's (uid or gid 0: dropping to it
 * would keep root's power), or on a lookup error.
 */
int	priv_lookup(struct priv_user *, const char *user, char *err,
	    size_t errlen);

/*
 * Becomes pu for good: no supplementary group (setgroups), an empty
 * capability bounding set, setresgid, setresuid, PR_SET_NO_NEW_PRIVS
 * (nothing we exec may gain privileges: the daemons exec no setuid
 * program), then verifies it: real, effective and saved ids are pu's,
 * no supplementary group is left, setuid(0) and setgid(0) fail, and no
 * permitted, effective, ambient or bounding capability is left
 * (capget, prctl).  -1 with err on any failure:
 * the caller must exit.  Not root (no uid 0 among real, effective and
 * saved): does nothing and returns 0; the caller decides what to say.
 */
int	priv_drop(const struct priv_user *, char *err, size_t errlen);

/*
 * 1 if this process has any root privilege left: uid 0 or gid 0 (real,
 * effective, saved, or group root among the supplementary groups), or
 * any permitted, effective or ambient capability; 1 also when that
 * cannot be told (fail closed).  0 otherwise.
 */
int	priv_have_any(void);

/*
 * Whether user pu can reach path: search permission on every folder
 * from / down to path (path itself included when it is a folder), as
 * pu, not as root.  -1 with err naming the first folder that stops it
 * (and the chmod that would not), else 0.
 */
int	priv_reach(const struct priv_user *, const char *path, char *err,
	    size_t errlen);

/* ---- the child's view of the file system ---- */

#define PRIV_VIEW_MAX		16
#define PRIV_VIEW_RW		0x01	/* else read-only */
#define PRIV_VIEW_OPTIONAL	0x02	/* not there: not bound, no error */

struct priv_view_path {
	char		 vp_path[PATH_MAX];
	unsigned	 vp_flags;
};

struct priv_view {
	char			pv_root[PATH_MAX];	/* mounted on */
	size_t			pv_n;
	struct priv_view_path	pv_path[PRIV_VIEW_MAX];
};

/*
 * Adds an absolute path (a folder or a file: a socket, say) to the
 * view, bound at the same path; nosuid, nodev and noexec always.  -1
 * with errno (EINVAL: not absolute or with "..", ENOSPC: full).
 */
int	priv_view_add(struct priv_view *, const char *path, unsigned flags);
/*
 * As root: a mount namespace of our own, where pv_root (made if
 * missing; a folder of root's) gets an empty tmpfs, the view's paths
 * are bound into it (a folder before what is inside it), it is made
 * read-only, and becomes our root (chroot, chdir /).  The host's
 * mounts are not changed.  -1 with err: the caller must exit.
 */
int	priv_view_enter(const struct priv_view *, char *err, size_t errlen);

/* ---- the channel between the privileged parent and its child ---- */

enum priv_mtype {
	PRIV_M_UNDEF = 0,
	PRIV_M_READY,		/* child: started; str status */
	PRIV_M_WATCHDOG,	/* child: my loop runs; empty */
	PRIV_M_RELOAD,		/* parent: configuration and key files */
	PRIV_M_RELOADED,	/* child: u8 applied, str status */
	PRIV_M_MAX		/* daemons' own types start here */
};

struct seqq;

struct priv_chan {
	int		 pc_fd;		/* SOCK_SEQPACKET, -1 when closed */
	pid_t		 pc_peer;	/* the other side */
	struct seqq	*pc_q;		/* what the other side has not read */
};

/*
 * From now on priv_send never fails for want of room: what the other
 * side has not read yet waits, in order, and goes from loop as soon as
 * the socket takes it (seqq.h), up to PRIV_QUEUE_MAX bytes.  0, or -1.
 */
int	priv_chan_queue(struct priv_chan *, struct evloop *);
void	priv_chan_close(struct priv_chan *);

/*
 * One message: the header (u16 type, u32 payload length) and len bytes
 * of payload into out; its length, or 0 if it does not fit or len is
 * over PRIV_MSG_MAX - PRIV_HDR_LEN.
 */
size_t	priv_msg_enc(uint16_t type, const void *payload, size_t len,
	    uint8_t *out, size_t outsz);
/*
 * A whole datagram of n bytes: its type and payload (pointing into
 * dgram).  -1 if the header is short, the length is not the rest of
 * the datagram, or the type is PRIV_M_UNDEF.
 */
int	priv_msg_dec(const uint8_t *dgram, size_t n, uint16_t *type,
	    const uint8_t **payload, size_t *len);

/*
 * Sends one message without blocking: 0, or -1 with errno.  With a
 * queue (priv_chan_queue) EOVERFLOW says that the other side has left
 * PRIV_QUEUE_MAX bytes unread; without one, EAGAIN that the socket is
 * full.  Either way the caller decides whether the peer may go on.
 */
int	priv_send(struct priv_chan *, uint16_t type, const void *payload,
	    size_t len);
/*
 * Receives one message into buf (bufsz at least PRIV_MSG_MAX): 1 with
 * its type and the payload at *payload (inside buf); 0 when the other
 * side has closed the channel (it is gone); -1 with errno, EBADMSG for
 * a datagram that is truncated, oversized or malformed.
 */
int	priv_recv(struct priv_chan *, uint16_t *type, uint8_t *buf,
	    size_t bufsz, const uint8_t **payload, size_t *len);

/* The child's side of the typed messages. */
int	priv_send_ready(struct priv_chan *, const char *status);
int	priv_send_watchdog(struct priv_chan *);
int	priv_send_reloaded(struct priv_chan *, int applied,
	    const char *status);
/*
 * A status text of READY or RELOADED into buf (PRIV_STATUS_MAX + 1
 * bytes): -1 unless it is at most PRIV_STATUS_MAX printable ASCII
 * characters with nothing after it, for it ends up in a notify
 * datagram, where a newline would add keys of the child's choosing.
 */
int	priv_status_dec(const uint8_t *payload, size_t len, char *buf);
int	priv_reloaded_dec(const uint8_t *payload, size_t len, int *applied,
	    char *buf);

/*
 * Parent, as root: reads the key files the configuration cf names
 * (those msg_keyring_load would read for flags, with every check it
 * makes) and sends them with the whole of cf to the child as one
 * PRIV_M_RELOAD.  Nothing is sent when a key is bad or the message
 * cannot go: -1 with the reason in err.
 */
int	priv_send_keys(struct priv_chan *, const struct conf *cf,
	    unsigned flags, const char *principal, char *err, size_t errlen);
/*
 * Child: a PRIV_M_RELOAD's payload into a new configuration (*cfp, each
 * value checked as the configuration file's would be) and keyring kr
 * (each key file parsed by msg_keyset_parse, as msg_keyring_load_with
 * would for flags).  -1 with err on anything malformed, *cfp and kr
 * then untouched.
 */
int	priv_recv_keys(const uint8_t *payload, size_t len, unsigned flags,
	    const char *principal, struct conf **cfp, struct msg_keyring *kr,
	    char *err, size_t errlen);
/*
 * The payload priv_send_keys sends, into out: its length, or 0 (with
 * err) if a key is bad or it does not fit.  For tests and fuzzers.
 */
size_t	priv_keys_enc(const struct conf *, unsigned flags,
	    const char *principal, uint8_t *out, size_t outsz, char *err,
	    size_t errlen);

/* ---- the split ---- */

/* What the privileged parent does; every hook is optional. */
struct priv_parent {
	struct evloop	*pp_loop;	/* the parent's loop (reused) */
	/*
	 * In the parent right after the fork: close and forget what the
	 * parent must not hold (network sockets, keys).
	 */
	void		(*pp_forked)(void *);
	/*
	 * SIGHUP, as root: re-read and send (priv_send_keys); -1 when
	 * nothing was sent (the hook logs why; the child keeps the old).
	 */
	int		(*pp_reload)(struct priv_chan *, void *);
	/*
	 * A message of a daemon's own type (PRIV_M_MAX and up); -1 if it
	 * is malformed or not allowed, and the child is then ended.
	 */
	int		(*pp_msg)(struct priv_chan *, uint16_t type,
			    const uint8_t *, size_t, void *);
	/*
	 * SIGCHLD, before the parent looks at its child: children of
	 * the daemon's own (the node manager's launch pads) are its to
	 * reap; the child of the split is never theirs (pc_peer).
	 */
	void		(*pp_children)(void *);
	/*
	 * A message the child sent just before it ended, read once it
	 * has: what it decided to stop is done, what would start
	 * something is ignored.  NULL: such messages are dropped.  -1
	 * if it is malformed (the rest are dropped).
	 */
	int		(*pp_last)(struct priv_chan *, uint16_t type,
			    const uint8_t *, size_t, void *);
	/* Just before the parent exits: remove the pid file. */
	void		(*pp_exit)(void *);
	void		*pp_arg;
	/*
	 * The child's view of the file system, entered before its drop
	 * (priv_view_enter); NULL: it sees the host's.
	 */
	const struct priv_view *pp_view;
};

/*
 * Splits this process in two over a socketpair.  The child enters
 * pp_view if there is one, drops to pu
 * (none when pu is NULL: not root, nothing to drop), forgets the notify
 * socket (the parent speaks for both) and returns 0 with pc its end of
 * the channel; it gets SIGTERM should the parent die.  The parent never
 * returns: it calls pp_forked and serves the child until it exits, then
 * exits with the child's status (128 + the signal that killed it).  -1
 * with err if the split failed (still one process) or, in the child,
 * the drop did: the caller must exit non-zero either way.
 */
int	priv_fork(struct priv_chan *, const struct priv_user *pu,
	    const struct priv_parent *, char *err, size_t errlen);

/*
 * priv_names.c: the users' names and ids.  In the child of priv_fork
 * (whose view holds no /etc) its parent answers, over a socketpair of
 * their own, and answers are kept NAMES_KEEP seconds; elsewhere the C
 * library does.  0, or -1 with errno ENOENT (no such user) or EIO (the
 * lookup failed, or the parent did not answer in 2 seconds).
 */
int	priv_name_of_uid(uid_t, char *name, size_t namesz);
int	priv_uid_of_name(const char *name, uid_t *uid);
/* priv_fork's: the child's end, and the parent's, served from loop. */
void	priv_names_child(int fd);
int	priv_names_parent(struct evloop *loop, int fd);

#endif
