// SPDX-License-Identifier: GPL-2.0
/* knobtest: writes, compared with the sysctl core's own integer sysctl. */
#include "kt.h"
#include "gtap.h"

struct step {
	const char *buf;
	size_t len;
	off_t off;		/* pwrite() at off; -1: write() at the fd's offset */
};

struct scenario {
	char name[96];
	int n;
	struct step s[2];
};

struct outcome {
	long ret[2];		/* bytes written, or -errno */
	int val;
};

static int n_scn;
static struct scenario scn[64];

static void add1(const char *buf, size_t len, off_t off, const char *name)
{
	struct scenario *c = &scn[n_scn++];

	c->n = 1;
	c->s[0] = (struct step){ buf, len, off };
	if (name)
		snprintf(c->name, sizeof(c->name), "%s", name);
	else
		snprintf(c->name, sizeof(c->name), "\"%s\"", show(buf, len));
}

static void add2(const char *a, const char *b)
{
	struct scenario *c = &scn[n_scn++];
	char sa[48];

	c->n = 2;
	c->s[0] = (struct step){ a, strlen(a), -1 };
	c->s[1] = (struct step){ b, strlen(b), -1 };
	snprintf(sa, sizeof(sa), "%s", show(a, strlen(a)));
	snprintf(c->name, sizeof(c->name), "\"%s\" then \"%s\" on one fd", sa,
		 show(b, strlen(b)));
}

static void run(const char *path, int start, const struct scenario *c,
		struct outcome *o)
{
	int fd, i;

	set(path, start);
	memset(o, 0, sizeof(*o));
	fd = open(path, O_WRONLY);
	for (i = 0; i < c->n; i++) {
		const struct step *s = &c->s[i];
		ssize_t r;

		if (fd < 0) {
			o->ret[i] = -errno;
			continue;
		}
		r = s->off < 0 ? write(fd, s->buf, s->len) :
				 pwrite(fd, s->buf, s->len, s->off);
		o->ret[i] = r < 0 ? -errno : r;
	}
	if (fd >= 0)
		close(fd);
	o->val = get(path);
}

static const char *fmt_outcome(const struct scenario *c, const struct outcome *o)
{
	static char bufs[4][128];
	static int next;
	char *buf = bufs[next++ % 4];
	int i, n = 0;

	for (i = 0; i < c->n; i++) {
		if (o->ret[i] < 0)
			n += snprintf(buf + n, sizeof(bufs[0]) - n, "%s%s", i ? "," : "",
				      strerror((int)-o->ret[i]));
		else
			n += snprintf(buf + n, sizeof(bufs[0]) - n, "%s%ld", i ? "," : "",
				      o->ret[i]);
	}
	snprintf(buf + n, sizeof(bufs[0]) - n, " -> %d", o->val);
	return buf;
}

void build_scenarios(void)
{
	static const char *const single[] = {
		"0", "1", "1\n", " 1", "1 \n", "\t1\n", "0x1", "01", "0x0\n",
		"2", "-1", "\n", " ", "abc", "1abc", "0 1", "1 0", "1\n1\n",
		"+1", "1.0", "0x2", "08", "1,0", "true", "y", "on", "-0x1",
		"99999999999999999999999", "00000000000000000000001",
	};
	static char page_plus[4097], page[4096], spaces_then[4097], junk[5000];
	unsigned int i;

	for (i = 0; i < sizeof(single) / sizeof(single[0]); i++)
		add1(single[i], strlen(single[i]), 0, NULL);
	add1("", 0, 0, "zero-length write");
	/* a value, then white space past PAGE_SIZE - 1, then another value */
	memset(page_plus, ' ', sizeof(page_plus));
	page_plus[0] = '1';
	page_plus[sizeof(page_plus) - 1] = '0';
	add1(page_plus, sizeof(page_plus), 0, "4097 bytes: \"1\", 4095 spaces, \"0\"");
	memset(page, ' ', sizeof(page));
	page[0] = '0';
	page[sizeof(page) - 1] = '\n';
	add1(page, sizeof(page), 0, "4096 bytes: \"0\", 4094 spaces, newline");
	memset(spaces_then, ' ', sizeof(spaces_then));
	spaces_then[sizeof(spaces_then) - 1] = '1';
	add1(spaces_then, sizeof(spaces_then), 0, "4097 bytes: 4096 spaces, \"1\"");
	memset(junk, 'a', sizeof(junk));
	junk[sizeof(junk) - 1] = '1';
	add1(junk, sizeof(junk), 0, "5000 bytes: 4999 \"a\", \"1\"");
	add1("1", 1, 1, "\"1\" at offset 1");
	add1("0", 1, 1, "\"0\" at offset 1");
	add2("1", "\n");
	add2("0", "1");
	add2("1", "0");
	add2("", "1");
	add2("0 ", "1");
}

/* Every scenario, from both values, on both files: same result. */
void compare_with_core(int strict)
{
	int i, start;

	set_int(STRICT, strict);
	if (get_int(STRICT) != strict) {
		ok(0, "kernel.sysctl_writes_strict set to %d", strict);
		return;
	}
	for (i = 0; i < n_scn; i++) {
		const struct scenario *c = &scn[i];
		struct outcome ref[2], our[2];
		bool same = true;

		for (start = 0; start <= 1; start++) {
			run(REF, start, c, &ref[start]);
			run(SYSCTL, start, c, &our[start]);
			same = same && !memcmp(&ref[start], &our[start], sizeof(our[0]));
		}
		ok(same, "strict=%d %s: as fs.protected_symlinks (from 0: %s; from 1: %s)",
		   strict, c->name, fmt_outcome(c, &our[0]), fmt_outcome(c, &our[1]));
		if (!same)
			diag("fs.protected_symlinks: from 0: %s; from 1: %s",
			     fmt_outcome(c, &ref[0]), fmt_outcome(c, &ref[1]));
	}
}

/* What the documentation says, checked directly (default strict mode). */
void documented(void)
{
	static const char *const other[] = { "2", "-1", "3\n", "99999999999999999999999" };
	int start, err;
	unsigned int i;
	struct outcome o;
	struct scenario two = { .n = 2 };

	for (start = 0; start <= 1; start++) {
		for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
			set(SYSCTL, start);
			err = put(SYSCTL, other[i]);
			ok(err == EINVAL && get(SYSCTL) == start && get(SYSFS) == start,
			   "\"%s\" at %d: EINVAL, unchanged (errno %d)",
			   show(other[i], strlen(other[i])), start, err);
		}
		set(SYSCTL, start);
		err = put(SYSCTL, "abc");
		ok(err == EINVAL && get(SYSCTL) == start,
		   "\"abc\" at %d: fails, unchanged (errno %d)", start, err);
		set(SYSCTL, start);
		err = put(SYSCTL, "");
		ok(err == 0 && get(SYSCTL) == start && get(SYSFS) == start,
		   "zero-length write at %d: no value, unchanged (errno %d)", start, err);
		set(SYSCTL, start);
		err = put(SYSCTL, "\n");
		ok(err == EINVAL && get(SYSCTL) == start,
		   "write of a lone newline at %d: no value, EINVAL, unchanged (errno %d)",
		   start, err);
		set(SYSCTL, start);
		err = put_at(SYSCTL, start ? "0" : "1", 1, 1);
		ok(err == 0 && get(SYSCTL) == start,
		   "strict=1: write at offset 1 at %d: ignored, unchanged (errno %d)",
		   start, err);
	}
	set(SYSCTL, 0);
	ok(!put(SYSCTL, "1\n") && get(SYSCTL) == 1 && get(SYSFS) == 1, "\"1\\n\" sets 1");
	ok(!put(SYSCTL, "0") && get(SYSCTL) == 0 && get(SYSFS) == 0, "\"0\" sets 0");

	/* sysctl_writes_strict=1: the value is in the first write at offset 0 */
	two.s[0] = (struct step){ "1", 1, -1 };
	two.s[1] = (struct step){ "\n", 1, -1 };
	run(SYSCTL, 0, &two, &o);
	ok(o.ret[0] == 1 && o.ret[1] == 1 && o.val == 1,
	   "strict=1: \"1\" then \"\\n\" on one fd: both accepted, value 1 (%s)",
	   fmt_outcome(&two, &o));
	two.s[0] = (struct step){ "0", 1, -1 };
	two.s[1] = (struct step){ "1", 1, -1 };
	run(SYSCTL, 1, &two, &o);
	ok(o.ret[0] == 1 && o.ret[1] == 1 && o.val == 0,
	   "strict=1: \"0\" then \"1\" on one fd: the second changes nothing (%s)",
	   fmt_outcome(&two, &o));
}

/*
 * An empty write reaches the handler; it must not write back the value it
 * read on entry over a sysfs store made meanwhile.  A child hammers the
 * sysctl with empty writes while we flip the value through sysfs and read
 * it back at once.
 */
void empty_writes_race(void)
{
	struct timespec t0, t;
	long flips = 0, lost = 0;
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		int fd = open(SYSCTL, O_WRONLY);

		for (;;)
			if (pwrite(fd, "", 0, 0) < 0)
				_exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int v = flips++ & 1;

		put(SYSFS, v ? "1" : "0");
		if (get(SYSFS) != v)
			lost++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 3);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ok(pid > 0 && lost == 0,
	   "empty sysctl writes never undo a sysfs store (%ld of %ld flips lost)",
	   lost, flips);
}
