# shellcheck shell=bash
# Helpers shared by the pcap-driven tests.

# empty_pcap FILE: a valid capture with no frames (global header only), for ports whose input
# must stay silent; net_pcap needs an rx file on every port.
empty_pcap() {
	printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$1"
}
