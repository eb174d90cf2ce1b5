"""Packaging (docs/design.md, the environment; Hub readiness): a wheel built from the repo carries everything needed
at run time, installs into a fresh virtual environment, and `load_environment()` works from
the installed wheel; under verifiers 0.4, `vf-validate` runs the gold and no-op checks of
the installed taskset.

The fresh venv sees the test venv's site-packages (verifiers and its dependencies, uv among
them) through a `.pth` line, which adds that folder to `sys.path` without running the folder's
own `.pth` files, so the checkout itself is not importable there: only the installed wheel is.
Under 0.4, a real `vf-eval` from that venv, with no `uv` on PATH and the venv not activated,
runs a rollout through the chat harness on the uv binary the package depends on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("verifiers")

from memory_arena.environment import verifiers_api  # noqa: E402
from memory_arena.tasks.schema import CATEGORIES  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.verifiers]

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(wheel path, python of a fresh venv with only the wheel installed from this project)."""
    tmp = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp / "dist")],
                   check=True, timeout=600)
    (wheel,) = (tmp / "dist").glob("memory_arena-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    fresh_site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                check=True, capture_output=True, text=True).stdout.strip()
    Path(fresh_site, "test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, timeout=600)
    return wheel, python, tmp


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PRIME_DISABLE_VERSION_CHECK"] = "1"
    return env


def _run_code(python: Path, tmp: Path, code: str) -> subprocess.CompletedProcess:
    """Run `code` with the venv's Python outside the checkout, so that it sees only the wheel."""
    return subprocess.run([str(python), "-c", code], cwd=tmp, env=_clean_env(), capture_output=True, text=True,
                          timeout=300)


def test_wheel_carries_runtime_files(installed):
    wheel, _, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for category in CATEGORIES:
        assert f"memory_arena/dataset/{category}.jsonl" in names
    for module in ("__init__", "environment", "memory_tools", "envs/core", "envs/classic", "envs/v1",
                   "envs/v1_harness", "envs/v1_tools", "tasks/schema", "verifier/scoring"):
        assert f"memory_arena/{module}.py" in names, module
    assert not any(n.startswith("tests/") for n in names)


def test_wheel_carries_pyproject_for_the_hub(installed):
    """The Hub reads the metadata, and the classic `vf-eval` its `[tool.verifiers.eval]`
    defaults, from `pyproject.toml` in the installed package's folder."""
    wheel, python, tmp = installed
    with zipfile.ZipFile(wheel) as zf:
        assert zf.read("memory_arena/pyproject.toml") == (ROOT / "pyproject.toml").read_bytes()
    code = (
        "import json, pathlib, tomllib, memory_arena\n"
        "data = tomllib.loads((pathlib.Path(memory_arena.__file__).parent / 'pyproject.toml').read_text())\n"
        "print(json.dumps([data['project']['name'], data['project']['tags'], data['tool']['verifiers']['eval']]))\n"
    )
    out = _run_code(python, tmp, code)
    assert out.returncode == 0, out.stderr[-3000:]
    name, tags, defaults = json.loads(out.stdout.strip().splitlines()[-1])
    assert name == "memory-arena" and "memory" in tags
    assert defaults == {"num_examples": 20, "rollouts_per_example": 1}
    if verifiers_api() == "classic":  # the installed vf-eval finds them there
        code = ("from verifiers.legacy.scripts.eval import get_env_eval_defaults\n"
                "print(get_env_eval_defaults('memory-arena'))\n")
        out = _run_code(python, tmp, code)
        assert out.stdout.strip().splitlines()[-1] == "{'num_examples': 20, 'rollouts_per_example': 1}", out.stderr


def test_load_environment_from_the_installed_wheel(installed):
    _, python, tmp = installed
    code = (
        "import memory_arena, pathlib\n"
        "from memory_arena import load_environment\n"
        "from memory_arena.tasks.schema import dataset_dir\n"
        "print(pathlib.Path(memory_arena.__file__).resolve())\n"
        "print(len(list(dataset_dir().glob('*.jsonl'))))\n"
        "env = load_environment(num_examples=3, memory_tool=True)\n"
        "rows = list(env.taskset) if hasattr(env, 'taskset') else env.get_eval_dataset()\n"
        "print(type(env).__name__, len(rows))\n"
    )
    out = _run_code(python, tmp, code)
    assert out.returncode == 0, out.stderr[-3000:]
    location, files, summary = out.stdout.strip().splitlines()[-3:]
    assert Path(location).is_relative_to(tmp / "venv"), location  # the wheel, not the checkout
    assert files == "5"
    assert summary == "MemoryArenaEnv 3"


@pytest.mark.skipif(verifiers_api() != "v1", reason="vf-validate is part of verifiers 0.4")
def test_vf_validate_gold_and_noop(installed):
    _, python, tmp = installed
    out_dir = tmp / "validate"
    cmd = [str(python), "-c", "import sys; from verifiers.v1.cli.validate import main; sys.exit(main())",
           "memory-arena", "--runtime.type", "subprocess", "-n", "10", "-o", str(out_dir)]
    out = subprocess.run(cmd, cwd=tmp, env=_clean_env(), capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, (out.stdout[-2000:], out.stderr[-2000:])
    (summary_file,) = out_dir.rglob("summary.json")
    summary = json.loads(summary_file.read_text())
    assert summary["total"] == 10
    assert summary["checks"]["gold"]["valid"] == 10, summary  # the canonical answer scores, stale values do not
    assert summary["checks"]["noop"]["valid"] == 10, summary  # an untouched task is not already rewarded
    rows = [json.loads(line) for line in next(out_dir.rglob("results.jsonl")).read_text().splitlines()]
    assert {row["name"] for row in rows} >= {"recall-0000", "update-0000", "relational-0001"}


def test_wheel_depends_on_uv(installed):
    wheel, _, _ = installed
    with zipfile.ZipFile(wheel) as zf:
        (metadata,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        requires = [line for line in zf.read(metadata).decode().splitlines() if line.startswith("Requires-Dist:")]
    assert any(line.split(":", 1)[1].strip().startswith("uv") for line in requires), requires


@pytest.mark.skipif(verifiers_api() != "v1", reason="the chat harness of verifiers 0.4 runs through uv")
def test_vf_eval_finds_uv_without_an_activated_venv(installed):
    """PATH has no uv (a plain system PATH, the venv not activated) and HOME is empty, so
    verifiers' fallback (`pip install --user uv`, or a download) would leave uv in
    HOME/.local/bin: it must not be needed."""
    sys.path.insert(0, str(ROOT / "tests"))
    from vf_eval_runner import KEY_VAR, ScriptedServer, script_entry

    from memory_arena.envs import core, vf_eval

    _, python, tmp = installed
    env = _clean_env()
    env.update(PATH=os.pathsep.join(p for p in ("/usr/bin", "/bin") if Path(p).is_dir()), HOME=str(tmp / "home"),
               **{KEY_VAR: "scripted-key"})
    (tmp / "home").mkdir(exist_ok=True)
    probe = subprocess.run(["sh", "-c", "command -v uv || true"], env=env, capture_output=True, text=True)
    assert probe.stdout.strip() == "", "this test needs a PATH without uv"
    tasks = core.select_tasks(core.make_settings(num_examples=1))
    with ScriptedServer(tmp / "server", [script_entry(tasks[0], "right")]) as server:
        cmd = vf_eval.command(server.url, "scripted", KEY_VAR, 1, {}, tmp / "out", vf_eval="vf-eval")
        cmd = [str(python), "-c", "import sys; from verifiers.v1.cli.eval.main import main; sys.exit(main())", *cmd[1:]]
        out = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, (out.stdout[-2000:], out.stderr[-2000:])
    (traces,) = (tmp / "out").rglob("traces.jsonl")
    [rollout] = [vf_eval.v1_rollout(json.loads(line)) for line in traces.read_text().splitlines()]
    assert rollout.errors == [] and rollout.reward == 1.0, rollout
    assert not (tmp / "home" / ".local" / "bin" / "uv").exists()  # verifiers did not install its own
