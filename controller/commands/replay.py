"""`mjtable replay events.jsonl`: rebuild every hand of a log and check it (contracts.md).

Each hand is rebuilt from its events (the trusted fold), compared with the recorded final
view and digest, and its commands are re-applied through the checked engine, which must accept
every one and reach the same state. A malformed log exits 2 naming the line and the field.
"""

from __future__ import annotations

import argparse
import sys
import time

from controller.cli import CommandInputError, emit_json

HELP = "rebuild a hand from its event log and check it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="EVENTS.jsonl|STORE",
                        help="a log written by `mjtable play --log` ('-' for stdin), or a "
                        "table's store")
    parser.add_argument("--card", metavar="FILE", default="",
                        help="the American card the log was played on (default: the bundled "
                             "card)")


def run(args: argparse.Namespace) -> int:
    from engine import events as ev
    from engine.errors import EngineError, MalformedInput
    from engine.game import apply, commands_of, new_hand, public_view, rebuild
    from engine.invariants import InvariantBroken, check
    from engine.record import digest, parse_log

    started = time.perf_counter()
    if args.log != "-" and _is_store(args.log):
        from controller.commands.replay_store import replay_store

        report = replay_store(args.log)
        emit_json(report)
        return 0 if not report["mismatches"] else 1
    try:
        if args.log == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(args.log, encoding="utf-8") as f:
                lines = f.read().splitlines()
    except OSError as exc:
        raise CommandInputError(f"cannot read the log: {exc.strerror}", args.log) from None
    except UnicodeDecodeError:
        raise CommandInputError("the log is not UTF-8 text", args.log) from None
    first = next((line for line in lines if line.strip()), "")
    if '"type":"american/' in first.replace(" ", ""):
        # The American family's log: docs/rules-american.md
        return _replay_american(lines, args.card)
    try:
        hands = parse_log(lines)
    except MalformedInput as exc:
        raise CommandInputError(exc.message, exc.where) from None
    mismatches: list[dict[str, object]] = []
    events = 0
    for logged in hands:
        where = f"hand {logged.hand} (line {logged.first_line})"
        events += len(logged.events)
        try:
            state = rebuild(logged.events)
        except MalformedInput as exc:
            raise CommandInputError(exc.message, f"{where}: {exc.where}") from None
        except (EngineError, KeyError, IndexError, TypeError) as exc:
            mismatches.append({"hand": logged.hand, "problem": f"cannot rebuild: {exc}"})
            continue
        problems = []
        if public_view(state) != logged.final:
            problems.append("the rebuilt public view differs from the recorded one")
        if digest(state) != logged.digest:
            problems.append("the rebuilt state's digest differs from the recorded one")
        try:
            check(state)
        except InvariantBroken as exc:
            problems.append(f"invariant: {exc}")
        started_event = logged.events[0]
        assert isinstance(started_event, ev.HandStarted)
        try:
            again, _ = new_hand(started_event.ruleset, started_event.mode,  # type: ignore[arg-type]
                                wall=started_event.wall, prevailing=started_event.prevailing,
                                hand=started_event.number, players=started_event.players)
            for _, command in commands_of(state.standing):
                apply(again, command)
            if digest(again) != digest(state):
                problems.append("re-applying the commands reaches another state")
        except EngineError as exc:
            problems.append(f"the engine refuses the recorded play: {exc}")
        if problems:
            mismatches.append({"hand": logged.hand, "problems": problems})
    emit_json({
        "hands": len(hands),
        "events": events,
        "matched": len(hands) - len(mismatches),
        "mismatches": mismatches,
        "seconds": round(time.perf_counter() - started, 3),
    })
    return 0 if not mismatches else 1


def _is_store(path: str) -> bool:
    from controller.commands.export import SQLITE_MAGIC

    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False  # the log's own reading says what is wrong


def _replay_american(lines: list[str], card_path: str) -> int:
    from config.cards import card_at
    from engine.american.compiled import CardError
    from engine.american.family import replay
    from engine.errors import MalformedInput

    try:
        card = card_at(card_path)
    except (CardError, OSError) as exc:
        raise CommandInputError(f"the American card does not load: {exc}", "--card") from None
    try:
        report = replay(lines, card)
    except MalformedInput as exc:
        raise CommandInputError(exc.message, exc.where) from None
    emit_json(report)
    return 0 if not report["mismatches"] else 1
