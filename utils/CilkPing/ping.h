/* CilkPing's parts: options, the sender, the responder, the statistics. */
#ifndef CILKPING_PING_H
#define CILKPING_PING_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "msg.h"

#define PING_RAW	MSG_SCHEME_MAX	/* -S raw: plain UDP, for baselines */
#define FLOOD_WINDOW	32		/* default pings in flight, -F */

struct ping_opts {
	struct cli_common	 po_cc;
	int			 po_listen;
	int			 po_scheme;	/* enum msg_scheme or PING_RAW */
	long			 po_count;	/* 0: default */
	size_t			 po_size;
	double			 po_interval;
	double			 po_wait;	/* per-ping timeout */
	int			 po_flood;
	int			 po_window;	/* flood: pings in flight */
	double			 po_duration;	/* flood seconds */
	double			 po_clock_offset;
	const char		*po_target;
};

int	ping_send(const struct ping_opts *, struct conf *);
int	ping_listen(const struct ping_opts *, struct conf *);

/* Sorted round-trip times and their summary. */
struct ping_stats {
	double	*ps_rtt;	/* seconds */
	size_t	 ps_n, ps_cap;
	double	*ps_skew;	/* seconds, peer minus us */
	size_t	 ps_nskew;
};

int	stats_add(struct ping_stats *, double rtt, int has_skew, double skew);
double	stats_quantile(struct ping_stats *, double q);	/* sorts */
double	stats_skew_median(struct ping_stats *);
void	stats_free(struct ping_stats *);

#endif
