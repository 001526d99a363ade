#!/bin/bash
# CilkKey: generating, showing, publishing and rotating keys; refusing to
# overwrite keys or to read secrets that others can read.
. "$(dirname "$0")/lib.sh"
K=$BIN/CilkKey

"$K" -h >"$T/h.out" 2>&1
exit_is $? 0 "-h answers with usage"
contains "$T/h.out" "generate-cluster" "usage names the commands"
"$K" frobnicate x >/dev/null 2>&1
exit_is $? 2 "an unknown command is a usage error"
"$K" >/dev/null 2>&1
exit_is $? 2 "no command is a usage error"

"$K" generate-cluster "$T/cluster.key" >"$T/gen.out" 2>&1
exit_is $? 0 "generate-cluster"
[ "$(stat -c %a "$T/cluster.key")" = 600 ]
ok $? "the cluster key is mode 0600"
[ "$(stat -c %a "$T/cluster.pub")" = 644 ]
ok $? "its public half cluster.pub is mode 0644"
contains "$T/cluster.pub" '^cluster-pub [0-9a-f]{8} [A-Za-z0-9+/=]{44}$' \
    "cluster.pub holds one public key line"
if grep -q "$(grep -v '^#' "$T/cluster.key" | awk '{print $3}')" \
    "$T/cluster.pub"; then ok 1 "no secret in cluster.pub"
else ok 0 "no secret in cluster.pub"; fi

before=$(md5sum <"$T/cluster.key")
"$K" generate-cluster "$T/cluster.key" >"$T/again.out" 2>&1
exit_is $? 1 "refuses to overwrite a key without -F"
contains "$T/again.out" "not overwriting" "and says why"
[ "$before" = "$(md5sum <"$T/cluster.key")" ]
ok $? "the existing key is untouched"
"$K" -F generate-cluster "$T/cluster.key" >/dev/null 2>&1
exit_is $? 0 "-F overwrites"

"$K" show "$T/cluster.key" >"$T/show.out"
contains "$T/show.out" '^current +cluster-key +- +id [0-9a-f]{8} +fingerprint ([0-9a-f]{4}:){7}[0-9a-f]{4}$' \
    "show prints type, id and fingerprint"
id=$(awk '{print $5}' "$T/show.out")
"$K" show "$T/cluster.pub" >"$T/showpub.out"
contains "$T/showpub.out" "id $id" "the public half has the same id"

"$K" generate-user -u ann "$T/u/ann.id" >"$T/user.out" 2>&1
exit_is $? 0 "generate-user -u ann FILE"
[ "$(stat -c %a "$T/u")" = 700 ] && [ "$(stat -c %a "$T/u/ann.id")" = 600 ]
ok $? "user key 0600 in a 0700 folder"
contains "$T/user.out" '^user-pub ann [0-9a-f]{8} ' \
    "prints the line for /etc/cilknow/users/ann.pub"
"$K" public "$T/u/ann.id" >"$T/ann.pub"
contains "$T/ann.pub" '^user-pub ann ' "public prints the user's public key"
"$K" generate-user -u 'Bad/Name' "$T/x.id" >/dev/null 2>&1
exit_is $? 2 "refuses an invalid user name"
mkdir "$T/home"
HOME=$T/home "$K" generate-user -u ann >/dev/null 2>&1
[ -f "$T/home/.cilknow/id" ] && [ "$(stat -c %a "$T/home/.cilknow/id")" = 600 ]
ok $? "default location is ~/.cilknow/id"

chmod 640 "$T/u/ann.id"
"$K" show "$T/u/ann.id" >"$T/perm.out" 2>&1
exit_is $? 1 "refuses a secret key readable by the group"
contains "$T/perm.out" "chmod 600" "and says how to fix it"
chmod 600 "$T/u/ann.id"

"$K" rotate "$T/cluster.key" >"$T/rot.out" 2>&1
exit_is $? 0 "rotate"
contains "$T/rot.out" "^previous +cluster-key +- +id $id" \
    "the old key stays as the previous one"
[ "$(grep -c '^cluster-pub' "$T/cluster.pub")" -eq 2 ]
ok $? "cluster.pub carries both public keys after rotation"
"$K" rotate "$T/cluster.key" >/dev/null 2>&1
[ "$(grep -c '^cluster-key' "$T/cluster.key")" -eq 2 ]
ok $? "a second rotation keeps two keys, not three"

"$K" --json show "$T/cluster.key" >"$T/json.out"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]==1 and len(d["keys"])==2 and d["keys"][0]["role"]=="current"' "$T/json.out"
ok $? "--json show is one JSON document"

printf 'cluster-key 00000000 AAAA\n' >"$T/bad.key"; chmod 600 "$T/bad.key"
"$K" show "$T/bad.key" >"$T/bad.out" 2>&1
exit_is $? 1 "a corrupt key file is refused"
contains "$T/bad.out" "bad.key:1:" "with file and line"
finish
