#!/usr/bin/env python3
"""A TCP proxy to a PostgreSQL server that reports server_version as
13.14.0, as Freshet does, so that psql sends the catalog queries it would
send to Freshet and prints what a PostgreSQL with the same schema answers.

    version_proxy.py TARGET_PORT [VERSION]

Listens on 127.0.0.1 on a free port, prints that port on stdout, and serves
until killed. The client must not ask for SSL or GSS encryption
(PGSSLMODE=disable PGGSSENCMODE=disable), so that the server's byte stream is
plain protocol messages from the start.
"""
import socket
import struct
import sys
import threading


def pump_client(client, server):
    try:
        while True:
            data = client.recv(65536)
            if not data:
                break
            server.sendall(data)
    except OSError:
        pass
    finally:
        for s in (server,):
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass


def pump_server(server, client, version):
    buf = b""
    try:
        while True:
            data = server.recv(65536)
            if not data:
                break
            buf += data
            out = b""
            while len(buf) >= 5:
                length = struct.unpack(">I", buf[1:5])[0]
                if len(buf) < 1 + length:
                    break
                msg, buf = buf[: 1 + length], buf[1 + length :]
                if msg[:1] == b"S":
                    parts = msg[5:].split(b"\0")
                    if parts[0] == b"server_version":
                        body = b"server_version\0" + version + b"\0"
                        msg = b"S" + struct.pack(">I", len(body) + 4) + body
                out += msg
            if out:
                client.sendall(out)
    except OSError:
        pass
    finally:
        try:
            client.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def main():
    target = int(sys.argv[1])
    version = (sys.argv[2] if len(sys.argv) > 2 else "13.14.0").encode()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        server = socket.create_connection(("127.0.0.1", target))
        threading.Thread(target=pump_client, args=(client, server), daemon=True).start()
        threading.Thread(target=pump_server, args=(server, client, version), daemon=True).start()


if __name__ == "__main__":
    main()
