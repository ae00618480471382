"""MkDocs hooks for the documentation site: the scenario reference is generated from the specs at
build time, `<!-- include: PATH -->` brings in a repository file (benchmarks/README.md), and links
to files outside docs/ (configs, tests, sources) become plain paths."""

from __future__ import annotations

import os
import re
from pathlib import Path

PLACEHOLDER = "<!-- generated: scenario keys -->"
_INCLUDE = re.compile(r"<!-- include: (\S+) -->")
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")
ROOT = Path(__file__).resolve().parents[2]


def _resolve(target: str, page_dir: Path) -> Path | None:
    """The file a relative link points to (None: an address, an anchor, an absolute path)."""
    if re.match(r"^[a-z]+:|^#|^/", target):
        return None
    return (page_dir / target.split("#")[0]).resolve()


def _included(path: Path, page_dir: Path) -> str:
    """A repository file's Markdown, its relative links made relative to the including page."""
    def moved(m: re.Match) -> str:
        target = _resolve(m.group(2), path.parent)
        if target is None:
            return m.group(0)
        anchor = m.group(2)[len(m.group(2).split("#")[0]):]
        return f"[{m.group(1)}]({os.path.relpath(target, page_dir)}{anchor})"

    return _LINK.sub(moved, path.read_text())


def on_page_markdown(markdown: str, page, config, files) -> str:
    if PLACEHOLDER in markdown:
        from cosim.scenario.reference import reference_markdown

        markdown = markdown.replace(PLACEHOLDER, reference_markdown())
    docs = Path(config["docs_dir"]).resolve()
    page_dir = (docs / page.file.src_uri).parent
    markdown = _INCLUDE.sub(lambda m: _included(ROOT / m.group(1), page_dir), markdown)

    def plain(m: re.Match) -> str:
        text, target = m.group(1), m.group(2)
        path = _resolve(target, page_dir)
        if path is None or not path.is_relative_to(ROOT):
            return m.group(0)
        if path.is_relative_to(docs):  # a page, perhaps reached from an included file's own folder
            anchor = target[len(target.split("#")[0]):]
            return f"[{text}]({os.path.relpath(path, page_dir)}{anchor})"
        where = str(path.relative_to(ROOT))
        return text if text.strip("`") == where else f"{text} (`{where}`)"

    return _LINK.sub(plain, markdown)
