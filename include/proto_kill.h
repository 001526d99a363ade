/*
 * proto_kill — the messages by which CilkKill(1) ends jobs: KILL_REQ
 * (utility -> broker, user scheme only: the user's own key speaks for
 * the user), KILL_ANSWER (broker -> utility: what became of each job)
 * and JOB_ENDED (broker -> the job's manager, signed as @cluster: your
 * job was ended, by whom).  Decoders check every length and range and
 * refuse leftover bytes; see cilknow-protocol(7).
 */
#ifndef CILKNOW_PROTO_KILL_H
#define CILKNOW_PROTO_KILL_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define PROTO_KILL_JOBS_MAX	64		/* job ids in one request */
#define PROTO_KILL_ROWS_MAX	PROTO_ROWS_MAX	/* rows in one answer */
/* A job manager's exit when CilkKill ended its job: as by SIGTERM. */
#define PROTO_EXIT_KILLED	143

enum proto_kill_what {
	PROTO_KILL_UNDEF = 0,
	PROTO_KILL_JOBS,	/* the jobs listed */
	PROTO_KILL_USER,	/* every job of one user */
	PROTO_KILL_WHAT_MAX
};

/* What became of one job. */
enum proto_kill_result {
	PROTO_KR_UNDEF = 0,
	PROTO_KR_ENDED,		/* ended now */
	PROTO_KR_ALREADY,	/* ended by CilkKill a little earlier */
	PROTO_KR_NO_JOB,	/* the broker knows no such job */
	PROTO_KR_NOT_YOURS,	/* neither its user's nor an administrator */
	PROTO_KR_MAX
};

/*
 * KILL_REQ: jobs: 1 to PROTO_KILL_JOBS_MAX ids (not 0) and no user;
 * user: no ids and a valid user name.  Then has_cookie and the cookie:
 * without the broker's cookie for the source address the answer is
 * PROTO_H_COOKIE and nothing is ended (the user form's answer is many
 * times the request).
 */
struct proto_kill_req {
	uint8_t		kq_what;	/* enum proto_kill_what */
	uint16_t	kq_njobs;
	uint32_t	kq_jobs[PROTO_KILL_JOBS_MAX];
	char		kq_user[MSG_NAME_MAX + 1];
	uint8_t		kq_has_cookie;	/* the broker's cookie (cookie.h) */
	uint8_t		kq_cookie[PROTO_COOKIE_LEN];
};

struct proto_kill_row {
	uint32_t	kr_job;		/* not 0 */
	uint8_t		kr_result;	/* enum proto_kill_result */
	char		kr_user[MSG_NAME_MAX + 1];	/* its user; "" if none */
};

/* KILL_ANSWER: one row per job asked for, or per job of the user. */
struct proto_kill_ans {
	uint16_t		kn_n;
	struct proto_kill_row	kn_rows[PROTO_KILL_ROWS_MAX];
};

/* JOB_ENDED: the job of this job manager (id and boot) was ended. */
struct proto_job_ended {
	uint32_t	je_job;		/* not 0 */
	uint64_t	je_boot;
	char		je_by[MSG_NAME_MAX + 1];	/* a valid user name */
};

/* Encoders: the length written, or 0 if it did not fit or is invalid. */
size_t	proto_kill_req_enc(const struct proto_kill_req *, uint8_t *, size_t);
int	proto_kill_req_dec(struct proto_kill_req *, const uint8_t *, size_t);
size_t	proto_kill_ans_enc(const struct proto_kill_ans *, uint8_t *, size_t);
int	proto_kill_ans_dec(struct proto_kill_ans *, const uint8_t *, size_t);
size_t	proto_job_ended_enc(const struct proto_job_ended *, uint8_t *,
	    size_t);
int	proto_job_ended_dec(struct proto_job_ended *, const uint8_t *,
	    size_t);

/* "ended", "already ended", "no such job", "not yours" */
const char	*proto_kill_result_name(enum proto_kill_result);

#endif
