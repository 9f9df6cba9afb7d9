"""Declared parameters of the ``replay`` node."""

from grasp_monitor.core.settings import Setting

PARAMETERS = (
    Setting('path', '', 'MCAP file to play (written by recorder or ros2 bag).',
            read_only=True),
    Setting('topics', [''], "Topics to play (relative names resolve in the node's "
            "namespace); [''] = every recorded topic. A recorded /clock is the clock.",
            read_only=True),
    Setting('exclude', [''], "Topics never played ([''] = none); excluding /clock makes "
            'a clock from the log times.', read_only=True),
    Setting('rate', 1.0, 'Recorded seconds per wall second (0 = as fast as possible).',
            0.0, 1000.0, read_only=True),
    Setting('loop', False, 'Play again from the start at the end.', read_only=True),
    Setting('clock_rate', 100.0, '/clock rate made from the log times when the '
            'recording has no /clock, Hz (0 = no /clock).', 0.0, 10000.0, read_only=True),
    Setting('start_paused', False, 'Wait for ~/pause false before playing.',
            read_only=True),
    Setting('pause_at', -1.0, 'Pause before the first message logged later than this, s '
            'after the recording began (negative = never); may be set while playing.',
            -1.0, 1e9),
    Setting('exit_when_done', False, 'Exit (status 0) at the end instead of staying up.',
            read_only=True),
    Setting('depth', 1000, 'History depth of each volatile topic (at least the recorded '
            'one): messages kept for slow subscribers.', 1, 100000, read_only=True),
)
