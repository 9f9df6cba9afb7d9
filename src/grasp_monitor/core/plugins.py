"""Sensors and motors as plugins registered by type name (FARSA's scheme).

A type registers under a kind (``'sensor'`` or ``'motor'``) and a name, with
the parameters it takes described by ``Setting`` values (``core.settings``: name,
default, range or choices, description). A configuration mapping ``{'type': name,
parameter: value, ...}`` then creates an instance; every value is checked against its
spec first, so a typo or an out-of-range value fails at construction with
the valid choices listed.

Registering is one decorator on the factory::

    @register_plugin('sensor', 'thermometer', parameters=(
        Setting('rate_hz', 100.0, 'Sampling rate, Hz.', 1.0, 1000.0),),
        description='A temperature probe.')
    def make_thermometer(parameters, **context):
        return Thermometer(parameters['rate_hz'])

The factory receives the checked parameters (defaults filled in) and the
run-time objects the caller passes as keyword arguments (a model's geoms, a
servo bank...). Built-in types live in ``BUILTIN_MODULES`` and third-party
packages add theirs through the ``grasp_monitor.plugins`` entry-point group:
an entry point may name a ``PluginType``, a callable taking the registry, or
a module that registers on import. Both are loaded lazily, on the first
look-up; a broken entry point is logged and listed, never fatal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import entry_points
import inspect
import logging
from typing import Any, Callable, Iterable, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.settings import Setting

_log = logging.getLogger(__name__)

#: Kinds of plugin.
PLUGIN_KINDS = ('sensor', 'motor')
#: Entry-point group third-party packages register under.
ENTRY_POINT_GROUP = 'grasp_monitor.plugins'
#: Modules that register the built-in types when imported.
BUILTIN_MODULES = ('grasp_monitor.core.tactile.plugin', 'grasp_monitor.sim.sensors')
#: Key of a configuration mapping that names the type.
TYPE_KEY = 'type'

Factory = Callable[..., Any]


def _type_name(value: object) -> str:
    return type(value).__name__


@dataclass(frozen=True)
class PluginType:
    """A registered sensor or motor type.

    Attributes:
        kind: one of ``PLUGIN_KINDS``.
        name: type name configurations refer to.
        factory: ``factory(parameters: dict, **context) -> instance``.
        parameters: the parameters it takes, with unique names.
        description: one line saying what it is.
    """

    kind: str
    name: str
    factory: Factory
    parameters: tuple[Setting, ...] = ()
    description: str = ''

    def __post_init__(self) -> None:
        if self.kind not in PLUGIN_KINDS:
            raise ConfigError(
                f'plugin kind {self.kind!r} is not one of {", ".join(PLUGIN_KINDS)}')
        if not (isinstance(self.name, str) and self.name):
            raise ConfigError(f'plugin name must be a non-empty str, got {self.name!r}')
        if not callable(self.factory):
            raise ConfigError(f'factory of {self.kind} {self.name!r} is not callable')
        parameters = tuple(self.parameters)
        if not all(isinstance(p, Setting) for p in parameters):
            raise ConfigError(f'parameters of {self.kind} {self.name!r} must be Setting')
        for parameter in parameters:
            if not parameter.name.isidentifier() or parameter.name == TYPE_KEY or \
                    parameter.is_array:
                raise ConfigError(
                    f'parameter {parameter.name!r} of {self.kind} {self.name!r}: a plugin '
                    f'parameter is a scalar named by an identifier other than {TYPE_KEY!r}')
        names = [p.name for p in parameters]
        if len(set(names)) != len(names):
            raise ConfigError(f'parameter names of {self.kind} {self.name!r} repeat: {names}')
        object.__setattr__(self, 'parameters', parameters)

    @property
    def label(self) -> str:
        """``"<kind> '<name>'"``, as errors name it."""
        return f'{self.kind} {self.name!r}'

    def resolve(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Return every parameter's checked value, defaults filled in.

        Args:
            config: parameter values; a ``'type'`` key is ignored.

        Raises:
            ConfigError: unknown parameter, wrong type or out of range.
        """
        specs = {p.name: p for p in self.parameters}
        unknown = sorted(set(config) - set(specs) - {TYPE_KEY})
        if unknown:
            raise ConfigError(
                f'unknown parameter {unknown[0]!r} for {self.label}; valid parameters: '
                f'{", ".join(specs) or "(none)"}')
        return {name: spec.check(config[name], self.label) if name in config else spec.default
                for name, spec in specs.items()}

    def describe(self) -> str:
        """Several lines: the type, then one line per parameter."""
        head = f'{self.kind} {self.name}'
        lines = [head + (f': {self.description}' if self.description else '')]
        lines += [f'  {p.describe()}' for p in self.parameters] or ['  (no parameters)']
        return '\n'.join(lines)


@dataclass
class PluginRegistry:
    """Plugin types by kind and name, with lazy loading of built-ins and entry points.

    Args:
        group: entry-point group to load third-party types from ('' for none).
        builtin_modules: modules imported on first look-up (they register on
            import, on the default registry).
    """

    group: str = ENTRY_POINT_GROUP
    builtin_modules: tuple[str, ...] = ()
    _types: dict[tuple[str, str], PluginType] = field(default_factory=dict, init=False)
    _errors: list[str] = field(default_factory=list, init=False)
    _loaded: bool = field(default=False, init=False)

    def add(self, plugin: PluginType) -> PluginType:
        """Register ``plugin``; a kind and name taken already is a ConfigError."""
        key = (plugin.kind, plugin.name)
        if key in self._types and self._types[key] is not plugin:
            raise ConfigError(f'{plugin.label} is registered already')
        self._types[key] = plugin
        return plugin

    def register(self, kind: str, name: str, parameters: Iterable[Setting] = (),
                 description: str = '') -> Callable[[Factory], Factory]:
        """Return a decorator registering its factory as a type; the factory is unchanged."""
        def decorate(factory: Factory) -> Factory:
            self.add(PluginType(kind, name, factory, tuple(parameters), description))
            return factory
        return decorate

    def load(self) -> None:
        """Import the built-in modules and the entry points, once."""
        if self._loaded:
            return
        self._loaded = True
        for module in self.builtin_modules:
            import_module(module)
        if not self.group:
            return
        for point in entry_points(group=self.group):
            try:
                target = point.load()
                if isinstance(target, PluginType):
                    self.add(target)
                elif inspect.ismodule(target):
                    pass  # it registered itself on import
                elif callable(target):
                    target(self)
                else:
                    raise ConfigError(
                        f'{_type_name(target)} is not a PluginType, a callable or a module')
            except Exception as error:  # third-party code may raise anything
                message = f'{point.name} = {point.value}: {type(error).__name__}: {error}'
                self._errors.append(message)
                _log.warning('plugin entry point %s is broken and was skipped', message)

    @property
    def load_errors(self) -> tuple[str, ...]:
        """The entry points that failed to load, with their errors."""
        self.load()
        return tuple(self._errors)

    def types(self, kind: str | None = None) -> tuple[PluginType, ...]:
        """Return every registered type (of ``kind`` when given), by kind and name."""
        self.load()
        return tuple(self._types[key] for key in sorted(self._types)
                     if kind is None or key[0] == kind)

    def get(self, kind: str, name: str) -> PluginType:
        """Return the type ``name`` of ``kind``.

        Raises:
            ConfigError: unknown kind or name, listing the valid ones.
        """
        if kind not in PLUGIN_KINDS:
            raise ConfigError(f'plugin kind {kind!r} is not one of {", ".join(PLUGIN_KINDS)}')
        self.load()
        try:
            return self._types[(kind, name)]
        except KeyError:
            valid = ', '.join(p.name for p in self.types(kind)) or '(none)'
            raise ConfigError(f'unknown {kind} type {name!r}; valid {kind} types: {valid}') \
                from None

    def create(self, kind: str, config: Mapping[str, Any], **context: Any) -> Any:
        """Create an instance from ``{'type': name, parameter: value, ...}``.

        Args:
            kind: ``'sensor'`` or ``'motor'``.
            config: the type name under ``'type'`` and parameter values.
            **context: run-time objects passed to the factory as they are.

        Raises:
            ConfigError: missing or unknown type, unknown parameter, wrong
                type, out-of-range value, each listing what is valid.
        """
        if TYPE_KEY not in config:
            valid = ', '.join(p.name for p in self.types(kind)) or '(none)'
            raise ConfigError(f'a {kind} configuration needs a {TYPE_KEY!r}; valid: {valid}')
        plugin = self.get(kind, config[TYPE_KEY])
        return plugin.factory(plugin.resolve(config), **context)

    def describe(self) -> str:
        """Return every registered type with its parameters, then broken entry points."""
        blocks = [plugin.describe() for plugin in self.types()] or ['(no plugin types)']
        if self.load_errors:
            blocks.append('broken entry points (skipped):\n' + '\n'.join(
                f'  {message}' for message in self.load_errors))
        return '\n'.join(blocks)


#: The registry the package uses.
REGISTRY = PluginRegistry(ENTRY_POINT_GROUP, BUILTIN_MODULES)


def register_plugin(kind: str, name: str, parameters: Iterable[Setting] = (),
                    description: str = '') -> Callable[[Factory], Factory]:
    """Return a decorator registering a factory on the package registry.

    Args:
        kind: ``'sensor'`` or ``'motor'``.
        name: type name configurations will use.
        parameters: the parameters the type takes.
        description: one line saying what the type is.
    """
    return REGISTRY.register(kind, name, parameters, description)


def create_plugin(kind: str, config: Mapping[str, Any], **context: Any) -> Any:
    """Create an instance from a configuration mapping (see ``PluginRegistry.create``)."""
    return REGISTRY.create(kind, config, **context)


def describe_plugins() -> str:
    """Return every registered sensor and motor type with its parameters, as text."""
    return REGISTRY.describe()
