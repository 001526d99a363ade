/* CilkKey — create and inspect cluster and user keys. */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "msg_keys.h"

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkKey [-Fv] [-c file] [-o key=value] [--json] command [arg]\n"
	    "commands:\n"
	    "  generate-cluster FILE        new cluster key in FILE (mode 0600)\n"
	    "                               and its public half in FILE.pub\n"
	    "  generate-user [-u NAME] [FILE]\n"
	    "                               new user key (default: user_key,\n"
	    "                               ~/.cilknow/id)\n"
	    "  public FILE                  print the public key line(s)\n"
	    "  show FILE                    print type, name, id, fingerprint\n"
	    "  rotate FILE                  new current key; the old current\n"
	    "                               key stays as the previous one\n"
	    "  -F  overwrite an existing key file\n");
	exit(status);
}

/* cluster.key -> cluster.pub; anything else gets ".pub" appended. */
static void
pub_path_of(const char *path, char *out, size_t outsz)
{
	size_t n = strlen(path);

	if (n > 4 && strcmp(path + n - 4, ".key") == 0)
		snprintf(out, outsz, "%.*s.pub", (int)(n - 4), path);
	else
		snprintf(out, outsz, "%s.pub", path);
}

static void
public_set(const struct msg_keyset *ks, struct msg_keyset *pub)
{
	int i;

	memset(pub, 0, sizeof(*pub));
	for (i = 0; i < ks->ks_n; i++)
		msg_key_public(&ks->ks_key[i], &pub->ks_key[i]);
	pub->ks_n = ks->ks_n;
}

static void
save_or_die(const struct msg_keyset *ks, const char *path, int force)
{
	char err[512];

	if (msg_keyset_save(ks, path, force, err, sizeof(err)) == -1)
		errx(CLI_EXIT_FAILURE, "%s", err);
}

static void
print_key(const struct msg_key *k, const char *role, int json, int first)
{
	char fpr[64];

	msg_key_fpr_text(k, fpr, sizeof(fpr));
	if (json)
		printf("%s{\"role\": \"%s\", \"type\": \"%s\", \"name\": %s%s%s, "
		    "\"id\": \"%08x\", \"fingerprint\": \"%s\"}",
		    first ? "" : ", ", role, msg_key_type_name(k->k_type),
		    k->k_name[0] ? "\"" : "", k->k_name[0] ? k->k_name : "null",
		    k->k_name[0] ? "\"" : "", k->k_id, fpr);
	else
		printf("%-8s %-11s %-10s id %08x  fingerprint %s\n", role,
		    msg_key_type_name(k->k_type), k->k_name[0] ? k->k_name :
		    "-", k->k_id, fpr);
}

static void
show(const struct msg_keyset *ks, const char *path, int json)
{
	int i;

	if (json)
		printf("{\"schema\": 1, \"file\": \"%s\", \"keys\": [", path);
	for (i = 0; i < ks->ks_n; i++)
		print_key(&ks->ks_key[i], i == 0 ? "current" : "previous",
		    json, i == 0);
	if (json)
		printf("]}\n");
}

static void
print_public(const struct msg_keyset *ks)
{
	struct msg_keyset pub;
	char text[MSG_KEYFILE_MAX];

	public_set(ks, &pub);
	if (msg_keyset_format(&pub, text, sizeof(text)) == -1)
		errx(CLI_EXIT_FAILURE, "cannot format public key");
	fputs(text, stdout);
}

static void
load_or_die(struct msg_keyset *ks, const char *path)
{
	char err[512];

	if (msg_keyset_load(ks, path, MSG_KEY_UNDEF, err, sizeof(err)) == -1)
		errx(CLI_EXIT_FAILURE, "%s", err);
}

static void
cmd_generate_cluster(const char *path, int force, int json)
{
	struct msg_keyset ks, pub;
	char pubpath[4096];

	memset(&ks, 0, sizeof(ks));
	if (msg_key_generate(&ks.ks_key[0], MSG_KEY_CLUSTER, NULL) == -1)
		err(CLI_EXIT_FAILURE, "generate");
	ks.ks_n = 1;
	pub_path_of(path, pubpath, sizeof(pubpath));
	/* Both or neither: never a secret without its public half. */
	if (!force && access(pubpath, F_OK) == 0)
		errx(CLI_EXIT_FAILURE, "%s: exists; not overwriting a key "
		    "without -F", pubpath);
	save_or_die(&ks, path, force);
	public_set(&ks, &pub);
	save_or_die(&pub, pubpath, force);
	if (!json)
		printf("wrote cluster key %s (mode 0600) and %s (0644)\n",
		    path, pubpath);
	show(&ks, path, json);
	msg_keyset_clear(&ks);
}

static void
cmd_generate_user(const char *path, const char *name, int force, int json)
{
	struct msg_keyset ks;
	char dir[4096];

	memset(&ks, 0, sizeof(ks));
	if (!msg_user_name_ok(name))
		errx(CLI_EXIT_USAGE, "'%s' is not a valid user name", name);
	if (msg_key_generate(&ks.ks_key[0], MSG_KEY_USER, name) == -1)
		err(CLI_EXIT_FAILURE, "generate");
	ks.ks_n = 1;
	strlcpy(dir, path, sizeof(dir));
	/* ~/.cilknow is private: it holds nothing else but secrets. */
	if (mkdir(dirname(dir), 0700) == -1 && errno != EEXIST)
		err(CLI_EXIT_FAILURE, "mkdir %s", dir);
	save_or_die(&ks, path, force);
	if (!json) {
		printf("wrote user key for %s to %s (mode 0600)\n", name, path);
		printf("give this line to your administrator for "
		    "/etc/cilknow/users/%s.pub:\n", name);
		print_public(&ks);
	} else
		show(&ks, path, json);
	msg_keyset_clear(&ks);
}

static void
cmd_rotate(const char *path, int json)
{
	struct msg_keyset ks, pub;
	char pubpath[4096];
	enum msg_key_type t;

	load_or_die(&ks, path);
	t = ks.ks_key[0].k_type;
	if (t != MSG_KEY_CLUSTER && t != MSG_KEY_USER)
		errx(CLI_EXIT_FAILURE, "%s: only secret keys can be rotated",
		    path);
	ks.ks_key[1] = ks.ks_key[0];
	ks.ks_n = 2;
	if (msg_key_generate(&ks.ks_key[0], t, ks.ks_key[1].k_name) == -1)
		err(CLI_EXIT_FAILURE, "generate");
	save_or_die(&ks, path, 1);
	if (t == MSG_KEY_CLUSTER) {
		pub_path_of(path, pubpath, sizeof(pubpath));
		public_set(&ks, &pub);
		save_or_die(&pub, pubpath, 1);
	}
	if (!json)
		printf("rotated %s: senders now use the new key; receivers "
		    "accept both until the next rotation\n", path);
	show(&ks, path, json);
	if (t == MSG_KEY_USER && !json) {
		printf("new public key lines for /etc/cilknow/users/%s.pub:\n",
		    ks.ks_key[0].k_name);
		print_public(&ks);
	}
	msg_keyset_clear(&ks);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_common cc;
	struct msg_keyset ks;
	struct conf *cf;
	struct passwd *pw;
	const char *cmd, *name = NULL;
	char path[4096];
	int ch, force = 0;

	memset(&cc, 0, sizeof(cc));
	while ((ch = getopt_long(argc, argv, "+Fc:ho:u:vV", longopts,
	    NULL)) != -1) {
		switch (cli_common_opt(&cc, ch, optarg)) {
		case 1:
			continue;
		case -1:
			usage(CLI_EXIT_USAGE);
		}
		switch (ch) {
		case 'F':
			force = 1;
			break;
		case 'u':
			name = optarg;
			break;
		case 'h':
			usage(0);
		case 'V':
			cli_version("CilkKey");
			return 0;
		default:
			usage(CLI_EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage(CLI_EXIT_USAGE);
	cmd = argv[0];
	/* Options may also follow the command: generate-user -u ann. */
	optind = 1;
	while ((ch = getopt(argc, argv, "+Fu:")) != -1) {
		if (ch == 'F')
			force = 1;
		else if (ch == 'u')
			name = optarg;
		else
			usage(CLI_EXIT_USAGE);
	}
	argc -= optind;
	argv += optind;
	if (sodium_init() < 0)
		errx(CLI_EXIT_FAILURE, "libsodium failed to initialise");
	if (strcmp(cmd, "generate-user") == 0) {
		if (argc > 1)
			usage(CLI_EXIT_USAGE);
		if ((cf = cli_conf_load(&cc, "CilkKey")) == NULL)
			return CLI_EXIT_USAGE;
		if (argc == 1)
			strlcpy(path, argv[0], sizeof(path));
		else if (conf_get_path(cf, "user_key", path, sizeof(path)) == -1)
			errx(CLI_EXIT_FAILURE, "user_key: cannot expand path");
		if (name == NULL && *conf_get(cf, "user") != '\0')
			name = conf_get(cf, "user");
		if (name == NULL) {
			if ((pw = getpwuid(getuid())) == NULL)
				errx(CLI_EXIT_FAILURE, "who are you? (no "
				    "password entry; use -u NAME)");
			name = pw->pw_name;
		}
		cmd_generate_user(path, name, force, cc.cc_json);
		conf_free(cf);
		return 0;
	}
	if (argc != 1)
		usage(CLI_EXIT_USAGE);
	if (strcmp(cmd, "generate-cluster") == 0)
		cmd_generate_cluster(argv[0], force, cc.cc_json);
	else if (strcmp(cmd, "public") == 0) {
		load_or_die(&ks, argv[0]);
		print_public(&ks);
		msg_keyset_clear(&ks);
	} else if (strcmp(cmd, "show") == 0) {
		load_or_die(&ks, argv[0]);
		show(&ks, argv[0], cc.cc_json);
		msg_keyset_clear(&ks);
	} else if (strcmp(cmd, "rotate") == 0)
		cmd_rotate(argv[0], cc.cc_json);
	else {
		warnx("unknown command '%s'", cmd);
		usage(CLI_EXIT_USAGE);
	}
	return 0;
}
