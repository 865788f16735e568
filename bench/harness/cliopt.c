#define _GNU_SOURCE	/* vasprintf */
#include "cliopt.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)

int cli_bad(const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "%s: bad arguments\n", cli_prog);
		return 2;
	}
	/* a newline in a quoted shell argument must not split the message */
	for (char *p = msg; *p; p++)
		if (iscntrl((unsigned char)*p))
			*p = '?';
	fprintf(stderr, "%s: %s\n", cli_prog, msg);
	free(msg);
	return 2;
}

int cli_int(const char *opt, const char *s, long long lo, long long hi,
	    long long *out)
{
	const char *digits = s + (*s == '-');
	long long v;

	if (!*digits || strspn(digits, "0123456789") != strlen(digits))
		return cli_bad("--%s: '%s' is not a number (valid: %lld to %lld)",
			       opt, s, lo, hi);
	errno = 0;
	v = strtoll(s, NULL, 10);
	if (errno == ERANGE || v < lo || v > hi)
		return cli_bad("--%s: '%s' is out of range (valid: %lld to %lld)",
			       opt, s, lo, hi);
	*out = v;
	return 0;
}

bool cli_size(const char *s, uint64_t *bytes)
{
	uint64_t v = 0;
	int shift = 0;

	/* strtoull would take spaces, signs and hex; none belong here */
	if (!s || !isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int d = *s - '0';

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	switch (*s) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return false;
	}
	if (shift && *++s)
		return false;
	if (v > UINT64_MAX >> shift)
		return false;
	*bytes = v << shift;
	return true;
}

const char *cli_fmt_size(char *buf, size_t n, uint64_t v)
{
	if (v && !(v % GIB))
		snprintf(buf, n, "%lluG", (unsigned long long)(v / GIB));
	else if (v && !(v % MIB))
		snprintf(buf, n, "%lluM", (unsigned long long)(v / MIB));
	else if (v && !(v % 1024))
		snprintf(buf, n, "%lluK", (unsigned long long)(v / 1024));
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
	return buf;
}

int cli_path(const char *opt, const char *arg, const char **out)
{
	if (!*arg)
		return cli_bad("--%s: '' is empty (valid: %s path)", opt,
			       strcmp(opt, "out") ? "a file" : "a directory");
	*out = arg;
	return 0;
}

const char *cli_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

long long cli_mem_available_mib(void)
{
	char line[256];
	long long kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "MemAvailable: %lld", &kb);
	if (f)
		fclose(f);
	return kb > 0 ? kb / 1024 : -1;
}

int cli_host_mem(int mem_mb, bool given, const char *sized_from, long long avail_mib)
{
	if (avail_mib < 0 || mem_mb <= avail_mib)
		return 0;
	if (given)
		return cli_bad("--mem: '%d' is more than the host has available (valid: at most %lld MiB here, the host's MemAvailable)",
			       mem_mb, avail_mib);
	return cli_bad("the guest needs %d MiB of RAM for %s, and the host has %lld MiB available",
		       mem_mb, sized_from, avail_mib);
}

static const struct option *opt_of(const struct cli *cl, int val)
{
	for (const struct option *l = cl->longopts; l->name; l++)
		if (l->val == val)
			return l;
	return NULL;
}

int cli_parse(const struct cli *cl, int argc, char **argv, void *ctx)
{
	const struct option *l;
	int c, rc = 0;

	optind = 0;	/* glibc: full reset, so tests can parse again */
	opterr = 0;	/* our own one-line messages instead */
	while (!rc && (c = getopt_long(argc, argv, cl->shortopts, cl->longopts,
				       NULL)) != -1) {
		switch (c) {
		case 'h':
			cl->usage();
			return 1;
		case ':':
			l = opt_of(cl, optopt);
			rc = cli_bad("--%s: missing value (valid: %s)",
				     l ? l->name : "?", cl->valid_of(optopt));
			break;
		case '?':
			/*
			 * glibc leaves optopt at a known option's value for
			 * "--quiet=x", at the letter for an unknown "-z", and
			 * at 0 for an unknown or ambiguous long option.
			 */
			l = optopt ? opt_of(cl, optopt) : NULL;
			if (l)
				rc = cli_bad("--%s: takes no value, got '%s' (try --help)",
					     l->name, argv[optind - 1]);
			else if (optopt)
				rc = cli_bad("unknown option '-%c' (try --help)", optopt);
			else
				rc = cli_bad("unknown or ambiguous option '%s' (try --help)",
					     argv[optind - 1]);
			break;
		default:
			rc = cl->handle(c, optarg, ctx);
			break;
		}
	}
	if (!rc && optind < argc)
		rc = cli_bad("unexpected argument '%s' (valid: options only, try --help)",
			     argv[optind]);
	return rc;
}
