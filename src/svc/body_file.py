"""The file an answer's body goes to (`svc request -o PATH`, `Client.request(output=)`).

Checked before anything is sent, so a path that cannot be written is a usage error that costs
nothing, and nothing is truncated then: a refused payment, a cut-off body or a Ctrl-C must
never empty a file the person already had. The body is written to a temporary file beside the
target and renamed onto it only once the whole body arrived (a rename within one directory is
atomic: the target holds the old bytes or the new ones, never half). A target that is not a
regular file (`/dev/null`, a FIFO) is written in place: renaming onto it would replace the
device, not feed it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from typing import BinaryIO

from svc.errors import UsageError


class BodyFile:
    """One body's destination file: `write` as the chunks come, then `commit` or `discard`."""

    def __init__(self, target: str, mode: int | None, *, in_place: bool) -> None:
        self.target = target
        self._mode = mode  # the existing file's permissions, kept across the rename
        self._in_place = in_place
        folder, name = os.path.split(target)
        self._temp = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:12]}.part")
        self._stream: BinaryIO | None = None

    @classmethod
    def checked(cls, path: str | os.PathLike[str]) -> BodyFile:
        """`path`, checked writable now, before anything is sent; nothing is created yet."""
        shown = os.fspath(path)
        target = os.path.realpath(shown)  # a symlink stays a link: its target gets the body
        try:
            found = os.stat(target)
        except FileNotFoundError:
            found = None
        except OSError as exc:
            raise UsageError(f"cannot write {shown}: {exc.strerror or exc}") from None
        if found is not None and stat.S_ISDIR(found.st_mode):
            raise UsageError(f"cannot write {shown}: it is a directory")
        if found is not None and not stat.S_ISREG(found.st_mode):
            if not os.access(target, os.W_OK):
                raise UsageError(f"cannot write {shown}: permission denied")
            return cls(target, None, in_place=True)
        _check_folder(shown, os.path.dirname(target))
        if found is not None and not os.access(target, os.W_OK):
            raise UsageError(f"cannot write {shown}: permission denied")
        mode = None if found is None else stat.S_IMODE(found.st_mode)
        return cls(target, mode, in_place=False)

    def write(self, data: bytes) -> None:
        self._open().write(data)

    def commit(self) -> None:
        """The whole body arrived: it takes the target's place (an empty body too)."""
        stream = self._open()
        stream.close()
        if not self._in_place:
            os.replace(self._temp, self.target)

    def discard(self) -> None:
        """The body did not all arrive (or was never sent): the target is left as it was."""
        if self._stream is not None:
            self._stream.close()
        if not self._in_place:
            with contextlib.suppress(FileNotFoundError):  # committed, or never opened
                os.unlink(self._temp)

    def _open(self) -> BinaryIO:
        if self._stream is None:
            if self._in_place:
                self._stream = open(self.target, "wb")  # noqa: SIM115 - closed by commit
            else:
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
                fd = os.open(self._temp, flags, 0o666)  # the umask applies, as open() would
                if self._mode is not None:
                    os.fchmod(fd, self._mode)
                self._stream = os.fdopen(fd, "wb")
        return self._stream


def _check_folder(shown: str, folder: str) -> None:
    """The rename needs the directory itself: it must exist and take a new file."""
    if not os.path.isdir(folder or "."):
        raise UsageError(f"cannot write {shown}: no such directory {folder}")
    if not os.access(folder or ".", os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {shown}: its directory {folder} is not writable")
