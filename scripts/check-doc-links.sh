#!/bin/bash
# scripts/check-doc-links.sh — every relative link in the project's documents resolves.
#
# Reads README.md, ARCHITECTURE.md and docs/*.md (or the Markdown files given as arguments, relative to the
# repository root). For each inline link [text](target) or reference definition [label]: target outside
# code blocks and code spans, with no URL scheme (http:, mailto:, ...):
#   - the target's path, relative to the linking file, must exist (file or directory);
#   - a #anchor must name a heading of the target Markdown file (or of the linking file itself for a bare
#     #anchor), slugged as GitHub does: lower case, punctuation dropped, spaces to '-', repeats -1, -2...
# Prints one line per broken link (FILE:LINE: target: why) and exits 1 when there is any; exits 0 and
# prints a one-line count otherwise. Needs bash and python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."

exec python3 - "$@" <<'PY'
import glob
import os
import re
import sys
import urllib.parse

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ID = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def lines_outside_code(text):
    """(line number, line) for every line outside fenced code blocks, code spans blanked."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield number, CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fence = None
        for line in text.splitlines():
            m = FENCE.match(line)
            if m:
                fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
                continue
            if fence is not None:
                continue
            found.update(HTML_ID.findall(line))
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        anchor_cache[path] = found
    return anchor_cache[path]


def targets(line):
    for m in INLINE_LINK.finditer(line):
        yield m.group(1)
    m = REF_DEF.match(line)
    if m:
        yield m.group(1)


files = sys.argv[1:] or ["README.md", "ARCHITECTURE.md"] + sorted(glob.glob("docs/*.md"))
broken = []
checked = 0
for doc in files:
    if not os.path.isfile(doc):
        broken.append(f"{doc}: no such document")
        continue
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    for number, line in lines_outside_code(text):
        for target in targets(line):
            target = target.strip("<>")
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            checked += 1
            path, _, anchor = target.partition("#")
            path = urllib.parse.unquote(path)
            resolved = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            where = f"{doc}:{number}: {target}"
            if not os.path.exists(resolved):
                broken.append(f"{where}: no such file {resolved}")
                continue
            if anchor:
                if os.path.isdir(resolved) or not resolved.endswith(".md"):
                    broken.append(f"{where}: an anchor into {resolved}, which is not a Markdown file")
                elif urllib.parse.unquote(anchor) not in anchors(resolved):
                    broken.append(f"{where}: no heading '#{anchor}' in {resolved}")

for line in broken:
    print(line)
if broken:
    print(f"check-doc-links: {len(broken)} broken link(s) in {len(files)} document(s)", file=sys.stderr)
    sys.exit(1)
print(f"check-doc-links: {checked} relative links in {len(files)} documents resolve")
PY
