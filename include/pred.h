/*
 * pred — idleness predicates: the language of cilknow-predicates(5),
 * its canonical text form, the stored set with atomic load and save,
 * and the evaluator that decides whether a node is idle and explains
 * why.  Pure library: no clocks, no sockets, no exits.
 *
 * A predicate is a scope plus one or more conditions, at most one of
 * each kind.  Thresholds are kept as integers (loads in thousandths) so
 * that the canonical text is exact: pred_parse(pred_format(p)) == p.
 */
#ifndef CILKNOW_PRED_H
#define CILKNOW_PRED_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PRED_USER_MAX		32	/* bytes of a user name (ut_user) */
#define PRED_NODE_MAX		255	/* bytes of a node (host) name */
#define PRED_TEXT_MAX		1024	/* canonical text of one predicate */
#define PRED_LINE_MAX		4096	/* one line of a predicate file */
#define PRED_FILE_MAX		(1024 * 1024)	/* bytes of a predicate file */
#define PRED_SET_MAX		4096	/* predicates (scopes) in one set */
#define PRED_MEAS_USERS_MAX	128	/* distinct users in a measurement */
#define PRED_ARGS_MAX		64	/* words of one command */

/* Largest thresholds accepted. */
#define PRED_IDLETIME_MAX	315360000LL	/* seconds: ten years */
#define PRED_USERS_MAX		100000LL
#define PRED_LOAD_MAX		1000000LL	/* thousandths: 1000.000 */
#define PRED_MEM_MAX		1000000000LL	/* MB */
#define PRED_LOAD_SCALE		3		/* decimals of a load */

/* The built-in predicate used when none is stored. */
#define PRED_DEFAULT_TEXT \
	"always add idletime=900,load=.35,.30,.25:.80,.60,.50"

/* Kinds of condition; also their canonical order within a predicate. */
enum pred_ctype {
	PRED_C_UNDEF = 0,
	PRED_C_IDLETIME,	/* seconds without input, at least */
	PRED_C_USERS,		/* logged-in sessions, at most */
	PRED_C_LOAD,		/* 1/5/15-minute load, at most */
	PRED_C_MEM,		/* free memory in MB, at least */
	PRED_C_HOURS,		/* local time of day inside a window */
	PRED_C_MAX
};

/*
 * One condition.  pc_val holds the thresholds used to become idle,
 * pc_stay those used to stay idle (only if pc_has_stay; idletime, users,
 * load and mem may have them, hours may not).  Units: idletime seconds,
 * users sessions, load thousandths ([0..2] = 1, 5, 15 minutes), mem MB,
 * hours minutes of the day ([0] start, inclusive, 0..1439; [1] end,
 * exclusive, 0..1440; start > end wraps midnight).  Unused slots are 0.
 */
struct pred_cond {
	enum pred_ctype	pc_type;
	int		pc_has_stay;
	int64_t		pc_val[3];
	int64_t		pc_stay[3];
};

enum pred_stype {
	PRED_S_UNDEF = 0,
	PRED_S_ALWAYS,		/* always */
	PRED_S_NODE,		/* node=H (also "always node=H") */
	PRED_S_USER,		/* user=U */
	PRED_S_USER_GLOBAL,	/* user=U global */
	PRED_S_USER_NODE,	/* user=U node=H */
	PRED_S_MAX
};

/* ps_user / ps_node are "" when the scope has none. */
struct pred_scope {
	enum pred_stype	ps_type;
	char		ps_user[PRED_USER_MAX + 1];
	char		ps_node[PRED_NODE_MAX + 1];
};

/* pr_cond is indexed by enum pred_ctype; absent ones have PRED_C_UNDEF. */
struct pred {
	TAILQ_ENTRY(pred)	pr_entry;
	struct pred_scope	pr_scope;
	struct pred_cond	pr_cond[PRED_C_MAX];
};

enum pred_action {
	PRED_A_UNDEF = 0,
	PRED_A_LIST,		/* [SCOPE...] [list] */
	PRED_A_ADD,		/* SCOPE... add COND[,COND...] */
	PRED_A_DEL,		/* SCOPE... del COND */
	PRED_A_CHECK,		/* node=H check */
	PRED_A_MAX
};

/*
 * A parsed CilkPred command.  cm_pred.pr_scope is the scope (valid only
 * if cm_has_scope); for add, cm_pred.pr_cond holds the conditions.  For
 * del, cm_del is the condition; if cm_del_value is 0 only its kind was
 * given ("del load") and any value matches.
 */
struct pred_cmd {
	enum pred_action	cm_action;
	int			cm_has_scope;
	struct pred		cm_pred;
	struct pred_cond	cm_del;
	int			cm_del_value;
};

/* ---- parsing and canonical text (pred_parse.c) ---- */

/*
 * Parses s[0..len) as an unsigned decimal ("12", "0.35", ".35") with at
 * most scale significant decimals (more are allowed only if they are
 * zeros) and stores value * 10^scale in *out.  No sign, exponent or
 * blanks.  -1 with errno EINVAL for bad syntax, ERANGE above max.
 */
int	pred_decimal_parse(const char *s, size_t len, int scale, int64_t max,
	    int64_t *out);
/* Formats v / 10^scale without trailing zeros ("0.35", "12"). */
int	pred_decimal_format(int64_t v, int scale, char *buf, size_t bufsz);

/*
 * Parses a condition list "idletime=900,load=.35,.30,.25:.8,.6,.5" into
 * p->pr_cond (which must be cleared by the caller; a kind that is already
 * present is a duplicate).  -1 with a message naming the offending word
 * in err; p is then unspecified.
 */
int	pred_conds_parse(const char *text, struct pred *p, char *err,
	    size_t errlen);

/* Scope words ("user=ann", "global"); all of argv must be scope words. */
int	pred_scope_parse(int argc, char *const argv[], struct pred_scope *,
	    char *err, size_t errlen);

/*
 * A whole command as CilkPred receives it after its options.  Returns 0,
 * or -1 with a message naming the offending word in err.  cmd is filled
 * only on success.
 */
int	pred_cmd_parse(int argc, char *const argv[], struct pred_cmd *cmd,
	    char *err, size_t errlen);

/*
 * One predicate in the storage syntax "SCOPE-WORDS add COND[,COND...]"
 * (words separated by blanks).  p is filled only on success.
 */
int	pred_parse(const char *line, struct pred *p, char *err, size_t errlen);

/*
 * Canonical forms.  Each returns the length written, or -1 (EOVERFLOW)
 * if it did not fit in buf (which then holds a truncated string).
 */
int	pred_cond_format(const struct pred_cond *, char *buf, size_t bufsz);
int	pred_scope_format(const struct pred_scope *, char *buf, size_t bufsz);
int	pred_format(const struct pred *, char *buf, size_t bufsz);

const char	*pred_ctype_name(enum pred_ctype);
int		 pred_scope_equal(const struct pred_scope *,
		    const struct pred_scope *);
int		 pred_cond_equal(const struct pred_cond *,
		    const struct pred_cond *);
/* Same scope and same conditions (pr_entry is ignored). */
int		 pred_equal(const struct pred *, const struct pred *);
/* Number of conditions present in p. */
size_t		 pred_ncond(const struct pred *);

/*
 * Does node=pattern name this node?  Case-insensitive; a pattern without
 * a dot also matches the first label of a dotted node name that starts
 * with a letter ("vulture" matches "vulture.lcs.mit.edu", "127" does not
 * match "127.0.0.3").
 */
int		 pred_node_match(const char *pattern, const char *node);

/* ---- the stored set (pred_set.c) ---- */

struct pred_set;

struct pred_set		*pred_set_new(void);
void			 pred_set_free(struct pred_set *);
void			 pred_set_clear(struct pred_set *);
size_t			 pred_set_count(const struct pred_set *);
/*
 * Keeps only the node=H predicates (node != 0), which node managers
 * keep, or only the others, which the broker keeps.
 */
void			 pred_set_keep_node(struct pred_set *, int node);
/* In canonical order (by scope kind, then user, then node). */
const struct pred	*pred_set_first(const struct pred_set *);
const struct pred	*pred_set_next(const struct pred *);
const struct pred	*pred_set_find(const struct pred_set *,
			    const struct pred_scope *);
int			 pred_set_equal(const struct pred_set *,
			    const struct pred_set *);

/*
 * Adds p's conditions to the predicate of p's scope, creating it if
 * needed; a condition of a kind already present there is replaced.
 * -1 with err on a bad predicate, ENOMEM, or more than PRED_SET_MAX.
 */
int	pred_set_add(struct pred_set *, const struct pred *p, char *err,
	    size_t errlen);
/*
 * Deletes the condition of c's kind from the predicate of the scope (if
 * exact, only when its thresholds equal c's); a predicate left with no
 * condition disappears.  -1 with err ("no such predicate") if absent.
 */
int	pred_set_del(struct pred_set *, const struct pred_scope *,
	    const struct pred_cond *c, int exact, char *err, size_t errlen);
/* Applies an add or del command; -1 with err for any other action. */
int	pred_set_apply(struct pred_set *, const struct pred_cmd *, char *err,
	    size_t errlen);
/* Replaces the contents with the built-in default predicate. */
int	pred_set_default(struct pred_set *);

/*
 * Writes one canonical line per predicate ("SCOPE add CONDS\n"); with a
 * scope filter only that scope's.  -1 on a write error.
 */
int	pred_set_print(const struct pred_set *, const struct pred_scope *filter,
	    FILE *);

/*
 * Reads a predicate file: one predicate per line in the syntax of
 * pred_parse(), blank lines and "#" comments ignored.  Every error is
 * written to errs (if not NULL) as "path:line: message" and counted.
 * The file must be a regular file of at most PRED_FILE_MAX bytes that
 * group and others cannot write.  Returns 0 and replaces the set's
 * contents; the number of errors (> 0) leaving the set untouched; or -1
 * with errno if the file cannot be read (with missing_ok, a missing file
 * gives 0 and an empty set).
 */
int	pred_set_load(struct pred_set *, const char *path, int missing_ok,
	    FILE *errs);
/*
 * Writes the set to path atomically: a temporary file in the same
 * directory, fsync, rename over path, fsync of the directory.  Mode
 * 0644.  -1 with errno on failure; path is then unchanged.
 */
int	pred_set_save(const struct pred_set *, const char *path);

/* ---- evaluation (pred_eval.c) ---- */

/* A logged-in user and the seconds since that user's last activity. */
struct pred_user {
	char	pu_name[PRED_USER_MAX + 1];
	double	pu_idle;	/* < 0 or NaN: unknown */
};

/*
 * What the sensors measured on this node.  Loads have the node's own
 * workers already subtracted (see loadmodel.h).
 */
struct pred_meas {
	double		 pm_idle;	/* s since last input (devices, ttys) */
	int		 pm_nusers;	/* logged-in sessions */
	double		 pm_load[3];	/* 1, 5, 15 minutes */
	double		 pm_mem;	/* free MB; < 0: unknown */
	int		 pm_tod;	/* local minute of day; < 0: unknown */
	size_t		 pm_nuser;	/* entries in pm_user */
	struct pred_user pm_user[PRED_MEAS_USERS_MAX];	/* distinct users */
};

/*
 * Evaluation context.  px_cluster lists users logged in anywhere in the
 * cluster, with their cluster-wide idle time if known (pu_idle < 0 if
 * not); users in px_meas count as logged in anywhere too.  px_idle is
 * the node's current state: 1 compares with the "stay" thresholds, 0
 * with the "become" thresholds.
 */
struct pred_ctx {
	const char		*px_node;
	const struct pred_meas	*px_meas;
	const struct pred_user	*px_cluster;
	size_t			 px_ncluster;
	int			 px_idle;
};

/* Explanation of one condition. */
struct pred_rcond {
	enum pred_ctype	rc_type;
	int		rc_pass;
	int		rc_known;	/* 0: not measured, so it fails */
	int		rc_hyst;	/* the condition has stay thresholds */
	int		rc_stay;	/* ... and they were used */
	/*
	 * Where idletime was measured: 0 the node's input (pm_idle), 1 the
	 * scope's user on this node, 2 that user anywhere in the cluster.
	 */
	int		rc_user;
	/* Measured value, in the condition's units (hours: minute of day). */
	int64_t		rc_value[3];
	int64_t		rc_thresh[3];	/* the thresholds used */
};

/* Explanation of one applicable predicate. */
struct pred_res {
	struct pred_scope	rs_scope;
	char			rs_text[PRED_TEXT_MAX];	/* canonical */
	int			rs_pass;	/* every condition holds */
	int			rs_default;	/* the built-in default */
	size_t			rs_ncond;
	struct pred_rcond	rs_cond[PRED_C_MAX];
};

struct pred_eval {
	int		 pv_idle;	/* every applicable predicate holds */
	int		 pv_default;	/* no predicate stored: default used */
	size_t		 pv_nres;	/* applicable predicates */
	struct pred_res	*pv_res;
};

/*
 * Decides which predicates of set apply (set may be NULL or empty: the
 * built-in default is used), evaluates them and fills out, which must be
 * released with pred_eval_fini().  -1 with errno (EINVAL, ENOMEM).
 */
int	pred_eval(const struct pred_set *set, const struct pred_ctx *ctx,
	    struct pred_eval *out);
void	pred_eval_fini(struct pred_eval *);

/*
 * On a node of several processors (DESIGN.md section 6) the load
 * conditions say how many processors the owner keeps: the most, over
 * every applicable load condition and its three averages, of
 * ceil(L - A), L the load and A the threshold it was compared with (to
 * become idle, or to stay idle), at least 0; PRED_KEEP_ALL if a load
 * was not measured.  The other conditions hold for the node as a whole:
 * *others is 1 if every one of them passed.  With one processor this is
 * the load condition itself.
 */
#define PRED_KEEP_ALL	UINT32_MAX
uint32_t pred_eval_keep(const struct pred_eval *, int *others);

/* Lines of text for "CilkPred node=H check".  -1 on a write error. */
int	pred_eval_print_text(const struct pred_eval *, FILE *);
/*
 * JSON object members, without the enclosing braces, to be embedded in
 * a document:
 *   "idle": B, "default": B, "predicates": [{"scope": S, "predicate": S,
 *   "default": B, "pass": B, "conditions": [{"condition": S,
 *   "source": "input"|"user"|"cluster"|"node", "value": V,
 *   "threshold": V, "using": "single"|"become"|"stay", "pass": B}]}]
 * V is an integer (idletime s, users, mem MB), an array of three numbers
 * (load) or a string ("HH:MM" value, "HH:MM-HH:MM" threshold of hours);
 * an unknown value is null.  -1 on a write error.
 */
int	pred_eval_print_json(const struct pred_eval *, FILE *);

#endif
