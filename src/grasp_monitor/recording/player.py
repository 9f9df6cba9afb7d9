"""Playing a recording back on its own clock, paced to a rate."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
import os
from typing import Callable

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.pacing import Pacer
from grasp_monitor.recording.reader import read_messages, read_topics, recording_start_ns
from grasp_monitor.recording.schemas import cdr_stamp_ns
from grasp_monitor.recording.writer import TopicSelection


#: A replay this late (wall s) starts pacing afresh from the late message.
MAX_LAG_S = 0.02


@dataclass(frozen=True)
class PlaybackConfig:
    """How a recording is played back.

    Attributes:
        selection: the topics played (the clock topic is played as the clock).
        rate: recorded seconds per wall second (0 = as fast as possible).
        loop: start again from the beginning at the end.
        clock_topic: the recorded clock, played as it is when recorded and selected.
        clock_period_ns: without a recorded clock, a clock is made from the log times
            with this period, ns (0 = none).
    """

    selection: TopicSelection = TopicSelection()
    rate: float = 1.0
    loop: bool = False
    clock_topic: str = '/clock'
    clock_period_ns: int = 10_000_000

    def __post_init__(self) -> None:
        if not 0 <= self.rate <= 1000:
            raise ConfigError(f'rate must be in [0, 1000] (0 = as fast as possible), '
                              f'got {self.rate}')
        if self.clock_period_ns < 0:
            raise ConfigError(f'clock_period_ns must be >= 0, got {self.clock_period_ns}')


class Player:
    """Plays a finished recording's messages as recorded, paced by log time on the wall clock.

    Messages go out in the order they were written, which is log-time order unless log
    time went back (a recording on simulated time across a reset): pacing then starts
    afresh from the message that went back, so each timeline plays as it ran. A made
    clock never goes back: it ticks again once log time passes its last tick.

    The clock is the recording's own clock topic when it has one (each message's stamp);
    otherwise one is made from the log times. Pausing and resuming are safe from other
    threads; pacing restarts from the current message on resume, and when playback falls
    more than ``MAX_LAG_S`` behind (counted in ``late``): a loaded machine slows it down
    instead of making it send a burst, so subscribers see the recorded spacing.

    Args:
        path: the MCAP file.
        config: what and how to play.
        publish: called with (topic, CDR bytes) for every message played, the recorded
            clock included.
        clock: called with the time (ns) of every made clock tick.

    Raises:
        ConfigError: not a finished recording, or a selection that matches no topic.
    """

    def __init__(self, path: str | os.PathLike, config: PlaybackConfig,
                 publish: Callable[[str, bytes], None],
                 clock: Callable[[int], None] | None = None) -> None:
        self.path = path
        self.config = config
        self.topics = read_topics(path)
        self.start_ns = recording_start_ns(path)
        selection = config.selection
        self.recorded_clock = config.clock_topic in self.topics and \
            config.clock_topic not in selection.exclude
        self.played = {t: info for t, info in self.topics.items()
                       if selection.wants(t) or self.recorded_clock
                       and t == config.clock_topic}
        if not self.played:
            raise ConfigError(f'no topic of {path} is selected; it has '
                              f'{", ".join(sorted(self.topics))}')
        self._publish = publish
        self._clock = clock
        self.counts: Counter[str] = Counter()
        self.clock_ns: int | None = None
        self.state = 'playing'
        self._pause_at_ns: int | None = None
        self.pacer = Pacer(config.rate, unit_s=1e-9)
        self.late = 0

    @property
    def paused(self) -> bool:
        """Whether playback is suspended."""
        return self.pacer.paused

    def set_paused(self, paused: bool) -> None:
        """Suspend or resume playback."""
        self.pacer.set_paused(paused)

    def pause_at(self, log_time_ns: int | None) -> None:
        """Pause before the first message logged after ``log_time_ns`` (None: never)."""
        self._pause_at_ns = log_time_ns

    def stop(self) -> None:
        """Make ``run`` return after the current message."""
        self.pacer.stop()

    def _wait(self, log_time_ns: int) -> bool:
        """Wait until a message is due or playback pauses/stops; True when it is due."""
        pacer = self.pacer
        while not pacer.stopped:
            pause_at = self._pause_at_ns
            if pause_at is not None and log_time_ns > pause_at:
                self._pause_at_ns = None
                self.set_paused(True)
            if pacer.paused:
                self.state = 'paused'
                pacer.sleep(0.01)
                continue
            self.state = 'playing'
            if pacer.rate == 0:
                return True
            delay = pacer.delay_s(log_time_ns)
            if delay < -MAX_LAG_S:  # late: slow down rather than bunch messages up
                pacer.rebase()
                self.late += 1
                continue
            if delay <= 0:
                return True
            pacer.sleep(min(delay, 0.01))
        return False

    def _play_once(self) -> bool:
        """Play the file once; False when stopped."""
        period = self.config.clock_period_ns if self._clock is not None else 0
        next_tick_ns: int | None = None
        last_ns: int | None = None
        self.clock_ns = None
        for message in read_messages(self.path, sorted(self.played), log_time_order=False):
            if last_ns is not None and message.log_time_ns < last_ns:
                self.pacer.rebase()  # a new timeline (a reset), not lateness
            last_ns = message.log_time_ns
            if not self.recorded_clock and period:
                next_tick_ns = message.log_time_ns if next_tick_ns is None else next_tick_ns
                while next_tick_ns <= message.log_time_ns:
                    if not self._wait(next_tick_ns):
                        return False
                    self._clock(next_tick_ns)
                    self.clock_ns = next_tick_ns
                    next_tick_ns += period
            if not self._wait(message.log_time_ns):
                return False
            self._publish(message.topic, message.data)
            self.counts[message.topic] += 1
            if self.recorded_clock and message.topic == self.config.clock_topic:
                self.clock_ns = cdr_stamp_ns(message.data)
        return True

    def run(self) -> None:
        """Play until the end (again and again with ``loop``) or ``stop()``."""
        while self._play_once() and self.config.loop and not self.pacer.stopped:
            self.pacer.rebase()
        self.state = 'stopped' if self.pacer.stopped else 'done'
