/*
 * fake_root — sends ROOT_BACKUPs to a node manager for a process of
 * the test's, as a checkpointing root would (cilknow(3) CILKNOW_HOME),
 * honest or forged, three times over a second.
 *   fake_root CONF MODE HOST:PORT PID CKPT CMD [ARG ...] [-- KEYFILE]
 * MODE honest:    the command "CMD -Recover=CKPT ARG ..." signed by the
 *                 configured user;
 *      other-key: the description claims the configured user but is
 *                 signed by KEYFILE (another user's key);
 *      tampered:  signed honestly, then an argument byte changed.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "conf.h"
#include "evloop.h"
#include "mono.h"
#include "msg_keyring.h"
#include "proto_root.h"

int
main(int argc, char *argv[])
{
	static uint8_t sig[MSG_PAYLOAD_MAX], buf[MSG_PAYLOAD_MAX];
	static struct msg_handler table[PROTO_H_MAX];
	static struct msg_keyring kr;
	struct msg_keyset other;
	const struct msg_key *key;
	struct proto_root_backup b;
	struct proto_desc d;
	struct evloop *loop;
	struct msg_ep *ep;
	struct conf *cf;
	struct msg_addr any, to;
	const char *errstr, *mode, *keyfile = NULL;
	char why[512], flag[PROTO_PATH_MAX + 16], cwd[PROTO_PATH_MAX];
	size_t sn, n;
	int i, last;

	if (argc < 7 || sodium_init() < 0)
		errx(2, "usage: fake_root CONF MODE HOST:PORT PID CKPT CMD "
		    "[ARG ...] [-- KEYFILE]");
	mode = argv[2];
	last = argc;
	if (argc > 8 && strcmp(argv[argc - 2], "--") == 0) {
		keyfile = argv[argc - 1];
		last = argc - 2;
	}
	if ((cf = conf_new()) == NULL ||
	    conf_load_file(cf, argv[1], 0, stderr) != 0)
		errx(2, "%s: bad config", argv[1]);
	if (msg_keyring_load(&kr, cf, MSG_KR_USER, NULL, why,
	    sizeof(why)) == -1)
		errx(1, "%s", why);
	if (msg_addr_parse(&to, argv[3], 0) == -1)
		errx(2, "%s: bad address", argv[3]);
	memset(&b, 0, sizeof(b));
	b.rb_pid = (uint32_t)strtonum(argv[4], 2, 1 << 30, &errstr);
	if (errstr != NULL ||
	    proto_root_pid_start((long)b.rb_pid, &b.rb_start) == -1)
		errx(2, "%s: no such process", argv[4]);
	key = &kr.kr_user.ks_key[0];
	if (strcmp(mode, "other-key") == 0) {
		if (keyfile == NULL || msg_keyset_load(&other, keyfile,
		    MSG_KEY_USER, why, sizeof(why)) == -1)
			errx(1, "other-key needs a readable KEYFILE");
		key = &other.ks_key[0];
	} else if (strcmp(mode, "honest") != 0 &&
	    strcmp(mode, "tampered") != 0)
		errx(2, "%s: unknown mode", mode);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		err(1, "getcwd");
	memset(&d, 0, sizeof(d));
	strlcpy(d.de_user, kr.kr_user.ks_key[0].k_name, sizeof(d.de_user));
	strlcpy(d.de_cwd, cwd, sizeof(d.de_cwd));
	snprintf(flag, sizeof(flag), "%s%s", PROTO_RECOVER_FLAG, argv[5]);
	d.de_argv[d.de_argc++] = argv[6];
	d.de_argv[d.de_argc++] = flag;
	for (i = 7; i < last && d.de_argc < PROTO_ARGS_MAX; i++)
		d.de_argv[d.de_argc++] = argv[i];
	d.de_issued_ms = now_real_ms();
	msg_addr_text(&to, d.de_node, sizeof(d.de_node));	/* as cn_home */
	d.de_job = b.rb_pid;
	d.de_pri = 1;
	if ((sn = proto_desc_sign_for(&d, PROTO_DESC_ROOT, key, sig,
	    sizeof(sig))) == 0)
		errx(1, "cannot sign");
	if (strcmp(mode, "tampered") == 0) {
		/* The last argument's last byte, inside the signed part. */
		for (i = (int)sn - 65; i > 0 && sig[i] == 0; i--)
			;
		sig[i] ^= 1;
	}
	b.rb_desc = sig;
	b.rb_desclen = sn;
	if ((n = proto_root_backup_enc(&b, buf, sizeof(buf))) == 0)
		errx(1, "cannot encode");
	memset(&any, 0, sizeof(any));
	any.ma_family = 4;
	if ((loop = evloop_new()) == NULL ||
	    (ep = msg_ep_new(loop, &kr, table, PROTO_H_MAX, NULL,
	    NULL)) == NULL || msg_ep_bind(ep, &any) == -1)
		err(1, "endpoint");
	for (i = 0; i < 3; i++) {
		if (msg_ep_send(ep, &to, MSG_SCHEME_USER, PROTO_H_ROOT_BACKUP,
		    buf, n) == -1)
			warn("send");
		(void)evloop_run_once(loop, 0);
		usleep(300000);
	}
	printf("sent %s\n", mode);
	msg_ep_free(ep);
	evloop_free(loop);
	conf_free(cf);
	return 0;
}
