FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NARDY_DATA_DIR=/data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY render ./render
COPY bot ./bot
RUN pip install --no-cache-dir . \
    && useradd --create-home --uid 10001 nardy \
    && mkdir -p /data && chown nardy /data

USER nardy
VOLUME ["/data"]
CMD ["nardy-bot"]
