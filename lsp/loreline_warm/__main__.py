import sys

from loreline_warm.server import main

sys.exit(main())
