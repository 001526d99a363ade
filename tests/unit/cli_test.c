/* Unit tests of what utilities share: --mem sizes. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tap.h"

int
main(void)
{
	static const struct { const char *text; uint32_t mb; } good[] = {
		{ "512", 512 }, { "512M", 512 }, { "512m", 512 },
		{ "4G", 4096 }, { "4GiB", 4096 }, { "1T", 1048576 },
		{ "1K", 1 }, { "1025K", 2 }, { "1MB", 1 },
		{ "1048576G", 1U << 30 },
	};
	static const char *const bad[] = { "", "0", "0K", "G", "-1", "4X",
	    "4GG", "1048577G", "99999999999999999999", " 4G", "4 G",
	    "1e3" };
	char why[128];
	uint32_t mb;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		mb = 0;
		ok(cli_mem_mb(good[i].text, &mb, why, sizeof(why)) == 0 &&
		    mb == good[i].mb, "--mem %s is %u MiB (%u)", good[i].text,
		    good[i].mb, mb);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		ok(cli_mem_mb(bad[i], &mb, why, sizeof(why)) == -1 &&
		    why[0] != '\0', "--mem '%s' refused: %s", bad[i], why);
	}
	return tap_done();
}
