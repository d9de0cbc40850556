#!/usr/bin/env python3
"""Loopback HTTP server for BridgeKit's WebKitGTK cookie end-to-end tests (Python stdlib only).

Listens on 127.0.0.1 on a free port, prints "PORT <n>" on stdout, and serves until its stdin
closes (so it ends with the test process that started it). Paths:

  /echo            page showing the Cookie header it received (#cookie) and document.cookie
  /login           sets sid (HttpOnly) and user, then redirects (302) to /whoami
  /whoami          page saying "user:<name>" when the sid cookie is right, else "anonymous"
  /set?name=value  sets one plain cookie, shows the page
  /redirect?to=/x  302 redirect to /x
  /logout          expires sid and user, shows the page
  /foreign         sets x=1 with Domain=other.example (must be refused) and y=2 (accepted)
  /app/login       logs in the way Flask/Werkzeug and Python's SimpleCookie do: a session cookie
                   without Expires (HttpOnly, SameSite=Lax), values quoted with octal escapes,
                   Max-Age with Expires, a path-scoped cookie; then 302 to /app/whoami
  /app/whoami      "user:alice" when the app session cookie is right, else "anonymous"

Every page shows the Set-Cookie header values it sent in #sent (one per line), so a test can feed
exactly those to a cookie jar.
"""
import html
import http.server
import sys
import threading
import urllib.parse

SESSION = "s3cr3t"
APP_SESSION = "eyJ1c2VyIjoiYWxpY2UifQ.Zx9Q.sig-_"
# What Werkzeug 3.1 sends for set_cookie(name, value): values outside its token set are quoted,
# with a space kept and ',' ';' '"' '\\' and non-ASCII bytes as octal escapes.
APP_COOKIES = [
    "session=%s; HttpOnly; Path=/; SameSite=Lax" % APP_SESSION,
    'prefs="a b\\054c"; Path=/',
    'json="{\\"a\\": 1}"; Path=/',
    'semi="x\\073y"; Path=/',
    'city="Z\\303\\274rich"; Path=/',
    "remember=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Max-Age=3600; Path=/",
    "scoped=x; Path=/app/account",
]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        cookie_header = self.headers.get("Cookie", "")
        set_cookies = []
        status = 200
        headers = []
        title = url.path.strip("/") or "root"
        text = ""
        if url.path == "/login":
            set_cookies = ["sid=%s; Path=/; Max-Age=3600; HttpOnly" % SESSION, "user=alice; Path=/; Max-Age=3600"]
            status, headers = 302, [("Location", "/whoami")]
        elif url.path == "/whoami":
            cookies = dict(part.strip().split("=", 1) for part in cookie_header.split(";") if "=" in part)
            text = "user:" + cookies.get("user", "?") if cookies.get("sid") == SESSION else "anonymous"
        elif url.path == "/set":
            for name, values in sorted(query.items()):
                set_cookies.append("%s=%s; Path=/; Max-Age=3600" % (name, values[0]))
        elif url.path == "/redirect":
            status, headers = 302, [("Location", query.get("to", ["/echo"])[0])]
        elif url.path == "/logout":
            set_cookies = ["sid=; Path=/; Max-Age=0", "user=; Path=/; Max-Age=0"]
        elif url.path == "/app/login":
            set_cookies = list(APP_COOKIES)
            status, headers = 302, [("Location", "/app/whoami")]
        elif url.path == "/app/whoami":
            cookies = dict(part.strip().split("=", 1) for part in cookie_header.split(";") if "=" in part)
            text = "user:alice" if cookies.get("session") == APP_SESSION else "anonymous"
        elif url.path == "/foreign":
            set_cookies = ["x=1; Domain=other.example; Path=/; Max-Age=3600", "y=2; Path=/; Max-Age=3600"]
        elif url.path != "/echo":
            status, title = 404, "not found"
        body = (
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>%s</title></head><body>"
            "<pre id=\"cookie\">%s</pre><pre id=\"sent\">%s</pre><p id=\"text\">%s</p></body></html>"
            % (html.escape(title), html.escape(cookie_header), html.escape("\n".join(set_cookies)), html.escape(text))
        ).encode("utf-8")
        self.send_response(status)
        for value in set_cookies:
            self.send_header("Set-Cookie", value)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    sys.stdin.read()  # returns when the test closes our stdin (or exits)
    server.shutdown()


if __name__ == "__main__":
    main()
