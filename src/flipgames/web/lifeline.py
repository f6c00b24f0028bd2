"""Processes that end when their parent does.

``flipgames serve --workers N`` runs N uvicorn worker processes under one parent, and every
server process has AI worker processes (web/aipool.py). A parent killed with ``kill -9`` runs
no clean-up, so without a lifeline its children are orphaned: uvicorn workers would go on
serving (acknowledging moves) on the listening socket they inherited, and a restarted server
could not have the port. :func:`die_with_parent` gives a child two lifelines:

* on Linux, the kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``): the
  child is killed the moment its parent ends;
* everywhere, a watchdog thread that polls :func:`os.getppid` and ends the process once it
  has been handed to another parent (an orphan is re-parented to ``init`` or a subreaper).

An AI worker's parent is not its server but multiprocessing's fork server, which lives as
long as any worker it forked does (each holds the fork server's "alive" pipe): a worker in the
middle of a long move would keep both alive. Its lifeline is its pipe to the server instead:
:func:`die_with_peer` ends the process once the other end of that socket is closed, which
the kernel does when the server dies, however it dies.

Dying at once is safe: every action is committed before it is acknowledged, and a restarted
server continues every match.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import socket
import sys
import threading
import time

log = logging.getLogger(__name__)

#: ``prctl`` option: the signal this process gets when its parent ends (linux/prctl.h).
_PR_SET_PDEATHSIG = 1
#: How often the watchdog looks at the parent's process id.
POLL_SECONDS = 0.5
#: The exit status of a process that ended because its parent had.
ORPHANED = 3


def die_with_parent(parent: int | None = None) -> None:
    """End this process as soon as ``parent`` (default: the parent it has now) is gone.

    Pass ``parent`` when it is known from elsewhere (the server's process id in the
    environment), so a parent that died before this call is noticed too.
    """
    parent = os.getppid() if parent is None else parent
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError) as exc:  # no usable libc: the watchdog remains
            log.warning("no parent-death signal (%s); relying on the watchdog", exc)
    if os.getppid() != parent:
        os._exit(ORPHANED)
    watchdog = threading.Thread(
        target=_watch, args=(parent,), daemon=True, name="flipgames-lifeline"
    )
    watchdog.start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    # os._exit, not sys.exit: this is a helper thread, and the process must not wait for
    # anything (open sockets, a move being worked out) now that nobody runs it.
    os._exit(ORPHANED)


def die_with_peer(fileno: int) -> None:
    """End this process as soon as the other end of the connected socket ``fileno`` is
    closed. The watchdog only peeks: it never takes a message meant for the process."""
    link = socket.socket(fileno=os.dup(fileno))
    watchdog = threading.Thread(
        target=_watch_peer, args=(link,), daemon=True, name="flipgames-lifeline"
    )
    watchdog.start()


def _watch_peer(link: socket.socket) -> None:
    while True:
        try:
            if link.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                os._exit(ORPHANED)  # end of file: the server has gone
        except BlockingIOError:
            pass  # nothing to read: the server is there and waiting
        except OSError:
            os._exit(ORPHANED)  # the connection was reset: the server has gone
        time.sleep(POLL_SECONDS)
