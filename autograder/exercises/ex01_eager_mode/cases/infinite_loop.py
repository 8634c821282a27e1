# outcome: rejected | checks: * | reason: timed out | device: any
# Never finishes loading.
while True:
    pass
