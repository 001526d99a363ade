/*
 * proto_stage — file staging on the wire (cilknow-protocol(7)): the
 * stage part of a job description (what the user signs: each stage-in
 * file's name, size and hash, and the stage-out globs), and STAGE_REQ
 * and STAGE, the chunks of a stage-in file a node fetches from the job
 * manager.  Stage-out data travels back as OUTPUT stream STAGE.
 */
#ifndef CILKNOW_PROTO_STAGE_H
#define CILKNOW_PROTO_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "stage.h"
#include "wire.h"

/* STAGE_REQ: node -> job manager, as the cluster (like DESC_REQ). */
struct proto_stage_req {
	uint32_t	sq_job;
	uint32_t	sq_task;
	char		sq_node[64];		/* PROTO_HOST_MAX */
	uint16_t	sq_file;		/* index in the description */
	uint64_t	sq_offset;		/* a multiple of STAGE_CHUNK */
};

/* STAGE: job manager -> node, as the job's user. */
struct proto_stage {
	uint32_t	 sg_job;
	uint32_t	 sg_task;
	uint16_t	 sg_file;
	uint64_t	 sg_offset;
	uint32_t	 sg_len;		/* at most STAGE_CHUNK */
	const uint8_t	*sg_data;		/* points into the message */
};

/*
 * The description's stage part, after its environment: u16 count of
 * stage-in files, each str name, u64 size, 32-byte hash; u16 count of
 * stage-out globs, each str glob.  A description without it stages
 * nothing (_get accepts the end of the bytes there).
 */
void	proto_stage_put(struct wire_w *, const struct stage_list *);
int	proto_stage_get(struct wire_r *, struct stage_list *);

size_t	proto_stage_req_enc(const struct proto_stage_req *, uint8_t *,
	    size_t);
int	proto_stage_req_dec(struct proto_stage_req *, const uint8_t *,
	    size_t);
size_t	proto_stage_enc(const struct proto_stage *, uint8_t *, size_t);
int	proto_stage_dec(struct proto_stage *, const uint8_t *, size_t);

#endif
