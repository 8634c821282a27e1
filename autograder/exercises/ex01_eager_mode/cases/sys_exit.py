# outcome: rejected | kind: cheat | checks: * | reason: sys.exit | device: any
# Exits "successfully" before anything is checked (papermill would report success).
import sys

sys.exit(0)
