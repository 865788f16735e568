#!/usr/bin/jq -rf
# The evidence rows of a default-writeback lab run, one per workload and
# setting, tab separated (see scripts/evidence-section.sh).  It only
# formats: every figure is one of the lab's own summary[] statistics.
# Usage: --arg p PROFILE FILE
def show(f): if . == null then "-" else f end;
def i: show(round | tostring);
def ms: show(. * 1000 | round | tostring);
def r2: show(. * 100 | round / 100 | tostring);

[ .summary[] | select(.state == "mem" and .writeback == "default") ]
| sort_by(.workload, -.sync)[]
| [ $p, .workload, (if .sync == 1 then "on" else "off" end), "\(.n_ok)/\(.n_total)",
    (.dirty_at_request_kb | (.min | i), (.median | i), (.p95 | i), (.max | i)),
    (.suspend_latency_s.median | ms),
    (if .sync == 1 then (.sync_phase_s.median | ms), (.sync_write_requests.median | i),
			(.sync_flush_requests.median | i), (.sync_over_predicted.median | r2)
     else "-", "-", "-", "-" end) ]
| @tsv
