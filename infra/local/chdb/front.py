"""HTTP front for the ClickHouse 25.8 engine (chDB) in tests and local runs.

chDB is ClickHouse running inside this process; it cannot listen. This front speaks the part of
ClickHouse's HTTP interface that @clickhouse/client uses, so the service's ClickHouse adapter talks
to the 25.8 engine by URL exactly as it talks to a real server. It is a test vehicle, not a server:
docs/platform-clickhouse-registry.md says what it supports and what it does not.

One engine per process, so every request runs under one lock: a request's settings, query
parameters and current database are applied to the shared engine just before its query and no
other request can interleave. Settings a previous request changed are put back to the server's
defaults.

Usage: python front.py --data DIR --port 18124 [--host 127.0.0.1]
"""

import argparse
import gzip
import json
import os
import re
import sys
import tempfile
import threading
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

# The engine's clock and DateTime parsing in UTC, as the real test server was configured.
os.environ["TZ"] = "UTC"
# The engine's allocator (jemalloc, built into chDB) keeps the pages a query freed for the next
# one instead of handing them back to the system: chDB builds a whole answer in memory (a server
# streams it), and with the built-in decay every 5 MB results page faulted ~2,500-4,600 fresh pages
# (~20 MB) in; kept, ~900, and the engine's part of a page 22 -> 19 ms and 53-56 -> 34 ms in two
# interleaved runs (docs/platform-clickhouse-registry.md "ClickHouse for tests: the 25.8 engine
# (chDB) behind an HTTP front"). The front's memory stays at its peak; an operator's own setting wins.
os.environ.setdefault("JE_MALLOC_CONF", "dirty_decay_ms:-1,muzzy_decay_ms:-1")

from chdb.state import sqlitelike  # noqa: E402 (after TZ and JE_MALLOC_CONF, which the engine reads at load)

VERSION = "25.8.2.1"
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ERROR_CODE = re.compile(r"^Code: (\d+)\. ")
TRAILING_FORMAT = re.compile(r"\bFORMAT\s+([A-Za-z][A-Za-z0-9]*)\s*;?\s*$", re.IGNORECASE)
PLACEHOLDER = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:")
INSERT_DATA = re.compile(r"\bFORMAT\s+[A-Za-z][A-Za-z0-9]*\s", re.IGNORECASE)
INSERT_QUERY = re.compile(r"^\s*INSERT\b", re.IGNORECASE)
# A bulk insert's data goes to the engine from a file, not inside the query text: chDB parses data
# that follows the query in its text 3-5x slower than the same bytes read from a file (a 15 MB
# TabSeparated batch of result records: 145-175 ms against 40-50 ms of CPU; docs/performance.md
# "Measurements"); settings such as a deduplication token apply as inline. Small inserts keep the
# inline path (a file per request would cost them more than it saves).
BULK_INSERT_BYTES = 256 * 1024
SET_STATEMENT = re.compile(r"^\s*SET\s+(.+?)\s*;?\s*$", re.IGNORECASE | re.DOTALL)
ASSIGNMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*('(?:[^'\\]|\\.)*'|[^,]+)\s*(?:,|$)", re.DOTALL)

# URL parameters that steer the HTTP handler of a real server and are not engine settings.
HTTP_ONLY = {
    "query", "database", "default_format", "session_id", "session_timeout", "session_check",
    "query_id", "user", "password", "quota_key", "buffer_size", "wait_end_of_query",
    "enable_http_compression", "compress", "decompress", "role",
}

# Settings clickhouse-local (and so chDB) changes from a server's defaults, put back to the server's.
SERVER_DEFAULTS = {"implicit_select": "0", "allow_introspection_functions": "0"}

# HTTP status by error code, as a real server's HTTPHandler maps them; anything else is 500.
NOT_FOUND = {46, 47, 50, 56, 60, 63, 73, 81, 115}  # UNKNOWN_FUNCTION/IDENTIFIER/TYPE/STORAGE/TABLE/…
BAD_REQUEST = {6, 26, 27, 36, 38, 41, 53, 62, 72, 130, 373, 456, 457}  # CANNOT_PARSE_*, SYNTAX_ERROR, …
STATUS_BY_CODE = {**{code: 404 for code in NOT_FOUND}, **{code: 400 for code in BAD_REQUEST},
                  516: 401, 497: 403, 164: 403}


class ClickHouseError(Exception):
    """An error to answer in ClickHouse's format (code and message)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def sql_string(text):
    """A string literal: ClickHouse reads `\\` and `'` escaped with a backslash."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Engine:
    """The one chDB engine of this process, used by one request at a time."""

    def __init__(self, data_dir):
        self.lock = threading.Lock()
        self.conn = sqlitelike.connect(data_dir)
        self.applied = {}  # setting name -> SQL literal currently set on the engine
        self.params_set = set()  # parameter names holding a value from an earlier request
        self.database = "default"
        # session_id -> settings changed with SET statements in that session (name -> literal)
        self.sessions = {}
        self.execute("; ".join(f"SET {name} = {sql_string(value)}" for name, value in SERVER_DEFAULTS.items()), "TabSeparated")

    def run(self, query, fmt, database, settings, params, session_id):
        with self.lock:
            session = self.sessions.setdefault(session_id, {}) if session_id else {}
            wanted = dict(session)
            wanted.update({name: sql_string(value) for name, value in settings.items()})
            prelude = []
            for name in self.applied:
                if name not in wanted:
                    baseline = SERVER_DEFAULTS.get(name)
                    prelude.append(f"SET {name} = {sql_string(baseline) if baseline else 'DEFAULT'}")
            for name, literal in wanted.items():
                if self.applied.get(name) != literal:
                    prelude.append(f"SET {name} = {literal}")
            # The engine cannot unset a parameter: an earlier request's values are blanked (they may
            # be personal data), and a query naming a parameter this request lacks is refused
            # before it runs (placeholders), as a server refuses it.
            for name in self.params_set - params.keys():
                prelude.append(f"SET param_{name} = ''")
            for name, value in params.items():
                prelude.append(f"SET param_{name} = {sql_string(value)}")
            self.params_set = set(params)
            if database != self.database:
                prelude.append(f"USE {database}")
            # Unknown until the prelude has run: a failure half-way leaves every name to be reset
            # (or set again) and the database to be chosen again by the next request.
            self.applied = {name: None for name in {**self.applied, **wanted}}
            self.database = None
            if prelude:
                self.execute("; ".join(prelude), "TabSeparated")
            self.applied = wanted
            self.database = database
            result = self.execute(query, fmt)
            assignments = set_statement(query)
            if assignments is not None:
                # SET lasts for the session (as on a server); without one it lasted this request.
                self.applied.update(assignments)
                if session_id:
                    session.update(assignments)
            return result

    def execute(self, query, fmt):
        try:
            return self.conn.query(query, fmt)
        except Exception as error:  # chDB raises RuntimeError with ClickHouse's own text
            text = str(error).strip()
            match = ERROR_CODE.match(text)
            if match:
                raise ClickHouseError(int(match.group(1)), text[match.end():]) from None
            raise ClickHouseError(1001, f"DB::Exception: {text}") from None


def placeholders(query):
    """Names of the `{name:Type}` query parameters in the statement part of `query`, read as the
    server's lexer reads them: not inside quotes or comments, not in an INSERT's inline data."""
    names, i, n = set(), 0, len(query)
    if query.lstrip()[:6].upper() == "INSERT":
        data = INSERT_DATA.search(query)
        n = data.end() if data else n
    while i < n:
        c = query[i]
        if c in "'\"`":
            i += 1
            while i < n and query[i] != c:
                i += 2 if query[i] == "\\" else 1
            i += 1
        elif query.startswith("--", i) or c == "#":
            end = query.find("\n", i)
            i = n if end < 0 else end
        elif query.startswith("/*", i):
            end = query.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == "{":
            match = PLACEHOLDER.match(query, i)
            if match:
                names.add(match.group(1))
            i += 1
        else:
            i += 1
    return names


def set_statement(query):
    """`SET a = 1, b = 'x'` as {name: literal}; None when the query is not a SET statement."""
    match = SET_STATEMENT.match(query)
    if not match or match.group(1).lower().startswith(("param_", "role", "default role")):
        return None
    found = {}
    for assignment in ASSIGNMENT.finditer(match.group(1)):
        found[assignment.group(1)] = assignment.group(2).strip()
    return found


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the client reuses its sockets
    # TCP_NODELAY, as ClickHouse's own server sets it: the head and the body go out as two writes,
    # and with Nagle's algorithm the body waited for the client's delayed ACK of the head, about
    # 40 ms on every answer of a kept-alive socket (docs/architecture.md "Performance").
    disable_nagle_algorithm = True
    server_version = "chdb-front"
    engine = None  # set by main()
    spool_dir = None  # set by main(): where bulk inserts' data waits for the engine (run_from_file)

    def log_message(self, format, *args):
        # Queries can hold personal data: the front never logs requests.
        pass

    def do_GET(self):
        self.handle_request(b"")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = self.read_chunked()
        else:
            body = self.rfile.read(length) if length else b""
        self.handle_request(body)

    def read_chunked(self):
        parts = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            self.rfile.readline()

    def handle_request(self, body):
        url = urlsplit(self.path)
        if url.path in ("/ping", "/replicas_status"):
            return self.reply(200, b"Ok.\n", {"Content-Type": "text/plain; charset=UTF-8"})
        query_id = str(uuid.uuid4())
        try:
            if url.path not in ("/", ""):
                # A real server's answer to a path it has no handler for (not a query error).
                return self.reply(404, f"There is no handle {url.path}\n".encode(), {"Content-Type": "text/plain; charset=UTF-8"})
            args = dict(parse_qsl(url.query, keep_blank_values=True))
            query_id = args.get("query_id") or query_id
            text, bulk = self.request_text(args, body)
            if text.strip() == "":
                return self.reply(200, b"Ok.\n", {"Content-Type": "text/plain; charset=UTF-8"})
            database = args.get("database") or self.headers.get("X-ClickHouse-Database") or "default"
            if not IDENTIFIER.match(database):
                raise ClickHouseError(81, f"DB::Exception: Database {database} does not exist. (UNKNOWN_DATABASE)")
            settings, params = {}, {}
            for name, value in args.items():
                if name.startswith("param_"):
                    params[name[6:]] = value
                elif name not in HTTP_ONLY:
                    settings[name] = value
            for name in list(settings) + list(params):
                if not IDENTIFIER.match(name):
                    raise ClickHouseError(115, f"DB::Exception: Unknown setting '{name}'. (UNKNOWN_SETTING)")
            missing = sorted(placeholders(text) - params.keys())
            if missing:
                raise ClickHouseError(456, f"DB::Exception: Substitution `{missing[0]}` is not set. (UNKNOWN_QUERY_PARAMETER)")
            format_match = TRAILING_FORMAT.search(text) if not text.lstrip()[:6].upper() == "INSERT" else None
            fmt = format_match.group(1) if format_match else args.get("default_format", "TabSeparated")
            if bulk is None:
                result = self.engine.run(text, fmt, database, settings, params, args.get("session_id"))
            else:
                result = self.run_from_file(text, bulk, fmt, database, settings, params, args.get("session_id"))
        except ClickHouseError as error:
            return self.reply_error(error, query_id)
        # The engine's output buffer itself, not a copy: result.bytes() copied it into a Python
        # object first (~3 ms for a 5.5 MB results page), which a server streaming its output does
        # not do (docs/platform-clickhouse-registry.md "ClickHouse for tests"). `output` and
        # `result` own the buffer and stay alive until the reply is written.
        output = result.get_memview()
        payload = output.view()
        summary = {
            "read_rows": str(result.rows_read()), "read_bytes": str(result.bytes_read()),
            "written_rows": "0", "written_bytes": "0", "total_rows_to_read": str(result.rows_read()),
            "result_rows": "0", "result_bytes": str(len(payload)),
            "elapsed_ns": str(int(result.elapsed() * 1e9)),
        }
        headers = {
            "Content-Type": "text/plain; charset=UTF-8",
            "X-ClickHouse-Query-Id": query_id,
            "X-ClickHouse-Format": fmt,
            "X-ClickHouse-Timezone": "UTC",
            "X-ClickHouse-Server-Display-Name": "chdb-front",
            "X-ClickHouse-Summary": json.dumps(summary, separators=(",", ":")),
        }
        if args.get("enable_http_compression") == "1":
            payload = self.compress(payload, headers)
        self.reply(200, payload, headers)

    def request_text(self, args, body):
        """The query text: the URL's `query`, then a newline and the (decompressed) body, as a server
        reads it; and the body as bytes when it is a bulk insert's data (else None), which then
        stays out of the text (run_from_file)."""
        if args.get("decompress") == "1":
            raise ClickHouseError(
                1000, "DB::Exception: ClickHouse's native compression (decompress=1) is not supported by the chDB front")
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        try:
            if encoding == "gzip":
                body = gzip.decompress(body)
            elif encoding == "deflate":
                body = zlib.decompress(body)
            elif encoding not in ("", "identity"):
                raise ClickHouseError(
                    1000, f"DB::Exception: Unknown Content-Encoding {encoding} (the chDB front reads gzip and deflate)")
        except (OSError, zlib.error) as error:
            raise ClickHouseError(
                432, f"DB::Exception: Cannot decompress the request body: {error}. (UNKNOWN_CODEC)") from None
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            # Bulk data may be any bytes in ClickHouse; the engine takes text here.
            raise ClickHouseError(
                36, "DB::Exception: The chDB front takes UTF-8 request bodies only. (BAD_ARGUMENTS)") from None
        query = args.get("query", "")
        if query and len(body) >= BULK_INSERT_BYTES and INSERT_QUERY.match(query) and TRAILING_FORMAT.search(query):
            return query, body
        return (f"{query}\n{text}" if query and text else query or text), None

    def run_from_file(self, query, data, fmt, database, settings, params, session_id):
        """A bulk insert: `INSERT ... FROM INFILE` a file holding the data, written and removed
        here, so the engine reads the same bytes as a file instead of parsing them out of the
        query text. Same columns, format, settings and errors."""
        trailing = TRAILING_FORMAT.search(query)
        handle, path = tempfile.mkstemp(prefix="insert-", suffix=".data", dir=Handler.spool_dir)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            text = f"{query[:trailing.start()]}FROM INFILE {sql_string(path)} COMPRESSION 'none' {query[trailing.start():]}"
            return self.engine.run(text, fmt, database, settings, params, session_id)
        finally:
            os.unlink(path)

    def compress(self, payload, headers):
        accepted = [part.split(";")[0].strip().lower() for part in (self.headers.get("Accept-Encoding") or "").split(",")]
        if "gzip" in accepted:
            headers["Content-Encoding"] = "gzip"
            return gzip.compress(payload, compresslevel=3)
        if "deflate" in accepted:
            headers["Content-Encoding"] = "deflate"
            return zlib.compress(payload, 3)
        return payload

    def reply_error(self, error, query_id):
        body = f"Code: {error.code}. {error.message} (version {VERSION})\n".encode("utf-8")
        self.reply(STATUS_BY_CODE.get(error.code, 500), body, {
            "Content-Type": "text/plain; charset=UTF-8",
            "X-ClickHouse-Exception-Code": str(error.code),
            "X-ClickHouse-Query-Id": query_id,
            "X-ClickHouse-Server-Display-Name": "chdb-front",
        })

    def reply(self, status, payload, headers):
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Keep-Alive", "timeout=10")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client gone mid-request (a killed test process) is routine; anything else is printed
        # without the request (queries can hold personal data).
        error = sys.exc_info()[1]
        if not isinstance(error, (ConnectionResetError, BrokenPipeError)):
            print(f"chdb front: {type(error).__name__}: {error}", file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="directory of the engine's databases")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=18124)
    options = parser.parse_args()
    os.makedirs(options.data, exist_ok=True)
    Handler.engine = Engine(options.data)
    Handler.spool_dir = os.path.join(os.path.dirname(os.path.abspath(options.data)), "inserts")
    os.makedirs(Handler.spool_dir, exist_ok=True)
    for left in os.listdir(Handler.spool_dir):  # of a front killed mid-insert: data nobody will read
        os.unlink(os.path.join(Handler.spool_dir, left))
    Handler.engine.execute("SELECT 1", "TabSeparated")  # the engine is up before /ping answers
    server = Server((options.host, options.port), Handler)
    print(f"chdb front: ClickHouse {VERSION} engine on http://{options.host}:{options.port}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
