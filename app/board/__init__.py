"""The board link: SSH transport (ssh.py), deploying the engine (deploy.py)
and encoding on the board (remote.py).

Every call here blocks and does network I/O: run it off the UI thread.
"""

from .ssh import (
    AuthFailed,
    BoardConnection,
    BoardError,
    Cancelled,
    CommandTimeout,
    ConnectionLost,
    HostKeyChanged,
    HostKeyUnknown,
    Profile,
    ProfileStore,
    RemoteCommandFailed,
    RemoteFileMissing,
    RunResult,
    Unreachable,
)

__all__ = [
    "AuthFailed",
    "BoardConnection",
    "BoardError",
    "Cancelled",
    "CommandTimeout",
    "ConnectionLost",
    "HostKeyChanged",
    "HostKeyUnknown",
    "Profile",
    "ProfileStore",
    "RemoteCommandFailed",
    "RemoteFileMissing",
    "RunResult",
    "Unreachable",
]
