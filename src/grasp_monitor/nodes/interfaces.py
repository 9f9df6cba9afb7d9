"""Declared topics and services: one table per node, beside its parameters.

Plain data, read by the README reference without starting a node; a node test
starts each node and checks its publishers, subscriptions, services and clients
equal the table, so the documentation cannot drift from the code.
"""

from __future__ import annotations

from dataclasses import dataclass
import re

#: Kinds of endpoint, in the order the reference lists them.
KINDS = ('publishes', 'subscribes', 'service', 'calls', 'action')
#: The hidden services and topics of an action, ``<action>/_action/<part>``.
ACTION_PART = re.compile(r'(.+)/_action/(\w+)$')

#: QoS of each profile name: (reliability, durability, depth), as the README states it.
QOS = {
    'sensor': 'reliable (best effort with `qos.best_effort`), volatile, depth `qos.depth`',
    'events': 'reliable, transient local, depth 100',
    'verdicts': 'reliable, volatile, depth 100',
    'deep': 'reliable, volatile, depth 1000',
    'offered': "each topic's publishers' reliability and durability",
    'default': 'reliable, volatile, depth 10',
    'tf': 'reliable, volatile, depth 100 (as tf2 broadcasters and listeners)',
    'tf_static': 'reliable, transient local, depth 1 (as tf2 static broadcasters)',
    'latched': 'reliable, transient local, depth 1',
    'service': 'services default',
}

#: Endpoints every rclpy node has, left out of the tables.
STANDARD_TOPICS = ('/rosout', '/parameter_events')
STANDARD_SERVICES = ('describe_parameters', 'get_parameter_types', 'get_parameters',
                     'get_type_description', 'list_parameters', 'set_parameters',
                     'set_parameters_atomically')


@dataclass(frozen=True)
class Endpoint:
    """One topic or service of a node.

    Attributes:
        kind: ``publishes``, ``subscribes``, ``service`` (offered), ``calls`` (a client)
            or ``action`` (an action server).
        name: as the node creates it; ``<word>`` stands for one name segment taken from
            a parameter or the scene (``tactile/<pad>``); ``*`` for any topic.
        interface: its type, ``package/msg/Name``, ``package/srv/Name`` or
            ``package/action/Name``; ``*`` for any.
        qos: a key of ``QOS``.
        description: what flows, with units.
        when: a parameter that must be non-empty (or true) for the endpoint to exist;
            ``!name``: one that must be empty (or false).
    """

    kind: str
    name: str
    interface: str
    qos: str
    description: str
    when: str = ''

    def __post_init__(self) -> None:
        """Refuse an unknown kind or QoS name."""
        if self.kind not in KINDS:
            raise ValueError(f'kind {self.kind!r} is not one of {", ".join(KINDS)}')
        if self.qos not in QOS:
            raise ValueError(f'qos {self.qos!r} is not one of {", ".join(QOS)}')

    def pattern(self, namespace: str, node_name: str) -> re.Pattern:
        """Return a regular expression of the fully qualified names this endpoint takes."""
        if self.name == '*':
            return re.compile('/.+$')
        if self.name.startswith('/'):
            full = self.name
        elif self.name.startswith('~/'):
            full = f'{namespace.rstrip("/")}/{node_name}/{self.name[2:]}'
        else:
            full = f'{namespace.rstrip("/")}/{self.name}'
        parts = re.split(r'<\w+>', full)
        return re.compile('[^/]+'.join(re.escape(part) for part in parts) + '$')


def publishes(name: str, interface: str, qos: str, description: str,
              when: str = '') -> Endpoint:
    """Declare a publisher."""
    return Endpoint('publishes', name, interface, qos, description, when)


def subscribes(name: str, interface: str, qos: str, description: str,
               when: str = '') -> Endpoint:
    """Declare a subscription."""
    return Endpoint('subscribes', name, interface, qos, description, when)


def service(name: str, interface: str, description: str,
            when: str = '') -> Endpoint:
    """Declare a service the node offers."""
    return Endpoint('service', name, interface, 'service', description, when)


def calls(name: str, interface: str, description: str,
          when: str = '') -> Endpoint:
    """Declare a service the node calls."""
    return Endpoint('calls', name, interface, 'service', description, when)


def action(name: str, interface: str, description: str, when: str = '') -> Endpoint:
    """Declare an action the node serves."""
    return Endpoint('action', name, interface, 'service', description, when)


def diagnostics(description: str) -> Endpoint:
    """Declare the node's publisher of ``/diagnostics``."""
    return publishes('/diagnostics', 'diagnostic_msgs/msg/DiagnosticArray', 'default',
                     description)


def graph_endpoints(observer, name: str, namespace: str) -> set[tuple[str, str, str]]:
    """Return what the ROS graph shows of node ``namespace/name``, standard endpoints left out.

    Args:
        observer: an rclpy node that reads the graph (the node itself, or another).
        name: the observed node's name.
        namespace: its namespace.

    Returns:
        (kind, fully qualified name, type) of every endpoint, kind as in ``KINDS``; an
        action server's hidden services and topics are its one ``action`` endpoint.
    """
    graph = {
        'publishes': observer.get_publisher_names_and_types_by_node(name, namespace),
        'subscribes': observer.get_subscriber_names_and_types_by_node(name, namespace),
        'service': observer.get_service_names_and_types_by_node(name, namespace),
        'calls': observer.get_client_names_and_types_by_node(name, namespace),
    }
    prefix = f'{namespace.rstrip("/")}/{name}/'
    standard = set(STANDARD_TOPICS) | {prefix + service for service in STANDARD_SERVICES}
    found = set()
    for kind, pairs in graph.items():
        for topic, interfaces in pairs:
            for interface in interfaces:
                part = ACTION_PART.match(topic)
                if part is None and topic not in standard:
                    found.add((kind, topic, interface))
                elif part is not None and (kind, part[2]) == ('service', 'send_goal'):
                    found.add(('action', part[1], interface.removesuffix('_SendGoal')))
    return found


def declared_matches(declared, found: tuple[str, str, str], name: str,
                     namespace: str) -> list[Endpoint]:
    """Return the declarations that an endpoint ``found`` in the graph is an instance of."""
    kind, topic, interface = found
    matches = [d for d in declared if d.kind == kind and d.interface in (interface, '*')
               and d.pattern(namespace, name).match(topic)]
    return sorted(matches, key=lambda d: d.name == '*')  # the named declaration first


def compare(declared, found, name: str, namespace: str) -> tuple[list, list]:
    """Return (declared but not found, found but not declared) for node ``namespace/name``."""
    missing = [d for d in declared
               if not any(d in declared_matches(declared, f, name, namespace) for f in found)]
    extra = sorted(f for f in found if not declared_matches(declared, f, name, namespace))
    return missing, extra


def expected(declared, parameters: dict) -> list[Endpoint]:
    """Return the declarations a node creates with ``parameters`` (name: value)."""
    return [d for d in declared if not d.when or (
        not parameters[d.when[1:]] if d.when.startswith('!') else parameters[d.when])]
