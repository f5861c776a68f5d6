#!/usr/bin/env bash
# ask-wordcount's output and work directory (hosts/ask/README.md), on loopback without a switch
# (--switch-ip none), two senders:
#  1. --keep DIR: the job is verified, DIR holds every documented file, stdout names DIR and
#     prints the absorbed fraction and the share off the receiver as two named lines, and
#     nothing prints a MAC or SWITCHPORT placeholder;
#  2. keys: "abcdefgh" (the full 8-byte width) and "abcdefgh" plus a zero byte (a LONG key),
#     a word with a backslash and one with a control byte print as distinct, escaped keys;
#  3. --keep into a directory that is not empty is refused; without --keep the temporary work
#     directory is made under $TMPDIR and removed.
# Usage: test_wordcount.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=${1:?usage: test_wordcount.sh SOURCE_DIR BUILD_DIR} build=${2:?}
wc=$src/hosts/ask/ask-wordcount
command -v ss >/dev/null || { echo "SKIP: ss is not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

{
	for i in $(seq 300); do printf 'the cat sat on the mat %d\n' $((i % 7)); done
	printf 'abcdefgh abcdefgh abcdefgh\0 a\\b a\001b\n'
} >"$T/in.txt"
job() {
	"$wc" --build "$build" --receiver-ns - --receiver-ip 127.0.0.1 --switch-ip none \
		--senders -,- --input "$T/in.txt" --key-bytes 8 --port $((20000 + RANDOM % 12000)) "$@"
}

echo "1. --keep DIR"
job --keep "$T/kept" >"$T/out" 2>"$T/err" || fail "job failed: $(cat "$T/out" "$T/err")"
cat "$T/out"
grep -qx "result verified" "$T/out" || fail "not verified"
grep -qx "work directory: $T/kept" "$T/out" || fail "stdout does not name the kept directory"
grep -q "^absorbed fraction: " "$T/out" || fail "no absorbed fraction line"
grep -q "^off the receiver: " "$T/out" || fail "no 'off the receiver' line"
! grep -qE "MAC|SWITCHPORT" "$T/out" "$T/err" || fail "a placeholder: $(grep -hE "MAC|SWITCHPORT" "$T/out" "$T/err")"
for f in input.txt part.000 part.001 expected.txt result.txt count.json receiver.json \
	receiver.err sender.0.json sender.1.json sender.0.err sender.1.err; do
	[ -f "$T/kept/$f" ] || fail "no $f in the kept directory"
done

echo "2. keys that differ print differently"
for k in 'abcdefgh\t2' 'abcdefgh\\x00\t1' 'a\\\\b\t1' 'a\\x01b\t1' 'cat\t300'; do
	grep -qP "^$k\$" "$T/kept/expected.txt" || fail "no line '$k' in expected.txt: $(tail -6 "$T/kept/expected.txt")"
done
cmp -s "$T/kept/expected.txt" "$T/kept/result.txt" || fail "result.txt differs"

echo "3. --keep into a non-empty directory; \$TMPDIR"
if job --keep "$T/kept" >/dev/null 2>"$T/err"; then fail "--keep into a non-empty directory"; fi
grep -q "not empty" "$T/err" || fail "$(cat "$T/err")"
if TMPDIR=$T/nosuch job >/dev/null 2>&1; then fail "TMPDIR was not used"; fi
mkdir "$T/tmp"
TMPDIR=$T/tmp job >/dev/null 2>&1 || fail "job with TMPDIR=$T/tmp failed"
[ -z "$(ls -A "$T/tmp")" ] || fail "work directory left in \$TMPDIR: $(ls "$T/tmp")"
echo "PASS"
