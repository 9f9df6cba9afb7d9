"""The QoS and message types of the nodes' topics: one profile per kind of stream."""

from __future__ import annotations

import importlib

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.recording import split_type, TopicQos
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

#: grasp_monitor/events: reliable and transient local, so a late subscriber gets the trial.
EVENTS_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: grasp_monitor/verdicts: one per sample, none lost while the simulator waits for them.
VERDICTS_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
#: /tf and /tf_static as tf2 uses them: a static broadcaster's one message reaches late
#: listeners, which keep up to 100 (several broadcasters).
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
TF_STATIC_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: A table published once for every late subscriber (contacts/bodies).
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF_STATIC_LISTENER_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                                    durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: Every service: a burst of requests (and their responses) up to this deep is queued, not
#: dropped; the default depth 10 lost all but 10 of 40 concurrent calls.
SERVICE_QOS = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)


def sensor_qos(best_effort: bool, depth: int = 10) -> QoSProfile:
    """Return the QoS of sensor streams: reliable by default, best effort on request."""
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST, depth=depth,
        reliability=ReliabilityPolicy.BEST_EFFORT if best_effort
        else ReliabilityPolicy.RELIABLE)


def message_class(type_name: str) -> type:
    """Return the Python class of a message type ``pkg/msg/Name``.

    Raises:
        ConfigError: the type's package is not installed.
    """
    package, name = split_type(type_name)
    try:
        return getattr(importlib.import_module(f'{package}.msg'), name)
    except (ImportError, AttributeError) as error:
        raise ConfigError(f'message type {type_name} is not installed: {error}') from error


def qos_profile(qos: TopicQos, depth: int) -> QoSProfile:
    """Return the rclpy profile of a topic's QoS, keeping the last ``depth`` messages."""
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST, depth=depth,
        reliability=ReliabilityPolicy.RELIABLE if qos.reliable
        else ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if qos.transient_local
        else DurabilityPolicy.VOLATILE)
