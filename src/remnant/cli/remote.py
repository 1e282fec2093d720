"""The CLI through a running server: ``--url`` / ``REMNANT_URL`` sends remember, recall, list, show,
stats and audit to its REST API (``/v1``), so a command loads no model and opens no database here.

A minimal client over httpx (the server's own extra ships it); the key comes from
``REMNANT_API_KEY``. Errors come back as Remnant's: 404 as NotFoundError, other 4xx as
ValidationError, an unreachable server or a 5xx as StoreError.
"""

from __future__ import annotations

from typing import Any

from remnant.core.errors import NotFoundError, StoreError, ValidationError

KEY_ENV = "REMNANT_API_KEY"


class Remote:
    def __init__(self, url: str, *, api_key: str | None = None, timeout: float = 60.0) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValidationError(f"--url must be an http:// or https:// address, not {url!r}")
        self.url = url.rstrip("/")
        from remnant.core.settings import read

        self.api_key = api_key if api_key is not None else read(KEY_ENV)
        self.timeout = timeout

    def call(self, method: str, path: str, *, params: dict[str, Any] | None = None, body: Any = None) -> Any:
        from remnant.core.extras import needs

        with needs("remnant --url", "client"):
            import httpx
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        query = {k: v for k, v in (params or {}).items() if v is not None}
        try:
            response = httpx.request(
                method, f"{self.url}/v1{path}", params=query, json=body, headers=headers, timeout=self.timeout
            )
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot reach the server at {self.url}: {exc}") from exc
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail", response.text)
            except ValueError:
                detail = response.text
            message = f"the server said {response.status_code}: {detail}"
            if response.status_code == 404:
                raise NotFoundError(message)
            if response.status_code < 500:
                raise ValidationError(message)
            raise StoreError(message)
        return response.json()


def describe(item: dict[str, Any]) -> str:
    """One memory as the CLI prints it, from the server's JSON."""
    key = f" [{item['key']}]" if item.get("key") else ""
    pin = " 📌" if item.get("pinned") else ""
    status = "" if item.get("status") == "active" else f" ({item.get('status')})"
    strength = item.get("strength")
    s = f" {float(strength):.2f}" if strength is not None else ""
    return f"{item['id']}  {item.get('kind')}{key}{pin}{status}{s}\n    {item.get('content')}"
