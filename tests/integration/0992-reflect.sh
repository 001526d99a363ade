#!/bin/bash
# Two reflectors no more (issue 27): a signed request from a forged
# source address gets no more than a 16-byte cookie, and changes nothing.
#  - KILL_REQ for every job of a user was answered with a row for every
#    job the broker remembers (x17.5 with 192 jobs): now only with the
#    cookie the broker sent to the asker's address (CilkKill echoes it).
#  - JOB_REGISTER from a forged address made every idle node send
#    description requests there: the broker now registers a job only
#    with its cookie (the job manager echoes it), so the forger's job
#    never exists.
# ports: 20110-20129
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
AT=127.0.0.1:20110
echo "broker = $AT" >>"$C"
start broker "$SBIN/CilkJobBroker" -f -c "$C" -o run_dir="$T/run"
BROKER=$LAST_PID
wait_for 10 "$BIN/CilkPing" -c "$C" -n 1 -W 0.2 $AT
ok $? "the broker answers pings"
F="$TOOLS/fake_node -c $C -b $AT"
jobs_listed() { "$BIN/CilkPs" -c "$C" | tail -n +2 | wc -l; }

# A forger's registration: the cookie goes to the forged address.
$F -N job 1 0 0 "forged $(printf '%0200d' 0)" >"$T/reg.out" 2>&1
exit_is $? 0 "a registration that does not echo the cookie is answered"
contains "$T/reg.out" '^request [0-9]+ answer cookie 16$' \
    "it is answered with a 16-byte cookie"
read -r _ req _ _ ans <"$T/reg.out"
[ "${ans:-999}" -le "${req:-0}" ]
ok $? "no larger than the request (${ans:-?} <= ${req:-?} bytes)"
[ "$(jobs_listed)" -eq 0 ]
ok $? "and no job was registered ($(jobs_listed))"

for i in 1 2 3 4 5 6; do
	$F job 1 0 0 "ann's job $i $(printf '%0200d' 0)" >/dev/null 2>&1 ||
	    break
done
[ "$(jobs_listed)" -eq 6 ]
ok $? "6 jobs registered with the cookie echoed ($(jobs_listed))"

# A forger's kill of every job of ann: a cookie, nothing ended.
$F kill ann >"$T/kill.out" 2>&1
exit_is $? 0 "a kill request without the cookie is answered"
contains "$T/kill.out" '^request [0-9]+ answer cookie 16$' \
    "a 16-byte cookie, not the rows"
read -r _ req _ _ ans <"$T/kill.out"
# The smallest request's payload is 9 bytes; the cookie, as for LIST,
# is 16, whatever the broker remembers (192 jobs were 17.5 times that).
[ "${ans:-999}" -le 16 ]
ok $? "of 16 bytes for a request of ${req:-?} (${ans:-?})"
[ "$(jobs_listed)" -eq 6 ]
ok $? "and no job was ended ($(jobs_listed) listed)"
"$BIN/CilkKill" -c "$C" -u ann >"$T/ck.out" 2>&1
exit_is $? 0 "CilkKill -u ann echoes the cookie"
[ "$(grep -c "ended" "$T/ck.out")" -eq 6 ]
ok $? "and ends the 6 jobs ($(grep -c "ended" "$T/ck.out") lines say so)"
wait_for 5 test "$(jobs_listed)" -eq 0
ok $? "none is listed any more"
kill -0 "$BROKER"
ok $? "the broker is still running"
finish
