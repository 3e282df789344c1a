"""check: the memories a change touches, for review in CI, a pre-commit hook or by hand; exit 1
when it changes guarded code unconfirmed or removes a pinned memory's file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from recall.cli.context import CommandContext
from recall.lifecycle.diff_check import Changed, CheckReport, Finding, check


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``check`` to the CLI."""
    p = sub.add_parser(
        "check",
        help="list the memories a change touches; exit 1 if it changes guarded code unconfirmed "
        "or deletes or moves a pinned memory's file",
        description="Hold a change against the memories of the files it touches. Without "
        "--base or --staged, the change is what is not committed yet.",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--base",
        metavar="REF",
        help="check the commits since REF (REF...HEAD), e.g. origin/main in a pull request",
    )
    which.add_argument(
        "--staged", action="store_true", help="check what is staged (for a pre-commit hook)"
    )
    p.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="github: workflow annotations on the changed lines (errors for failures)",
    )
    p.set_defaults(func=run_check)


def run_check(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Report what the change asks to review; 1 when it fails."""
    store = ctx.project()
    report = check(store, args.base, staged=args.staged)
    if ctx.json:
        ctx.emit(_data(report))
    elif args.format == "github":
        sys.stdout.write("".join(_annotation(f, c) for f in report.findings for c in f.changed))
        sys.stdout.write(_summary_line(report) + "\n")
    else:
        ctx.emit(_data(report), lambda c: _print(c, report))
    return 1 if report.failed else 0


def _data(report: CheckReport) -> dict[str, Any]:
    return {
        "against": report.against,
        "changed_files": len(report.changed),
        "ok": not report.failed,
        "memories": [
            {
                "id": f.memory.id,
                "category": f.memory.category,
                "summary": f.memory.summary,
                "pinned": f.memory.pinned,
                "guard": f.memory.guard,
                "changed": [
                    {
                        "path": c.path,
                        "status": c.status,
                        "renamed_to": c.renamed_to,
                        "lines": [list(r) for r in c.lines],
                    }
                    for c in f.changed
                ],
                "failures": f.failures,
            }
            for f in report.findings
        ],
    }


def _summary_line(report: CheckReport) -> str:
    failed = len(report.failed)
    noun = "memory" if len(report.findings) == 1 else "memories"
    head = (
        f"Tether check of {report.against}: {len(report.findings)} {noun} to review "
        f"for {len(report.changed)} changed files"
    )
    return head + (f"; {failed} failing" if failed else "")


def _lines(item: Changed) -> str:
    if item.status == "D":
        return "deleted"
    if item.status == "R":
        return f"renamed to {item.renamed_to}"
    spans = [f"{a}" if a == b else f"{a}-{b}" for a, b in item.lines[:4]]
    more = ", …" if len(item.lines) > 4 else ""
    return f"lines {', '.join(spans)}{more}" if spans else "changed"


def _print(console: Any, report: CheckReport) -> None:
    console.print(_summary_line(report), highlight=False, markup=False)
    for finding in report.findings:
        memory = finding.memory
        marks = ("pinned " if memory.pinned else "") + ("guarded " if memory.guard else "")
        where = "; ".join(f"{c.path} ({_lines(c)})" for c in finding.changed)
        console.print(
            f"  {marks}{memory.category} {memory.id} — {memory.summary} · {where}",
            highlight=False,
            markup=False,
        )
        for failure in finding.failures:
            console.print(f"    FAIL: {failure}", highlight=False, markup=False)


def _escape(text: str, *, prop: bool = False) -> str:
    """GitHub workflow-command escaping (properties also escape ``:`` and ``,``)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _annotation(finding: Finding, item: Changed) -> str:
    memory = finding.memory
    level = "error" if finding.failures else "warning" if memory.guard else "notice"
    path = item.renamed_to if item.status == "R" and item.renamed_to else item.path
    props = [f"file={_escape(path, prop=True)}"]
    if item.lines and item.status != "D":
        start, end = item.lines[0]
        props += [f"line={start}", f"endLine={end}"]
    title = _escape(f"Tether {memory.category} {memory.id}", prop=True)
    text = memory.summary
    if finding.failures:
        text += " — " + " ".join(finding.failures)
    return f"::{level} {','.join(props)},title={title}::{_escape(text)}\n"
