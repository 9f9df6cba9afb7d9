"""ROS 2 message definitions as MCAP's ``ros2msg`` schemas, found without ROS.

A schema is the type's ``.msg`` text followed by every type it uses, each after a line of
80 ``=`` and ``MSG: <package>/<Name>``, as rosbag2_storage_mcap writes it.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
import struct
import sys
from typing import Callable, Iterator

from grasp_monitor.core.errors import ConfigError


PROFILE = 'ros2'


SCHEMA_ENCODING = 'ros2msg'


MESSAGE_ENCODING = 'cdr'


SEPARATOR = '=' * 80


#: Field types that are not messages.
PRIMITIVES = frozenset((
    'bool', 'byte', 'char', 'float32', 'float64', 'int8', 'uint8', 'int16', 'uint16',
    'int32', 'uint32', 'int64', 'uint64', 'string', 'wstring'))


#: First-field types whose CDR starts with a builtin_interfaces/Time (sec, nanosec).
STAMPED_FIRST_FIELDS = frozenset(('std_msgs/Header', 'builtin_interfaces/Time'))


def split_type(type_name: str) -> tuple[str, str]:
    """Split ``pkg/msg/Name`` or ``pkg/Name`` into (package, Name).

    Raises:
        ConfigError: not a message type name.
    """
    parts = type_name.split('/')
    if len(parts) == 3 and parts[1] == 'msg' or len(parts) == 2:
        if all(parts):
            return parts[0], parts[-1]
    raise ConfigError(f'{type_name!r} is not a message type (package/msg/Name)')


def share_directories(package: str) -> Iterator[Path]:
    """Yield where ``package``'s share directory may be, most specific first.

    The ament index (``AMENT_PREFIX_PATH``), then the prefix the package's Python
    module is installed under (``<prefix>/lib/pythonX.Y/site-packages/<package>``), then
    this interpreter's prefix. The module is located, not imported.
    """
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        if prefix:
            yield Path(prefix) / 'share' / package
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            yield Path(location).parents[3] / 'share' / package
    yield Path(sys.prefix) / 'share' / package


def find_msg_file(type_name: str) -> Path:
    """Return the installed ``.msg`` file of a message type.

    Raises:
        ConfigError: no such file where the package is installed.
    """
    package, name = split_type(type_name)
    tried = []
    for share in share_directories(package):
        path = share / 'msg' / f'{name}.msg'
        if path.is_file():
            return path
        tried.append(str(path.parent))
    raise ConfigError(f'no definition of {package}/msg/{name}: {name}.msg is in none of '
                      f'{", ".join(dict.fromkeys(tried))}')


def field_types(text: str, package: str) -> list[str]:
    """Return the message types (``pkg/Name``) of the fields of a ``.msg`` text, in order.

    Constants and primitive fields are skipped; a bare ``Name`` is of ``package``.
    """
    types = []
    for line in text.splitlines():
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        # constants are of primitive types, so they drop out here too
        kind = line.split()[0].split('[', 1)[0].split('<=', 1)[0]
        if kind in PRIMITIVES:
            continue
        types.append(kind if '/' in kind else f'{package}/{kind}')
    return types


def message_definition(type_name: str,
                       read: Callable[[str], str] | None = None) -> str:
    """Return the ``ros2msg`` schema text of a message type, with all its dependencies.

    Args:
        type_name: ``pkg/msg/Name`` (or ``pkg/Name``).
        read: returns the ``.msg`` text of a ``pkg/Name``; default: the installed file.

    Raises:
        ConfigError: a definition that cannot be found.
    """
    def read_installed(name: str) -> str:
        return find_msg_file(name).read_text()

    read = read or read_installed
    package, name = split_type(type_name)
    root = f'{package}/{name}'
    texts = {root: read(root)}
    pending = [root]
    while pending:  # breadth first, each type once
        current = pending.pop(0)
        for dependency in field_types(texts[current], current.split('/')[0]):
            if dependency not in texts:
                texts[dependency] = read(dependency)
                pending.append(dependency)
    parts = [texts.pop(root).rstrip()]
    for dependency, text in texts.items():
        parts += [SEPARATOR, f'MSG: {dependency}', text.rstrip()]
    return '\n'.join(parts) + '\n'


def is_stamped(definition: str, package: str) -> bool:
    """Whether a type's first field is a header or a time, so its CDR starts with a stamp."""
    for line in definition.split(SEPARATOR, 1)[0].splitlines():
        line = line.split('#', 1)[0].strip()
        if line:
            kind = line.split()[0]
            return (kind if '/' in kind else f'{package}/{kind}') in STAMPED_FIRST_FIELDS
    return False


def cdr_stamp_ns(data: bytes) -> int | None:
    """Return the stamp a CDR message starts with, ns (None if too short)."""
    if len(data) < 12:
        return None
    order = '<' if data[1] & 1 else '>'  # encapsulation kind: odd is little endian
    sec, nanosec = struct.unpack(order + 'iI', data[4:12])
    return sec * 1_000_000_000 + nanosec
