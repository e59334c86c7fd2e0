"""Misbehaving peers for the client to survive, one TCP listener each on 127.0.0.1 (ports printed as JSON).

usage: fake_agents.py PORTS_FILE
Kinds: garbage (valid samples mixed with junk), oversized (a 200 KB line between samples), stall (one
sample, then silence with the socket open), midline (dies in the middle of a line), notagent (talks
HTTP), wrongtype (samples whose byte figures are strings).
"""

import json
import socket
import sys
import threading
import time

HELLO = {
    "type": "hello",
    "protocol": 1,
    "pid": 1,
    "host": "fake",
    "rank": 0,
    "world_size": 1,
    "backend": "cpu",
}


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def sample(i):
    return line({"type": "sample", "t": time.time_ns(), "step": i, "allocated": 1000 + i})


def garbage(c):
    c.sendall(line(HELLO))
    for i in range(1000):
        c.sendall(
            sample(i)
            + b"\x00\xff{{{not json\n"
            + b"[1,2]\n"
            + b'{"type":7}\n'
            + b'{"type":"from_the_future"}\n'
        )
        time.sleep(0.1)


def oversized(c):
    c.sendall(line(HELLO))
    for i in range(1000):
        c.sendall(sample(i))
        if i % 5 == 2:
            c.sendall(b'{"type":"note","x":"' + b"y" * 200_000 + b'"}\n')
        time.sleep(0.1)


def stall(c):
    c.sendall(line(HELLO) + sample(0))
    time.sleep(3600)


def midline(c):
    c.sendall(line(HELLO) + sample(0) + sample(1))
    time.sleep(0.3)
    c.sendall(b'{"type":"sample","t":12345,"allocat')
    c.close()


def notagent(c):
    c.recv(100) if False else None
    c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    time.sleep(0.5)


def wrongtype(c):
    c.sendall(line(HELLO))
    for i in range(1000):
        c.sendall(line({"type": "sample", "t": time.time_ns(), "allocated": "12 GB"}) + sample(i))
        time.sleep(0.1)


KINDS = [garbage, oversized, stall, midline, notagent, wrongtype]


def serve(sock, fn):
    while True:
        c, _ = sock.accept()
        threading.Thread(target=lambda: _guard(fn, c), daemon=True).start()


def _guard(fn, c):
    try:
        fn(c)
    except OSError:
        pass
    finally:
        try:
            c.close()
        except OSError:
            pass


def main():
    ports = {}
    for fn in KINDS:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        ports[fn.__name__] = s.getsockname()[1]
        threading.Thread(target=serve, args=(s, fn), daemon=True).start()
    with open(sys.argv[1] + ".tmp", "w") as f:
        json.dump(ports, f)
    import os

    os.replace(sys.argv[1] + ".tmp", sys.argv[1])
    time.sleep(3600)


if __name__ == "__main__":
    main()
