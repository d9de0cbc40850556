#!/usr/bin/env python3
"""Loopback HTTP server for BridgeKit's WebKitGTK page-replacement attack tests (stdlib only).

Usage: replace_server.py CONFIG.json. Listens on 127.0.0.1 on a free port, prints "PORT <n>" on
stdout, and serves until its stdin closes. CONFIG:

  {"routes": {"/path": {"status": 200, "type": "text/html", "body": "...", "headers": [["N", "V"]]}},
   "multipart": {"/path": ["part 1 html", "part 2 html", ...]}}

A multipart path answers `multipart/x-mixed-replace; boundary=bkpart`, sends its first part at
once and each further part (a part starting with a line "@@type=<MIME type>" has that type,
text/html otherwise) when a line "next" arrives on stdin (one part per line); after the
last part it ends the response. Answers "ok" on stdout for every part sent.
"""
import http.server
import json
import sys
import threading

CONFIG = json.load(open(sys.argv[1]))
ROUTES = CONFIG.get("routes", {})
MULTIPART = CONFIG.get("multipart", {})
NEXT = threading.Semaphore(0)
BOUNDARY = "bkpart"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path in MULTIPART:
            return self.multipart(MULTIPART[path])
        route = ROUTES.get(path)
        if route is None:
            body = b"<title>not found</title>"
            self.send_response(404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        body = route.get("body", "").encode("utf-8")
        self.send_response(route.get("status", 200))
        self.send_header("Content-Type", route.get("type", "text/html; charset=utf-8"))
        for name, value in route.get("headers", []):
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def multipart(self, parts):
        self.send_response(200)
        self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=" + BOUNDARY)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for index, part in enumerate(parts):
            if index > 0:
                NEXT.acquire()
            part_type = "text/html; charset=utf-8"
            if part.startswith("@@type="):
                first, _, part = part.partition("\n")
                part_type = first[len("@@type="):]
            data = part.encode("utf-8")
            chunk = ("--%s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
                     % (BOUNDARY, part_type, len(data))).encode("ascii") + data + b"\r\n"
            try:
                self.wfile.write(chunk)
                self.wfile.flush()
            except OSError:
                return
            sys.stdout.write("ok\n")
            sys.stdout.flush()
        try:
            # Keep the response open a little so the last part is shown as a part, then end it.
            self.wfile.write(("--%s--\r\n" % BOUNDARY).encode("ascii"))
            self.wfile.flush()
        except OSError:
            pass


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for line in sys.stdin:
        if line.strip() == "next":
            NEXT.release()
    server.shutdown()


if __name__ == "__main__":
    main()
