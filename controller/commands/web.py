"""`mjtable web passwd FILE`: the referee's password, read from stdin, kept hashed (scrypt) in
the file ``web.password_file`` names (docs/face.md)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from controller.cli import CommandInputError, emit_json

HELP = "`web passwd FILE`: set the referee's password for the table's page"
MIN_LENGTH = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="verb", required=True)
    passwd = sub.add_parser("passwd", help="read a password from stdin, write its hash")
    passwd.add_argument("file", metavar="FILE")


def run(args: argparse.Namespace) -> int:
    from controller.web.auth import hash_password

    password = sys.stdin.readline().rstrip("\r\n")
    if len(password) < MIN_LENGTH:
        raise CommandInputError(f"a password of at least {MIN_LENGTH} characters", "stdin")
    path = Path(args.file)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(hash_password(password) + "\n")
    except OSError as exc:
        raise CommandInputError(f"cannot write: {exc.strerror}", args.file) from None
    emit_json({"written": str(path)})
    return 0
