#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# JSON documents for the integration tests (tests/ts/functions.sh: ts_json,
# ts_json_check), instead of a Python snippet per script:
#
#   jsondoc.py get FILE EXPR         print EXPR, a Python expression of d
#                                    (the document): lists, objects,
#                                    booleans and null as JSON, the rest as
#                                    Python prints it
#   jsondoc.py check FILE [ARG...]   run the Python statements on stdin
#                                    with d, args (the ARGs), eq(got, want,
#                                    what) and check(cond, what); print
#                                    every failure, exit 1 if there was one
#
# Exit 2 when FILE is no JSON document or EXPR cannot be evaluated.
import json
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("%s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)


def get(path, expr):
    d = load(path)  # noqa: F841 (EXPR's)
    try:
        v = eval(expr)
    except Exception as e:
        print("%s: %s: %r" % (path, expr, e), file=sys.stderr)
        sys.exit(2)
    print(json.dumps(v) if isinstance(v, (list, dict, bool)) or v is None else v)


def check(path, args):
    bad = []

    def eq(got, want, what):
        if got != want:
            bad.append("%s: expected %r, got %r" % (what, want, got))

    def check(cond, what):
        if not cond:
            bad.append(what)

    env = {"d": load(path), "args": args, "eq": eq, "check": check, "json": json, "sys": sys}
    exec(sys.stdin.read(), env)
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "get":
        get(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3:])
    else:
        print("usage: jsondoc.py get FILE EXPR | jsondoc.py check FILE [ARG...] < STATEMENTS",
              file=sys.stderr)
        sys.exit(2)
