"""`python -m testkit.browser [FOLDER]`: write the board page's screenshots (docs/ by default) and name them."""

import sys
from pathlib import Path

from testkit.browser.screenshots import screenshots

for written_path in screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
    print(written_path)
