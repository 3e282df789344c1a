"""warm: start, ask after or stop the project's warm engine (:mod:`recall.warm`)."""

from __future__ import annotations

import argparse
from typing import Any

from recall.cli.context import CommandContext
from recall.errors import EXIT_FAILURE, EXIT_NOT_FOUND, EXIT_OK, BadInput, NotFound, TetherError


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``warm`` to the CLI."""
    p = sub.add_parser(
        "warm",
        help="keep an engine loaded for this project so agent hooks answer quickly",
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument("--status", action="store_true", help="whether it runs, and its counts")
    what.add_argument("--stop", action="store_true", help="stop this project's engine")
    p.set_defaults(func=run_warm)


def _root(ctx: CommandContext) -> str:
    from recall.locations import InGitFolder, NoProject

    try:
        store = ctx.project()
    except InGitFolder:
        raise  # a wrong place to run, exit 2, as every command says it
    except NoProject as error:  # warm's own codes: no store here is exit 1, as before init
        raise NotFound(str(error)) from None
    if not store.exists or store.repo_root is None:
        raise NotFound(
            f"no {store.location.base.name}/ in {store.repo_root} yet: "
            "`tether init` sets this repository up"
        )
    return str(store.repo_root)


def run_warm(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Start the engine (or say it runs), show its status, or stop it.

    Exit codes: 0 running (or stopped, with --stop); 1 not running (--status, --stop), or no
    project store here; 2 ``TETHER_WARM=0``; 3 it could not be started or its folder is not
    safe."""
    from recall.warm import control, protocol

    root = _root(ctx)
    try:
        if args.status:
            status = control.ask(root, "status")
            _show(ctx, "running" if status else "not running", root, status)
            return EXIT_OK if status else EXIT_NOT_FOUND
        if args.stop:
            status = control.stop(root)
            _show(ctx, "stopped" if status else "not running", root, status)
            return EXIT_OK if status else EXIT_NOT_FOUND
        if protocol.disabled():
            raise BadInput("TETHER_WARM=0 turns the warm engine off; unset it to start one")
        started, status = control.start(root)
    except control.WarmError as error:
        raise TetherError(str(error)) from None
    except control.StartFailed as error:
        return _failed(ctx, root, str(error))
    if status is None:
        wait = control.START_WAIT_S
        why = f"the warm engine did not start, or did not answer within {wait:.0f} s"
        return _failed(ctx, root, why)
    _show(ctx, "started" if started else "already running", root, status)
    return EXIT_OK


def _failed(ctx: CommandContext, root: str, why: str) -> int:
    """Say the engine did not start (``why``, on stderr); the exit code."""
    ctx.emit({"state": "failed", "root": root, "running": False}, lambda _console: None)
    ctx.notice(why)
    return EXIT_FAILURE


def _show(ctx: CommandContext, state: str, root: str, status: dict[str, Any] | None) -> None:
    data: dict[str, Any] = {"state": state, "root": root, "running": state != "stopped"}
    if status is None:
        data["running"] = False
    else:
        keys = ("pid", "requests", "declined", "idle_s", "idle_limit_s", "uptime_s")
        keys += ("folder_checks", "engine_reused")
        data.update({key: status.get(key) for key in keys})

    def render(console: Any) -> None:
        line = f"warm engine {state} for {root}"
        if status is not None:
            line += (
                f" (pid {status.get('pid')}, {status.get('requests')} requests served, "
                f"{status.get('engine_reused')} by its kept recall engine, "
                f"idle {status.get('idle_s')} s of {status.get('idle_limit_s')} s)"
            )
            checks = status.get("folder_checks")
            if isinstance(checks, dict) and checks.get("watched"):
                line += (
                    f"; memory folders watched: {checks.get('skipped')} checks skipped, "
                    f"{checks.get('full')} made in full"
                )
            elif isinstance(checks, dict):
                line += "; memory folders not watched: every request checks their files"
        console.print(line, markup=False, highlight=False)

    ctx.emit(data, render)
