#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Draw lib/roce as a graph of modules and show its cycles and upward calls.

A module is a .c file together with the header of the same name (roce_qp.c
and roce_qp.h are "qp"; rte_roce_port.h is "rte_port"); a header with no .c
is a module of its own. Module A depends on module B when a file of A
#includes a header of B, or calls a function (or uses a macro) whose
definition is in a file of B. Definitions are found by the project's style:
a function's name starts a line ("name(" at column 0) and a macro is a
"#define NAME"; calls are "name(" anywhere else, after comments and strings
are removed. No compiler, no build directory needed.

It prints the strongly connected components of more than one module (each
is a cycle: no order of the files lets them be read bottom-up), then every
edge that goes up the layer table below, with the names that make it, and
a one-line figure to quote:

  devtools/layer-graph.py            # lib/roce, the summary and the details
  devtools/layer-graph.py --summary  # the figure only
  devtools/layer-graph.py --dot      # Graphviz, layers as ranks

Exit status 0 always: it measures, it does not gate.
"""

import argparse
import os
import re
import sys

# Layers, lowest first: a module may use its own layer and those below.
# A module missing here is reported (put it in a layer when it is added).
LAYERS = [
    ("base", ["log", "cksum", "timer", "queue", "tsan", "rte", "rte_stats", "rte_worker",
              "rte_event"]),
    ("packet", ["rte_hdr", "rte_opcode", "opcode", "wr", "rte_pkt", "parse", "build",
                "rte_icrc", "icrc", "rte_gid", "gid", "rte_pcap", "pcap", "rte_mad"]),
    ("port", ["rte_port", "port_priv", "port", "neigh", "icmp", "port_mcast",
              "port_queue", "capture", "rte_pdump", "pdump", "rte_config", "config",
              "eal"]),
    # The device's tables and the objects in them; a doorbell (schedule, hand-off)
    # is the producer side of a lane's ring and belongs here too.
    ("objects", ["rte_verbs", "dev", "pd", "mr", "cq", "srq", "ah", "mcast", "qp", "post",
                 "channel", "event", "transport"]),
    ("engines", ["net", "recv", "req", "resp", "comp", "ud"]),
    ("lane", ["lane", "worker"]),
    ("api", ["verbs", "stats", "telemetry"]),
]

DEF_FN = re.compile(r"^([a-z_]\w*)\(", re.M)
# A prototype or definition at column 0 ("int name(", "struct x *\nname("): no use.
DECL = re.compile(r"^(?:[A-Za-z_][\w ]*[\s*]+)?([a-z_]\w*)\(", re.M)
DEF_MACRO = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
USE = re.compile(r"\b([A-Za-z_]\w*)\b")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def module_of(filename):
    stem = os.path.splitext(os.path.basename(filename))[0]
    if stem.startswith("rte_roce"):
        return "rte" + stem[len("rte_roce"):]
    if stem.startswith("roce_"):
        return stem[len("roce_"):]
    return stem


def strip(text):
    return STRING.sub('""', COMMENT.sub(" ", text))


def read_sources(libdir):
    files = {}
    for name in sorted(os.listdir(libdir)):
        if name.endswith((".c", ".h")):
            with open(os.path.join(libdir, name), encoding="utf-8") as f:
                files[name] = f.read()
    return files


def exported(name, body):
    """Names a file gives others: a .c its non-static functions, a header its
    inline functions and macros."""
    out = set()
    lines = body.split("\n")
    for i, line in enumerate(lines):
        m = DEF_FN.match(line)
        if m is None or line.rstrip().endswith(";"):
            continue
        prev = lines[i - 1] if i > 0 else ""
        if name.endswith(".c") and prev.startswith("static"):
            continue
        out.add(m.group(1))
    if name.endswith(".h"):
        out.update(DEF_MACRO.findall(body))
    return out


def included(files, name, seen=None):
    """Headers name includes, directly or not."""
    seen = set() if seen is None else seen
    for inc in INCLUDE.findall(files[name]):
        if inc in files and inc not in seen:
            seen.add(inc)
            included(files, inc, seen)
    return seen


def build_graph(files):
    """edges[(a, b)] = set of reasons (header names, function names)."""
    bodies = {name: strip(text) for name, text in files.items()}
    global_owner, header_defs = {}, {}
    for name, body in bodies.items():
        for sym in exported(name, body):
            if name.endswith(".c"):
                global_owner[sym] = module_of(name)
            else:
                header_defs.setdefault(name, set()).add(sym)
    edges = {}
    for name, body in bodies.items():
        mod = module_of(name)
        for inc in INCLUDE.findall(files[name]):
            if inc in files and module_of(inc) != mod:
                edges.setdefault((mod, module_of(inc)), set()).add(inc)
        # What this file can see of headers: those it includes; a .c also its own header.
        visible = included(files, name)
        declared = set(DECL.findall(body))
        for sym in set(USE.findall(body)) - declared:
            owners = {module_of(h) for h in visible if sym in header_defs.get(h, ())}
            if not owners and sym in global_owner:
                owners = {global_owner[sym]}
            for dst in owners - {mod}:
                edges.setdefault((mod, dst), set()).add(sym + "()")
    nodes = sorted({module_of(n) for n in files})
    return nodes, edges


def sccs(nodes, edges):
    """Tarjan's strongly connected components, iteratively."""
    succ = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}
    index, low, onstack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter[0]
                counter[0] += 1
                stack.append(v)
                onstack.add(v)
            if i < len(succ[v]):
                work.append((v, i + 1))
                w = succ[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in onstack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    onstack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def layer_index():
    idx = {}
    for i, (_, mods) in enumerate(LAYERS):
        for m in mods:
            idx[m] = i
    return idx


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("libdir", nargs="?",
                    default=os.path.join(os.path.dirname(__file__), "..", "lib", "roce"))
    ap.add_argument("--summary", action="store_true", help="print the figure only")
    ap.add_argument("--dot", action="store_true", help="print a Graphviz graph")
    args = ap.parse_args()

    files = read_sources(args.libdir)
    nodes, edges = build_graph(files)
    layer = layer_index()
    cycles = [c for c in sccs(nodes, edges) if len(c) > 1]
    up = sorted((a, b) for (a, b) in edges
                if a in layer and b in layer and layer[b] > layer[a])
    unplaced = [n for n in nodes if n not in layer]

    if args.dot:
        print("digraph roce {\n  rankdir=BT;")
        for i, (lname, mods) in enumerate(LAYERS):
            present = [m for m in mods if m in nodes]
            print('  subgraph cluster_%d { label="%s"; %s }'
                  % (i, lname, " ".join('"%s";' % m for m in present)))
        for (a, b) in sorted(edges):
            style = ' [color=red]' if (a, b) in up else ""
            print('  "%s" -> "%s"%s;' % (a, b, style))
        print("}")
        return 0

    across = [c for c in cycles if len({layer.get(m) for m in c}) > 1]
    sizes = "+".join(str(len(c)) for c in sorted(across, key=len, reverse=True)) or "0"
    summary = ("lib/roce: %d modules, %d edges; %d cycle(s), %d across layers (%s modules); "
               "%d upward edge(s)" % (len(nodes), len(edges), len(cycles), len(across),
                                      sizes, len(up)))
    if not args.summary:
        for c in sorted(cycles, key=len, reverse=True):
            where = sorted({LAYERS[layer[m]][0] for m in c if m in layer})
            print("cycle (%d, %s): %s" % (len(c), "+".join(where), " ".join(c)))
        for (a, b) in up:
            print("up: %s (%s) -> %s (%s): %s" % (a, LAYERS[layer[a]][0], b, LAYERS[layer[b]][0],
                                                   " ".join(sorted(edges[(a, b)]))))
        for n in unplaced:
            print("unplaced: %s (add it to LAYERS)" % n)
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
