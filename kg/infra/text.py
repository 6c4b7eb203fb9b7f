"""Small text helpers for the lines the tool writes to people."""

from __future__ import annotations

import re

_BLANKS = str.maketrans({"\n": " ", "\r": " ", "\t": " "})
# what a terminal would act on rather than show: escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL or
# ESC \", other "ESC x"), then any other C0 control, DEL or C1 control (the 8-bit CSI among them)
_CONTROLS = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -~]?|[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    r"""``text`` as a terminal may show it: escape sequences and control characters removed, line breaks and
    tabs as spaces (the table of a value from an endpoint cannot clear the screen or set the window title).

    >>> printable("ok\x1b[2J\x1b]0;pwned\x07 \x9b31mred\tend\x7f")
    'ok 31mred end'
    """
    return _CONTROLS.sub("", text.translate(_BLANKS))


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and the word, in the plural unless ``n`` is 1 (``many``, else the word + "s").

    Example:

    >>> plural(1, "record"), plural(2, "retry", "retries")
    ('1 record', '2 retries')
    """
    return f"{n} {word if n == 1 else many or word + 's'}"
