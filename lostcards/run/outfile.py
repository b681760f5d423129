"""The guard of every output file a command writes beside or instead of an --out directory (`analyze --figure`,
`bench --json`): checked before the work starts, written whole or not at all, never over a file another
program wrote."""
from __future__ import annotations

import os
from pathlib import Path

from lostcards.errors import BatchError, OutputError, shown_path
from lostcards.run.batchdir import probe


def check_file(path, option: str, formats=(), ours=None) -> Path:
    """`path` may take this output: the system takes the name, its folder takes files (created if missing),
    it is no folder, its extension is one of `formats` (when given), and a file already there is one
    `ours(path)` recognises as this command's.  OutputError in one line otherwise, nothing written."""
    p = Path(path)
    suffix = p.suffix.lower().lstrip(".")
    if formats and suffix not in formats:
        raise OutputError(f"{option} {shown_path(p)}: the extension {'.' + suffix if suffix else '(none)'} is "
                          f"not allowed: one of {', '.join('.' + f for f in formats)}")
    if len(os.fsencode(p.name)) > 255:    # refused before its folder is made (the system's limit on a name)
        raise OutputError(f"{option} {shown_path(p)}: cannot write there: File name too long")
    try:
        probe(p.parent)
    except BatchError as e:               # the folder takes no files
        raise OutputError(f"{option} {shown_path(p)}: {e}") from None
    try:
        p.stat()
        exists = True
    except FileNotFoundError:
        exists = False
    except OSError as e:                  # a name too long, ...
        raise OutputError(f"{option} {shown_path(p)}: cannot write there: {e.strerror or e}") from None
    if p.is_dir():
        raise OutputError(f"{option} {shown_path(p)} is a folder: give a file name")
    if exists and ours is not None and not ours(p):
        raise OutputError(f"{option} {shown_path(p)} holds a file no lostcards run wrote, which this one would "
                          "overwrite; move it or give another path")
    return p


def write_file(path, option: str, write) -> None:
    """Call `write(tmp)` on a temporary twin of `path` (same folder and extension), then rename it over
    `path`; on any failure the twin goes, `path` is as it was, and OutputError says why in one line."""
    p = Path(path)
    tmp = p.with_name(f".write-{os.getpid()}.tmp{p.suffix}")     # the extension tells the format
    try:
        write(tmp)
        os.replace(tmp, p)
    except OSError as e:
        raise OutputError(f"cannot write {option} {shown_path(p)}: {e.strerror or e}") from None
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass
