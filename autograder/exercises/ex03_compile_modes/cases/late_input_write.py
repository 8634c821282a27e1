# outcome: rejected | kind: cheat | checks: predict_correct | reason: modified its input | device: any
# Red team (2026, CPU, torch 2.13): keeps a reference to every x it is handed and writes into the caller's
# earlier batches (zeroes them) at the next call, after their own call has returned; each call itself is served
# as the reference serves, on a copy. The contract says x keeps its own values (the caller's x is not yours to
# change), but ctx.trials compares each input only right after its own call and then drops its pool, so a write
# that comes later is never seen. Observed with the CLI on this CPU: predict_correct PASSED (3/3), "matches the
# eager model on 5 batches". Low stakes (nothing is gained by it here), but it is an input modification the
# correctness check promises to catch; a caller that logs or re-reads its batch would see zeros.
# Red team (2026-11-27, CPU): keeps every x it is handed and zeroes the earlier ones at the next call, after their
# own calls returned: ctx.trials compared each input only right after its call. Fixed: after each call the trials
# compare every input shown so far (their pools stay shared until the last case).
_seen = []


def make_predict(model):
    def predict(x):
        for old in _seen:  # the caller's earlier batches, written after their calls returned
            old.zero_()
        _seen.append(x)
        return model(x.clone())
    return predict
