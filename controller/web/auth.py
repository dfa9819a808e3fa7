"""The referee's sign-in: a password kept hashed (scrypt) in a file the config names, and
short-lived sessions held in memory (a restart signs the referee out)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from pathlib import Path

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1


class PasswordFileError(ValueError):
    pass


def hash_password(password: str, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$salt$hash`` (hex), the line a password file holds."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, line: str) -> bool:
    try:
        kind, n, r, p, salt, digest = line.strip().split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r),
                             p=int(p))
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)


def read_password_file(path: str) -> str:
    try:
        line = Path(path).read_text().strip()
    except OSError as exc:
        raise PasswordFileError(f"{path}: {exc.strerror}") from None
    if not line.startswith("scrypt$") or line.count("$") != 5:
        raise PasswordFileError(f"{path}: not a password hash (make one with "
                                "`mjtable web passwd FILE`)")
    return line


class Sessions:
    """Signed-in referees (or a club's organisers: ``role``): a random token each, valid for
    ``minutes`` from sign-in. ``unset`` is the refusal when no password is configured."""

    def __init__(self, hashed: str | None, minutes: int = 240,
                 clock: Callable[[], float] = time.monotonic, role: str = "referee",
                 unset: str = "this table has no referee's password (web.password_file)"
                 ) -> None:
        self.hashed = hashed
        self.role, self.unset = role, unset
        self.ttl = minutes * 60.0
        self.clock = clock
        self.tokens: dict[str, float] = {}

    def sign_in(self, password: str) -> str | None:
        if self.hashed is None or not check_password(password, self.hashed):
            return None
        token = secrets.token_urlsafe(24)
        self.tokens[token] = self.clock() + self.ttl
        return token

    def why_not(self, token: str | None) -> str | None:
        """None for a valid session; otherwise what is wrong, for the refusal."""
        if self.hashed is None:
            return self.unset
        if not token or token not in self.tokens:
            return f"sign in as the {self.role} first"
        if self.tokens[token] < self.clock():
            del self.tokens[token]
            return "the sign-in has expired: sign in again"
        return None

    def sign_out(self, token: str | None) -> None:
        self.tokens.pop(token or "", None)
