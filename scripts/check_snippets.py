#!/usr/bin/env python3
"""Check that the documentation quotes the examples verbatim.

An example marks a snippet with two lines `//! [name]` (the same line opens and closes it). A document quotes it
with a code block whose first line is `// examples/<file> [<name>]`:
  - Markdown (README.md, docs/**/*.md): a fenced block (```cpp ... ```);
  - headers (include/fold/**/*.cuh, *.h): a Doxygen block `//! @code` ... `//! @endcode` (`//! ` or `//!` is
    stripped from each line).
The rest of the block must equal the lines between the two markers. Both sides lose their common indentation,
trailing whitespace and leading/trailing blank lines; marker lines of other snippets inside a region are dropped.
Errors: a quoted file or snippet that does not exist, a quote that differs, an unterminated snippet or block, a
snippet named twice in one file, and a snippet that no document quotes.

Usage: python3 scripts/check_snippets.py [repo_root]   (exit 0: all good; 1: errors, listed on stderr)
"""
import difflib
import re
import sys
from pathlib import Path

MARKER = re.compile(r"^\s*//!\s*\[([^\]\s]+)\]\s*$")
QUOTE = re.compile(r"^//\s*(examples/[^\s\[\]]+)\s*\[([^\]\s]+)\]\s*$")
FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
CODE = re.compile(r"^\s*//!\s*[@\\]code\b")
ENDCODE = re.compile(r"^\s*//!\s*[@\\]endcode\b")
DOC_LINE = re.compile(r"^\s*//! ?")

errors = []


def normalise(lines):
    """Trailing whitespace, leading/trailing blank lines and the common indentation removed."""
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    indent = min((len(line) - len(line.lstrip()) for line in lines if line), default=0)
    return [line[indent:] for line in lines]


def parse_example(path, rel):
    """{name: (line of the opening marker, lines)} of the snippets in one example."""
    snippets, open_at = {}, {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        match = MARKER.match(line)
        if not match:
            continue
        name = match.group(1)
        if name not in open_at:
            open_at[name] = number
            continue
        start = open_at.pop(name)
        body = [text for text in lines[start:number - 1] if not MARKER.match(text)]
        if name in snippets:
            errors.append(f"{rel}:{start}: snippet [{name}] is defined twice (first at line {snippets[name][0]})")
        else:
            snippets[name] = (start, normalise(body))
    for name, start in open_at.items():
        errors.append(f"{rel}:{start}: snippet [{name}] is never closed (no second `//! [{name}]`)")
    return snippets


def markdown_blocks(lines):
    """(line of the block's first code line, its code lines, whether it is closed) for each fenced block."""
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        i += 1
        if not fence:
            continue
        indent, mark = fence.group(1), fence.group(2)
        start, body = i + 1, []
        closer = re.compile(r"^ {0,3}" + re.escape(mark[0]) + "{" + str(len(mark)) + r",}\s*$")
        while i < len(lines) and not closer.match(lines[i]):
            body.append(re.sub(r"^ {0,%d}" % len(indent), "", lines[i]))  # the fence's indentation
            i += 1
        yield start, body, i < len(lines)
        i += 1


def doxygen_blocks(lines):
    """As markdown_blocks, for `//! @code` ... `//! @endcode` in a header."""
    i = 0
    while i < len(lines):
        i += 1
        if not CODE.match(lines[i - 1]):
            continue
        start, body = i + 1, []
        while i < len(lines) and DOC_LINE.match(lines[i]) and not ENDCODE.match(lines[i]):
            body.append(DOC_LINE.sub("", lines[i], count=1))
            i += 1
        yield start, body, i < len(lines) and ENDCODE.match(lines[i]) is not None


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    examples = {}  # relative path -> snippets, or None when the file does not exist
    if not (root / "README.md").is_file():
        errors.append(f"{root}: no README.md here: is this the repository's root?")

    def snippets_of(rel):
        if rel not in examples:
            path = root / rel
            examples[rel] = parse_example(path, rel) if path.is_file() else None
        return examples[rel]

    for path in sorted((root / "examples").rglob("*")) if (root / "examples").is_dir() else []:
        if path.suffix in (".cu", ".cuh") and path.is_file():
            snippets_of(path.relative_to(root).as_posix())

    documents = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    headers = sorted(p for p in (root / "include" / "fold").rglob("*") if p.suffix in (".cuh", ".h"))
    quoted, checked = set(), 0
    for path, blocks in [(p, markdown_blocks) for p in documents] + [(p, doxygen_blocks) for p in headers]:
        if not path.is_file():
            continue
        doc = path.relative_to(root).as_posix()
        for line, body, closed in blocks(path.read_text(encoding="utf-8").splitlines()):
            first = body[0].strip() if body else ""
            if not first.startswith("// examples/"):
                continue
            where = f"{doc}:{line}"
            match = QUOTE.match(first)
            if not match or ".." in match.group(1).split("/"):
                errors.append(f"{where}: malformed quote `{first}` (expected `// examples/<file> [<name>]`)")
                continue
            if not closed:
                errors.append(f"{where}: the block quoting {first[3:]} is never closed")
                continue
            rel, name = match.groups()
            label = f"{rel} [{name}]"
            checked += 1
            snippets = snippets_of(rel)
            if snippets is None:
                errors.append(f"{where}: {label}: no such file {rel}")
                continue
            if name not in snippets:
                have = ", ".join(sorted(snippets)) or "none"
                errors.append(f"{where}: {label}: {rel} has no snippet [{name}] (it has: {have})")
                continue
            quoted.add((rel, name))
            start, expected = snippets[name]
            actual = normalise(body[1:])
            if actual != expected:
                diff = list(difflib.unified_diff(expected, actual, f"{rel}:{start} [{name}]", where, lineterm="", n=1))
                diff = diff[:30] + ([f"... ({len(diff) - 30} more lines)"] if len(diff) > 30 else [])
                errors.append(f"{where}: {label}: the quote differs from the snippet\n" +
                              "\n".join("    " + d for d in diff))

    for rel, snippets in sorted(examples.items()):
        for name, (start, _) in sorted((snippets or {}).items(), key=lambda item: item[1][0]):
            if (rel, name) not in quoted:
                errors.append(f"{rel}:{start}: snippet [{name}] is quoted by no document")

    for message in errors:
        print(message, file=sys.stderr)
    snippet_count = sum(len(s) for s in examples.values() if s)
    print(f"check_snippets: {checked} quoted blocks checked against {snippet_count} snippets; "
          f"{len(errors)} error{'s' if len(errors) != 1 else ''}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
