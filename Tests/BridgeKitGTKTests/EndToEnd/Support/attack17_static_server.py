"""Attack 17: serves a directory (argv[1]) over HTTP on loopback, for comparing app:// with HTTP.

Prints "PORT <n>" once it listens; ends when its stdin closes.
"""
import functools
import http.server
import sys
import threading


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    handler = functools.partial(Handler, directory=sys.argv[1])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print("PORT", server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for _ in sys.stdin:
        pass
    server.shutdown()


main()
