"""Transfer archives of an exact size, for the 12 MiB limit (spec 1 §8, spec 2 §8): a valid
proxy archive whose settings carry a padding key (unknown keys are ignored on import)."""

from __future__ import annotations

from agent import transfers


def padded_proxy_archive(size: int, alias: str = "Largest") -> bytes:
    """A valid proxy archive of exactly `size` bytes (a multiple of the container's 512-byte
    page, at least a few pages)."""

    def build(padding: int) -> bytes:
        archive = transfers.Archive(kind="proxy", version=6, credentials_included=False)
        archive.proxies.append(
            {
                "alias": alias,
                "upstream_host": "h.example",
                "upstream_port": 1,
                "settings": {"tls": {"mode": "system"}, "padding": "x" * padding},
            }
        )
        return transfers.build(archive)

    # the size grows with the padding in whole pages: the smallest padding that reaches `size`
    low, high = 0, size
    while low < high:
        middle = (low + high) // 2
        if len(build(middle)) >= size:
            high = middle
        else:
            low = middle + 1
    raw = build(low)
    assert len(raw) == size, (len(raw), size)
    return raw
