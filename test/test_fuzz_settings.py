"""The fuzz tests' examples are the same whatever the tests before them imported.

Hypothesis draws constants from the source of imported modules that are not installed;
common.py turns that off, so a fuzz test draws the same examples in any order, from the
source tree or installed. Checked in a fresh interpreter: examples drawn, a module of ours
full of constants imported, the same examples drawn again.
"""

from pathlib import Path

from common import run_fresh_python

DRAW = """
import sys
sys.path[:0] = [{test_dir!r}, {module_dir!r}]
from common import fuzz_settings
from hypothesis import given, strategies as st


def examples():
    drawn = []

    @fuzz_settings(max_examples=100)
    @given(st.text(max_size=12), st.floats(), st.integers(-10**6, 10**6))
    def draw(text, number, integer):
        drawn.append(repr((text, number, integer)))

    draw()
    return drawn


before = examples()
import fuzz_constants  # noqa: E402, F401
after = examples()
print(len(before), sum(a != b for a, b in zip(before, after)))
"""


def test_examples_do_not_depend_on_the_modules_imported_before(tmp_path):
    (tmp_path / 'fuzz_constants.py').write_text(
        'NAMES = ' + repr(tuple(f'finger_{i}_link' for i in range(50))) + '\n'
        'STAMPS_S = ' + repr(tuple(i / 500 for i in range(1, 50))) + '\n'
        'IDS = ' + repr(tuple(range(1000, 1050))) + '\n')
    out = run_fresh_python(DRAW.format(test_dir=str(Path(__file__).parent),
                                       module_dir=str(tmp_path)))
    assert out.split() == ['100', '0'], 'examples drawn, then how many changed: ' + out
