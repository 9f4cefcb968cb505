#!/usr/bin/env python3
"""Prints the slowest tests of a ctest JUnit report, and the sum of all their times.

Usage: slowest_tests.py REPORT.xml [COUNT]   (COUNT defaults to 12)
So that a contributor sees where a stage's time goes before its budget runs out.
"""
import sys
import xml.etree.ElementTree as ElementTree


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    count = int(sys.argv[2]) if len(sys.argv) == 3 else 12
    try:
        cases = ElementTree.parse(sys.argv[1]).getroot().iter("testcase")
    except (OSError, ElementTree.ParseError) as error:
        print(f"slowest_tests: cannot read {sys.argv[1]}: {error}", file=sys.stderr)
        return 1
    times = sorted(((float(c.get("time", 0)), c.get("name", "?")) for c in cases), reverse=True)
    total = sum(t for t, _ in times)
    print(f"{len(times)} tests, {total:.0f} s of test time in all; the slowest:")
    for seconds, name in times[:count]:
        print(f"  {seconds:8.1f} s  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
