"""Two copies: the proposing copy is taken from a checkpoint's adapter, replaced whole when it is taken again,
and due again once `every` solver updates have been committed since."""

from __future__ import annotations

from pathlib import Path

from spade.selfplay.generator import COPY_DIR, GeneratorCopy, refresh_due, take_copy


def _checkpoint(run_dir: Path, step: int, weights: bytes) -> str:
    adapter = run_dir / "checkpoints" / f"ckpt-{step:08d}" / "adapter"
    adapter.mkdir(parents=True)
    (adapter / "adapter_model.safetensors").write_bytes(weights)
    (adapter.parent / "optimizer.pt").write_bytes(b"not copied")
    return f"checkpoints/ckpt-{step:08d}"


def test_the_copy_holds_one_checkpoints_adapter_and_is_replaced_whole(tmp_path: Path) -> None:
    first = take_copy(tmp_path, _checkpoint(tmp_path, 0, b"base"), updates=0)
    held = tmp_path / COPY_DIR / "adapter" / "adapter_model.safetensors"
    assert first == GeneratorCopy("checkpoints/ckpt-00000000", 0) and held.read_bytes() == b"base"
    assert not (tmp_path / COPY_DIR / "optimizer.pt").exists()  # the weights alone
    (tmp_path / COPY_DIR / "adapter" / "stale.bin").write_bytes(b"x")
    second = take_copy(tmp_path, _checkpoint(tmp_path, 3, b"later"), updates=3)
    assert held.read_bytes() == b"later" and not (tmp_path / COPY_DIR / "adapter" / "stale.bin").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoints", COPY_DIR]  # no temporary left
    assert GeneratorCopy.from_dict(second.to_dict()) == second and GeneratorCopy.from_dict(None) is None


def test_the_copy_is_due_when_none_is_held_or_every_updates_have_passed() -> None:
    assert refresh_due(None, 0, 2)
    held = GeneratorCopy("checkpoints/ckpt-00000004", 4)
    assert not refresh_due(held, 4, 2) and not refresh_due(held, 5, 2) and refresh_due(held, 6, 2)
