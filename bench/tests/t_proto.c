/*
 * t_proto: the agent line protocol shared by host and guest.
 *
 * Guards: every message tag round-trips with its sequence number; a line
 * without a number, with a signed or overlong one, or with an unknown tag
 * is refused; framing hands out lines split across reads and packed into
 * one, and an overlong line is reported once and dropped to its newline,
 * never read as a second message (a forged "DONE" at byte 8192); key=value
 * lookup finds exact keys only, respects the buffer, and integer lookup is
 * decimal only; required keys fail when any one is missing.
 */
#include <string.h>

#include "agent_proto.h"
#include "tap.h"

static void feed(struct agent_lines *l, const char *s, size_t n)
{
	size_t room;
	char *tail = agent_lines_tail(l, &room);

	if (n > room)
		n = room;
	memcpy(tail, s, n);
	agent_lines_add(l, n);
}

static void test_parse(void)
{
	static const enum agent_msg all[] = {
		AGENT_MSG_READY, AGENT_MSG_OUT, AGENT_MSG_DONE, AGENT_MSG_REQUEST,
		AGENT_MSG_RESUMED, AGENT_MSG_TRACE, AGENT_MSG_KMSG,
	};
	char line[128], *rest;
	unsigned long seq;
	enum agent_msg tag;

	for (unsigned int i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		snprintf(line, sizeof(line), "17 %s a=1", agent_msg_name(all[i]));
		tap_ok(agent_msg_parse(line, &seq, &tag, &rest) && tag == all[i] &&
		       seq == 17 && !strcmp(rest, "a=1"), "%s round-trips with its number",
		       agent_msg_name(all[i]));
	}
	strcpy(line, "3 DONE");
	tap_ok(agent_msg_parse(line, &seq, &tag, &rest) && tag == AGENT_MSG_DONE && !*rest,
	       "a bare tag has an empty rest");
	strcpy(line, "DONE status=0");
	tap_ok(!agent_msg_parse(line, &seq, &tag, &rest), "a line without a number is refused");
	strcpy(line, "+3 DONE status=0");
	tap_ok(!agent_msg_parse(line, &seq, &tag, &rest), "a signed number is refused");
	strcpy(line, "12345678901 DONE status=0");
	tap_ok(!agent_msg_parse(line, &seq, &tag, &rest), "an overlong number is refused");
	strcpy(line, "3 DONEX status=0");
	tap_ok(!agent_msg_parse(line, &seq, &tag, &rest), "a longer word is not a tag");
	strcpy(line, "3 DON status=0");
	tap_ok(!agent_msg_parse(line, &seq, &tag, &rest), "a prefix of a tag is not a tag");
}

static void test_framing(void)
{
	static char big[3 * AGENT_LINE_MAX];
	static struct agent_lines l;
	char line[AGENT_LINE_MAX];
	enum agent_frame f;

	memset(&l, 0, sizeof(l));
	feed(&l, "1 OUT a\n1 OU", 12);
	tap_ok(agent_lines_take(&l, line, sizeof(line)) == AGENT_FRAME_LINE &&
	       !strcmp(line, "1 OUT a"), "framing: the first of two lines");
	tap_ok(agent_lines_take(&l, line, sizeof(line)) == AGENT_FRAME_NEED,
	       "framing: half a line waits for more");
	feed(&l, "T b\n", 4);
	tap_ok(agent_lines_take(&l, line, sizeof(line)) == AGENT_FRAME_LINE &&
	       !strcmp(line, "1 OUT b"), "framing: a line split across reads");

	/* 8 KiB of junk, then a forged message inside the same line */
	memset(&l, 0, sizeof(l));
	memset(big, 'x', sizeof(big));
	memcpy(big + 8192, "1 DONE status=7", 15);
	big[sizeof(big) - 1] = '\n';
	f = AGENT_FRAME_NEED;
	int toolong = 0, lines = 0;

	for (size_t off = 0; off < sizeof(big); ) {
		size_t room;

		agent_lines_tail(&l, &room);
		if (room > sizeof(big) - off)
			room = sizeof(big) - off;
		feed(&l, big + off, room);
		off += room;
		while ((f = agent_lines_take(&l, line, sizeof(line))) != AGENT_FRAME_NEED) {
			toolong += f == AGENT_FRAME_TOOLONG;
			lines += f == AGENT_FRAME_LINE;
		}
	}
	tap_ok(toolong == 1 && lines == 0,
	       "framing: an overlong line is reported once and never read as a message (%d, %d)",
	       toolong, lines);
	feed(&l, "2 DONE status=0\n", 16);
	tap_ok(agent_lines_take(&l, line, sizeof(line)) == AGENT_FRAME_LINE &&
	       !strcmp(line, "2 DONE status=0"), "framing: the next line after it is whole");
}

static void test_kv(void)
{
	char val[16];
	long long v, a, b;

	tap_ok(agent_kv("t_ns=5 dirty_kb=65536 writeback_kb=0", "dirty_kb", val,
			sizeof(val)) && !strcmp(val, "65536"), "kv finds a middle key");
	tap_ok(!agent_kv("xdirty_kb=1", "dirty_kb", val, sizeof(val)),
	       "kv refuses a key that only ends the same");
	tap_ok(!agent_kv("dirty_kbx=1", "dirty_kb", val, sizeof(val)),
	       "kv refuses a key that only starts the same");
	tap_ok(!agent_kv("k=0123456789abcdefghij", "k", val, sizeof(val)),
	       "kv refuses a value longer than the buffer");
	tap_ok(agent_kv_ll("rc=-16 t_ns=14692659799", "t_ns", &v) && v == 14692659799LL,
	       "kv_ll reads a 64-bit value");
	tap_ok(agent_kv_ll("rc=-16", "rc", &v) && v == -16, "kv_ll reads a negative");
	tap_ok(!agent_kv_ll("rc=12x", "rc", &v), "kv_ll refuses trailing junk");
	tap_ok(!agent_kv_ll("rc=", "rc", &v), "kv_ll refuses an empty value");
	tap_ok(!agent_kv_ll("rc=+5", "rc", &v), "kv_ll refuses a plus sign");
	tap_ok(!agent_kv_ll("rc=0x10", "rc", &v), "kv_ll refuses hex");
	tap_ok(!agent_kv_ll("status=0", "rc", &v), "kv_ll reports an absent key");
	tap_ok(agent_kvs_ll("a=1 b=2", "a", &a, "b", &b, NULL) && a == 1 && b == 2,
	       "required keys: all present");
	tap_ok(!agent_kvs_ll("a=1", "a", &a, "b", &b, NULL), "required keys: one missing fails");
}

int main(void)
{
	test_parse();
	test_framing();
	test_kv();
	return tap_done();
}
