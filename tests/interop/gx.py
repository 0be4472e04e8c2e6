#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run a shell snippet in the interop guest over its ttyS1 command channel.

usage: gx.py CTL_SOCKET [-t TIMEOUT] 'shell command ...'   (or '-': read stdin)

The snippet travels base64-encoded, runs under bash in the guest with stdin
from /dev/null and stderr merged into stdout; its output is printed here and
gx.py exits with its exit status (124 on timeout). The channel serves one
command at a time: start long-running guest programs in the background with
their output in a file.
"""
import base64
import re
import secrets
import socket
import sys
import time

MARKER_TAIL = 64  # bytes held back in case they hold the start of the end marker


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    path = args.pop(0)
    timeout = 120.0
    if args[0] == "-t":
        timeout = float(args[1])
        args = args[2:]
    cmd = sys.stdin.read() if args == ["-"] else " ".join(args)
    tok = secrets.token_hex(6)
    b64 = base64.b64encode(cmd.encode()).decode()
    line = (f"echo __B_{tok}; echo {b64} | base64 -d > /tmp/.gx_{tok}.sh; "
            f"bash /tmp/.gx_{tok}.sh </dev/null 2>&1; echo __E_{tok}_$?; "
            f"rm -f /tmp/.gx_{tok}.sh\n")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.settimeout(0.2)
    try:  # whatever a previous, interrupted command left behind
        while s.recv(65536):
            pass
    except socket.timeout:
        pass
    s.sendall(line.encode())
    begin = f"__B_{tok}\n".encode()
    end_re = re.compile(rb"__E_" + tok.encode() + rb"_(\d+)\r?\n")
    buf = b""
    started = False
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        if not chunk:
            break
        buf += chunk
        if not started:
            i = buf.find(begin)
            if i < 0:
                continue
            buf = buf[i + len(begin):]
            started = True
        m = end_re.search(buf)
        if m:
            sys.stdout.write(buf[:m.start()].decode(errors="replace"))
            return int(m.group(1))
        if len(buf) > MARKER_TAIL:
            sys.stdout.write(buf[:-MARKER_TAIL].decode(errors="replace"))
            sys.stdout.flush()
            buf = buf[-MARKER_TAIL:]
    sys.stdout.write(buf.decode(errors="replace"))
    sys.stderr.write(f"gx: no answer from the guest within {timeout} s\n")
    return 124


if __name__ == "__main__":
    sys.exit(main())
