#!/usr/bin/jq -rf
# One evidence row per workload of a default-writeback lab run (tab
# separated; see scripts/evidence-section.sh).  Usage: --arg p PROFILE FILE
def median: sort | length as $n
	| if $n == 0 then null elif $n % 2 == 1 then .[($n - 1) / 2]
	  else (.[$n / 2 - 1] + .[$n / 2]) / 2 end;
def p95: sort | length as $n | if $n == 0 then null else .[(0.95 * $n | ceil) - 1] end;
def vals(f): [ .[] | f | select(. != null) ];
def show(f): if . == null then "-" else f end;
def i: show(round | tostring);
def ms: show(. * 1000 | round | tostring);
def r2: show(. * 100 | round / 100 | tostring);

.cycles as $all
| [ $all[] | .workload ] | unique[] as $w
| [ $all[] | select(.workload == $w) ] as $c
| [ $c[] | select(.verdict == "OK") ] as $ok
| [ $ok[] | select(.sync == 1) ] as $on
| [ $ok[] | select(.sync == 0) ] as $off
| ($ok | vals(.dirty_at_request_kb)) as $d
| ($off | vals(.kernel_at_risk_dirty_kb)) as $risk
| [ $p, $w, "\($ok | length)/\($c | length)",
    ($d | min | i), ($d | median | i), ($d | p95 | i), ($d | max | i),
    ($on | vals(.sync_phase_s) | median | ms),
    ($on | vals(.device.sync.write_requests?) | median | i),
    ($on | vals(.device.sync.flush_requests?) | median | i),
    ($on | vals(.device.sync_over_predicted?) | median | r2),
    ($risk | median | i), ($risk | max | i),
    ((($on | vals(.suspend_latency_s) | median) as $a
      | ($off | vals(.suspend_latency_s) | median) as $b
      | if $a == null or $b == null then null else $a - $b end) | ms) ]
| @tsv
