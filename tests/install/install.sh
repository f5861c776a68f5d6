#!/usr/bin/env bash
# What `meson install` puts where, and the service it installs (docs/deploy.md, "Running as a
# service"), into a scratch DESTDIR with prefix /usr as a Debian package would:
#   (a) the binaries, the systemd unit, /etc/default/inswitch, /etc/inswitch/inswitch.conf, the
#       docs and the Wireshark dissector are where a Debian user expects them;
#   (b) systemd-analyze verify accepts the unit (where systemd-analyze exists);
#   (c) the unit's ExecStart, with the installed environment file and config, starts the
#       installed switch, which answers on its control socket; SIGTERM (the unit's KillSignal)
#       stops it with status 0 and its final counters on stdout (the journal)
#   install.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: install.sh SOURCE_DIR}
tmp=$(mktemp -d -t inswitch-install.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp" /var/run/dpdk/isw-install-$$
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	[ -f "$tmp/log" ] && cat "$tmp/log"
	exit 1
}

echo "(a) meson install --destdir, prefix /usr"
meson setup "$tmp/build" "$src" --prefix /usr -Dtests=false >/dev/null ||
	fail "meson setup"
ninja -C "$tmp/build" >/dev/null || fail "build"
DESTDIR=$tmp/root meson install -C "$tmp/build" --no-rebuild --quiet >/dev/null || fail "meson install"
r=$tmp/root
multiarch=$(gcc -print-multiarch)
for f in usr/bin/inswitch usr/bin/inswitch-ctl usr/bin/ask-wordcount usr/bin/inswitch-fabric \
	usr/lib/systemd/system/inswitch.service etc/default/inswitch etc/inswitch/inswitch.conf \
	usr/share/doc/inswitch/README.md usr/share/doc/inswitch/docs/deploy.md \
	usr/share/doc/inswitch/examples/netrpc/allreduce.nrpc \
	"usr/lib/$multiarch/wireshark/plugins/inswitch.lua"; do
	[ -e "$r/$f" ] || fail "/$f not installed"
done
unit=$r/usr/lib/systemd/system/inswitch.service
grep -q '^ExecStart=/usr/bin/inswitch \$INSWITCH_EAL -- ' "$unit" || fail "ExecStart: $(grep ExecStart "$unit")"
grep -q '^EnvironmentFile=-/etc/default/inswitch$' "$unit" || fail "EnvironmentFile"
grep -q '^Restart=on-failure$' "$unit" || fail "no Restart=on-failure"
echo "    /usr/bin, /usr/lib/systemd/system, /etc/default, /etc/inswitch, /usr/share/doc, Wireshark's plugins"

echo "(b) systemd-analyze verify"
if command -v systemd-analyze >/dev/null; then
	# The unit names /usr/bin/inswitch, which is the scratch root's here.
	sed "s|/usr/bin/inswitch|$r/usr/bin/inswitch|; s|-/etc/default|-$r/etc/default|" \
		"$unit" >"$tmp/inswitch.service"
	systemd-analyze verify "$tmp/inswitch.service" >"$tmp/verify" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$tmp/verify")"
	echo "    accepted"
else
	echo "    no systemd-analyze here"
fi

echo "(c) the unit's command, as systemd runs it"
# shellcheck source=/dev/null
. "$r/etc/default/inswitch"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
exec_start=${exec_start//\/usr\/bin\/inswitch/$r/usr/bin/inswitch}
exec_start=${exec_start//\/etc\/inswitch/$r/etc/inswitch}
exec_start=${exec_start//\/run\/inswitch\/ctl.sock/$tmp/ctl.sock}
exec_start=${exec_start//\$INSWITCH_EAL/$INSWITCH_EAL --file-prefix isw-install-$$}
exec_start=${exec_start//\$INSWITCH_OPTS/$INSWITCH_OPTS}
read -ra cmd <<<"$exec_start"
"${cmd[@]}" >"$tmp/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ -S "$tmp/ctl.sock" ] && break
	kill -0 "$pid" 2>/dev/null || fail "the installed inswitch exited"
	sleep 0.1
done
"$r/usr/bin/inswitch-ctl" -s "$tmp/ctl.sock" port list >/dev/null || fail "no answer on the socket"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=""
[ "$rc" = 0 ] || fail "SIGTERM: exit status $rc"
grep -q "final counters" "$tmp/log" || fail "no final counters"
echo "    started from the installed files, answered, stopped on SIGTERM with status 0:"
grep -A3 "final counters" "$tmp/log" | sed 's/^/      /'
echo "PASS"
