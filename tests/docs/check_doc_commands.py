#!/usr/bin/env python3
"""Runs every command a doc shows and checks its exit status and shown output.

The format (docs/CONTRIBUTING.md, "Commands in the docs"):
  - commands are shown only in fenced blocks tagged `console`, one per `$ ` line;
  - the lines under a command, up to the next `$ ` line, are its expected output:
    `...` alone matches any number of lines, and a line ending in ` ...` matches
    any line starting with what comes before it; trailing spaces are ignored;
  - the status must be 0 unless the last expected line is `[exit N]` (bash with
    pipefail: a pipeline fails when any of its commands does);
  - stdout is compared (a doc shows stderr with 2>&1), stderr shown when one fails;
  - `console needs=gpu|cluster|display|suite` blocks are linted, not run, and so
    are `console record` blocks (docs/measurements/ and docs/device-runs/ only);
  - every other fenced block names its language, no block is indented, and no
    line outside a console block looks like a command;
  - no prose line over 200 characters (tables and code excepted).

Usage: check_doc_commands.py [--lint] [--bin DIR] FILE.md...
Exit status: 0 when every command passed, 1 when one failed, 2 on bad usage.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from markdown_it import MarkdownIt
from dataclasses import dataclass, field

NEEDS = {"gpu", "cluster", "display", "suite"}
RECORDS = re.compile(r"(^|/)docs/(measurements|device-runs)/")
# A line in a block that is not a console block, or in prose, that reads as a
# command someone would type: a prompt, or one of the project's programs and
# scripts (after variables, env, sudo, cd ... &&, ./).
PROMPT = re.compile(r"^\s*\$ \S")
COMMAND_LOOKING = re.compile(
    r"^\s*(?:[$%] )?(?:sudo |env )?(?:[A-Za-z_][A-Za-z0-9_]*=\S* )*(?:cd \S+ && )?(?:bash |sh |python3? )?(?:\./)?"
    r"(?:lego(?:-studio|-worker)?\b|scripts/|build/|tests/docs/|xvfb-run\b|ctest\b|cmake\b|\$ )")
SHELLS = {"sh", "bash", "shell", "shell-session", "zsh", "console-session", "sh-session", "ps1", "powershell", "fish"}
MAX_PROSE = 200
DEFAULT_TIMEOUT = 120
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COPIED = ("projects", os.path.join("tests", "data"))


@dataclass
class Command:
    line: int
    text: str
    expected: list = field(default_factory=list)
    status: int = 0


@dataclass
class Block:
    line: int
    needs: str = ""
    timeout: int = DEFAULT_TIMEOUT
    commands: list = field(default_factory=list)


class DocError(Exception):
    pass


def parse_console(start, body, attrs, errors, path):
    block = Block(line=start)
    for attr in attrs:
        key, _, value = attr.partition("=")
        if key == "needs" and value in NEEDS:
            block.needs = value
        elif key == "record" and not value:
            # A measurement as it was run (minutes long, on a quiet machine):
            # history, whose figures no rerun here would reproduce.
            if not RECORDS.search(path.replace(os.sep, "/")):
                errors.append(f"{path}:{start}: `console record` belongs in docs/measurements/ or docs/device-runs/ only")
            block.needs = "record"
        elif key == "timeout" and value.isdigit():
            block.timeout = int(value)
        else:
            errors.append(f"{path}:{start}: unknown console attribute '{attr}' "
                          f"(known: needs={'|'.join(sorted(NEEDS))}, record, timeout=SECONDS)")
    current = None
    continuing = False
    for offset, raw in enumerate(body):
        number = start + 1 + offset
        line = raw.rstrip()
        if continuing:
            current.text += "\n" + line
            continuing = line.endswith("\\")
        elif line.startswith("$ "):
            current = Command(line=number, text=line[2:])
            block.commands.append(current)
            continuing = line.endswith("\\")
        elif current is None:
            if line:
                errors.append(f"{path}:{number}: a console block's first line must be a `$ ` command")
        else:
            current.expected.append(line)
    for command in block.commands:
        if re.search(r"\|\s*head\b", command.text):
            # Under pipefail the writer of a pipe that head closed early ends with SIGPIPE (141), now and then.
            errors.append(f"{path}:{command.line}: `| head` can end the command with SIGPIPE under pipefail; use `| sed -n 1,Np`")
        while command.expected and not command.expected[-1]:
            command.expected.pop()
        if command.expected:
            match = re.fullmatch(r"\[exit (\d+)\]", command.expected[-1])
            if match:
                command.status = int(match.group(1))
                command.expected.pop()
    if not block.commands:
        errors.append(f"{path}:{start}: a console block with no `$ ` command")
    return block


def parse(path):
    """The console blocks of a Markdown file, and its format errors, as CommonMark reads it
    (markdown-it): a block quote's fence, a list item's indented code and an HTML <pre> are
    code blocks like any other."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    blocks, errors = [], []
    code_lines = set()
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        if not token.map:
            continue
        first = token.map[0] + 1  # 1-based line of the block's first line
        if token.type in ("fence", "code_block", "html_block"):
            code_lines.update(range(token.map[0], token.map[1]))
        if token.type == "code_block":
            errors.append(f"{path}:{first}: an indented code block; use a fenced block that names its language")
        elif token.type == "html_block" and re.search(r"<(pre|code|samp|kbd)\b", token.content, re.I):
            errors.append(f"{path}:{first}: code in HTML; show it in a fenced block that names its language")
        elif token.type == "fence":
            body = token.content.split("\n")
            if body and body[-1] == "":
                body.pop()
            words = token.info.split()
            language = words[0].lower() if words else ""
            if not words:
                errors.append(f"{path}:{first}: a code block must name its language (console, text, json, ...)")
            elif words[0] == "console":
                blocks.append(parse_console(first, body, words[1:], errors, path))
            elif language in SHELLS:
                errors.append(f"{path}:{first}: commands go in a `console` block with `$ ` lines, not `{words[0]}`")
            else:
                for offset, b in enumerate(body):
                    if COMMAND_LOOKING.match(b):
                        errors.append(f"{path}:{first + 1 + offset}: a command outside a console block: {b.strip()[:80]}")
        elif token.type == "inline":
            for offset, line in enumerate(token.content.split("\n")):
                # In prose, a prompt, or a program of ours with options.
                if PROMPT.match(line) or (COMMAND_LOOKING.match(line) and re.search(r" --?[A-Za-z]", line)):
                    errors.append(f"{path}:{first + offset}: a command outside a console block: {line.strip()[:80]}")
    for number, line in enumerate(lines):
        if number in code_lines or line.lstrip().startswith("|"):
            continue
        if len(line) > MAX_PROSE:
            errors.append(f"{path}:{number + 1}: a line of {len(line)} characters (at most {MAX_PROSE} outside tables and code)")
    return blocks, errors


def output_matches(expected, actual):
    """Whether actual lines match expected lines, `...` standing for any lines."""
    def line_matches(pattern, line):
        if pattern.endswith(" ...") and pattern != "...":
            return line.startswith(pattern[:-4])
        return pattern == line

    memo = {}

    def match(e, a):
        key = (e, a)
        if key in memo:
            return memo[key]
        if e == len(expected):
            result = a == len(actual)
        elif expected[e] == "...":
            result = any(match(e + 1, k) for k in range(a, len(actual) + 1))
        else:
            result = a < len(actual) and line_matches(expected[e], actual[a]) and match(e + 1, a + 1)
        memo[key] = result
        return result

    sys.setrecursionlimit(max(10000, 4 * (len(expected) + len(actual))))
    return match(0, 0)


def scratch_folder(bin_dir):
    """A folder that looks like the checkout: projects/ and tests/data copied, the rest linked."""
    root = tempfile.mkdtemp(prefix="lego-doc-")
    for name in os.listdir(REPO):
        if name in (".git", "projects", "tests"):
            continue
        os.symlink(os.path.join(REPO, name), os.path.join(root, name))
    os.makedirs(os.path.join(root, "tests"))
    for name in os.listdir(os.path.join(REPO, "tests")):
        if name != "data":
            os.symlink(os.path.join(REPO, "tests", name), os.path.join(root, "tests", name))
    for copied in COPIED:
        shutil.copytree(os.path.join(REPO, copied), os.path.join(root, copied), symlinks=True)
    home = os.path.join(root, ".home")
    os.makedirs(home)
    env = dict(os.environ)
    env.update(PATH=bin_dir + os.pathsep + env.get("PATH", ""), HOME=home,
               XDG_CACHE_HOME=os.path.join(home, ".cache"), XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_DATA_HOME=os.path.join(home, ".local", "share"), COLUMNS="100", LC_ALL="C.UTF-8")
    for unset in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        env.pop(unset, None)
    return root, env


def run_commands(path, blocks, bin_dir):
    failures = 0
    root, env = scratch_folder(bin_dir)
    try:
        for block in blocks:
            if block.needs:
                continue
            for command in block.commands:
                where = f"{path}:{command.line}"
                started = time.monotonic()
                try:
                    done = subprocess.run(["bash", "-o", "pipefail", "-c", command.text], cwd=root, env=env, capture_output=True,
                                          text=True, errors="replace", timeout=block.timeout, stdin=subprocess.DEVNULL)
                except subprocess.TimeoutExpired:
                    print(f"FAIL {where}: `{command.text}` ran past {block.timeout} s")
                    failures += 1
                    continue
                actual = [a.rstrip() for a in done.stdout.rstrip("\n").split("\n")] if done.stdout else []
                problems = []
                if done.returncode != command.status:
                    problems.append(f"exit status {done.returncode}, the doc says {command.status}")
                if command.expected and not output_matches([e.rstrip() for e in command.expected], actual):
                    problems.append("its output differs from the doc's")
                if problems:
                    failures += 1
                    print(f"FAIL {where}: `{command.text}`: " + "; ".join(problems))
                    print("  the doc shows:\n    " + "\n    ".join(command.expected or ["(output not shown)"]))
                    print("  it printed:\n    " + "\n    ".join(actual[:60] or ["(nothing)"]))
                    if done.stderr.strip():
                        print("  stderr:\n    " + "\n    ".join(done.stderr.rstrip().split("\n")[-20:]))
                else:
                    seconds = time.monotonic() - started
                    print(f"ok   {where} ({seconds:.1f} s): {command.text.splitlines()[0][:100]}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", metavar="FILE.md")
    parser.add_argument("--lint", action="store_true", help="check the format only; run nothing")
    parser.add_argument("--bin", default=os.path.join(REPO, "build", "release", "bin"),
                        help="the folder of lego, lego-worker and lego-studio (default: build/release/bin)")
    args = parser.parse_args()
    failures = 0
    for path in args.files:
        if not os.path.isfile(path):
            print(f"{path}: no such file", file=sys.stderr)
            return 2
        blocks, errors = parse(path)
        for error in errors:
            print(f"FAIL {error}")
        failures += len(errors)
        shown = sum(len(b.commands) for b in blocks)
        marked = sum(len(b.commands) for b in blocks if b.needs)
        if not args.lint and not errors:
            failures += run_commands(path, blocks, os.path.abspath(args.bin))
        print(f"{path}: {shown} command(s), {marked} marked (a GPU, a cluster, a display, the suite, or a record)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
