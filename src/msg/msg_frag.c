/* msg_frag — fragmentation and bounded reassembly. */
#include "msg_frag.h"

#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>

#include "wire.h"

#define FRAG_ACTIVE_MAX	256	/* reassemblies at once, all senders */
#define FRAG_PROVEN_MAX	256	/* addresses of each rank remembered */

_Static_assert(MSG_FRAG_COUNT_MAX <= 64, "fragment bitmap is a uint64_t");

struct reasm {
	TAILQ_ENTRY(reasm) ra_entry;	/* oldest first */
	struct msg_addr	 ra_from;
	uint32_t	 ra_msgid;
	uint16_t	 ra_count;
	uint32_t	 ra_total;
	uint64_t	 ra_have;	/* bitmap of fragments received */
	uint16_t	 ra_nhave;
	int		 ra_rank;	/* its sender's, when it began */
	double		 ra_started;
	uint8_t		*ra_buf;
};

TAILQ_HEAD(reasm_list, reasm);

/* Addresses of one rank, a ring: the oldest is forgotten first. */
struct ring {
	struct msg_addr	 rg_addr[FRAG_PROVEN_MAX];
	size_t		 rg_n, rg_next;
};

struct msg_frag {
	struct reasm_list mf_list;
	/*
	 * Senders that were authentic, by rank (msg_frag.h): their
	 * reassemblies go last.  A user's many ports can flush the ring of
	 * users, never the cluster's.
	 */
	struct ring	 mf_rank[MSG_FRAG_RANK_MAX];
	size_t		 mf_nactive;
	size_t		 mf_bytes;
	size_t		 mf_per_sender, mf_total;
	double		 mf_timeout;
	uint8_t		*mf_whole;	/* last completed message */
};

struct msg_frag *
msg_frag_new(size_t per_sender, size_t total, double timeout)
{
	struct msg_frag *f;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	TAILQ_INIT(&f->mf_list);
	f->mf_per_sender = per_sender;
	f->mf_total = total;
	f->mf_timeout = timeout;
	return f;
}

static void
reasm_drop(struct msg_frag *f, struct reasm *ra)
{
	TAILQ_REMOVE(&f->mf_list, ra, ra_entry);
	f->mf_bytes -= ra->ra_total;
	f->mf_nactive--;
	free(ra->ra_buf);
	free(ra);
}

void
msg_frag_free(struct msg_frag *f)
{
	struct reasm *ra;

	if (f == NULL)
		return;
	while ((ra = TAILQ_FIRST(&f->mf_list)) != NULL)
		reasm_drop(f, ra);
	free(f->mf_whole);
	free(f);
}

size_t
msg_frag_count(size_t len)
{
	if (len <= MSG_DGRAM_MAX)
		return 1;
	return (len + MSG_FRAG_DATA - 1) / MSG_FRAG_DATA;
}

size_t
msg_frag_build(uint32_t msgid, size_t index, const uint8_t *sealed,
    size_t len, uint8_t *out)
{
	struct wire_w w;
	size_t count = msg_frag_count(len), off = index * MSG_FRAG_DATA;
	size_t n = len - off < MSG_FRAG_DATA ? len - off : MSG_FRAG_DATA;

	wire_w_init(&w, out, MSG_DGRAM_MAX);
	wire_put_u8(&w, MSG_MAGIC);
	wire_put_u8(&w, MSG_VERSION);
	wire_put_u8(&w, MSG_KIND_FRAGMENT);
	wire_put_u8(&w, 0);
	wire_put_u32(&w, msgid);
	wire_put_u16(&w, (uint16_t)index);
	wire_put_u16(&w, (uint16_t)count);
	wire_put_u32(&w, (uint32_t)len);
	wire_put_bytes(&w, sealed + off, n);
	return w.ww_len;
}

size_t
msg_frag_expire(struct msg_frag *f, double now)
{
	struct reasm *ra;
	size_t n = 0;

	while ((ra = TAILQ_FIRST(&f->mf_list)) != NULL &&
	    now - ra->ra_started >= f->mf_timeout) {
		reasm_drop(f, ra);
		n++;
	}
	return n;
}

size_t
msg_frag_bytes(const struct msg_frag *f)
{
	return f->mf_bytes;
}

double
msg_frag_next_deadline(const struct msg_frag *f, double now)
{
	const struct reasm *ra = TAILQ_FIRST(&f->mf_list);
	double left;

	if (ra == NULL)
		return -1;
	left = ra->ra_started + f->mf_timeout - now;
	return left > 0 ? left : 0;
}

static int
in_ring(const struct ring *rg, const struct msg_addr *a)
{
	size_t i;

	for (i = 0; i < rg->rg_n; i++)
		if (msg_addr_eq(&rg->rg_addr[i], a))
			return 1;
	return 0;
}

void
msg_frag_rank(struct msg_frag *f, const struct msg_addr *from,
    enum msg_frag_rank rank)
{
	struct ring *rg;

	if (rank <= MSG_FRAG_UNKNOWN || rank >= MSG_FRAG_RANK_MAX)
		return;
	rg = &f->mf_rank[rank];
	/* The same peer again, as most sends and receipts are: at once. */
	if (rg->rg_n > 0 && msg_addr_eq(&rg->rg_addr[(rg->rg_next +
	    FRAG_PROVEN_MAX - 1) % FRAG_PROVEN_MAX], from))
		return;
	if (in_ring(rg, from))
		return;
	rg->rg_addr[rg->rg_next] = *from;
	rg->rg_next = (rg->rg_next + 1) % FRAG_PROVEN_MAX;
	if (rg->rg_n < FRAG_PROVEN_MAX)
		rg->rg_n++;
}

void
msg_frag_proven(struct msg_frag *f, const struct msg_addr *from)
{
	msg_frag_rank(f, from, MSG_FRAG_USER);
}

enum msg_frag_rank
msg_frag_rank_of(const struct msg_frag *f, const struct msg_addr *a)
{
	int r;

	for (r = MSG_FRAG_RANK_MAX - 1; r > MSG_FRAG_UNKNOWN; r--)
		if (in_ring(&f->mf_rank[r], a))
			return (enum msg_frag_rank)r;
	return MSG_FRAG_UNKNOWN;
}

/* One host, whatever the port: a user has as many ports as she likes. */
static int
same_host(const struct msg_addr *a, const struct msg_addr *b)
{
	return a->ma_family == b->ma_family &&
	    memcmp(a->ma_addr, b->ma_addr, sizeof(a->ma_addr)) == 0;
}

/*
 * Reassemblies held per host, counted when room is needed: an open
 * hash of twice the slots, so that a flood from as many hosts as there
 * are slots costs each datagram a pass over the slots, not their square.
 */
#define TALLY_SIZE	(2 * FRAG_ACTIVE_MAX)

struct host_tally {
	struct msg_addr	 ht_host;
	size_t		 ht_n;		/* 0: empty */
};

static size_t
tally_slot(const struct host_tally *t, const struct msg_addr *a)
{
	uint32_t h = 2166136261u;
	size_t i;

	h = (h ^ a->ma_family) * 16777619u;
	for (i = 0; i < sizeof(a->ma_addr); i++)
		h = (h ^ a->ma_addr[i]) * 16777619u;
	for (i = h % TALLY_SIZE; t[i].ht_n != 0 && !same_host(&t[i].ht_host,
	    a); i = (i + 1) % TALLY_SIZE)
		;
	return i;
}

static size_t
tally_count(const struct host_tally *t, const struct msg_addr *a)
{
	return t[tally_slot(t, a)].ht_n;
}

/*
 * Who goes when reassembly is full: one of the lowest rank, then one of
 * the host holding the most, then the oldest.  The newcomer is refused
 * when its rank is lower than that victim's, or when it is the same and
 * its host would then hold more than the victim's does: so a flood from
 * one host only ever displaces itself, and a flood from many hosts that
 * hold one each displaces its own oldest, leaving a newcomer of the same
 * rank the time the flood takes to go round all the slots.  Linear in
 * the reassemblies times the hosts holding them.
 */
static int
make_room(struct msg_frag *f, const struct msg_addr *from, size_t total)
{
	struct host_tally t[TALLY_SIZE];
	struct reasm *ra, *victim;
	size_t i, vcount, count, mine;
	int me = (int)msg_frag_rank_of(f, from);

	while (f->mf_nactive >= FRAG_ACTIVE_MAX ||
	    f->mf_bytes + total > f->mf_total) {
		memset(t, 0, sizeof(t));
		TAILQ_FOREACH(ra, &f->mf_list, ra_entry) {
			i = tally_slot(t, &ra->ra_from);
			t[i].ht_host = ra->ra_from;
			t[i].ht_n++;
		}
		victim = NULL;
		vcount = 0;
		TAILQ_FOREACH(ra, &f->mf_list, ra_entry) {
			count = tally_count(t, &ra->ra_from);
			if (victim == NULL || ra->ra_rank < victim->ra_rank ||
			    (ra->ra_rank == victim->ra_rank &&
			    count > vcount)) {
				victim = ra;
				vcount = count;
			}
		}
		if (victim == NULL)
			return -1;
		mine = tally_count(t, from) + 1;
		if (me != victim->ra_rank ? me < victim->ra_rank :
		    mine > vcount)
			return -1;	/* the newcomer is no better */
		reasm_drop(f, victim);
	}
	return 0;
}

enum msg_drop
msg_frag_input(struct msg_frag *f, const struct msg_addr *from,
    const uint8_t *dgram, size_t len, double now, const uint8_t **whole,
    size_t *wholelen)
{
	struct wire_r r;
	struct reasm *ra;
	uint8_t magic, version, kind, zero;
	uint32_t msgid, total;
	uint16_t index, count;
	size_t want, sender_bytes = 0;

	*whole = NULL;
	free(f->mf_whole);
	f->mf_whole = NULL;
	if (len <= MSG_FRAG_HDR || len > MSG_DGRAM_MAX)
		return MSG_DROP_BAD_LENGTH;
	wire_r_init(&r, dgram, len);
	(void)wire_get_u8(&r, &magic);
	(void)wire_get_u8(&r, &version);
	(void)wire_get_u8(&r, &kind);
	(void)wire_get_u8(&r, &zero);
	if (magic != MSG_MAGIC || version != MSG_VERSION ||
	    kind != MSG_KIND_FRAGMENT || zero != 0)
		return MSG_DROP_BAD_HEADER;
	(void)wire_get_u32(&r, &msgid);
	(void)wire_get_u16(&r, &index);
	(void)wire_get_u16(&r, &count);
	(void)wire_get_u32(&r, &total);
	/* Every number must agree with every other before we trust any. */
	if (count < 2 || count > MSG_FRAG_COUNT_MAX || index >= count ||
	    total > MSG_SEALED_MAX || total <= MSG_DGRAM_MAX ||
	    msg_frag_count(total) != count)
		return MSG_DROP_BAD_LENGTH;
	want = index + 1u < count ? MSG_FRAG_DATA :
	    total - (size_t)(count - 1) * MSG_FRAG_DATA;
	if (r.wr_left != want)
		return MSG_DROP_BAD_LENGTH;

	msg_frag_expire(f, now);
	TAILQ_FOREACH(ra, &f->mf_list, ra_entry) {
		if (!msg_addr_eq(&ra->ra_from, from))
			continue;
		if (ra->ra_msgid == msgid)
			break;
		sender_bytes += ra->ra_total;
	}
	if (ra != NULL && (ra->ra_count != count || ra->ra_total != total))
		return MSG_DROP_BAD_HEADER;
	if (ra == NULL) {
		if (sender_bytes + total > f->mf_per_sender ||
		    make_room(f, from, total) == -1)
			return MSG_DROP_REASSEMBLY;
		if ((ra = calloc(1, sizeof(*ra))) == NULL ||
		    (ra->ra_buf = malloc(total)) == NULL) {
			free(ra);
			return MSG_DROP_REASSEMBLY;
		}
		ra->ra_from = *from;
		ra->ra_rank = (int)msg_frag_rank_of(f, from);
		ra->ra_msgid = msgid;
		ra->ra_count = count;
		ra->ra_total = total;
		ra->ra_started = now;
		TAILQ_INSERT_TAIL(&f->mf_list, ra, ra_entry);
		f->mf_nactive++;
		f->mf_bytes += total;
	}
	if (ra->ra_have & (1ULL << index))
		return MSG_DROP_NONE;		/* duplicate: harmless */
	memcpy(ra->ra_buf + (size_t)index * MSG_FRAG_DATA, r.wr_p, want);
	ra->ra_have |= 1ULL << index;
	if (++ra->ra_nhave < count)
		return MSG_DROP_NONE;
	f->mf_whole = ra->ra_buf;
	ra->ra_buf = NULL;
	*whole = f->mf_whole;
	*wholelen = ra->ra_total;
	reasm_drop(f, ra);
	return MSG_DROP_NONE;
}
