#!/usr/bin/env python3
"""Socket activation as systemd does it, for a daemon in a chroot: this process binds and listens
on SOCKET (a host path), then runs PROGRAM in ROOT with the listening socket as fd 3 and
LISTEN_FDS/LISTEN_PID set, and stays its parent. The socket's peer is this process, not the daemon.
A SIGTERM is passed on to the daemon; this process exits when it does.
Usage: socket_activate.py SOCKET ROOT PROGRAM [ARGS...]"""
import os
import signal
import socket
import sys

path, root, program, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[3:]
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
if os.path.exists(path):
    os.unlink(path)
listener.bind(path)
listener.listen(128)
child = os.fork()
if child == 0:
    os.dup2(listener.fileno(), 3)
    os.set_inheritable(3, True)
    os.environ["LISTEN_FDS"] = "1"
    os.environ["LISTEN_PID"] = str(os.getpid())
    os.chroot(root)
    os.chdir("/")
    os.execv(program, args)
for sig in (signal.SIGTERM, signal.SIGINT):
    signal.signal(sig, lambda number, frame: os.kill(child, number))
while True:
    try:
        _, status = os.waitpid(child, 0)
        break
    except InterruptedError:
        continue
sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else 1)
