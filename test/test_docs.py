"""Documentation must be current, short at the front door, and linked without a dead end."""

from pathlib import Path
import re
import shlex

from grasp_monitor.app.reference import DOCUMENT, interfaces_markdown, markdown, write
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / 'README.md'
REFERENCE = ROOT / DOCUMENT
STALE = f'{DOCUMENT} is stale: run grasp-monitor reference --write {DOCUMENT}'
#: The README fits on a few screens; the rest lives in docs/.
README_MAX_LINES = 300
LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)\)')


def documents() -> list[Path]:
    """Return the README and every Markdown file in docs/."""
    return [README, *sorted((ROOT / 'docs').glob('*.md'))]


def prose(text: str) -> list[str]:
    """Return the lines of ``text`` outside fenced code, inline code removed."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith('```'):
            fenced = not fenced
        elif not fenced:
            lines.append(re.sub(r'`[^`]*`', '', line))
    return lines


def anchors(path: Path) -> set[str]:
    """Return the anchors GitHub gives the headings of ``path`` (``-1``, ``-2`` on repeats)."""
    found, repeats, fenced = set(), {}, False
    for line in path.read_text().splitlines():
        if line.lstrip().startswith('```'):
            fenced = not fenced
            continue
        heading = re.match(r'#{1,6} (.*)', line)
        if fenced or not heading:
            continue
        slug = re.sub(r'[^\w\- ]', '', heading[1].strip().lower()).replace(' ', '-')
        found.add(f'{slug}-{repeats[slug]}' if slug in repeats else slug)
        repeats[slug] = repeats.get(slug, 0) + 1
    return found


def links(path: Path) -> list[str]:
    """Return the relative link targets of ``path``, in order."""
    return [target for line in prose(path.read_text()) for target in LINK.findall(line)
            if not re.match(r'[a-z]+:', target)]


def test_reference_parameters_are_current():
    assert markdown() in REFERENCE.read_text(), STALE


def test_reference_topics_and_services_are_current():
    assert interfaces_markdown() in REFERENCE.read_text(), STALE


def test_readme_holds_no_generated_block():
    text = README.read_text()
    for block in (markdown(), interfaces_markdown()):
        assert block.splitlines()[0] not in text


def test_write_replaces_the_blocks_and_keeps_the_rest(tmp_path):
    document = tmp_path / 'reference.md'
    text = REFERENCE.read_text()
    edited = text.replace('| `scenario` | string', '| `scenario` | edited', 1)
    assert edited != text
    document.write_text(edited)
    assert write(document)
    assert document.read_text() == text
    assert not write(document)


def test_write_refuses_a_file_without_the_markers(tmp_path):
    document = tmp_path / 'reference.md'
    document.write_text('# no reference here\n')
    with pytest.raises(ValueError, match='has no block between'):
        write(document)


def test_readme_fits_its_budget():
    count = len(README.read_text().splitlines())
    assert count <= README_MAX_LINES, f'README.md has {count} lines; move sections to docs/'


def test_readme_links_every_doc():
    linked = {(ROOT / target.split('#')[0]).resolve() for target in links(README)}
    missing = [p.name for p in sorted((ROOT / 'docs').glob('*.md')) if p.resolve() not in linked]
    assert not missing, f'README.md does not link docs/{", docs/".join(missing)}'


def test_every_link_resolves():
    broken = []
    for path in documents():
        for target in links(path):
            file, _, anchor = target.partition('#')
            resolved = (path.parent / file).resolve() if file else path
            if not resolved.exists():
                broken.append(f'{path.relative_to(ROOT)}: {target} (no such file)')
            elif anchor and resolved.suffix == '.md' and anchor not in anchors(resolved):
                broken.append(f'{path.relative_to(ROOT)}: {target} (no such heading)')
    assert not broken, '\n'.join(broken)


def test_anchors_follow_github(tmp_path):
    page = tmp_path / 'page.md'
    page.write_text('# Record and replay: `recorder`, `replay`\n\n```bash\n# not a heading\n```\n'
                    '#### `grasp_monitor`\n## Lockstep and rates\n#### `grasp_monitor`\n')
    assert anchors(page) == {'record-and-replay-recorder-replay', 'grasp_monitor',
                             'lockstep-and-rates', 'grasp_monitor-1'}


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / '.ci' / 'run').read_text().splitlines()
    [command] = [shlex.split(line)[1:] for line in ci if line.startswith('exec ')]
    assert command == ['./run.sh', 'test']
    readme_commands = [shlex.split(line.split('#')[0]) for line in README.read_text().splitlines()
                       if line.startswith('./run.sh')]
    assert command in readme_commands
    assert ['./run.sh'] in readme_commands
