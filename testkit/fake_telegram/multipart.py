"""The bodies of the Bot API's requests as the fake reads them: multipart/form-data (uploads: sendPhoto,
editMessageMedia, sendDocument) split on its boundary, and form values that carry JSON decoded."""

from __future__ import annotations

import json
import re
from typing import Any

from testkit.fake_telegram.state import ApiError

_BOUNDARY = re.compile(r'boundary=(?:"([^"]+)"|([^;\s]+))', re.IGNORECASE)
_PARAM = re.compile(r';\s*(name|filename)="((?:[^"\\]|\\.)*)"', re.IGNORECASE)


FILENAME = ":filename"  # files[name + FILENAME]: the name an upload came with


def parse_multipart(content_type: str, body: bytes) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Form fields (str) and uploaded files (bytes) of a multipart/form-data body (RFC 7578).

    A plain split on the boundary: the email package's parser cost the load benchmark more CPU than
    the bot it measures. A body that does not parse raises ApiError 400, as Telegram answers.
    """
    found = _BOUNDARY.search(content_type)
    if found is None:
        raise ApiError(400, "Bad Request: multipart body without a boundary")
    delimiter = b"--" + (found.group(1) or found.group(2)).encode("latin-1")
    chunks = body.split(delimiter)
    if len(chunks) < 3 or not chunks[-1].startswith(b"--"):
        raise ApiError(400, "Bad Request: multipart body without its closing boundary")
    fields: dict[str, Any] = {}
    files: dict[str, bytes] = {}
    for chunk in chunks[1:-1]:
        head, separator, payload = chunk.partition(b"\r\n\r\n")
        if not separator or not head.startswith(b"\r\n") or not payload.endswith(b"\r\n"):
            raise ApiError(400, "Bad Request: a multipart part without its headers")
        payload = payload[:-2]
        disposition = next(
            (
                line
                for line in head.decode("utf-8").split("\r\n")
                if line.lower().startswith("content-disposition:")
            ),
            None,
        )
        params = {k.lower(): v.replace('\\"', '"') for k, v in _PARAM.findall(disposition or "")}
        if "name" not in params:
            raise ApiError(400, "Bad Request: a multipart part without a name")
        if "filename" in params:
            files[params["name"]] = payload
            files[params["name"] + FILENAME] = params["filename"].encode("utf-8")
        else:
            fields[params["name"]] = payload.decode("utf-8")
    return fields, files


def decode_field(value: Any) -> Any:
    """Form values that carry JSON (reply_markup, media, numbers) decoded; plain text kept."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value
