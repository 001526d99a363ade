/*
 * stage — file staging for batch tasks without a shared file system
 * (CilkRun --stage-in/--stage-out, DESIGN.md section 11): what may be
 * named, the sizes config allows, the bookkeeping of a chunked fetch,
 * and the folder-relative file operations every side uses (never a
 * path from the root, never through a symbolic link).
 *
 * A staged name is a relative path of at most STAGE_DEPTH_MAX plain
 * components ("in/a.txt"): not empty, no "", "." or ".." component, no
 * leading '/', no control byte, at most STAGE_NAME_MAX bytes.  A
 * stage-out glob follows the same rules and may hold fnmatch(3) magic.
 */
#ifndef CILKNOW_STAGE_H
#define CILKNOW_STAGE_H

#include <sys/types.h>

#include <sodium.h>
#include <stddef.h>
#include <stdint.h>

#define STAGE_NAME_MAX		255	/* bytes of a staged name or glob */
#define STAGE_DEPTH_MAX		8	/* components of one */
#define STAGE_FILES_MAX		32	/* --stage-in files a job */
#define STAGE_GLOBS_MAX		16	/* --stage-out globs a job */
#define STAGE_OUT_FILES_MAX	256	/* files one task sends back */
#define STAGE_HASH_LEN		32	/* BLAKE2b-256 (crypto_generichash) */
#define STAGE_CHUNK		16384	/* bytes in one STAGE message */
#define STAGE_WINDOW		8	/* chunk requests in flight */
#define STAGE_MAX_DEFAULT	"64M"	/* config stage_max */
#define STAGE_TASK_MAX_DEFAULT	"256M"	/* config stage_max_task */
#define STAGE_TASK_DIR		"task"	/* in the worker folder */
#define STAGE_OUT_FILE		"stage.out"	/* in the worker folder */

struct stage_file {
	char		sf_name[STAGE_NAME_MAX + 1];
	uint64_t	sf_size;
	uint8_t		sf_hash[STAGE_HASH_LEN];
};

/* What a job stages, as its user signed it in the description. */
struct stage_list {
	uint16_t		sl_nin;
	struct stage_file	sl_in[STAGE_FILES_MAX];
	uint16_t		sl_nout;
	char			sl_out[STAGE_GLOBS_MAX][STAGE_NAME_MAX + 1];
};

/* 0 if a valid staged name (glob: fnmatch magic allowed), else -1. */
int	stage_name_ok(const char *, int glob, char *why, size_t whysz);
/* "123", "64K", "64M", "1G" (powers of 1024) into bytes; -1 if bad. */
int	stage_size_parse(const char *, uint64_t *);
/* Sum of the stage-in sizes. */
uint64_t stage_in_total(const struct stage_list *);

/*
 * Fetching one file in chunks, in order: sf_next bytes have arrived and
 * were hashed; requests go out for the chunks of the window after it.
 */
struct stage_fetch {
	uint64_t	sf_size;	/* the file's */
	uint64_t	sf_next;	/* bytes received in order */
	int		sf_tries;	/* timeouts without progress */
};

enum stage_take {
	STAGE_TAKE_UNDEF = 0,
	STAGE_TAKE_OK,		/* the next chunk: write it */
	STAGE_TAKE_DUP,		/* had it */
	STAGE_TAKE_EARLY,	/* after a missing one: dropped */
	STAGE_TAKE_BAD,		/* wrong length or past the end */
	STAGE_TAKE_MAX
};

void	stage_fetch_init(struct stage_fetch *, uint64_t size);
/* Length of the chunk at offset (0 at or past the end). */
size_t	stage_chunk_len(uint64_t size, uint64_t offset);
/* The i-th chunk offset of the window, or UINT64_MAX if none. */
uint64_t stage_fetch_want(const struct stage_fetch *, unsigned i);
enum stage_take stage_fetch_take(struct stage_fetch *, uint64_t offset,
	    size_t len);
int	stage_fetch_done(const struct stage_fetch *);

/*
 * Stage-out records, in the worker folder's stage.out and on the wire
 * (OUTPUT stream STAGE): u8 kind, then for a FILE str name, u64 size,
 * the bytes and the hash; for a NOTE str text (a refusal said on the
 * node: a symbolic link, a file too large, a glob matching nothing).
 */
enum stage_rec {
	STAGE_REC_UNDEF = 0,
	STAGE_REC_FILE,
	STAGE_REC_NOTE,
	STAGE_REC_MAX
};

/*
 * Incremental reader of the records, for the job manager: feed it
 * bytes in order; it calls back at a file's start, with its data, at
 * its end (hash checked), and for each note.
 */
struct stage_rd_ops {
	int	(*ro_begin)(void *, const char *name, uint64_t size);
	int	(*ro_data)(void *, const uint8_t *, size_t);
	int	(*ro_end)(void *, int hash_ok);
	void	(*ro_note)(void *, const char *);
};

struct stage_rd {
	int		 rd_state;
	uint8_t		 rd_hdr[2 + 2 + STAGE_NAME_MAX + 8];
	size_t		 rd_have;
	size_t		 rd_need;
	uint64_t	 rd_left;
	uint64_t	 rd_max;	/* a file's size at most */
	unsigned	 rd_files;
	crypto_generichash_state rd_hashst;
	uint8_t		 rd_hash[STAGE_HASH_LEN];
	char		 rd_name[STAGE_NAME_MAX + 1];
	int		 rd_failed;
};

void	stage_rd_init(struct stage_rd *, uint64_t max_file);
/* 0, or -1 once the stream is malformed (it stays so). */
int	stage_rd_feed(struct stage_rd *, const uint8_t *, size_t,
	    const struct stage_rd_ops *, void *);
/* 1 if the bytes so far end at a record's end. */
int	stage_rd_idle(const struct stage_rd *);

/* Writers of records (stage_fs.c, on the node, as the user). */
int	stage_put_note(int fd, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * Opens rel under the folder dirfd, every component without following
 * a link (O_NOFOLLOW, openat); with mkdirs, missing folders on the way
 * are made (mode 0700).  flags are open(2)'s for the last component.
 */
int	stage_openat(int dirfd, const char *rel, int flags, mode_t mode,
	    int mkdirs);
/* Removes name under dirfd and all below it, never following links. */
int	stage_rmtree(int dirfd, const char *name);
/* Copies len bytes from fd in (at its offset) to out, hashing them. */
int	stage_copy(int in, int out, uint64_t len,
	    uint8_t hash[STAGE_HASH_LEN]);
/* BLAKE2b-256 of a whole file from its offset; its size in *size. */
int	stage_hash_fd(int fd, uint8_t hash[STAGE_HASH_LEN], uint64_t *size);
/*
 * On the node as the user: the files under dirfd that the globs match
 * (regular files only, links refused), as records into out; at most
 * max_file each, max_task in all; every refusal a note.  The number of
 * files written, or -1 if out failed.
 */
int	stage_out_collect(int dirfd, const struct stage_list *, int out,
	    uint64_t max_file, uint64_t max_task);

#endif
