# outcome: rejected | kind: cheat | checks: * | reason: timed out | device: any
# Never finishes loading.
while True:
    pass
