# A test server for attack 14 (Attack14Tests): it listens on 127.0.0.1 to 127.0.0.9, one port for
# all, so pages of 127.0.0.N are separate cookie hosts.
#   /login   sets the HttpOnly session sid          /bomb    sets 50 HttpOnly cookies for its host
#   /echo    shows the Cookie header it got          /whoami  "user:alice" with the session, else "anonymous"
# Prints "PORT <n>" once it listens and ends when its stdin closes (PythonTestServer).
import http.server, sys, threading
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        cookies = self.headers.get("Cookie", "")
        sets = []
        text = ""
        if self.path.startswith("/login"):
            sets = ["sid=s3cr3t; Path=/; Max-Age=86400; HttpOnly"]
        elif self.path.startswith("/bomb"):
            sets = ["b%d=%s; Path=/; Max-Age=86400; HttpOnly" % (i, "v" * 20) for i in range(50)]
        elif self.path.startswith("/echo"):
            text = cookies
        elif self.path.startswith("/whoami"):
            text = "user:alice" if "sid=s3cr3t" in cookies else "anonymous"
        body = ("<!doctype html><title>t</title><p id=text>%s</p>" % text).encode()
        self.send_response(200)
        for v in sets: self.send_header("Set-Cookie", v)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)
servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)]
port = servers[0].server_address[1]
servers += [http.server.ThreadingHTTPServer(("127.0.0.%d" % n, port), H) for n in range(2, 10)]
for s in servers:
    s.daemon_threads = True
    threading.Thread(target=s.serve_forever, daemon=True).start()
print("PORT %d" % port, flush=True)
sys.stdin.read()
