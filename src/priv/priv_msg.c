/*
 * priv_msg — the messages between a privileged parent and its child:
 * framing on a SOCK_SEQPACKET socketpair, the small typed messages, and
 * PRIV_M_RELOAD, which carries the whole configuration and the key
 * files' text from the root parent to the child.
 */
#include "priv.h"

#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "msg_keyring.h"
#include "seqq.h"
#include "wire.h"

#define PRIV_KEYFILES_MAX	3	/* cluster_key, cluster_pub, user_key */
#define PRIV_CONFKEY_MAX	64

/* The key files a keyring is made of, as read by the parent. */
struct priv_keyfile {
	char		 kf_key[PRIV_CONFKEY_MAX];	/* "cluster_key" */
	char		 kf_path[PATH_MAX];
	uint16_t	 kf_mode;
	size_t		 kf_len;
	char		 kf_text[MSG_KEYFILE_MAX + 2];
};

struct priv_keyfiles {
	struct priv_keyfile	 kfs_f[PRIV_KEYFILES_MAX];
	size_t			 kfs_n;
};

static const char *const keyfile_keys[PRIV_KEYFILES_MAX] = {
	"cluster_key", "cluster_pub", "user_key"
};

size_t
priv_msg_enc(uint16_t type, const void *payload, size_t len, uint8_t *out,
    size_t outsz)
{
	struct wire_w w;

	if (type == PRIV_M_UNDEF || len > PRIV_MSG_MAX - PRIV_HDR_LEN)
		return 0;
	wire_w_init(&w, out, outsz);
	wire_put_u16(&w, type);
	wire_put_u32(&w, (uint32_t)len);
	wire_put_bytes(&w, payload, len);
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

int
priv_msg_dec(const uint8_t *dgram, size_t n, uint16_t *type,
    const uint8_t **payload, size_t *len)
{
	struct wire_r r;
	uint32_t plen;

	wire_r_init(&r, dgram, n);
	if (n > PRIV_MSG_MAX || wire_get_u16(&r, type) == -1 ||
	    wire_get_u32(&r, &plen) == -1 || *type == PRIV_M_UNDEF ||
	    plen != r.wr_left || wire_get_ref(&r, payload, plen) == -1)
		return -1;
	*len = plen;
	return 0;
}

int
priv_chan_queue(struct priv_chan *pc, struct evloop *loop)
{
	if (pc->pc_q != NULL)
		return 0;
	return (pc->pc_q = seqq_new(loop, pc->pc_fd, PRIV_QUEUE_MAX)) ==
	    NULL ? -1 : 0;
}

void
priv_chan_close(struct priv_chan *pc)
{
	seqq_free(pc->pc_q);
	pc->pc_q = NULL;
	if (pc->pc_fd != -1)
		close(pc->pc_fd);
	pc->pc_fd = -1;
}

int
priv_send(struct priv_chan *pc, uint16_t type, const void *payload,
    size_t len)
{
	uint8_t *buf;
	size_t n;
	ssize_t sent = 0;
	int saved, rc;

	if (pc->pc_fd == -1) {
		errno = EBADF;
		return -1;
	}
	if (len > PRIV_MSG_MAX - PRIV_HDR_LEN) {
		errno = EMSGSIZE;
		return -1;
	}
	if ((buf = malloc(PRIV_HDR_LEN + len)) == NULL)
		return -1;
	if ((n = priv_msg_enc(type, payload, len, buf,
	    PRIV_HDR_LEN + len)) == 0) {
		free(buf);
		errno = EMSGSIZE;
		return -1;
	}
	/* Never block: a peer that does not read must not stop our loop. */
	if (pc->pc_q != NULL)
		rc = seqq_send(pc->pc_q, buf, n);
	else {
		do
			sent = send(pc->pc_fd, buf, n, MSG_DONTWAIT |
			    MSG_NOSIGNAL);
		while (sent == -1 && errno == EINTR);
		rc = sent == -1 ? -1 : 0;
	}
	saved = errno;
	sodium_memzero(buf, n);		/* it may hold keys */
	free(buf);
	if (rc == -1) {
		errno = saved;
		return -1;
	}
	if (pc->pc_q == NULL && (size_t)sent != n) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

int
priv_recv(struct priv_chan *pc, uint16_t *type, uint8_t *buf, size_t bufsz,
    const uint8_t **payload, size_t *len)
{
	struct iovec iov;
	struct msghdr mh;
	ssize_t n;

	if (bufsz < PRIV_MSG_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = buf;
	iov.iov_len = PRIV_MSG_MAX;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	do
		n = recvmsg(pc->pc_fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	if (n == 0)
		return 0;	/* closed: every message has a header */
	/* No descriptors are passed: one that came is an error too. */
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 ||
	    mh.msg_controllen != 0 ||
	    priv_msg_dec(buf, (size_t)n, type, payload, len) == -1) {
		errno = EBADMSG;
		return -1;
	}
	return 1;
}

/* Printable ASCII only: the text goes into a notify datagram. */
static int
status_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

int
priv_send_ready(struct priv_chan *pc, const char *status)
{
	uint8_t buf[PRIV_STATUS_MAX + 2];
	struct wire_w w;

	if (strlen(status) > PRIV_STATUS_MAX || !status_ok(status)) {
		errno = EINVAL;
		return -1;
	}
	wire_w_init(&w, buf, sizeof(buf));
	wire_put_str(&w, status);
	return priv_send(pc, PRIV_M_READY, buf, w.ww_len);
}

int
priv_send_watchdog(struct priv_chan *pc)
{
	return priv_send(pc, PRIV_M_WATCHDOG, NULL, 0);
}

int
priv_send_reloaded(struct priv_chan *pc, int applied, const char *status)
{
	uint8_t buf[PRIV_STATUS_MAX + 3];
	struct wire_w w;

	if (strlen(status) > PRIV_STATUS_MAX || !status_ok(status)) {
		errno = EINVAL;
		return -1;
	}
	wire_w_init(&w, buf, sizeof(buf));
	wire_put_u8(&w, applied ? 1 : 0);
	wire_put_str(&w, status);
	return priv_send(pc, PRIV_M_RELOADED, buf, w.ww_len);
}

int
priv_status_dec(const uint8_t *payload, size_t len, char *buf)
{
	struct wire_r r;

	wire_r_init(&r, payload, len);
	if (wire_get_str(&r, buf, PRIV_STATUS_MAX + 1) == -1 ||
	    wire_get_end(&r) == -1 || !status_ok(buf)) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

int
priv_reloaded_dec(const uint8_t *payload, size_t len, int *applied,
    char *buf)
{
	struct wire_r r;
	uint8_t a;

	buf[0] = '\0';
	wire_r_init(&r, payload, len);
	if (wire_get_u8(&r, &a) == -1 || a > 1 ||
	    wire_get_str(&r, buf, PRIV_STATUS_MAX + 1) == -1 ||
	    wire_get_end(&r) == -1 || !status_ok(buf)) {
		buf[0] = '\0';
		return -1;
	}
	*applied = a;
	return 0;
}

/* ---- PRIV_M_RELOAD ---- */

/* The parent's loader: read the file, check it, keep its text. */
static int
capture(struct msg_keyset *ks, const char *key, const char *path,
    enum msg_key_type type, char *err, size_t errlen, void *arg)
{
	struct priv_keyfiles *kfs = arg;
	struct priv_keyfile *f;
	mode_t mode;

	if (kfs->kfs_n == PRIV_KEYFILES_MAX) {
		snprintf(err, errlen, "%s: too many key files", path);
		errno = EINVAL;
		return -1;
	}
	f = &kfs->kfs_f[kfs->kfs_n];
	if (strlen(key) >= sizeof(f->kf_key) ||
	    strlen(path) >= sizeof(f->kf_path)) {
		snprintf(err, errlen, "%s: name too long", path);
		errno = ENAMETOOLONG;
		return -1;
	}
	if (msg_keyfile_read(path, f->kf_text, sizeof(f->kf_text),
	    &f->kf_len, &mode, err, errlen) == -1 ||
	    msg_keyset_parse(ks, path, f->kf_text, f->kf_len, mode, type, err,
	    errlen) == -1) {
		sodium_memzero(f, sizeof(*f));
		return -1;
	}
	strlcpy(f->kf_key, key, sizeof(f->kf_key));
	strlcpy(f->kf_path, path, sizeof(f->kf_path));
	f->kf_mode = (uint16_t)mode;
	kfs->kfs_n++;
	return 0;
}

/* The child's loader: what the parent sent, parsed the same way. */
static int
replay(struct msg_keyset *ks, const char *key, const char *path,
    enum msg_key_type type, char *err, size_t errlen, void *arg)
{
	const struct priv_keyfiles *kfs = arg;
	const struct priv_keyfile *f;
	size_t i;

	for (i = 0; i < kfs->kfs_n; i++) {
		f = &kfs->kfs_f[i];
		if (strcmp(f->kf_key, key) == 0)
			return msg_keyset_parse(ks, f->kf_path, f->kf_text,
			    f->kf_len, f->kf_mode, type, err, errlen);
	}
	/* The parent skipped it: missing or unreadable, as it found it. */
	snprintf(err, errlen, "%s: not sent by the privileged parent", path);
	errno = ENOENT;
	return -1;
}

size_t
priv_keys_enc(const struct conf *cf, unsigned flags, const char *principal,
    uint8_t *out, size_t outsz, char *err, size_t errlen)
{
	struct priv_keyfiles *kfs = NULL;
	struct msg_keyring *kr = NULL;
	const char *key;
	struct wire_w w;
	size_t i, n = 0, len = 0;

	if ((kfs = calloc(1, sizeof(*kfs))) == NULL ||
	    (kr = calloc(1, sizeof(*kr))) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/*
	 * Every check msg_keyring_load makes, before anything is sent.
	 * The users' public keys the child reads itself (MSG_KR_USERS).
	 */
	if (msg_keyring_load_with(kr, cf, flags & ~MSG_KR_USERS, principal,
	    capture, kfs, err, errlen) == -1)
		goto out;
	while (conf_key_name(n) != NULL)
		n++;
	wire_w_init(&w, out, outsz);
	wire_put_u16(&w, (uint16_t)n);
	for (i = 0; i < n; i++) {
		key = conf_key_name(i);
		wire_put_str(&w, key);
		wire_put_str(&w, conf_get(cf, key));
	}
	wire_put_u8(&w, (uint8_t)kfs->kfs_n);
	for (i = 0; i < kfs->kfs_n; i++) {
		wire_put_str(&w, kfs->kfs_f[i].kf_key);
		wire_put_str(&w, kfs->kfs_f[i].kf_path);
		wire_put_u16(&w, kfs->kfs_f[i].kf_mode);
		wire_put_str(&w, kfs->kfs_f[i].kf_text);
	}
	if (wire_w_ok(&w) == -1) {
		sodium_memzero(out, outsz);
		snprintf(err, errlen, "configuration and keys too large for "
		    "one message");
		goto out;
	}
	len = w.ww_len;
 out:
	if (kr != NULL) {
		msg_keyring_clear(kr);
		free(kr);
	}
	if (kfs != NULL) {
		sodium_memzero(kfs, sizeof(*kfs));
		free(kfs);
	}
	return len;
}

int
priv_send_keys(struct priv_chan *pc, const struct conf *cf, unsigned flags,
    const char *principal, char *err, size_t errlen)
{
	uint8_t *buf;
	size_t len;
	int rc = -1;

	if ((buf = malloc(PRIV_MSG_MAX - PRIV_HDR_LEN)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((len = priv_keys_enc(cf, flags, principal, buf,
	    PRIV_MSG_MAX - PRIV_HDR_LEN, err, errlen)) > 0) {
		if ((rc = priv_send(pc, PRIV_M_RELOAD, buf, len)) == -1)
			snprintf(err, errlen, "sending the keys to the "
			    "unprivileged process: %s", strerror(errno));
	}
	sodium_memzero(buf, PRIV_MSG_MAX - PRIV_HDR_LEN);
	free(buf);
	return rc;
}

/* The index of a known configuration key, or -1. */
static int
conf_index(const char *key)
{
	const char *k;
	int i;

	for (i = 0; (k = conf_key_name((size_t)i)) != NULL; i++)
		if (strcmp(k, key) == 0)
			return i;
	return -1;
}

/* Every known key exactly once, each value valid for its key. */
static struct conf *
conf_dec(struct wire_r *r, char *err, size_t errlen)
{
	char key[PRIV_CONFKEY_MAX], val[CONF_VALUE_MAX + 1], why[256];
	unsigned char seen[256];
	struct conf *cf;
	uint16_t n, i;
	size_t known = 0;
	int k;

	while (conf_key_name(known) != NULL)
		known++;
	if (wire_get_u16(r, &n) == -1 || n != known || known > sizeof(seen)) {
		snprintf(err, errlen, "reload: not one value per known key");
		return NULL;
	}
	if ((cf = conf_new()) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		if (wire_get_str(r, key, sizeof(key)) == -1 ||
		    wire_get_str(r, val, sizeof(val)) == -1) {
			snprintf(err, errlen, "reload: malformed configuration");
			goto fail;
		}
		if ((k = conf_index(key)) == -1 || seen[k]) {
			snprintf(err, errlen, "reload: unknown or repeated "
			    "configuration key");
			goto fail;
		}
		seen[k] = 1;
		if (conf_set(cf, key, val, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "reload: %s: %s", key, why);
			goto fail;
		}
	}
	return cf;
 fail:
	conf_free(cf);
	return NULL;
}

static int
keyfiles_dec(struct wire_r *r, struct priv_keyfiles *kfs, char *err,
    size_t errlen)
{
	struct priv_keyfile *f;
	uint8_t n;
	size_t i, j, k;

	if (wire_get_u8(r, &n) == -1 || n > PRIV_KEYFILES_MAX)
		goto bad;
	for (i = 0; i < n; i++) {
		f = &kfs->kfs_f[i];
		if (wire_get_str(r, f->kf_key, sizeof(f->kf_key)) == -1 ||
		    wire_get_str(r, f->kf_path, sizeof(f->kf_path)) == -1 ||
		    f->kf_path[0] == '\0' ||
		    wire_get_u16(r, &f->kf_mode) == -1 ||
		    f->kf_mode > 07777 ||
		    wire_get_str(r, f->kf_text, MSG_KEYFILE_MAX + 1) == -1)
			goto bad;
		f->kf_len = strlen(f->kf_text);
		for (k = 0; k < PRIV_KEYFILES_MAX; k++)
			if (strcmp(f->kf_key, keyfile_keys[k]) == 0)
				break;
		if (k == PRIV_KEYFILES_MAX)
			goto bad;
		for (j = 0; j < i; j++)
			if (strcmp(kfs->kfs_f[j].kf_key, f->kf_key) == 0)
				goto bad;
		kfs->kfs_n++;
	}
	return 0;
 bad:
	snprintf(err, errlen, "reload: malformed key files");
	return -1;
}

int
priv_recv_keys(const uint8_t *payload, size_t len, unsigned flags,
    const char *principal, struct conf **cfp, struct msg_keyring *kr,
    char *err, size_t errlen)
{
	struct priv_keyfiles *kfs = NULL;
	struct msg_keyring *nkr = NULL;
	struct conf *cf = NULL;
	struct wire_r r;
	int rc = -1;

	if ((kfs = calloc(1, sizeof(*kfs))) == NULL ||
	    (nkr = calloc(1, sizeof(*nkr))) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	wire_r_init(&r, payload, len);
	if ((cf = conf_dec(&r, err, errlen)) == NULL ||
	    keyfiles_dec(&r, kfs, err, errlen) == -1)
		goto out;
	if (wire_get_end(&r) == -1) {
		snprintf(err, errlen, "reload: trailing bytes");
		goto out;
	}
	if (msg_keyring_load_with(nkr, cf, flags, principal, replay, kfs,
	    err, errlen) == -1)
		goto out;
	*cfp = cf;
	cf = NULL;
	/* kr is the caller's to fill: whatever was in it is not ours. */
	memcpy(kr, nkr, sizeof(*kr));
	sodium_memzero(nkr, sizeof(*nkr));	/* kr_users is kr's now */
	rc = 0;
 out:
	conf_free(cf);
	if (nkr != NULL) {
		msg_keyring_clear(nkr);
		free(nkr);
	}
	if (kfs != NULL) {
		sodium_memzero(kfs, sizeof(*kfs));
		free(kfs);
	}
	return rc;
}
