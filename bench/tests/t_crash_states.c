/*
 * t_crash_states: which crash states a write log gives, their names, and
 * the dropped-flush self-test, on hand-made logs.
 *
 * Guards: a state after every barrier (flush, FUA write) from the dataset
 * on, none before; the write-prefix sample keeps both ends and its size,
 * or every prefix; per gap between barriers the empty subset first, then
 * distinct seeded subsets, never all of the gap (that is a prefix), as
 * many as exist; each name parses back to the same entries (a verdict can
 * be reproduced from the log), only in its canonical spelling; a name that
 * does not fit the log is refused; states come ordered by position;
 * phases split at the request and the suspend; shards partition the run.
 * And the oracle (pc_judge/pc_tally) catches a replay that drops a
 * flush's ordering, while no honest state after the fsync loses a byte.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image.h"
#include "logfmt.h"
#include "pattern.h"
#include "powercut.h"
#include "states.h"
#include "tap.h"

#define SS 512

static char dir[] = "/tmp/t_crash_states.XXXXXX";
static char logp[128], basep[128], outp[128];

/* flags of a synthetic log: W write, F flush, U FUA write, X discard */
static int make_log(const char *spec)
{
	struct lw_writer w;
	unsigned char buf[SS];

	if (lw_writer_open(&w, logp, SS))
		return -1;
	for (int i = 0; spec[i]; i++) {
		uint64_t fl = spec[i] == 'F' ? LW_FLUSH : spec[i] == 'U' ? LW_FUA :
			      spec[i] == 'X' ? LW_DISCARD : 0;

		memset(buf, 'a' + i % 26, sizeof(buf));
		lw_writer_add(&w, spec[i] == 'F' ? 0 : i, spec[i] == 'F' ? 0 : 1, fl, buf);
	}
	lw_writer_super(&w);
	return lw_writer_close(&w);
}

static int count(const struct cs_state *s, int n, enum cs_kind k)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += s[i].kind == k;
	return c;
}

static void enumeration(void)
{
	/* positions:    1234567890123456 */
	const char *spec = "WWFWWWWWUWWXWFWW";
	struct cs_marks m = { .start = 2, .request = 10, .suspended = 16, .n = 16 };
	struct cs_model mo = { .gap_states = 3, .prefixes = 5, .seed = 9 };
	struct cs_state *s;
	struct lw_log l;
	char why[200], name[64];
	int n, *a, *b, na, nb;
	bool sorted = true, names = true, reproduced = true, never_full = true;

	make_log(spec);
	if (!tap_ok(!lw_open(&l, logp, SS, why, sizeof(why)) && l.n == 16, "synthetic log"))
		return;
	n = cs_enumerate(&l, &m, &mo, &s);
	tap_ok(count(s, n, CS_FLUSH) == 3, "a state after each barrier from the dataset on:"
	       " F3, F9 (FUA), F14 (%d)", count(s, n, CS_FLUSH));
	tap_ok(count(s, n, CS_PREFIX) == 5, "5 write prefixes sampled (%d)", count(s, n, CS_PREFIX));
	{
		bool ends[2] = { false, false };

		for (int i = 0; i < n; i++)
			if (s[i].kind == CS_PREFIX) {
				ends[0] |= s[i].pos == 2;
				ends[1] |= s[i].pos == 16;
			}
		tap_ok(ends[0] && ends[1], "the sample keeps the first and the last position");
	}
	/* gaps: (0,2] ends at 2 (next is F3): 2 writes -> 3 subsets; (3,8]: 5 writes;
	 * (9,13]: 4 entries (a discard among them); (14,16]: 2 writes */
	tap_ok(count(s, n, CS_GAP) == 3 + 3 + 3 + 3, "3 states per gap, 4 gaps (%d)",
	       count(s, n, CS_GAP));
	for (int i = 0; i < n; i++) {
		struct cs_state back;

		if (i && (s[i].pos < s[i - 1].pos))
			sorted = false;
		cs_name(&s[i], name, sizeof(name));
		if (cs_parse(name, &back) || memcmp(&back, &s[i], sizeof(back)))
			names = false;
		na = cs_entries(&l, &s[i], &a, why, sizeof(why));
		nb = cs_entries(&l, &back, &b, why, sizeof(why));
		if (na < 0 || na != nb || memcmp(a, b, na * sizeof(int)))
			reproduced = false;
		if (s[i].kind == CS_GAP) {
			int gap_writes = 0, applied = na - s[i].from;

			for (int e = s[i].from; e < s[i].pos; e++)
				gap_writes += !lw_is_barrier(&l.e[e]);
			if (applied >= gap_writes || (s[i].k == 0 && applied != 0))
				never_full = false;
		}
		free(a);
		free(b);
	}
	tap_ok(sorted, "states ordered by position");
	tap_ok(names, "every name parses back to its state");
	tap_ok(reproduced, "a parsed name replays the same entries in the same order");
	tap_ok(never_full, "a gap state never holds all its gap's writes; subset 0 holds none");
	free(s);

	mo.prefixes = -1;
	n = cs_enumerate(&l, &m, &mo, &s);
	tap_ok(count(s, n, CS_PREFIX) == 15 - 2 + 1 - 2,
	       "--prefixes all: every position from 2 to 16 but the barriers' (%d)",
	       count(s, n, CS_PREFIX));
	free(s);

	/* a gap of 2 writes has 3 proper subsets: asking for 10 gives 3 */
	mo.gap_states = 10;
	n = cs_enumerate(&l, &m, &mo, &s);
	{
		int g2 = 0;

		for (int i = 0; i < n; i++)
			g2 += s[i].kind == CS_GAP && s[i].pos == 16;
		tap_ok(g2 == 3, "a gap gives no more subsets than exist (%d of 10)", g2);
	}
	free(s);

	{
		struct cs_state bad[] = {
			{ .kind = CS_FLUSH, .pos = 4 },			/* not a barrier */
			{ .kind = CS_GAP, .pos = 8, .from = 2 },	/* from is F3 */
			{ .kind = CS_GAP, .pos = 7, .from = 3 },	/* not a gap's end */
			{ .kind = CS_PREFIX, .pos = 17 },		/* past the log */
			{ .kind = CS_GAP, .pos = 2, .from = 0, .k = 3 },	/* only 3 exist */
		};
		bool refused = true;

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (cs_entries(&l, &bad[i], &a, why, sizeof(why)) >= 0) {
				refused = false;
				free(a);
			}
		tap_ok(refused, "states that do not fit the log are refused (%s)", why);
	}
	{
		const char *bad[] = { "F007", "P+3", "G3-8.0s", "X5", "D3", "G3-8.1s9x", "" };
		bool refused = true;
		struct cs_state t;

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			refused &= cs_parse(bad[i], &t) == -1;
		tap_ok(refused && !cs_parse("G3-8.1s9", &t) && t.k == 1 && t.seed == 9,
		       "only canonical names parse");
	}
	tap_ok(cs_phase_of(&m, 9) == CS_DATASET && cs_phase_of(&m, 10) == CS_SYNC &&
	       cs_phase_of(&m, 15) == CS_SYNC && cs_phase_of(&m, 16) == CS_SUSPENDED,
	       "phases: dataset before the request, sync from it, suspended at the suspend");
	{
		bool part = true;

		for (int nsh = 1; nsh <= 7; nsh++)
			for (int i = 0; i < 50; i++) {
				int owners = 0;

				for (int k = 1; k <= nsh; k++)
					owners += cs_in_shard(i, k, nsh);
				part &= owners == 1;
			}
		tap_ok(part, "shards 1..N of N hold every state exactly once");
	}
	lw_close(&l);
}

/*
 * An fsync in miniature: the file's data (entry 1) and its journal block
 * (2), a flush (3), the commit block (4), a flush (5): the fsync returned
 * at 5.  The toy filesystem shows the file once the commit is there, and
 * cannot replay a commit whose journal block is missing.
 */
#define SEED 77
#define FILE_SECT 8
#define FILE_BYTES (8 * SS)

static void fsync_log(void)
{
	struct lw_writer w;
	unsigned char data[FILE_BYTES], blk[SS];

	pattern_fill(SEED, 0, data, sizeof(data));
	lw_writer_open(&w, logp, SS);
	lw_writer_add(&w, FILE_SECT, 8, 0, data);
	memset(blk, 'J', SS);
	lw_writer_add(&w, 40, 1, 0, blk);
	lw_writer_add(&w, 0, 0, LW_FLUSH, NULL);
	memset(blk, 'C', SS);
	lw_writer_add(&w, 41, 1, 0, blk);
	lw_writer_add(&w, 0, 0, LW_FLUSH, NULL);
	memset(blk, 'z', SS);
	lw_writer_add(&w, 50, 1, 0, blk);
	lw_writer_super(&w);
	lw_writer_close(&w);
}

/* The oracle on the toy image: true if the fsync'd file is intact and the
 * filesystem sound. */
static bool toy_oracle(const char *img, bool *damaged)
{
	unsigned char disk[64 * SS], want[FILE_BYTES];
	struct pc_record r = { .n_files = 1 };
	struct pc_file *f = &r.files[0];
	int fd = open(img, O_RDONLY);
	size_t fb = 0;
	bool commit, journal;

	if (fd < 0 || read(fd, disk, sizeof(disk)) != (ssize_t)sizeof(disk))
		return false;
	close(fd);
	*f = (struct pc_file){ .path = "pc/control.bin", .kind = "control", .seed = SEED,
			       .size = FILE_BYTES, .durable = FILE_BYTES };
	commit = disk[41 * SS] == 'C';
	journal = disk[40 * SS] == 'J';
	*damaged = commit && !journal;
	if (commit && journal) {
		f->actual = FILE_BYTES;
		f->good = pattern_judge(SEED, 0, disk + FILE_SECT * SS, FILE_BYTES, FILE_BYTES,
					want, &fb);
		f->first_bad = fb;
		pc_judge(f, "reg");
	} else {
		pc_judge(f, "none");
	}
	pc_tally(&r);
	return r.fsync_intact;
}

static void dropped_flush(void)
{
	struct cs_marks m = { .start = 0, .request = 6, .suspended = 6, .n = 6 };
	struct cs_model mo = { .gap_states = 4, .prefixes = -1, .seed = 3,
			       .drop_lo = 0, .drop_hi = 5 };
	struct cs_state *s;
	struct lw_log l;
	char why[200], name[64];
	int n, honest = 0, honest_ok = 0, drops = 0, caught = 0;
	int fd = open(basep, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || ftruncate(fd, 64 * SS))
		return;
	close(fd);
	fsync_log();
	lw_open(&l, logp, SS, why, sizeof(why));
	n = cs_enumerate(&l, &m, &mo, &s);
	for (int i = 0; i < n; i++) {
		bool intact, damaged = false;

		if (cs_build_image(&l, &s[i], basep, outp, why, sizeof(why))) {
			tap_diag("%s", why);
			continue;
		}
		intact = toy_oracle(outp, &damaged);
		cs_name(&s[i], name, sizeof(name));
		if (s[i].kind == CS_DROP) {
			drops++;
			caught += !intact || damaged;
			tap_diag("%s: fsync'd data %s%s", name, intact ? "intact" : "lost",
				 damaged ? ", journal damaged" : "");
		} else if (s[i].pos >= 5) {
			honest++;
			honest_ok += intact && !damaged;
		} else {
			/* before the fsync returned nothing is promised; never damage */
			honest_ok += !damaged;
			honest++;
		}
	}
	tap_ok(honest > 4 && honest_ok == honest,
	       "no honest state loses the fsync'd file after its fsync or damages the toy fs"
	       " (%d of %d)", honest_ok, honest);
	tap_ok(drops == 2 && caught == drops,
	       "a replay that drops a flush's ordering is caught: %d of %d", caught, drops);
	free(s);
	lw_close(&l);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(logp, sizeof(logp), "%s/w.log", dir);
	snprintf(basep, sizeof(basep), "%s/base.img", dir);
	snprintf(outp, sizeof(outp), "%s/out.img", dir);
	enumeration();
	dropped_flush();
	unlink(logp);
	unlink(basep);
	unlink(outp);
	rmdir(dir);
	return tap_done();
}
