"""User errors: bad input the user can fix. The CLI prints them as one line and exits with code 2."""

from __future__ import annotations

from typing import NoReturn


class UserError(ValueError):
    """Bad user input (a value, a path, a file's content). Message: one line naming the bad value."""


def fail(message: str) -> NoReturn:
    raise UserError(message)
