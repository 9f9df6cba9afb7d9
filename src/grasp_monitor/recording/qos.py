"""Each channel's ``offered_qos_profiles`` in rosbag2's YAML."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import yaml


#: rmw enum values of the QoS policies rosbag2 writes (and their short names).
RELIABILITY = {'reliable': 1, 'best_effort': 2}


DURABILITY = {'transient_local': 1, 'volatile': 2}


@dataclass(frozen=True)
class TopicQos:
    """The QoS a topic was offered with, as far as matching goes.

    Attributes:
        reliable: reliable (else best effort).
        transient_local: transient local durability (else volatile).
        depth: history depth (keep last).
    """

    reliable: bool = True
    transient_local: bool = False
    depth: int = 10

    def to_yaml(self) -> str:
        """Return rosbag2's ``offered_qos_profiles`` text (one profile; durations unset)."""
        unset = {'sec': 0, 'nsec': 0}
        return yaml.safe_dump([{
            'history': 1, 'depth': self.depth,
            'reliability': RELIABILITY['reliable' if self.reliable else 'best_effort'],
            'durability': DURABILITY['transient_local' if self.transient_local
                                     else 'volatile'],
            'deadline': unset, 'lifespan': unset, 'liveliness': 1,
            'liveliness_lease_duration': unset, 'avoid_ros_namespace_conventions': False,
        }], sort_keys=False)

    @classmethod
    def from_yaml(cls, text: str) -> 'TopicQos':
        """Read ``offered_qos_profiles`` (rmw integers or rosbag2's names); default if empty.

        With several publishers, the topic is reliable or transient local only if all were.
        """
        try:
            profiles = yaml.safe_load(text) or []
        except yaml.YAMLError:
            profiles = []
        if not isinstance(profiles, list) or not profiles:
            return cls()

        def value(profile: dict, key: str, names: dict[str, int]) -> int:
            raw = profile.get(key, 0)
            return names.get(str(raw).lower(), raw) if isinstance(raw, str) else raw

        return cls(
            reliable=all(value(p, 'reliability', RELIABILITY) != 2 for p in profiles),
            transient_local=all(value(p, 'durability', DURABILITY) == 1 for p in profiles),
            depth=max(int(p.get('depth', 0) or 0) for p in profiles) or 10)


def offered_qos(reliable: Iterable[bool], transient_local: Iterable[bool],
                depth: int = 10) -> TopicQos:
    """Return the QoS that matches every publisher of a topic, each given by its policies.

    A reliable subscription does not match a best-effort publisher, nor a transient-local
    one a volatile publisher, so either holds only if every publisher offers it.
    """
    reliable, transient_local = list(reliable), list(transient_local)
    return TopicQos(all(reliable), bool(transient_local) and all(transient_local), depth)
