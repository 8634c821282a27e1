# outcome: rejected | checks: * | reason: raised RuntimeError | device: any
# A cell that raises.
raise RuntimeError("my notebook is broken")
