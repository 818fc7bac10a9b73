"""The soundness tests import their programs and the CLI helpers by module name."""
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE), str(HERE.parent / "cli")]
