/* stage: names, sizes, the chunked fetch and the stage-out records. */
#include "stage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
stage_name_ok(const char *s, int glob, char *why, size_t whysz)
{
	const char *c, *slash;
	size_t len = strlen(s), n;
	int depth = 0;

	(void)glob;	/* the rules are the same; magic is allowed */
	if (len == 0) {
		snprintf(why, whysz, "empty name");
		return -1;
	}
	if (len > STAGE_NAME_MAX) {
		snprintf(why, whysz, "name over %d bytes", STAGE_NAME_MAX);
		return -1;
	}
	if (s[0] == '/') {
		snprintf(why, whysz, "absolute path (only names relative to "
		    "the folder)");
		return -1;
	}
	for (c = s; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			snprintf(why, whysz, "control character in the name");
			return -1;
		}
	for (c = s; ; c = slash + 1) {
		slash = strchr(c, '/');
		n = slash != NULL ? (size_t)(slash - c) : strlen(c);
		if (n == 0) {
			snprintf(why, whysz, "empty path component");
			return -1;
		}
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' &&
		    c[1] == '.')) {
			snprintf(why, whysz, "'.' or '..' in the path");
			return -1;
		}
		if (++depth > STAGE_DEPTH_MAX) {
			snprintf(why, whysz, "more than %d path components",
			    STAGE_DEPTH_MAX);
			return -1;
		}
		if (slash == NULL)
			break;
	}
	return 0;
}

int
stage_size_parse(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		return -1;
	}
	if (*end != '\0' && end[1] != '\0' && strcmp(end + 1, "iB") != 0 &&
	    strcmp(end + 1, "B") != 0)
		return -1;
	if (shift > 0 && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

uint64_t
stage_in_total(const struct stage_list *l)
{
	uint64_t t = 0;
	uint16_t i;

	for (i = 0; i < l->sl_nin && i < STAGE_FILES_MAX; i++)
		t += l->sl_in[i].sf_size;
	return t;
}

void
stage_fetch_init(struct stage_fetch *f, uint64_t size)
{
	memset(f, 0, sizeof(*f));
	f->sf_size = size;
}

size_t
stage_chunk_len(uint64_t size, uint64_t offset)
{
	if (offset >= size)
		return 0;
	return size - offset < STAGE_CHUNK ? (size_t)(size - offset) :
	    STAGE_CHUNK;
}

uint64_t
stage_fetch_want(const struct stage_fetch *f, unsigned i)
{
	uint64_t off;

	if (i >= STAGE_WINDOW)
		return UINT64_MAX;
	off = f->sf_next + (uint64_t)i * STAGE_CHUNK;
	return off < f->sf_size ? off : UINT64_MAX;
}

enum stage_take
stage_fetch_take(struct stage_fetch *f, uint64_t offset, size_t len)
{
	if (offset >= f->sf_size || offset % STAGE_CHUNK != 0 ||
	    len != stage_chunk_len(f->sf_size, offset))
		return STAGE_TAKE_BAD;
	if (offset < f->sf_next)
		return STAGE_TAKE_DUP;
	if (offset > f->sf_next)
		return STAGE_TAKE_EARLY;
	f->sf_next += len;
	f->sf_tries = 0;
	return STAGE_TAKE_OK;
}

int
stage_fetch_done(const struct stage_fetch *f)
{
	return f->sf_next >= f->sf_size;
}

/* Record reader states. */
enum {
	RD_KIND = 0,	/* want the kind byte */
	RD_LEN,		/* want a u16 length */
	RD_NAME,	/* want the name (or note) bytes */
	RD_SIZE,	/* want the u64 size */
	RD_DATA,	/* file bytes */
	RD_HASH		/* its hash */
};

void
stage_rd_init(struct stage_rd *rd, uint64_t max_file)
{
	memset(rd, 0, sizeof(*rd));
	rd->rd_max = max_file;
	rd->rd_need = 1;
}

int
stage_rd_idle(const struct stage_rd *rd)
{
	return !rd->rd_failed && rd->rd_state == RD_KIND && rd->rd_have == 0;
}

static uint64_t
rd_u64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* One whole header piece is in rd_hdr: act on it. */
static int
rd_step(struct stage_rd *rd, const struct stage_rd_ops *ops, void *arg)
{
	char why[64];
	size_t n;

	switch (rd->rd_state) {
	case RD_KIND:
		if (rd->rd_hdr[0] != STAGE_REC_FILE &&
		    rd->rd_hdr[0] != STAGE_REC_NOTE)
			return -1;
		rd->rd_state = RD_LEN;
		rd->rd_need = 3;
		return 0;
	case RD_LEN:
		n = (size_t)rd->rd_hdr[1] << 8 | rd->rd_hdr[2];
		if (n == 0 || n > STAGE_NAME_MAX)
			return -1;
		rd->rd_state = RD_NAME;
		rd->rd_need = 3 + n;
		return 0;
	case RD_NAME:
		n = rd->rd_need - 3;
		memcpy(rd->rd_name, rd->rd_hdr + 3, n);
		rd->rd_name[n] = '\0';
		if (memchr(rd->rd_name, '\0', n) != NULL)
			return -1;
		if (rd->rd_hdr[0] == STAGE_REC_NOTE) {
			for (n = 0; rd->rd_name[n] != '\0'; n++)
				if ((unsigned char)rd->rd_name[n] < 0x20 ||
				    rd->rd_name[n] == 0x7f)
					rd->rd_name[n] = '?';
			if (ops->ro_note != NULL)
				ops->ro_note(arg, rd->rd_name);
			rd->rd_state = RD_KIND;
			rd->rd_need = 1;
			rd->rd_have = 0;
			return 0;
		}
		if (stage_name_ok(rd->rd_name, 0, why, sizeof(why)) == -1 ||
		    ++rd->rd_files > STAGE_OUT_FILES_MAX)
			return -1;
		rd->rd_state = RD_SIZE;
		rd->rd_need += 8;
		return 0;
	case RD_SIZE:
		rd->rd_left = rd_u64(rd->rd_hdr + rd->rd_need - 8);
		if (rd->rd_left > rd->rd_max)
			return -1;
		crypto_generichash_init(&rd->rd_hashst, NULL, 0,
		    STAGE_HASH_LEN);
		if (ops->ro_begin(arg, rd->rd_name, rd->rd_left) == -1)
			return -1;
		rd->rd_state = RD_DATA;
		return 0;
	case RD_HASH:
		crypto_generichash_final(&rd->rd_hashst, rd->rd_hash,
		    STAGE_HASH_LEN);
		if (ops->ro_end(arg, sodium_memcmp(rd->rd_hash, rd->rd_hdr,
		    STAGE_HASH_LEN) == 0) == -1)
			return -1;
		rd->rd_state = RD_KIND;
		rd->rd_need = 1;
		rd->rd_have = 0;
		return 0;
	}
	return -1;
}

int
stage_rd_feed(struct stage_rd *rd, const uint8_t *p, size_t n,
    const struct stage_rd_ops *ops, void *arg)
{
	size_t k;

	if (rd->rd_failed)
		return -1;
	while (n > 0) {
		if (rd->rd_state == RD_DATA) {
			k = rd->rd_left < n ? (size_t)rd->rd_left : n;
			if (k > 0) {
				crypto_generichash_update(&rd->rd_hashst, p, k);
				if (ops->ro_data(arg, p, k) == -1)
					goto fail;
				p += k;
				n -= k;
				rd->rd_left -= k;
			}
			if (rd->rd_left == 0) {
				rd->rd_state = RD_HASH;
				rd->rd_have = 0;
				rd->rd_need = STAGE_HASH_LEN;
			}
			continue;
		}
		k = rd->rd_need - rd->rd_have;
		if (k > n)
			k = n;
		memcpy(rd->rd_hdr + rd->rd_have, p, k);
		rd->rd_have += k;
		p += k;
		n -= k;
		if (rd->rd_have == rd->rd_need && rd_step(rd, ops, arg) == -1)
			goto fail;
	}
	/* A file of no bytes ends without more input. */
	if (rd->rd_state == RD_DATA && rd->rd_left == 0) {
		rd->rd_state = RD_HASH;
		rd->rd_have = 0;
		rd->rd_need = STAGE_HASH_LEN;
	}
	return 0;
 fail:
	rd->rd_failed = 1;
	return -1;
}
