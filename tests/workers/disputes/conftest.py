"""The dispute tests play the disputed round with the fraud matrix's network and dishonest nodes
(tests/workers/fraud) and run the jurors with the integration suite's node settings."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE.parent / "fraud", HERE.parent / "integration"):
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
