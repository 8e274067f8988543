"""Build hook: `cards.toml` lives at the top of the repository (the design card's layout),
outside the `rules` package. A wheel (or a non-editable `pip install .`) gets a copy as
`rules/cards.toml`, where `rules.cards.DEFAULT_CARDS_PATH` finds it when the repository
copy is not there. Everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithCards(build_py):
    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / "rules" / "cards.toml"
            target.parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(ROOT / "cards.toml"), str(target))


setup(cmdclass={"build_py": BuildWithCards})
