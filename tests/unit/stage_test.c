/*
 * Unit tests of file staging (stage.h, proto_stage.h): names, sizes,
 * the chunked fetch, the folder-relative opens, the stage-out records
 * from collection to the job manager's reader, and the codecs of the
 * description's stage part, STAGE_REQ and STAGE.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lpad.h"
#include "proto.h"
#include "proto_stage.h"
#include "stage.h"
#include "tap.h"
#include "codec_robust.h"

static void
test_names(void)
{
	static const char *good[] = { "a.txt", "in/a.txt", "a b", "..a",
	    "a..", ".hidden", "a/b/c/d/e/f/g/h" };
	static const char *bad[] = { "", "..", ".", "../x", "a/../b",
	    "a/..", "/etc/passwd", "/", "a//b", "a/", "./a", "x\ny",
	    "tab\there", "a/b/c/d/e/f/g/h/i" };
	char why[128], longname[STAGE_NAME_MAX + 2];
	size_t i;
	int bad_ok = 0, good_bad = 0;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (stage_name_ok(good[i], 0, why, sizeof(why)) != 0) {
			printf("# refused %s: %s\n", good[i], why);
			good_bad++;
		}
	ok(good_bad == 0, "plain relative names taken");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (stage_name_ok(bad[i], 0, why, sizeof(why)) == 0) {
			printf("# took \"%s\"\n", bad[i]);
			bad_ok++;
		}
	ok(bad_ok == 0, "empty, '..', '.', absolute, empty component, "
	    "control byte, too deep: refused");
	ok(stage_name_ok("../x", 0, why, sizeof(why)) == -1 &&
	    strstr(why, "..") != NULL, "'..' says so: %s", why);
	ok(stage_name_ok("/etc/passwd", 0, why, sizeof(why)) == -1 &&
	    strstr(why, "absolute") != NULL, "absolute says so: %s", why);
	memset(longname, 'a', sizeof(longname));
	longname[STAGE_NAME_MAX] = '\0';
	ok(stage_name_ok(longname, 0, why, sizeof(why)) == 0,
	    "a name of %d bytes taken", STAGE_NAME_MAX);
	longname[STAGE_NAME_MAX] = 'a';
	longname[STAGE_NAME_MAX + 1] = '\0';
	ok(stage_name_ok(longname, 0, why, sizeof(why)) == -1,
	    "a name of %d bytes refused", STAGE_NAME_MAX + 1);
	ok(stage_name_ok("out*.txt", 1, why, sizeof(why)) == 0 &&
	    stage_name_ok("*/res[0-9].dat", 1, why, sizeof(why)) == 0,
	    "globs with magic taken");
	ok(stage_name_ok("../*.txt", 1, why, sizeof(why)) == -1 &&
	    stage_name_ok("/tmp/*", 1, why, sizeof(why)) == -1,
	    "globs reaching out refused");
}

static void
test_sizes(void)
{
	uint64_t v = 0;

	ok(stage_size_parse("123", &v) == 0 && v == 123, "123 bytes");
	ok(stage_size_parse("64M", &v) == 0 && v == 64ULL << 20, "64M");
	ok(stage_size_parse("256MiB", &v) == 0 && v == 256ULL << 20,
	    "256MiB");
	ok(stage_size_parse("1G", &v) == 0 && v == 1ULL << 30, "1G");
	ok(stage_size_parse("10k", &v) == 0 && v == 10240, "10k");
	ok(stage_size_parse("", &v) == -1 && stage_size_parse("x", &v) ==
	    -1 && stage_size_parse("-1", &v) == -1 &&
	    stage_size_parse("5T", &v) == -1 &&
	    stage_size_parse("5MX", &v) == -1 &&
	    stage_size_parse("99999999999999999999G", &v) == -1 &&
	    stage_size_parse("17179869184G", &v) == -1,
	    "empty, words, signs, unknown units, overflow refused");
}

static void
test_fetch(void)
{
	struct stage_fetch f;
	uint64_t size = 2 * STAGE_CHUNK + 100;

	stage_fetch_init(&f, size);
	ok(stage_fetch_want(&f, 0) == 0 &&
	    stage_fetch_want(&f, 2) == 2 * STAGE_CHUNK &&
	    stage_fetch_want(&f, 3) == UINT64_MAX &&
	    stage_fetch_want(&f, STAGE_WINDOW) == UINT64_MAX,
	    "the window: three chunks, none past the end");
	ok(stage_chunk_len(size, 2 * STAGE_CHUNK) == 100 &&
	    stage_chunk_len(size, size) == 0, "the last chunk is short");
	ok(stage_fetch_take(&f, STAGE_CHUNK, STAGE_CHUNK) ==
	    STAGE_TAKE_EARLY, "a chunk after a missing one is early");
	ok(stage_fetch_take(&f, 0, 10) == STAGE_TAKE_BAD,
	    "a chunk of the wrong length is bad");
	ok(stage_fetch_take(&f, 5, STAGE_CHUNK) == STAGE_TAKE_BAD,
	    "a misaligned chunk is bad");
	ok(stage_fetch_take(&f, 3 * STAGE_CHUNK, 1) == STAGE_TAKE_BAD,
	    "a chunk past the end is bad");
	ok(stage_fetch_take(&f, 0, STAGE_CHUNK) == STAGE_TAKE_OK &&
	    f.sf_next == STAGE_CHUNK, "the first chunk is taken");
	ok(stage_fetch_take(&f, 0, STAGE_CHUNK) == STAGE_TAKE_DUP,
	    "the same again is a duplicate");
	ok(stage_fetch_want(&f, 0) == STAGE_CHUNK, "the window moved");
	ok(stage_fetch_take(&f, STAGE_CHUNK, STAGE_CHUNK) == STAGE_TAKE_OK &&
	    !stage_fetch_done(&f) &&
	    stage_fetch_take(&f, 2 * STAGE_CHUNK, 100) == STAGE_TAKE_OK &&
	    stage_fetch_done(&f), "done after the last one");
	stage_fetch_init(&f, 0);
	ok(stage_fetch_done(&f) && stage_fetch_want(&f, 0) == UINT64_MAX,
	    "an empty file is done at once");
}

static int
write_file(int dfd, const char *name, const char *data, size_t n)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd == -1)
		return -1;
	if (write(fd, data, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static void
test_fs(int dfd)
{
	int fd;

	ok(mkdirat(dfd, "real", 0700) == 0 &&
	    write_file(dfd, "real/f", "x", 1) == 0 &&
	    symlinkat("real", dfd, "ldir") == 0 &&
	    symlinkat("/etc/passwd", dfd, "lfile") == 0, "fixtures");
	fd = stage_openat(dfd, "real/f", O_RDONLY, 0, 0);
	ok(fd != -1, "a file below is opened");
	if (fd != -1)
		close(fd);
	errno = 0;
	ok(stage_openat(dfd, "lfile", O_RDONLY, 0, 0) == -1 &&
	    errno == ELOOP, "a symbolic link is not followed");
	errno = 0;
	ok(stage_openat(dfd, "ldir/f", O_RDONLY, 0, 0) == -1 &&
	    (errno == ELOOP || errno == ENOTDIR),
	    "nor a link to a folder on the way");
	errno = 0;
	ok(stage_openat(dfd, "ldir/new", O_WRONLY | O_CREAT | O_EXCL, 0644,
	    1) == -1, "nothing is made through a link");
	ok(faccessat(dfd, "real/new", F_OK, 0) == -1, "and nothing was");
	fd = stage_openat(dfd, "a/b/c.txt", O_WRONLY | O_CREAT | O_EXCL,
	    0644, 1);
	ok(fd != -1 && faccessat(dfd, "a/b/c.txt", F_OK, 0) == 0,
	    "folders on the way are made");
	if (fd != -1)
		close(fd);
	ok(stage_openat(dfd, "a/b/c.txt", O_WRONLY | O_CREAT | O_EXCL, 0644,
	    1) == -1 && errno == EEXIST, "O_EXCL: an existing file stays");
	ok(symlinkat("/etc", dfd, "a/b/esc") == 0 &&
	    stage_rmtree(dfd, "a") == 0 && faccessat(dfd, "a", F_OK,
	    AT_SYMLINK_NOFOLLOW) == -1 && access("/etc/passwd", F_OK) == 0,
	    "rmtree removes a tree with a link in it, not what it points "
	    "to");
}

/* What the reader handed out. */
struct got {
	char	names[8][STAGE_NAME_MAX + 1];
	char	data[8][64];
	size_t	len[8];
	int	hash_ok[8];
	int	nfiles;
	char	notes[8][STAGE_NAME_MAX + 1];
	int	nnotes;
};

static int
g_begin(void *arg, const char *name, uint64_t size)
{
	struct got *g = arg;

	(void)size;
	if (g->nfiles >= 8)
		return -1;
	strlcpy(g->names[g->nfiles], name, sizeof(g->names[0]));
	g->len[g->nfiles] = 0;
	return 0;
}

static int
g_data(void *arg, const uint8_t *p, size_t n)
{
	struct got *g = arg;
	size_t *l = &g->len[g->nfiles];

	if (*l + n < sizeof(g->data[0])) {
		memcpy(g->data[g->nfiles] + *l, p, n);
		*l += n;
	}
	return 0;
}

static int
g_end(void *arg, int hash_ok)
{
	struct got *g = arg;

	g->data[g->nfiles][g->len[g->nfiles]] = '\0';
	g->hash_ok[g->nfiles++] = hash_ok;
	return 0;
}

static void
g_note(void *arg, const char *text)
{
	struct got *g = arg;

	if (g->nnotes < 8)
		strlcpy(g->notes[g->nnotes++], text, sizeof(g->notes[0]));
}

static const struct stage_rd_ops g_ops = { g_begin, g_data, g_end, g_note };

static int
any_note(const struct got *g, const char *part)
{
	int i;

	for (i = 0; i < g->nnotes; i++)
		if (strstr(g->notes[i], part) != NULL)
			return 1;
	return 0;
}

static void
test_records(int dfd)
{
	struct stage_list l;
	struct stage_rd rd;
	struct got g;
	static uint8_t buf[8192];
	char big[2000];
	int out, files, bad, i;
	ssize_t n;
	size_t off, k;

	memset(big, 'b', sizeof(big));
	ok(mkdirat(dfd, "t", 0700) == 0 && mkdirat(dfd, "t/sub", 0700) == 0 &&
	    write_file(dfd, "t/a.txt", "alpha\n", 6) == 0 &&
	    write_file(dfd, "t/sub/b.txt", "beta\n", 5) == 0 &&
	    write_file(dfd, "t/big.txt", big, sizeof(big)) == 0 &&
	    write_file(dfd, "t/skip.dat", "no", 2) == 0 &&
	    symlinkat("/etc/passwd", dfd, "t/link.txt") == 0 &&
	    symlinkat("/etc", dfd, "t/ldir") == 0, "task folder fixtures");
	memset(&l, 0, sizeof(l));
	strlcpy(l.sl_out[l.sl_nout++], "*.txt", sizeof(l.sl_out[0]));
	strlcpy(l.sl_out[l.sl_nout++], "sub/*.txt", sizeof(l.sl_out[0]));
	strlcpy(l.sl_out[l.sl_nout++], "ldir/passwd", sizeof(l.sl_out[0]));
	strlcpy(l.sl_out[l.sl_nout++], "none*", sizeof(l.sl_out[0]));
	out = openat(dfd, "stage.out", O_RDWR | O_CREAT | O_EXCL, 0600);
	i = openat(dfd, "t", O_RDONLY | O_DIRECTORY);
	files = stage_out_collect(i, &l, out, 1000, 100000);
	close(i);
	ok(files == 2, "two files collected (got %d)", files);
	n = pread(out, buf, sizeof(buf), 0);
	close(out);
	ok(n > 0 && memmem(buf, (size_t)n, "root:", 5) == NULL,
	    "nothing of /etc/passwd in the records");

	/* Fed in pieces of every size from 1 to 7. */
	memset(&g, 0, sizeof(g));
	stage_rd_init(&rd, 1000);
	bad = 0;
	for (off = 0, k = 1; off < (size_t)n; off += k, k = k % 7 + 1) {
		if (k > (size_t)n - off)
			k = (size_t)n - off;
		if (stage_rd_feed(&rd, buf + off, k, &g_ops, &g) == -1)
			bad++;
	}
	ok(bad == 0 && stage_rd_idle(&rd), "the records read back whole");
	ok(g.nfiles == 2, "two files read back");
	for (i = 0; i < g.nfiles; i++)
		ok((strcmp(g.names[i], "a.txt") == 0 &&
		    strcmp(g.data[i], "alpha\n") == 0 && g.hash_ok[i]) ||
		    (strcmp(g.names[i], "sub/b.txt") == 0 &&
		    strcmp(g.data[i], "beta\n") == 0 && g.hash_ok[i]),
		    "file %s: its bytes and hash", g.names[i]);
	ok(any_note(&g, "link.txt: a symbolic link"),
	    "the link is a note, not a file");
	ok(any_note(&g, "big.txt: 2000 bytes, over stage_max"),
	    "the file over stage_max is a note");
	ok(any_note(&g, "none*: no file matched"),
	    "a glob matching nothing is a note");
	ok(!any_note(&g, "skip.dat") &&
	    any_note(&g, "ldir/passwd: no file matched"),
	    "what no glob names is left alone; a link to a folder is not "
	    "entered");

	/* A flipped data byte: the hash says so. */
	{
		uint8_t *p = memmem(buf, (size_t)n, "alpha", 5);

		if (p != NULL)
			p[0] ^= 1;
		memset(&g, 0, sizeof(g));
		stage_rd_init(&rd, 1000);
		ok(p != NULL && stage_rd_feed(&rd, buf, (size_t)n, &g_ops,
		    &g) == 0 && g.nfiles == 2 &&
		    ((strcmp(g.names[0], "a.txt") == 0 && !g.hash_ok[0]) ||
		    (strcmp(g.names[1], "a.txt") == 0 && !g.hash_ok[1])),
		    "a changed byte fails the file's hash");
	}
	/* Refusals. */
	{
		static const uint8_t kind[] = { 9 };
		static const uint8_t up[] = { 1, 0, 4, '.', '.', '/', 'x' };
		static const uint8_t big_rec[] = { 1, 0, 1, 'x', 0, 0, 0, 0,
		    0, 0, 0x10, 0 };
		static const uint8_t nolen[] = { 2, 0, 0 };

		stage_rd_init(&rd, 1000);
		ok(stage_rd_feed(&rd, kind, sizeof(kind), &g_ops, &g) == -1 &&
		    stage_rd_feed(&rd, buf, 1, &g_ops, &g) == -1,
		    "an unknown record kind is refused, and stays so");
		stage_rd_init(&rd, 1000);
		ok(stage_rd_feed(&rd, up, sizeof(up), &g_ops, &g) == -1,
		    "a file record named ../x is refused");
		stage_rd_init(&rd, 1000);
		ok(stage_rd_feed(&rd, big_rec, sizeof(big_rec), &g_ops, &g) ==
		    -1, "a file record over the size bound is refused");
		stage_rd_init(&rd, 1000);
		ok(stage_rd_feed(&rd, nolen, sizeof(nolen), &g_ops, &g) == -1,
		    "an empty note is refused");
		stage_rd_init(&rd, 1000);
		ok(stage_rd_feed(&rd, buf, 5, &g_ops, &g) == 0 &&
		    !stage_rd_idle(&rd), "a stream cut in a record is not "
		    "idle");
	}
}

static uint8_t rt_buf[MSG_PAYLOAD_MAX + 1];

static int
rt_req(const uint8_t *b, size_t n)
{
	struct proto_stage_req m;
	size_t k;

	if (proto_stage_req_dec(&m, b, n) == -1)
		return -1;
	k = proto_stage_req_enc(&m, rt_buf, sizeof(rt_buf));
	return k == n && memcmp(rt_buf, b, n) == 0 ? 0 : 1;
}

static int
rt_stage(const uint8_t *b, size_t n)
{
	struct proto_stage m;
	size_t k;

	if (proto_stage_dec(&m, b, n) == -1)
		return -1;
	k = proto_stage_enc(&m, rt_buf, sizeof(rt_buf));
	return k == n && memcmp(rt_buf, b, n) == 0 ? 0 : 1;
}

static void
test_codecs(void)
{
	static uint8_t buf[MSG_PAYLOAD_MAX], data[STAGE_CHUNK + 1];
	struct proto_stage_req q, q2;
	struct proto_stage s, s2;
	struct proto_desc d, d2;
	struct wire_w w;
	struct wire_r r;
	struct stage_list l, l2;
	size_t n, base;
	char argv0[] = "awk", env0[] = "A=1";

	memset(&q, 0, sizeof(q));
	q.sq_job = 7;
	q.sq_task = 3;
	strlcpy(q.sq_node, "127.0.0.2/1", sizeof(q.sq_node));
	q.sq_file = 2;
	q.sq_offset = 5 * STAGE_CHUNK;
	n = proto_stage_req_enc(&q, buf, sizeof(buf));
	ok(n > 0 && proto_stage_req_dec(&q2, buf, n) == 0 &&
	    memcmp(&q, &q2, sizeof(q)) == 0, "stage-req round trip");
	robust("stage-req", rt_req, buf, n);
	q.sq_offset = 5;
	n = proto_stage_req_enc(&q, buf, sizeof(buf));
	ok(proto_stage_req_dec(&q2, buf, n) == -1,
	    "stage-req: a misaligned offset is refused");
	q.sq_offset = 0;
	q.sq_file = STAGE_FILES_MAX;
	n = proto_stage_req_enc(&q, buf, sizeof(buf));
	ok(proto_stage_req_dec(&q2, buf, n) == -1,
	    "stage-req: a file index past the table is refused");

	memset(data, 'z', sizeof(data));
	memset(&s, 0, sizeof(s));
	s.sg_job = 7;
	s.sg_task = 3;
	s.sg_file = 1;
	s.sg_offset = STAGE_CHUNK;
	s.sg_len = 40;
	s.sg_data = data;
	n = proto_stage_enc(&s, buf, sizeof(buf));
	ok(n > 0 && proto_stage_dec(&s2, buf, n) == 0 && s2.sg_len == 40 &&
	    memcmp(s2.sg_data, data, 40) == 0 && s2.sg_offset == STAGE_CHUNK,
	    "stage round trip");
	robust("stage", rt_stage, buf, n);
	s.sg_len = STAGE_CHUNK + 1;
	ok(proto_stage_enc(&s, buf, sizeof(buf)) == 0,
	    "stage: a chunk over STAGE_CHUNK is not encoded");
	/* Forge one: the length field says more than STAGE_CHUNK. */
	s.sg_len = STAGE_CHUNK;
	n = proto_stage_enc(&s, buf, sizeof(buf));
	buf[18] = 0;
	buf[19] = 0;
	buf[20] = (STAGE_CHUNK + 1) >> 8;
	buf[21] = (STAGE_CHUNK + 1) & 0xff;
	ok(proto_stage_dec(&s2, buf, n) == -1 && proto_stage_dec(&s2, buf,
	    n + 1) == -1, "stage: a length over STAGE_CHUNK is refused");

	/* The description's stage part. */
	memset(&d, 0, sizeof(d));
	d.de_job = 7;
	strlcpy(d.de_user, "ann", sizeof(d.de_user));
	strlcpy(d.de_cwd, "/home/ann", sizeof(d.de_cwd));
	d.de_pri = 1;
	d.de_argc = 1;
	d.de_argv[0] = argv0;
	d.de_envc = 1;
	d.de_env[0] = env0;
	base = proto_desc_enc(&d, buf, sizeof(buf));
	d.de_stage.sl_nin = 2;
	strlcpy(d.de_stage.sl_in[0].sf_name, "input.txt",
	    sizeof(d.de_stage.sl_in[0].sf_name));
	d.de_stage.sl_in[0].sf_size = 3893;
	memset(d.de_stage.sl_in[0].sf_hash, 0xab, STAGE_HASH_LEN);
	strlcpy(d.de_stage.sl_in[1].sf_name, "data/b.bin",
	    sizeof(d.de_stage.sl_in[1].sf_name));
	d.de_stage.sl_nout = 1;
	strlcpy(d.de_stage.sl_out[0], "out*.txt", sizeof(d.de_stage.sl_out[0]));
	n = proto_desc_enc(&d, buf, sizeof(buf));
	ok(n > base && proto_desc_dec(&d2, buf, n) == 0 &&
	    memcmp(&d.de_stage, &d2.de_stage, sizeof(d.de_stage)) == 0,
	    "a description's stage part round trip");
	proto_desc_free(&d2);
	ok(base > 0 && proto_desc_dec(&d2, buf, base) == 0 &&
	    d2.de_stage.sl_nin == 0 && d2.de_stage.sl_nout == 0,
	    "a description without one stages nothing (the signature "
	    "covers which it is)");
	proto_desc_free(&d2);

	/* The stage part alone: refusals. */
	l = d.de_stage;
	strlcpy(l.sl_in[1].sf_name, "../x", sizeof(l.sl_in[1].sf_name));
	wire_w_init(&w, buf, sizeof(buf));
	proto_stage_put(&w, &l);
	wire_r_init(&r, buf, w.ww_len);
	ok(proto_stage_get(&r, &l2) == -1, "a stage-in name ../x refused");
	l = d.de_stage;
	strlcpy(l.sl_in[1].sf_name, "input.txt", sizeof(l.sl_in[1].sf_name));
	wire_w_init(&w, buf, sizeof(buf));
	proto_stage_put(&w, &l);
	wire_r_init(&r, buf, w.ww_len);
	ok(proto_stage_get(&r, &l2) == -1, "a stage-in name twice refused");
	l = d.de_stage;
	strlcpy(l.sl_out[0], "/etc/*", sizeof(l.sl_out[0]));
	wire_w_init(&w, buf, sizeof(buf));
	proto_stage_put(&w, &l);
	wire_r_init(&r, buf, w.ww_len);
	ok(proto_stage_get(&r, &l2) == -1, "an absolute stage-out glob "
	    "refused");
	wire_w_init(&w, buf, sizeof(buf));
	wire_put_u16(&w, STAGE_FILES_MAX + 1);
	wire_r_init(&r, buf, w.ww_len);
	ok(proto_stage_get(&r, &l2) == -1, "more than %d files refused",
	    STAGE_FILES_MAX);
	wire_w_init(&w, buf, sizeof(buf));
	wire_put_u16(&w, 0);
	wire_put_u16(&w, 0);
	wire_r_init(&r, buf, w.ww_len);
	ok(proto_stage_get(&r, &l2) == -1, "an empty stage part (not "
	    "canonical) refused");
}

static void
test_spec(void)
{
	struct lpad_spec sp, sp2;
	char why[128], *enc;
	size_t len;

	lpad_spec_init(&sp);
	strlcpy(sp.ls_worker, "j1-ab", sizeof(sp.ls_worker));
	sp.ls_job = 1;
	strlcpy(sp.ls_user, "ann", sizeof(sp.ls_user));
	strlcpy(sp.ls_cwd, "/var/lib/cilknow/workers/j1-ab/task",
	    sizeof(sp.ls_cwd));
	(void)lpad_spec_add_arg(&sp, "awk");
	sp.ls_stage.sl_nin = 1;
	strlcpy(sp.ls_stage.sl_in[0].sf_name, "in put.txt",
	    sizeof(sp.ls_stage.sl_in[0].sf_name));
	sp.ls_stage.sl_in[0].sf_size = 12345;
	memset(sp.ls_stage.sl_in[0].sf_hash, 0x5c, STAGE_HASH_LEN);
	sp.ls_stage.sl_nout = 1;
	strlcpy(sp.ls_stage.sl_out[0], "*.out", sizeof(sp.ls_stage.sl_out[0]));
	ok(lpad_spec_check(&sp, why, sizeof(why)) == -1,
	    "staging without taskdir refused: %s", why);
	sp.ls_taskdir = 1;
	ok(lpad_spec_check(&sp, why, sizeof(why)) == -1,
	    "stage-in without a spool refused: %s", why);
	strlcpy(sp.ls_stage_spool, "/var/lib/cilknow/engine/stage/s1-0-ab",
	    sizeof(sp.ls_stage_spool));
	sp.ls_stage_uid = 998;
	sp.ls_stage_max = 1000;
	sp.ls_stage_max_task = 5000;
	enc = lpad_spec_encode(&sp, &len);
	lpad_spec_init(&sp2);
	ok(enc != NULL && lpad_spec_parse(&sp2, enc, len, why,
	    sizeof(why)) == 0 && sp2.ls_taskdir == 1 &&
	    memcmp(&sp.ls_stage, &sp2.ls_stage, sizeof(sp.ls_stage)) == 0 &&
	    strcmp(sp.ls_stage_spool, sp2.ls_stage_spool) == 0 &&
	    sp2.ls_stage_uid == 998 && sp2.ls_stage_max == 1000 &&
	    sp2.ls_stage_max_task == 5000, "spec staging keys round trip");
	free(enc);
	lpad_spec_clear(&sp2);
	lpad_spec_init(&sp2);
	ok(lpad_spec_stage_value(&sp2, "stage_in", "5 abc x") == -1 &&
	    lpad_spec_stage_value(&sp2, "stage_out", "../*") == -1 &&
	    lpad_spec_stage_value(&sp2, "stage_spool", "rel") == -1 &&
	    lpad_spec_stage_value(&sp2, "taskdir", "2") == -1 &&
	    lpad_spec_stage_value(&sp2, "stage_uid", "-1") == -1,
	    "bad staging values refused");
	lpad_spec_clear(&sp2);
	lpad_spec_clear(&sp);
}

/*
 * The launch pad opens the engine's spool as root: not through a
 * symbolic link anywhere on its path (a folder of the engine's made a
 * link to /dev would have root open a device).
 */
static void
test_spool_open(const char *dir, int dfd)
{
	struct lpad_spec sp;
	char why[256], real[512], link[512];
	int wfd, taskfd, spoolfd, fd;

	if (mkdirat(dfd, "sp", 0700) == -1 || mkdirat(dfd, "sp/eng", 0700) ==
	    -1 || (fd = openat(dfd, "sp/eng/spool", O_WRONLY | O_CREAT |
	    O_EXCL, 0600)) == -1 || write(fd, "abc", 3) != 3 || close(fd) ||
	    symlinkat("eng", dfd, "sp/alias") == -1) {
		ok(0, "spool fixture");
		return;
	}
	lpad_spec_init(&sp);
	sp.ls_taskdir = 1;
	sp.ls_stage.sl_nin = 1;
	strlcpy(sp.ls_stage.sl_in[0].sf_name, "in",
	    sizeof(sp.ls_stage.sl_in[0].sf_name));
	sp.ls_stage.sl_in[0].sf_size = 3;
	sp.ls_stage_uid = getuid();
	snprintf(real, sizeof(real), "%s/sp/eng/spool", dir);
	snprintf(link, sizeof(link), "%s/sp/alias/spool", dir);
	strlcpy(sp.ls_stage_spool, link, sizeof(sp.ls_stage_spool));
	(void)mkdirat(dfd, "w1", 0700);
	wfd = openat(dfd, "w1", O_RDONLY | O_DIRECTORY);
	ok(wfd != -1 && lpad_stage_setup(&sp, wfd, getuid(), getgid(), 0,
	    &taskfd, &spoolfd, why, sizeof(why)) == -1 &&
	    strstr(why, "stage-in spool") != NULL,
	    "a spool reached through a symbolic link is refused: %s", why);
	if (wfd != -1)
		close(wfd);
	strlcpy(sp.ls_stage_spool, real, sizeof(sp.ls_stage_spool));
	(void)mkdirat(dfd, "w2", 0700);
	wfd = openat(dfd, "w2", O_RDONLY | O_DIRECTORY);
	ok(wfd != -1 && lpad_stage_setup(&sp, wfd, getuid(), getgid(), 0,
	    &taskfd, &spoolfd, why, sizeof(why)) == 0 && spoolfd != -1,
	    "the same spool by its own path opens");
	if (wfd != -1)
		close(wfd);
	if (taskfd != -1)
		close(taskfd);
	if (spoolfd != -1)
		close(spoolfd);
	lpad_spec_clear(&sp);
}

int
main(void)
{
	char tmpl[] = "/tmp/stage_test.XXXXXX";
	int dfd;

	test_names();
	test_sizes();
	test_fetch();
	if (mkdtemp(tmpl) == NULL ||
	    (dfd = open(tmpl, O_RDONLY | O_DIRECTORY)) == -1) {
		ok(0, "temporary folder");
		return tap_done();
	}
	test_fs(dfd);
	test_records(dfd);
	test_spool_open(tmpl, dfd);
	(void)stage_rmtree(AT_FDCWD, tmpl);
	close(dfd);
	test_codecs();
	test_spec();
	return tap_done();
}
