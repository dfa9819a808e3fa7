"""The table's input surfaces, each with a grammar-based case generator and a checker.

A case is bytes (what a person, a script or a wire could hand the surface). ``Surface.check``
runs one case and returns its outcome, ``"ok"`` or ``"refused"``; a traceback, a broken
contract (exit code, not one JSON answer, an answer without ``error`` and ``where``) or an
answer from a last-resort guard raises :class:`Finding`. The suite runs a bounded number of
cases (tests/faults/test_fuzz.py), the benchmark 10,000 a surface (bench/faults/fuzz.py), and
every case that ever found something is kept in tests/faults/corpus/<surface>/ and run again.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "corpus"

TOKENS = [f"{n}{s}" for s in "BCD" for n in range(1, 10)] + [
    "EW", "SW", "WW", "NW", "RD", "GD", "WD", "F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4",
    "F", "J"]
BAD_TOKENS = ["0B", "10C", "XX", "", " ", "5b", "ew", "J1", "\u0000", "🀄", "1B1B"]
SEATS = ["E", "S", "W", "N"]


class Finding(AssertionError):
    """A case the surface did not answer as its contract says."""


# -- random JSON and mutations --------------------------------------------------------------

def odd_value(rng: random.Random, depth: int = 0) -> Any:
    """A value of any JSON type, favouring the ones that once broke a reader."""
    choice = rng.randrange(14)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 1, 2**31, -(2**63), 10**rng.randrange(1, 40)])
    if choice == 3:
        return rng.choice([0.5, -0.0, 1e308, 1e-320, 3.0])
    if choice == 4:
        return rng.choice(TOKENS + BAD_TOKENS)
    if choice == 5:
        return "".join(chr(rng.randrange(0, 0x3000)) for _ in range(rng.randrange(0, 12)))
    if choice == 6 and depth < 4:
        return [odd_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if choice == 7 and depth < 4:
        return {rng.choice(SEATS + ["tiles", "x", ""]): odd_value(rng, depth + 1)
                for _ in range(rng.randrange(0, 3))}
    if choice == 8:
        return rng.choice(SEATS)
    if choice == 9:
        return [rng.choice(TOKENS) for _ in range(rng.randrange(0, 18))]
    return rng.choice(TOKENS)


def mutate_tree(rng: random.Random, node: Any, rate: float = 0.15) -> Any:
    """Replace, drop or keep each node of a JSON tree."""
    if rng.random() < rate:
        return odd_value(rng)
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if rng.random() < rate / 2:
                continue
            out[key] = mutate_tree(rng, value, rate)
        if rng.random() < rate / 2:
            out[rng.choice(["extra", "tiles", "faults", "win", "at"])] = odd_value(rng)
        return out
    if isinstance(node, list):
        return [mutate_tree(rng, v, rate) for v in node if rng.random() > rate / 3]
    return node


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """A byte-level fault: truncation, a flipped bit, a spliced oddity."""
    if not data:
        return data
    kind = rng.randrange(6)
    at = rng.randrange(len(data))
    if kind == 0:
        return data[:at]
    if kind == 1:
        return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]
    if kind == 2:
        depth = rng.choice([40, 1000, 100_000])
        return data[:at] + b"[" * depth + b"]" * depth + data[at:]
    if kind == 3:
        return data[:at] + b"9" * rng.choice([33, 5000]) + data[at:]
    if kind == 4:
        return data[:at] + rng.choice([b"\xff", b"\x00", b"NaN", b"1e400", b'"', b"\n"]) + data[at:]
    return data + data[: rng.randrange(len(data))]


# -- running the command line in-process ------------------------------------------------------

def run_cli(argv: list[str]) -> tuple[int, list[Any]]:
    """``mjtable ARGV`` in this process: the exit code and each stdout line as JSON."""
    from controller import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except Exception as exc:  # a traceback is what the contract forbids
            raise Finding(f"mjtable {argv[0]} raised {type(exc).__name__}: {exc}"[:300]) from exc
    lines = out.getvalue().splitlines()
    try:
        answers = [json.loads(line) for line in lines]
    except json.JSONDecodeError as exc:
        raise Finding(f"mjtable {argv[0]} printed a line that is not JSON: {exc}") from exc
    return code, answers


def _contract(code: int, answers: list[Any], expected: int = 1) -> str:
    if code not in (0, 2):
        raise Finding(f"exit code {code}")
    if code == 2:
        if len(answers) != 1:
            raise Finding(f"exit 2 with {len(answers)} answers")
    elif len(answers) != expected:
        raise Finding(f"{len(answers)} answers to {expected} inputs")
    results = 0  # answers that are not refusals
    for answer in answers:
        if not isinstance(answer, dict):
            raise Finding("an answer that is not an object")
        if "error" not in answer:
            results += 1
        else:
            if not isinstance(answer.get("where"), str) or not answer["error"]:
                raise Finding(f"an error without where: {answer}")
            if "could not be read (" in answer["error"]:
                raise Finding(f"caught only by the last guard: {answer['error']}")
    return "ok" if results and code == 0 else "refused"


# -- the surfaces ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Surface:
    name: str
    generate: Callable[[random.Random], bytes]
    check: Callable[[bytes, Path], str]


def _hand(rng: random.Random) -> dict[str, Any]:
    def meld() -> dict[str, Any]:
        tile = rng.choice(TOKENS[:34])
        return {"tiles": [tile] * rng.choice([3, 3, 4]), "exposed": rng.random() < 0.8}

    hands = {}
    for seat in rng.sample(SEATS, rng.randrange(0, 5)):
        melds = [meld() for _ in range(rng.randrange(0, 4))]
        hands[seat] = {"melds": melds,
                       "concealed": [rng.choice(TOKENS[:34])
                                     for _ in range(14 - 3 * len(melds))],
                       "flowers": rng.sample(["F1", "F2", "S3"], rng.randrange(0, 3))}
    winner = rng.choice([*hands, None]) if hands else None
    return {
        "ruleset": rng.choice(["code1924/mixed", "code1924/one-double", "code1924/cleared",
                               "pungchow", "pungchow/limit", "classical", "classical/dmjl",
                               "classical/bmja", "american", "nope"]),
        "options": rng.choice([{}, {"limit": rng.choice([None, 500, "abc", -1])}]),
        "prevailing_wind": rng.choice(SEATS),
        "hands": hands,
        "winner": winner,
        "win": None if winner is None else {
            "tile": rng.choice(TOKENS[:34]), "by": rng.choice(["wall", "discard", "loose_tile",
                                                               "robbed_kong", "x"]),
            "from": rng.choice([None, *SEATS]),
            "context": rng.sample(["last_tile", "heaven", "kong_on_kong", "?"],
                                  rng.randrange(0, 2))},
        "faults": rng.choice([{}, {rng.choice(SEATS): rng.choice(["short", "long", "dead"])}]),
    }


def _json_case(rng: random.Random, doc: Any) -> bytes:
    doc = mutate_tree(rng, doc, rng.choice([0.0, 0.05, 0.2]))
    data = json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode()
    return mutate_bytes(rng, data) if rng.random() < 0.3 else data


def gen_score(rng: random.Random) -> bytes:
    return _json_case(rng, _hand(rng))


def check_score(case: bytes, folder: Path) -> str:
    path = folder / "hand.json"
    path.write_bytes(case)
    return _contract(*run_cli(["score", str(path)]))


def gen_score_batch(rng: random.Random) -> bytes:
    return b"\n".join(gen_score(rng).replace(b"\n", b" ") for _ in range(rng.randrange(1, 4)))


def check_score_batch(case: bytes, folder: Path) -> str:
    path = folder / "batch.jsonl"
    path.write_bytes(case)
    lines = [line for line in case.split(b"\n") if line.strip()]
    return _contract(*run_cli(["score", "--batch", str(path)]), expected=len(lines))


def gen_card_batch(rng: random.Random) -> bytes:
    def line() -> bytes:
        tiles = [rng.choice(TOKENS) for _ in range(rng.choice([13, 14, 14, 14, 3]))]
        cut = rng.randrange(0, 4)
        exposed = [tiles[:cut]] if cut >= 3 else []
        return _json_case(rng, {"tiles": tiles[cut if exposed else 0:], "exposed": exposed})

    return b"\n".join(line().replace(b"\n", b" ") for _ in range(rng.randrange(1, 4)))


def check_card_batch(case: bytes, folder: Path) -> str:
    path = folder / "hands.jsonl"
    path.write_bytes(case)
    lines = [line for line in case.split(b"\n") if line.strip()]
    return _contract(*run_cli(["card", "check", "--batch", str(path)]), expected=len(lines))


_CARD_LINES = [line for line in (REPO / "config" / "cards" / "sample-2026.card")
               .read_text().splitlines() if line[:1].isalpha() and not line.startswith("card")]
_CARD_SYMBOLS = "0123456789NEWSFRGDZUXYVabc@BCD*!+=| ;:~{},.-\"x"


def gen_card_file(rng: random.Random) -> bytes:
    lines = ['card "fuzz" 2026 v1'] + rng.sample(_CARD_LINES, rng.randrange(1, 4))
    for i in range(1, len(lines)):
        if rng.random() < 0.5:
            chars = list(lines[i])
            for _ in range(rng.randrange(1, 4)):
                chars.insert(rng.randrange(len(chars) + 1), rng.choice(_CARD_SYMBOLS))
            lines[i] = "".join(chars)
    data = ("\n".join(lines) + "\n").encode()
    return mutate_bytes(rng, data) if rng.random() < 0.2 else data


def check_card_file(case: bytes, folder: Path) -> str:
    path = folder / "fuzz.card"
    path.write_bytes(case)
    code, answers = run_cli(["card", "lint", str(path)])
    if code not in (0, 2) or len(answers) != 1:
        raise Finding(f"card lint: exit {code}, {len(answers)} answers")
    if code == 2 and not answers[0].get("where"):
        raise Finding(f"card lint: an error without where: {answers[0]}")
    return "refused" if code == 2 else "ok"


_TOML_KEYS: dict[str, list[tuple[str, Any]]] = {
    "table": [("id", "t-1"), ("ruleset", "classical"), ("scoring", ""), ("options", {})],
    "adjudication": [("courtesy_pause_ms", 1500), ("press_latency_ms", 100),
                     ("min_confidence", 0.9)],
    "board": [("serial", "emulated"), ("baudrate", 115200), ("buttons", ["pung"])],
    "camera": [("source", "none"), ("fps", 5.0), ("width", 1920), ("height", 1080)],
    "mqtt": [("enabled", True), ("host", "localhost"), ("port", 1883),
             ("topic_prefix", "mahjong/v1"), ("keepalive", 15), ("password_file", "")],
    "store": [("path", "/tmp/x.sqlite3"), ("snapshot_every", 50)],
    "leds": [("brightness", 0.5)],
    "gpio": [("enabled", False), ("bounce_ms", 20)],
}


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if value == value and abs(value) != float("inf") else "nan"
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string reads JSON escapes the same way
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}"
                               for k, v in value.items() if v is not None) + "}"
    return '""'


def gen_config(rng: random.Random) -> bytes:
    out = []
    for section, keys in _TOML_KEYS.items():
        if section != "table" and rng.random() < 0.5:
            continue
        out.append(f"[{section}]")
        for key, value in keys:
            if rng.random() < 0.15:
                continue
            if rng.random() < 0.2:
                value = odd_value(rng)
            if value is None:
                continue
            out.append(f"{key} = {_toml_value(value)}")
    data = ("\n".join(out) + "\n").encode()
    return mutate_bytes(rng, data) if rng.random() < 0.25 else data


def check_config(case: bytes, folder: Path) -> str:
    path = folder / "table.toml"
    path.write_bytes(case)
    return _contract(*run_cli(["config", "check", str(path)]))


def gen_calibration(rng: random.Random) -> bytes:
    doc = {"version": 1, "homography_mm_to_px": [[1.0, 0.0, 5.0], [0.0, 1.0, 3.0],
                                                  [0.0, 0.0, 1.0]],
           "image_size": [1920, 1080], "reprojection_error_px": 0.4,
           "felt_lab": [50.0, -20.0, 10.0], "geometry": {}}
    return _json_case(rng, doc)


def check_calibration(case: bytes, folder: Path) -> str:
    from vision.calibration import Calibration, CalibrationError

    path = folder / "calibration.json"
    path.write_bytes(case)
    try:
        Calibration.load(path)
    except CalibrationError:
        return "refused"
    except Exception as exc:
        raise Finding(f"Calibration.load raised {type(exc).__name__}: {exc}"[:300]) from exc
    return "ok"


_MODEL = REPO / "vision" / "models"


def gen_model_meta(rng: random.Random) -> bytes:
    """meta.json of a model folder; its first byte says whether the folder's other files are
    the bundled ones (``{``) or damaged copies (a space before the document)."""
    doc = json.loads((_MODEL / "default" / "meta.json").read_text())
    # the bundled network half the time, so the cases reach a folder that loads as often as not
    doc["embedder"] = rng.choice(["tile_embed.onnx"] * 4 + ["damaged.onnx", "../x", "", 7])
    data = _json_case(rng, doc)
    return data if rng.random() < 0.6 else b" " + data


def check_model_meta(case: bytes, folder: Path) -> str:
    """Loading a model folder with this meta.json (and the bundled or damaged prototypes and
    network) must give a recogniser or a ModelError, never another exception."""
    from vision.identify import ModelError, Recogniser

    model = folder / "model"
    model.mkdir(exist_ok=True)
    (model / "meta.json").write_bytes(case)
    for name, source in (("prototypes.npz", _MODEL / "default" / "prototypes.npz"),
                         ("tile_embed.onnx", _MODEL / "tile_embed.onnx")):
        target = model / name
        target.unlink(missing_ok=True)
        if case.startswith(b" "):
            target.write_bytes(source.read_bytes()[: len(case) * 7])
        else:
            target.symlink_to(source)
    (model / "damaged.onnx").write_bytes(case[::-1][:200])
    try:
        Recogniser.load(model)
    except ModelError:
        return "refused"
    except Exception as exc:
        raise Finding(f"Recogniser.load raised {type(exc).__name__}: {exc}"[:300]) from exc
    return "ok"


def gen_serial(rng: random.Random) -> bytes:
    from firmware_bridge import wire

    hello = wire.encode_hello(boot_id=rng.randrange(1, 9), next_event_seq=1,
                              oldest_unacked_seq=1, last_cmd_seq=0, host_id=1, seats=4,
                              buttons_per_seat=4, dice_kind=1, sensors=0, ring_capacity=64,
                              segments=[18, 18, 18, 18], firmware="fz", board_id="fz")
    pieces = [wire.frame(hello if rng.random() < 0.9 else mutate_bytes(rng, hello)[:400])]
    for seq in range(1, rng.randrange(2, 14)):
        kind = rng.randrange(5)
        if kind == 0:
            body = wire.encode_button(seq, seq * 1000, rng.randrange(6), rng.randrange(6),
                                      rng.random() < 0.5)
        elif kind == 1:
            body = wire.encode_dice(seq, seq * 1000, rng.randrange(3),
                                    [rng.randrange(0, 9) for _ in range(rng.randrange(0, 4))])
        else:
            body = bytes([rng.randrange(256)]) + rng.randbytes(rng.randrange(0, 24))
        piece = wire.frame(body[: wire.MAX_BODY])
        pieces.append(mutate_bytes(rng, piece) if rng.random() < 0.3 else piece)
    return b"".join(pieces)


def check_serial(case: bytes, folder: Path) -> str:
    from firmware_bridge.events import LinkStatus
    from firmware_bridge.host import HostProtocol, LinkSettings

    proto = HostProtocol(LinkSettings(), host_id=1, status=LinkStatus())
    proto.connection_made(0)
    try:
        for at in range(0, len(case), 7):  # as a port delivers it, in pieces
            proto.data_received(case[at:at + 7], at * 100)
            proto.tick(at * 100)
        proto.take_output()
    except Exception as exc:
        raise Finding(f"HostProtocol raised {type(exc).__name__}: {exc}"[:300]) from exc
    return "ok" if proto.events else "refused"


SURFACES = {s.name: s for s in (
    Surface("score", gen_score, check_score),
    Surface("score-batch", gen_score_batch, check_score_batch),
    Surface("card-batch", gen_card_batch, check_card_batch),
    Surface("card-file", gen_card_file, check_card_file),
    Surface("config", gen_config, check_config),
    Surface("calibration", gen_calibration, check_calibration),
    Surface("model", gen_model_meta, check_model_meta),
    Surface("serial", gen_serial, check_serial),
)}


def corpus_cases(surface: str) -> list[Path]:
    return sorted((CORPUS / surface).glob("*")) if (CORPUS / surface).is_dir() else []


def keep_in_corpus(surface: str, case: bytes) -> Path:
    import hashlib

    folder = CORPUS / surface
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / hashlib.sha256(case).hexdigest()[:16]
    path.write_bytes(case)
    return path


def scratch() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="mjtable-fuzz-")
