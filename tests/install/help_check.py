#!/usr/bin/env python3
"""Every option a command accepts is in its --help (docs/deploy.md, "Running as a service").

    help_check.py SOURCE_DIR BUILD_DIR

For each installed command: its --help must exit 0 and name every long option the command
accepts. Which options it accepts is asked of the command itself: for each option-like word
in the project's sources ("--name"), the command is run as `CMD --name 1 --zz-no-such-option`;
getopt (or the script's parser) reads --name first, so a command that does not know it says
"unrecognized option '--name" (or "unknown option --name") and one that does goes on to the
unknown --zz-no-such-option, and both stop before doing anything. inswitch's own options come
after EAL's and "--", so they are probed behind a minimal EAL line.
"""
import glob
import os
import re
import subprocess
import sys

src, build = sys.argv[1], sys.argv[2]
words = set()
for f in glob.glob(src + "/**/*.[ch]", recursive=True) + [src + "/hosts/ask/ask-wordcount",
                                                          src + "/control/inswitch-fabric"]:
    if "/build" in f[len(src):]:
        continue
    words.update(re.findall(r'"--([a-z][a-z0-9-]+)', open(f, errors="replace").read()))
    words.update(re.findall(r'\{"([a-z][a-z0-9-]+)",\s*(?:no|required|optional)_argument',
                            open(f, errors="replace").read()))
    words.update(re.findall(r"^\s*--([a-z][a-z0-9-]+)\)", open(f, errors="replace").read(), re.M))
words.discard("zz-no-such-option")

EAL = ["--no-huge", "-m", "64", "--no-pci", "--no-shconf", "--log-level=*:critical",
       "--file-prefix", "isw-help-%d" % os.getpid()]
cmds = {
    "inswitch": build + "/inswitch",
    "inswitch-ctl": build + "/inswitch-ctl",
    "syncagtr-worker": build + "/hosts/syncagtr/syncagtr-worker",
    "atp-worker": build + "/hosts/atp/atp-worker",
    "atp-ps": build + "/hosts/atp/atp-ps",
    "ask-sender": build + "/hosts/ask/ask-sender",
    "ask-receiver": build + "/hosts/ask/ask-receiver",
    "ask-count": build + "/hosts/ask/ask-count",
    "ask-wordcount": src + "/hosts/ask/ask-wordcount",
    "inswitch-fabric": src + "/control/inswitch-fabric",
}
refused = re.compile(r"(unrecognized|unknown|invalid) option\W*'?--?([a-z][a-z0-9-]*)")


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout + p.stderr


bad = 0
for name, exe in cmds.items():
    rc, helptext = run([exe, "--help"])
    if rc != 0:
        print(f"FAIL: {name} --help exits {rc}")
        bad += 1
        continue
    shown = set(re.findall(r"--([a-z][a-z0-9-]*)", helptext))
    # inswitch: EAL stops at its own unknown options; probe only the application's candidates.
    cands = words if name != "inswitch" else set(re.findall(
        r'\{"([a-z][a-z0-9-]+)",', open(src + "/dataplane/main.c").read()))
    accepted = []
    for w in sorted(cands):
        pre = [exe] + (EAL + ["--"] if name == "inswitch" else [])
        _, out = run(pre + ["--" + w, "1", "--zz-no-such-option"])
        m = refused.search(out)
        if m is None or m.group(2) != w:
            accepted.append(w)  # it stopped on the value, or at --zz-no-such-option
    # getopt_long takes an unambiguous prefix of an option for the option itself.
    missing = [w for w in accepted
               if w not in shown and not any(s.startswith(w) for s in shown)]
    print(f"{name}: --help names {len(accepted)} accepted options"
          + (f"; MISSING {missing}" if missing else ""))
    bad += bool(missing)
sys.exit(1 if bad else 0)
