# Ticket to Ride Discord bot.
#   docker build -t ttr-bot .
#   docker run -d --name ttr --env-file .env -v ttr-data:/data ttr-bot
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TTR_DB_PATH=/data/ttr.sqlite3

WORKDIR /app
COPY pyproject.toml README.md ./
COPY maps ./maps
COPY engine ./engine
COPY bot ./bot
COPY assets ./assets
RUN pip install . \
    && rm -rf build *.egg-info \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin ttr \
    && mkdir -p /data \
    && chown ttr:ttr /data

# The SQLite database (and its WAL files) live on this volume; back it up, keep it.
VOLUME ["/data"]
USER ttr
# Started from /app so the renderer finds assets/ beside the sources.
CMD ["python", "-m", "bot"]
