"""The package's import graph: no cycle, layers import only downwards, nodes never each other.

Read from the source with ``ast``, every import counted (inside functions too), so a cycle
that only a late import hides still fails here. docs/architecture.md draws the layers.
"""

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / 'src'
PACKAGE = 'grasp_monitor'
#: Each layer and the layers it may import (besides itself). Top-level modules not listed
#: (cli, testing) may import any layer.
LAYERS = {
    'core': set(),
    'sim': {'core'},
    'hardware': {'core'},
    'recording': {'core'},
    'nodes': {'core', 'sim', 'hardware', 'recording'},
    'app': {'core', 'sim', 'hardware', 'recording', 'nodes'},
}
#: Import roots that mean ROS: rclpy and the message packages.
ROS_ROOTS = ('rclpy', 'rcl_interfaces', 'builtin_interfaces', 'launch', 'launch_ros')
ROS_SUFFIXES = ('_msgs', '_srvs')


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted((SOURCE / PACKAGE).rglob('*.py'))}


def _imports(name: str, path: Path) -> set[str]:
    """Every module ``name`` imports, absolute, as written (a name may be a module)."""
    package = name if path.name == '__init__.py' else name.rpartition('.')[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                anchor = package.split('.')
                anchor = anchor[:len(anchor) - node.level + 1]
                base = '.'.join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f'{base}.{alias.name}' for alias in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: {target for target in _imports(name, path) if target in modules
                   and target != name}
            for name, path in modules.items()}


def _layer(module: str) -> str:
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else ''


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_is_read():
    graph = _graph()
    assert f'{PACKAGE}.core' in graph and f'{PACKAGE}.nodes' in graph
    assert sum(len(targets) for targets in graph.values()) > 50


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_cycle_finder_finds_a_cycle():
    assert _cycles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}}) == [['a', 'b', 'c']]


def test_layers_import_only_downwards():
    upward = sorted(
        (module, target) for module, targets in _graph().items() for target in targets
        if _layer(module) in LAYERS and _layer(target) in LAYERS
        and _layer(target) != _layer(module) and _layer(target) not in LAYERS[_layer(module)])
    assert upward == []


@pytest.mark.parametrize('layer', ['core', 'sim', 'hardware', 'recording'])
def test_layer_imports_no_ros(layer):
    ros = sorted(
        (name, target) for name, path in _modules().items() if _layer(name) == layer
        for target in _imports(name, path)
        if target.split('.')[0] in ROS_ROOTS or target.split('.')[0].endswith(ROS_SUFFIXES))
    assert ros == []


def _defines_a_node(path: Path) -> bool:
    return any(isinstance(node, ast.ClassDef) and any(
        getattr(base, 'id', getattr(base, 'attr', '')) == 'Node' for base in node.bases)
        for node in ast.walk(ast.parse(path.read_text())))


def test_nodes_never_import_each_other():
    """A module that defines a node imports no other such module (composition modules may)."""
    modules, graph = _modules(), _graph()
    nodes = {name for name, path in modules.items() if _defines_a_node(path)}
    assert len(nodes) >= 5
    crossing = sorted((name, target) for name in nodes for target in graph[name]
                      if target in nodes)
    assert crossing == []
