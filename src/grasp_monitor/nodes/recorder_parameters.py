"""Declared parameters of the ``recorder`` node."""

from grasp_monitor.core.settings import Setting
from grasp_monitor.recording import COMPRESSION

PARAMETERS = (
    Setting('path', '', 'MCAP file to write ("" = recording_<UTC date and time>.mcap here).',
            read_only=True),
    Setting('topics', [''], "Topics to record (relative names resolve in the node's "
            "namespace); [''] = every topic of the graph, as its publishers appear.",
            read_only=True),
    Setting('exclude', [''], "Topics never recorded ([''] = none).", read_only=True),
    Setting('depth', 1000, 'History depth of each subscription: messages kept while the '
            'writer catches up.', 1, 100000, read_only=True),
    Setting('compression', 'zstd', 'Chunk compression.', choices=tuple(COMPRESSION),
            read_only=True),
    Setting('discovery_period', 0.1, 'How often new topics and publishers are looked '
            'for, s.', 0.01, 60.0, read_only=True),
)
