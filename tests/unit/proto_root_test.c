/* Unit tests of ROOT_BACKUP and ROOT_DONE (proto_root.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "msg_keys.h"
#include "proto_root.h"
#include "tap.h"
#include "codec_robust.h"
#include "proto_rt.h"

int
main(void)
{
	static uint8_t buf[MSG_PAYLOAD_MAX], sig[MSG_PAYLOAD_MAX];
	struct proto_root_backup b, b2;
	struct proto_root_done d, d2;
	struct proto_desc de;
	struct msg_key ann;
	char *argv[] = { "/bin/queens", "-Recover=/tmp/q.ckpt", "12" };
	char ckpt[PROTO_PATH_MAX];
	size_t n, sn;

	if (sodium_init() < 0)
		return 1;
	msg_key_generate(&ann, MSG_KEY_USER, "ann");
	memset(&de, 0, sizeof(de));
	strlcpy(de.de_user, "ann", sizeof(de.de_user));
	strlcpy(de.de_cwd, "/tmp", sizeof(de.de_cwd));
	de.de_job = 4242;
	de.de_pri = 1;
	de.de_argc = 3;
	memcpy(de.de_argv, argv, sizeof(argv));
	ok(proto_root_ckpt(&de, ckpt, sizeof(ckpt)) == 0 &&
	    strcmp(ckpt, "/tmp/q.ckpt") == 0, "the checkpoint is argv[1]'s");
	sn = proto_desc_sign_for(&de, PROTO_DESC_ROOT, &ann, sig, sizeof(sig));
	ok(sn > 0, "a recovery description is signed");

	memset(&b, 0, sizeof(b));
	b.rb_pid = 4242;
	b.rb_start = 123456789;
	b.rb_desc = sig;
	b.rb_desclen = sn;
	n = proto_root_backup_enc(&b, buf, sizeof(buf));
	ok(n == 16 + sn, "ROOT_BACKUP encodes (%zu bytes)", n);
	ok(proto_root_backup_dec(&b2, buf, n) == 0 && b2.rb_pid == 4242 &&
	    b2.rb_start == 123456789 && b2.rb_desclen == sn &&
	    memcmp(b2.rb_desc, sig, sn) == 0, "ROOT_BACKUP round trip");
	robust("ROOT_BACKUP", rt_proto_root_backup, buf, n);
	buf[15] ^= 0x40;	/* the length: past the end */
	ok(proto_root_backup_dec(&b2, buf, n) == -1,
	    "ROOT_BACKUP with a length past the end refused");
	buf[15] ^= 0x40;
	b.rb_pid = 1;
	n = proto_root_backup_enc(&b, buf, sizeof(buf));
	ok(n > 0 && proto_root_backup_dec(&b2, buf, n) == -1,
	    "ROOT_BACKUP for pid 1 refused");
	b.rb_pid = 4242;
	b.rb_desclen = 0;
	ok(proto_root_backup_enc(&b, buf, sizeof(buf)) == 0,
	    "ROOT_BACKUP without a description is not encoded");
	ok(proto_root_backup_enc(&(struct proto_root_backup){ 7, 1, sig,
	    sn }, buf, 20) == 0, "ROOT_BACKUP: no room, no message");

	memset(&d, 0, sizeof(d));
	d.rd_pid = 4242;
	d.rd_start = 99;
	strlcpy(d.rd_ckpt, "/tmp/q.ckpt", sizeof(d.rd_ckpt));
	n = proto_root_done_enc(&d, buf, sizeof(buf));
	ok(n > 0 && proto_root_done_dec(&d2, buf, n) == 0 &&
	    d2.rd_pid == 4242 && d2.rd_start == 99 &&
	    strcmp(d2.rd_ckpt, "/tmp/q.ckpt") == 0, "ROOT_DONE round trip");
	robust("ROOT_DONE", rt_proto_root_done, buf, n);
	strlcpy(d.rd_ckpt, "q.ckpt", sizeof(d.rd_ckpt));
	ok(proto_root_done_enc(&d, buf, sizeof(buf)) == 0,
	    "ROOT_DONE with a relative path is not encoded");

	de.de_argv[1] = "-Recover=q.ckpt";
	ok(proto_root_ckpt(&de, ckpt, sizeof(ckpt)) == -1,
	    "a relative checkpoint is no recovery command");
	de.de_argv[1] = "12";
	ok(proto_root_ckpt(&de, ckpt, sizeof(ckpt)) == -1,
	    "a plain command is no recovery command");
	de.de_argc = 1;
	ok(proto_root_ckpt(&de, ckpt, sizeof(ckpt)) == -1,
	    "argv[0] alone is no recovery command");
	return tap_done();
}
