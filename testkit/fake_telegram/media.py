"""The Bot API methods that carry files: sendPhoto, sendDocument, sendAnimation and editMessageMedia. An upload
(attach://name, or the field itself) or a file_id the fake gave out; a photo must be a PNG or a JPEG, an
animation a GIF or an MP4, a caption at most 1024 characters, an upload at most 50 MB."""

from __future__ import annotations

from typing import Any

from testkit.fake_telegram.core import FakeCore
from testkit.fake_telegram.multipart import FILENAME
from testkit.fake_telegram.state import ApiError


class MediaMethods(FakeCore):
    """Photos, documents and animations, sent and edited."""

    def _photo_bytes(self, ref: Any, files: dict[str, bytes], inline: bool = False) -> tuple[bytes, str]:
        """The photo a call names: an upload (attach://name, or the field itself), or a file_id the fake gave
        out. An inline message's media can be a file_id or a URL only, never an upload (Telegram's rule)."""
        if isinstance(ref, str) and ref in self._state.files:
            return self._state.files[ref], ref
        if inline:
            raise ApiError(
                400,
                "Bad Request: can't use an uploaded file as inline message media: send a file_id or a URL",
            )
        if isinstance(ref, str) and ref.startswith("attach://"):
            name = ref[len("attach://") :]
            if name not in files:
                raise ApiError(400, f"Bad Request: file {name} not uploaded")
            data = files[name]
        elif isinstance(ref, str) and ref in files:
            data = files[ref]
        else:
            raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        if not data.startswith((b"\x89PNG", b"\xff\xd8")):
            raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
        photo_id = f"photo-{next(self._file_ids)}"
        with self._lock:
            self._state.files[photo_id] = data
        return data, photo_id

    def _api_sendPhoto(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        photo = params.get("photo")
        if photo is None and "photo" in files:
            photo = "photo"
        data, photo_id = self._photo_bytes(photo, files)
        return self._send_media(params, photo=data, photo_id=photo_id)

    def _send_media(self, params: dict[str, Any], **media: Any) -> dict[str, Any]:
        """A sent photo, document or animation (`media`: its StoredMessage fields) with its caption (at most
        1024 characters, as Telegram allows) and keyboard, stored in its chat."""
        caption = params.get("caption")
        if caption is not None and len(str(caption)) > 1024:
            raise ApiError(400, "Bad Request: message caption is too long")
        with self._lock:
            msg = self._store_bot_message(
                int(params["chat_id"]),
                caption=None if caption is None else str(caption),
                reply_markup=params.get("reply_markup") or None,
                **media,
            )
            return self._message_json(msg)

    def _file(self, field: str, params: dict[str, Any], files: dict[str, bytes]) -> tuple[bytes, str, str]:
        """The file a sendDocument or sendAnimation names: an upload (its bytes and file name) or a file_id
        the fake gave out; Telegram's 50 MB limit for uploads by bots."""
        ref = params.get(field)
        if isinstance(ref, str) and ref in self._state.files:
            return self._state.files[ref], ref, self._state.file_names.get(ref, "file")
        name = ref[len("attach://") :] if isinstance(ref, str) and ref.startswith("attach://") else field
        if name not in files:
            raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        data = files[name]
        if not data:
            raise ApiError(400, "Bad Request: file must be non-empty")
        if len(data) > 50 * 1024 * 1024:
            raise ApiError(413, "Request Entity Too Large")
        file_id = f"{field}-{next(self._file_ids)}"
        with self._lock:
            self._state.files[file_id] = data
            self._state.file_names[file_id] = files.get(name + FILENAME, name.encode()).decode("utf-8")
        return data, file_id, self._state.file_names[file_id]

    def _api_sendDocument(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        data, file_id, name = self._file("document", params, files)
        return self._send_media(params, document=data, file_name=name, file_id=file_id)

    def _api_sendAnimation(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        data, file_id, _ = self._file("animation", params, files)
        if not data.startswith((b"GIF87a", b"GIF89a")) and data[4:8] != b"ftyp":
            raise ApiError(400, "Bad Request: wrong type of the web page content")  # not a GIF or an MP4
        return self._send_media(params, animation=data, file_id=file_id)

    def _api_editMessageMedia(self, params: dict[str, Any], files: dict[str, bytes]) -> dict[str, Any]:
        media = params["media"]
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise ApiError(400, "Bad Request: the fake edits photos only")
        data, photo_id = self._photo_bytes(
            media.get("media"), files, inline=bool(params.get("inline_message_id"))
        )
        caption = media.get("caption")
        if caption is not None and len(str(caption)) > 1024:
            raise ApiError(400, "Bad Request: message caption is too long")
        with self._lock:
            msg = self._editable(params)
            if msg.photo is None:
                raise ApiError(400, "Bad Request: there is no media in the message to edit")
            msg.photo, msg.photo_id = data, photo_id
            msg.caption = None if caption is None else str(caption)
            msg.reply_markup = params.get("reply_markup") or None
            msg.edits += 1
            return self._edited(msg)
