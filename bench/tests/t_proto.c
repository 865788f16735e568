/*
 * t_proto: the agent line protocol shared by host and guest.
 *
 * Guards: every message tag round-trips through agent_msg_parse; unknown
 * tags are refused; key=value lookup finds exact keys only (no prefix
 * matches), respects the buffer size, and integer lookup refuses junk.
 */
#include <string.h>

#include "agent_proto.h"
#include "tap.h"

int main(void)
{
	static const enum agent_msg all[] = {
		AGENT_MSG_READY, AGENT_MSG_OUT, AGENT_MSG_DONE, AGENT_MSG_REQUEST,
		AGENT_MSG_RESUMED, AGENT_MSG_TRACE, AGENT_MSG_KMSG,
	};
	char line[128], val[16], *rest;
	long long v;
	unsigned int i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		snprintf(line, sizeof(line), "%s a=1", agent_msg_name(all[i]));
		tap_ok(agent_msg_parse(line, &rest) == all[i] && !strcmp(rest, "a=1"),
		       "%s round-trips", agent_msg_name(all[i]));
	}
	strcpy(line, "DONE");
	tap_ok(agent_msg_parse(line, &rest) == AGENT_MSG_DONE && !*rest,
	       "a bare tag has an empty rest");
	strcpy(line, "DONEX status=0");
	tap_ok(agent_msg_parse(line, &rest) == AGENT_MSG_UNKNOWN,
	       "a longer word is not a tag");
	strcpy(line, "DON status=0");
	tap_ok(agent_msg_parse(line, &rest) == AGENT_MSG_UNKNOWN,
	       "a prefix of a tag is not a tag");

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
	tap_ok(!agent_kv_ll("status=0", "rc", &v), "kv_ll reports an absent key");
	return tap_done();
}
