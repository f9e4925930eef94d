import sys

from agentls.cli.main import main

sys.exit(main())
