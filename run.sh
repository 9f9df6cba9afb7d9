#!/usr/bin/env bash
# Set up grasp_monitor in a local virtual environment and run it.
#   ./run.sh               set up, then run the demo (grasp-monitor demo, default scenario)
#   ./run.sh --OPTION ...  set up, then run the demo with these options (--headless, ...)
#   ./run.sh CMD [args]    set up, then run grasp-monitor CMD (run, demo, benchmark, ...)
#   ./run.sh test [args]   set up with requirements/test.txt too (Ray), then build with colcon
#                          and run the whole test suite
#   ./run.sh bench [args]  set up as for test, then run every benchmark into benchmarks/RESULTS.md
# Environment: GRASP_MONITOR_DISTRO=jazzy|kilted (default jazzy), PYTHON (default python3.11).
set -euo pipefail
cd "$(dirname "$0")"
root=$PWD
distro=${GRASP_MONITOR_DISTRO:-jazzy}
venv=$root/.venv
requirements=requirements/$distro.txt
[ -f "$requirements" ] || { echo "unknown GRASP_MONITOR_DISTRO '$distro' (jazzy, kilted)" >&2; exit 2; }

setup() {
  # $1: an extra requirements file (the test set-up's).
  local extra=${1:-}
  local python=${PYTHON:-$(command -v python3.11 || command -v python3)}
  if [ ! -x "$venv/bin/python" ]; then
    if ! "$python" -m venv "$venv" 2>/dev/null; then
      rm -rf "$venv"
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        # Debian ships venv separately.
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        "$python" -m venv "$venv"
      else
        echo "python venv is missing: sudo apt-get install python3-venv" >&2; exit 2
      fi
    fi
  fi
  touch "$venv/COLCON_IGNORE"
  # Reinstall only when what we install changed, so a second run is fast.
  local stamp
  stamp=$(cat requirements/common.txt "$requirements" ${extra:+"$extra"} setup.py setup.cfg \
          package.xml | sha256sum | cut -c1-16)
  if [ "$(cat "$venv/.installed" 2>/dev/null)" != "$stamp" ]; then
    # This machine's pip may name local indexes that do not exist; their warnings are noise.
    "$venv/bin/python" -m pip install -q --upgrade pip 2> >(grep -v '^WARNING: Location' >&2)
    "$venv/bin/python" -m pip install -q -r "$requirements" ${extra:+-r "$extra"} -e . \
      2> >(grep -v '^WARNING: Location' >&2)
    echo "$stamp" > "$venv/.installed"
  fi
  generate_interfaces
}

generate_interfaces() {
  # Message packages without a wheel (tf2_msgs, control_msgs): build each one under
  # interfaces/ into the venv with the rosidl generators the requirements install, from the
  # standard definitions. Each is redone only when its definitions or a ROS wheel changed.
  local dir
  for dir in interfaces/*/; do
    [ -f "$dir/package.xml" ] && generate_interface "$(basename "$dir")"
  done
}

generate_interface() {
  # $1: the package, interfaces/$1.
  local package=$1 source=interfaces/$1
  local stamp
  stamp=$( (cat "$source/package.xml" "$source/CMakeLists.txt"
            find "$source" \( -name '*.msg' -o -name '*.srv' -o -name '*.action' \) \
              | LC_ALL=C sort | xargs cat
            ls "$venv"/lib/python3*/site-packages | grep '^ros_') | sha256sum | cut -c1-16)
  [ "$(cat "$venv/.$package" 2>/dev/null)" = "$stamp" ] && return
  # A ROS installation's package (sourced, so on PYTHONPATH) is the real one: use it.
  if "$venv/bin/python" - "$package" <<'PY' 2>/dev/null; then
import importlib.util, os, sys
spec = importlib.util.find_spec(sys.argv[1])
sys.exit(not spec or os.path.realpath(spec.origin).startswith(os.path.realpath(sys.prefix)))
PY
    return
  fi
  local headers
  headers=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  if [ ! -f "$headers/Python.h" ] || ! command -v c++ >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt-get update -qq && apt-get install -y -qq g++ python3-dev >/dev/null
    else
      echo "generating $package needs a C++ compiler and $headers/Python.h:" \
           "sudo apt-get install g++ python3-dev" >&2; exit 2
    fi
  fi
  local build=$venv/build/$package
  rm -rf "$build" && mkdir -p "$build"
  if ! (
    export PATH=$venv/bin:$PATH AMENT_PREFIX_PATH=$venv CMAKE_PREFIX_PATH=$venv
    cmake -S "$source" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DBUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX="$venv" -DPython3_EXECUTABLE="$venv/bin/python"
    cmake --build "$build" && cmake --install "$build"
  ) >"$build.log" 2>&1; then
    tail -n 30 "$build.log" >&2
    echo "generating $package failed; the whole log is $build.log" >&2; exit 1
  fi
  rm -rf "$build" "$build.log"
  echo "$stamp" > "$venv/.$package"
}

run_tests() {
  # The suite runs as ROS users run it: colcon build, then colcon test.
  local ws=$root/.build
  mkdir -p "$ws" && touch "$ws/COLCON_IGNORE"
  local common=(--paths "$root")
  (
    set +u  # colcon's and venv's setup scripts read unset variables
    source "$venv/bin/activate"
    colcon --log-base "$ws/log" build "${common[@]}" \
      --build-base "$ws/build" --install-base "$ws/install" >/dev/null
    source "$ws/install/setup.bash"
    colcon --log-base "$ws/log" test "${common[@]}" \
      --build-base "$ws/build" --install-base "$ws/install" \
      --event-handlers console_direct+ --return-code-on-test-failure \
      --pytest-args "$@"
  )
}

case "${1:-}" in
  test) shift; setup requirements/test.txt; run_tests "$@" ;;
  setup) setup ;;
  bench) shift; setup requirements/test.txt; exec "$venv/bin/python" benchmarks/run_all.py "$@" ;;
  -*) setup; exec "$venv/bin/grasp-monitor" demo "$@" ;;  # ./run.sh --headless, --duration ...
  *) setup; exec "$venv/bin/grasp-monitor" "${@:-demo}" ;;
esac
