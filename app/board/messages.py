"""Every sentence the board link can fail with (BoardError and the batch errors made of them), as
templates, and their translation: a sentence that matches a template is said with the translated
template, its values put back.

The board modules (ssh.py, remote.py, llamacpp.py, deploy.py, session.py) write their messages in
English with the values in place; each is listed in TEMPLATES with its values as named fields. Values
named in NESTED are sentences themselves (an OS error, a JSON error, another BoardError) and are
translated in turn; every other value (host names, paths, commands, exit codes, fingerprints, and the
board's own stderr, which follows on its own lines) is kept verbatim. A message is translated line by
line: the lines after the first are the remote command's output, as the board wrote it.

Does not: pick a language (the caller passes its translate function: the window's tr, the command
line's catalog), or translate a sentence no template matches (it is shown as written).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

# the sentence values, as the catalog's message() nests (not its {want}/{got}: here {got} is a byte count)
NESTED = ("reason", "what", "note")
LISTS = ("tried",)                      # values that are sentences joined by "; " (each translated)
MAX_DEPTH = 4

TEMPLATES: tuple[str, ...] = (
    # ssh.py: profiles
    "a board profile needs a name and a host: {profile}",
    "a board profile needs a name",
    "profile {name}: no host",
    "profile {name}: port {port} is not 1..65535",
    "profile {name}: no compiler command",
    "profile {name}: {setting} {value} is not a number of seconds",
    "cannot read board profiles {path}: {reason}",
    "{path} is not a board profile file: {reason}",
    # ssh.py: connecting and authenticating
    "cannot reach {where}: no answer within {seconds} s",
    "cannot reach {where}: {reason}",
    "no SSH server answered at {where} within {seconds} s (handshake: {reason})",
    "key file {path} does not exist",
    "cannot read key file {path}: {reason}",
    "key file {path} is encrypted and no passphrase was given",
    "cannot decrypt key file {path} (wrong passphrase?): {reason}",
    "the host key of {host} is not known: {kind} {fingerprint}. Accept it only if it is the board's own key (on the "
    "board: ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub)",
    "WARNING: the host key of {host} {what}: the server offers {kind} {fingerprint}, on record: {known}. Someone may "
    "be intercepting the connection, or the board was reinstalled; connection refused. Remove the old entry only if "
    "you know why",
    "{label}: connection closed during authentication: {reason}",
    "{label}: connection closed during authentication ({what}): {reason}",
    "{label} refused authentication: {tried} (server accepts: {methods})",
    # ssh.py _authenticate: what was tried (the items of {tried})
    "key {path} ({fingerprint}) refused",
    "agent key {fingerprint} refused",
    # ssh.py: commands, channels, SFTP
    "not connected to {label}",
    "the connection to {label} was lost; reconnect",
    "the connection to {label} failed to start a command: {reason}",
    "cancelled: {command}",
    "the board command sent nothing for {seconds} s and was stopped: {command}",
    "the board command did not finish within {seconds} s and was stopped: {command}",
    "the board command closed its output but did not exit within {seconds} s: {command}",
    "the connection to {label} was lost while running: {command}",
    "command exited with status {rc}: {command}",
    "{path} does not exist on the board",
    "{path} does not exist on {host}",
    "port {port} is not a TCP port (1-65535)",
    "{label}: cannot reach 127.0.0.1:{port} on the board ({reason}; is the service running, is TCP forwarding "
    "allowed?)",
    "the connection to {label} failed to open a channel: {reason}",
    "{label}: cannot start SFTP: {reason}",
    "{label}: cannot start SFTP",
    "the connection to {label} was lost during SFTP {op} {path}",
    "SFTP {op} {path} on {label} failed: {reason}",
    "{path} exists on {label} and is not a directory",
    "{path} on {label} has {size} bytes, more than the {limit} allowed",
    # remote.py: the batch and its output
    "cannot compute the sha256 of {path} on {label}: {notes}",
    "output line {line} is not {what}: {shown} ({reason})",
    "output line {line} is not {what}: {shown}",
    "ids inside the group of {pattern}",
    "{word} is not one",
    "keys: {keys}",
    "group {group} holds a non-integer",
    "{n} lines",
    # a JSON line that does not parse: Python's json module (CPython Lib/json/decoder.py, JSONDecodeError)
    "{reason}: line {line} column {column} (char {at})",
    "the board's tokenizer refused the text: {error}",
    "the command printed more results than the {n} texts sent (line {line}: {text})",
    "{reason} [{done} of {sent} results received before this]",
    "the command printed {done} results for {sent} texts: {command}",
    "the board's tokenizer file: {reason}",
    "uname failed: {output}",
    "{compiler} --version failed (exit {rc}): {output}",
    "cannot tell char signedness: {compiler} -dM -E failed: {output}",
    # llamacpp.py
    "{n} lines of the form [1, 2, 3] in {chars} characters",
    "{reason}; stderr: {stderr}",
    "cancelled after {done} of {n} texts",
    "bad chunk size {size}",
    "a chunk of {size} bytes runs past the end of the answer",
    "no HTTP header in the answer ({size} bytes: {head})",
    "not an HTTP status line: {line}",
    "bad Content-Length {value}",
    "the answer ended after {got} of {length} body bytes",
    "HTTP {status}: the body is not JSON ({reason}): {body}",
    "a token of the answer is not an id: {token}",
    "the answer is above {limit} bytes",
    "127.0.0.1:{port} on the board did not answer within {seconds} s",
    "the channel to 127.0.0.1:{port} broke: {reason}",
    # deploy.py
    "the engine's C sources are not installed ({path} is missing): reinstall tokinspect",
    "cannot parse the command {command}: {reason}",
    "the board has no C compiler {name} (profile setting 'compiler' is {compiler}; PATH on the board: {path})",
    "the board could not run the compiler {compiler}: {output}",
    "the build on {label} failed (exit {rc})",
    "tokcore was built but does not run on {label} (run prefix {prefix})",
    "program name {name}: use letters, digits, - and _",
    # session.py: notes of the file checks
    "the board's file is {size} bytes: not fetched for the entry comparison",
    "the board's vocab.bin does not load: {reason}",
    "the host tokenizer {name} has no file to compare with {path}",
    "{name} compiled as vocab.bin",
)

# whole sentences and words that appear as values or lines of their own
PHRASES: tuple[str, ...] = (
    "(no output)",
    "refused",
    "is REVOKED",
    "has CHANGED",
    "no ids from the board",
    "integers separated by spaces or commas",
    "a JSON list of ids",
    "expected [int, ...]",
    "a JSON line",
    'a JSON line with "ids"',
    "exactly one JSON line",
    "llama-tokenize --ids output",
    "Expecting value",
    "Extra data",
    "Expecting ',' delimiter",
    "Expecting ':' delimiter",
    "Expecting property name enclosed in double quotes",
    "Unterminated string starting at",
    "Invalid control character at",
    # the OS's words for a failed connection (strerror, as paramiko and socket give them)
    "Connection refused",
    "Connection reset by peer",
    "Connection timed out",
    "Network is unreachable",
    "No route to host",
    "Name or service not known",
    "Temporary failure in name resolution",
    "timed out",
    # paramiko 5.1.0 Transport._check_banner: no SSH banner in time ("..." + str(e), e empty)
    "Error reading SSH protocol banner",
    "password refused",
    "keyboard-interactive refused",
    "ssh-agent: no keys",
    "password: none given",
    "no usable method (no key file, no agent key, no password)",
    "nothing",
)

_FIELD = re.compile(r"\{(\w+)\}")


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each template as a regex, the most specific first: the longest literal start, then the
    longest literal text (as the command line's message() orders its catalog)."""
    out = []
    for t in TEMPLATES:
        parts, pos = [], 0
        for m in _FIELD.finditer(t):
            parts.append(re.escape(t[pos:m.start()]))
            parts.append(f"(?P<{m.group(1)}>.+?)")
            pos = m.end()
        parts.append(re.escape(t[pos:]))
        first = _FIELD.search(t)
        lead = first.start() if first else len(t)
        out.append(((-lead, -len(_FIELD.sub("", t))), re.compile("".join(parts), re.S), t))
    out.sort(key=lambda x: x[0])
    return tuple((rx, t) for _k, rx, t in out)


def template_of(line: str) -> tuple[str, dict[str, str]] | None:
    """The template one line of a board message is written from, and its values; None: no template."""
    for rx, t in _patterns():
        m = rx.fullmatch(line)
        if m is not None:
            return t, m.groupdict()
    return None


def _line(line: str, translate: Callable[[str], str], depth: int) -> str:
    if line in PHRASES:
        return translate(line)
    found = template_of(line) if depth <= MAX_DEPTH else None
    if found is None:
        return line
    t, values = found
    said = {k: "; ".join(_line(x, translate, depth + 1) for x in v.split("; ")) if k in LISTS
            else _line(v, translate, depth + 1) if k in NESTED or v in PHRASES else v for k, v in values.items()}
    return _FIELD.sub(lambda f: said.get(f.group(1), f.group(0)), translate(t))


def translate(text: str, translate: Callable[[str], str]) -> str:
    """A board message in another language, line by line (the lines of remote output unchanged)."""
    return "\n".join(_line(line, translate, 0) for line in text.split("\n"))
