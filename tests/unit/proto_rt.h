/*
 * proto_rt — every payload decoder of src/proto wrapped as "decode, and
 * if that took the bytes, encode again and compare".  Each returns -1
 * when the decoder refused, 0 when it took the bytes and they encode
 * back to the very same bytes, and 1 when it took bytes that no encoder
 * writes (a decoder bug: the codecs are canonical, every field has one
 * encoding).  Whatever a decoder allocates is freed here.
 *
 * Header-only, shared by the unit tests (with codec_robust.h) and the
 * fuzzer tests/fuzz/fuzz_proto.c, which picks one by its index in
 * proto_rt[].
 */
#ifndef PROTO_RT_H
#define PROTO_RT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "proto_kill.h"
#include "proto_pred.h"
#include "proto_root.h"
#include "proto_proc.h"
#include "proto_hist.h"
#include "proto_acct.h"
#include "proto_stage.h"

/* Room for any re-encoding of what the fuzzer feeds (-max_len 8192). */
static uint8_t	rt_out[MSG_PAYLOAD_MAX + 1];

/* The verdict once an accepted input was encoded again into m bytes. */
static int
rt_same(const uint8_t *b, size_t n, size_t m)
{
	return m == n && memcmp(rt_out, b, n) == 0 ? 0 : 1;
}

#define RT_SIMPLE(name, type)						\
static int								\
rt_##name(const uint8_t *b, size_t n)					\
{									\
	static type m;							\
									\
	if (name##_dec(&m, b, n) == -1)					\
		return -1;						\
	return rt_same(b, n, name##_enc(&m, rt_out, sizeof(rt_out)));	\
}

RT_SIMPLE(proto_node_reg, struct proto_node_reg)
RT_SIMPLE(proto_ack, struct proto_ack)
RT_SIMPLE(proto_job_reg, struct proto_job_reg)
RT_SIMPLE(proto_job_unreg, struct proto_job_unreg)
RT_SIMPLE(proto_list, struct proto_list)
RT_SIMPLE(proto_cookie, struct proto_cookie)
RT_SIMPLE(proto_assign, struct proto_assign)
RT_SIMPLE(proto_desc_req, struct proto_desc_req)
RT_SIMPLE(proto_output, struct proto_output)
RT_SIMPLE(proto_output_ack, struct proto_output_ack)
RT_SIMPLE(proto_pair, struct proto_pair)
RT_SIMPLE(proto_error, struct proto_error)
RT_SIMPLE(proto_pred_req, struct proto_pred_req)
RT_SIMPLE(proto_pred_users, struct proto_pred_users)
RT_SIMPLE(proto_root_backup, struct proto_root_backup)
RT_SIMPLE(proto_root_done, struct proto_root_done)
RT_SIMPLE(proto_kill_req, struct proto_kill_req)
RT_SIMPLE(proto_kill_ans, struct proto_kill_ans)
RT_SIMPLE(proto_job_ended, struct proto_job_ended)
RT_SIMPLE(proto_proc, struct proto_proc)
RT_SIMPLE(proto_hist_req, struct proto_hist_req)
RT_SIMPLE(proto_hist, struct proto_hist)
RT_SIMPLE(proto_acct, struct proto_acct)
RT_SIMPLE(proto_acct_ack, struct proto_acct_ack)
RT_SIMPLE(proto_acct_req, struct proto_acct_req)
RT_SIMPLE(proto_acct_rows, struct proto_acct_rows)
RT_SIMPLE(proto_stage_req, struct proto_stage_req)
RT_SIMPLE(proto_stage, struct proto_stage)

static int
rt_proto_proc_ask(const uint8_t *b, size_t n)
{
	uint32_t pid;

	if (proto_proc_ask_dec(&pid, b, n) == -1)
		return -1;
	return rt_same(b, n, proto_proc_ask_enc(pid, rt_out, sizeof(rt_out)));
}

static int
rt_proto_jobs(const uint8_t *b, size_t n)
{
	struct proto_job_row *rows;
	uint32_t k;
	int rc;

	if (proto_jobs_dec(&rows, &k, b, n) == -1)
		return -1;
	rc = rt_same(b, n, proto_jobs_enc(rows, k, rt_out, sizeof(rt_out)));
	free(rows);
	return rc;
}

static int
rt_proto_nodes(const uint8_t *b, size_t n)
{
	struct proto_node_row *rows;
	uint32_t k;
	int rc;

	if (proto_nodes_dec(&rows, &k, b, n) == -1)
		return -1;
	rc = rt_same(b, n, proto_nodes_enc(rows, k, rt_out, sizeof(rt_out)));
	free(rows);
	return rc;
}

static int
rt_proto_push(const uint8_t *b, size_t n)
{
	struct proto_push m;
	int rc;

	if (proto_push_dec(&m, b, n) == -1)
		return -1;
	rc = rt_same(b, n, proto_push_enc(&m, rt_out, sizeof(rt_out)));
	proto_push_free(&m);
	return rc;
}

static int
rt_proto_desc(const uint8_t *b, size_t n)
{
	static struct proto_desc m;
	int rc;

	if (proto_desc_dec(&m, b, n) == -1)
		return -1;
	rc = rt_same(b, n, proto_desc_enc(&m, rt_out, sizeof(rt_out)));
	proto_desc_free(&m);
	return rc;
}

/* The predicate decoders allocate even when they refuse. */
static int
rt_proto_pred_ans(const uint8_t *b, size_t n)
{
	static struct proto_pred_ans m;
	int rc = -1;

	if (proto_pred_ans_dec(&m, b, n) == 0)
		rc = rt_same(b, n, proto_pred_ans_enc(&m, rt_out,
		    sizeof(rt_out)));
	proto_pred_ans_free(&m);
	return rc;
}

static int
rt_proto_pred_push(const uint8_t *b, size_t n)
{
	static struct proto_pred_push m;
	int rc = -1;

	if (proto_pred_push_dec(&m, b, n) == 0)
		rc = rt_same(b, n, proto_pred_push_enc(&m, rt_out,
		    sizeof(rt_out)));
	proto_pred_push_free(&m);
	return rc;
}

struct proto_rt {
	const char	*pr_name;
	int		(*pr_fn)(const uint8_t *, size_t);
};

#define RT(name)	{ #name, rt_##name }
/* Unused by a test that names its codecs. */
static const struct proto_rt proto_rt[] __attribute__((unused)) = {
	RT(proto_node_reg), RT(proto_ack), RT(proto_job_reg),
	RT(proto_job_unreg), RT(proto_list), RT(proto_jobs),
	RT(proto_nodes), RT(proto_assign), RT(proto_push),
	RT(proto_desc_req), RT(proto_desc), RT(proto_output),
	RT(proto_output_ack), RT(proto_pair), RT(proto_error),
	RT(proto_pred_req), RT(proto_pred_ans), RT(proto_pred_push),
	RT(proto_pred_users), RT(proto_root_backup), RT(proto_root_done),
	RT(proto_cookie), RT(proto_kill_req), RT(proto_kill_ans),
	RT(proto_job_ended), RT(proto_proc_ask), RT(proto_proc),
	RT(proto_hist_req), RT(proto_hist),
	RT(proto_acct), RT(proto_acct_ack), RT(proto_acct_req),
	RT(proto_acct_rows),
	RT(proto_stage_req), RT(proto_stage),
};
#undef RT
#define PROTO_RT_N	(sizeof(proto_rt) / sizeof(proto_rt[0]))

#endif
